import OpenPredicate
import OpenStoreCore

extension InMemoryRowStore: TransferableRowStore {
    /// Every row (to-many members included, as the store keeps them) and each hierarchy's
    /// highest key, under its root entity's name.
    package func exportContents() throws -> StoreContents {
        withLock {
            var maxima: [String: Int64] = [:]
            for entity in schema.entities where entity.superID == nil {
                maxima[entity.name] = tables[layouts[entity.id - 1].table].maxPrimaryKey
            }
            let rows = tables.flatMap { table in table.rows.compactMap { $0 } }
            return StoreContents(rows: rows, keyMaxima: maxima)
        }
    }

    /// Takes the rows with their keys, and raises each hierarchy's highest key to the
    /// contents'. `storeUUID` is ignored: an in-memory store's UUID is its `identifier`.
    package func importContents(_ contents: StoreContents, storeUUID: String?, progress: (Int) -> Void) throws {
        try withLock {
            guard tables.allSatisfy({ $0.count == 0 }) else {
                throw InMemoryStoreError.operation("Can't copy a store into one that holds rows already; nothing was copied")
            }
            for row in contents.rows {
                guard layouts.indices.contains(row.key.entityID - 1) else {
                    throw InMemoryStoreError.operation("No entity numbered \(row.key.entityID) in the store's schema")
                }
            }
            for (done, row) in contents.rows.enumerated() {
                tables[layouts[row.key.entityID - 1].table].insert(row)
                if done & 255 == 255 { progress(done + 1) }
            }
            progress(contents.rows.count)
            for (name, maximum) in contents.keyMaxima {
                guard let entity = schema.entity(named: name) else { continue }
                let table = layouts[entity.id - 1].table
                tables[table].maxPrimaryKey = max(tables[table].maxPrimaryKey, maximum)
            }
        }
    }
}
