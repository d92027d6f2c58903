import OpenPredicate
import OpenStoreCore

/// What the store needs to know about one entity on its hot paths, worked out once from the
/// schema: the kind of each slot, slots by name, and which table holds its rows.
final class EntityLayout {
    /// What a slot holds, as the row views read it.
    enum Slot: Equatable {
        case attribute(AttributeKind)
        case toOne(destination: Int)
        case toMany(destination: Int)
    }

    let id: Int
    let name: String
    let isAbstract: Bool
    /// The index in the store's tables: the hierarchy root's number minus one.
    let table: Int
    /// This entity and every entity below it.
    let familyIDs: Set<Int>
    let slots: [Slot]
    let slotsByName: [String: Int]
    let propertyNames: [String]

    init(_ entity: EntitySchema, schema: StoreSchema) {
        id = entity.id
        name = entity.name
        isAbstract = entity.isAbstract
        // Up to the root; a malformed schema with a cycle stops after as many steps as entities.
        var root = entity
        for _ in schema.entities.indices {
            guard let superID = root.superID, schema.entities.indices.contains(superID - 1) else { break }
            root = schema.entity(superID)
        }
        table = root.id - 1
        familyIDs = entity.familyIDs
        slots = entity.properties.map { property in
            switch property.kind {
            case .attribute(let kind): .attribute(kind)
            case .toOne(let destination, _): .toOne(destination: destination)
            case .toMany(let destination, _, _): .toMany(destination: destination)
            }
        }
        slotsByName = entity.slotsByName
        propertyNames = entity.properties.map(\.name)
    }

    /// The layouts of every entity of `schema`, indexed by entity number minus one.
    static func layouts(for schema: StoreSchema) -> [EntityLayout] {
        schema.entities.map { EntityLayout($0, schema: schema) }
    }
}
