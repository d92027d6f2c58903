import OpenStoreCore

extension SQLiteRowStore {
    /// The members of a to-many relationship for many owners: one query per owner entity's
    /// relationship (the owners' primary keys bound as one JSON array), through the inverse
    /// column or the join table, in order for an ordered relationship and by `Z_PK` otherwise.
    package func members(of owners: [ObjectKey], slot: Int) throws -> [ObjectKey: [ObjectKey]] {
        let layout = file.layout
        var ownersByEntity: [Int: [Int64]] = [:]
        for owner in owners where layout.entities.indices.contains(owner.entityID - 1) {
            ownersByEntity[owner.entityID, default: []].append(owner.primaryKey)
        }
        var result: [ObjectKey: [ObjectKey]] = [:]
        try withLock {
            for (entityID, primaryKeys) in ownersByEntity.sorted(by: { $0.key < $1.key }) {
                let entity = layout.entities[entityID - 1]
                guard entity.slots.indices.contains(slot) else { continue }
                let decoder = SQLiteRowDecoder(layout: layout, table: entity.table, entities: [entityID])
                let list = "[" + primaryKeys.map(String.init).joined(separator: ",") + "]"
                let members = try decoder.members(of: entity.slots[slot], owners: list, connection: file.connection)
                for (owner, keys) in members { result[ObjectKey(entityID: entityID, primaryKey: owner)] = keys }
            }
        }
        return result
    }
}
