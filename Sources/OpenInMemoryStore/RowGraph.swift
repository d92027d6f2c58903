import OpenPredicate
import OpenStoreCore

/// The rows one fetch reads: the store's tables as they were when the fetch began (copies
/// taken under the store's lock, free until the store changes), the entity layouts, and the
/// first key a row view was asked for that its entity does not have.
///
/// One graph serves one fetch on one thread; the row views of that fetch point into it.
final class RowGraph {
    private(set) var tables: [RowTable]
    let layouts: [EntityLayout]
    /// The first key asked of a row whose entity has no such property (reported as an error
    /// after the evaluation that asked for it).
    private(set) var unknownKey: (key: String, entity: String)?

    init(tables: [RowTable], layouts: [EntityLayout]) {
        self.tables = tables
        self.layouts = layouts
    }

    /// Lets go of the tables once the fetch is done (see `InMemoryRowStore.withFetchSnapshot`).
    func letGoOfTables() {
        tables = []
    }

    /// The view of the row with `key`, or nil when there is none (it was deleted, or the key
    /// is of another entity).
    func view(for key: ObjectKey) -> RowView? {
        guard layouts.indices.contains(key.entityID - 1) else { return nil }
        let table = layouts[key.entityID - 1].table
        guard let position = tables[table].positions[key.primaryKey],
            tables[table].rows[position]?.key.entityID == key.entityID
        else { return nil }
        return RowView(graph: self, table: table, position: position)
    }

    /// The row with `key`, if it exists.
    func row(for key: ObjectKey) -> RowSnapshot? {
        guard layouts.indices.contains(key.entityID - 1) else { return nil }
        guard let row = tables[layouts[key.entityID - 1].table].row(primaryKey: key.primaryKey),
            row.key.entityID == key.entityID
        else { return nil }
        return row
    }

    /// Remembers the first unknown key.
    func noteUnknownKey(_ key: String, entity: String) {
        if unknownKey == nil { unknownKey = (key, entity) }
    }
}
