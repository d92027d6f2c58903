import OpenPredicate

/// The model as stores see it: entities by number, each with every property it has (inherited
/// ones first) in slot order. OpenCoreData lowers an `NSManagedObjectModel` into this once per
/// coordinator; stores never see model classes.
package struct StoreSchema: Sendable {
    /// The entities, `entities[i].id == i + 1` (entity numbers start at 1, as Apple's `Z_ENT`).
    package let entities: [EntitySchema]
    /// Entity numbers by entity name.
    package let entityIDsByName: [String: Int]

    package init(entities: [EntitySchema]) {
        self.entities = entities
        var byName: [String: Int] = [:]
        for entity in entities { byName[entity.name] = entity.id }
        entityIDsByName = byName
    }

    /// The entity with this number.
    package func entity(_ id: Int) -> EntitySchema { entities[id - 1] }

    /// The entity with this name, if the schema has one.
    package func entity(named name: String) -> EntitySchema? { entityIDsByName[name].map(entity) }

    /// The uniqueness constraints a row of an entity must keep: those the entity declares and
    /// those of every entity above it, as (declaring entity, slots), nearest first.
    package func uniquenessConstraints(applyingTo entityID: Int) -> [(entityID: Int, slots: [Int])] {
        var result: [(entityID: Int, slots: [Int])] = []
        var next: Int? = entityID
        while let id = next, entities.indices.contains(id - 1) {
            let entity = entity(id)
            result += entity.uniquenessConstraints.map { (id, $0) }
            next = entity.superID
        }
        return result
    }
}

/// One entity: its number, name, place in the hierarchy and properties.
package struct EntitySchema: Sendable {
    package let id: Int
    package let name: String
    package let isAbstract: Bool
    /// The super-entity's number, if any.
    package let superID: Int?
    /// This entity and every entity below it, by number (so a fetch with sub-entities matches
    /// rows whose entity is in this set).
    package let familyIDs: Set<Int>
    /// Every property, inherited ones first, in slot order; a row's `values[i]` belongs to
    /// `properties[i]`.
    package let properties: [PropertySchema]
    /// Slots by property name.
    package let slotsByName: [String: Int]
    /// The entity's name in an earlier model version (`NSEntityDescription.renamingIdentifier`),
    /// under which an existing store may still know it.
    package let renamingIdentifier: String?
    /// The uniqueness constraints this entity declares (inherited ones are its super-entity's),
    /// each as the slots whose values together must be unique among the rows of this entity
    /// and its sub-entities. Empty by default.
    package let uniquenessConstraints: [[Int]]
    /// The fetch indexes this entity declares (`NSFetchIndexDescription`). Empty by default.
    package let fetchIndexes: [FetchIndexSchema]

    package init(
        id: Int, name: String, isAbstract: Bool, superID: Int?, familyIDs: Set<Int>, properties: [PropertySchema],
        renamingIdentifier: String? = nil, uniquenessConstraints: [[Int]] = [], fetchIndexes: [FetchIndexSchema] = []
    ) {
        self.id = id
        self.name = name
        self.renamingIdentifier = renamingIdentifier
        self.isAbstract = isAbstract
        self.superID = superID
        self.familyIDs = familyIDs
        self.properties = properties
        self.uniquenessConstraints = uniquenessConstraints
        self.fetchIndexes = fetchIndexes
        var slots: [String: Int] = [:]
        for (slot, property) in properties.enumerated() { slots[property.name] = slot }
        slotsByName = slots
    }

    /// The property with this name, if the entity has one.
    package func property(named name: String) -> PropertySchema? { slotsByName[name].map { properties[$0] } }
}

/// A fetch index of an entity: its name, its kind and, in order, the slots it covers.
///
/// `@unchecked Sendable`: the partial index predicate is an immutable predicate object, only read.
package struct FetchIndexSchema: @unchecked Sendable, Equatable {
    /// How the index is built.
    package enum Kind: Sendable, Equatable {
        /// An ordinary (B-tree) index over the slots' columns.
        case binary
        /// An R-tree over the slots' (numeric) values, for range queries on several at once.
        case rTree
    }

    /// One indexed property.
    package struct Element: Sendable, Equatable {
        package let slot: Int
        package let ascending: Bool

        package init(slot: Int, ascending: Bool) {
            self.slot = slot
            self.ascending = ascending
        }
    }

    package let name: String
    package let kind: Kind
    package let elements: [Element]
    /// For a partial index, the rows it covers (`NSFetchIndexDescription.partialIndexPredicate`);
    /// nil for every row. **Default:** nil.
    package let condition: NSPredicate?

    package init(name: String, kind: Kind = .binary, elements: [Element], condition: NSPredicate? = nil) {
        self.name = name
        self.kind = kind
        self.elements = elements
        self.condition = condition
    }
}

/// One property of an entity, as stores see it.
package struct PropertySchema: Sendable {
    package enum Kind: Sendable, Equatable {
        case attribute(AttributeKind)
        /// A to-one relationship to the entity with this number.
        case toOne(destination: Int, inverse: String?)
        /// A to-many relationship to the entity with this number.
        case toMany(destination: Int, inverse: String?, ordered: Bool)
    }

    package let name: String
    package let kind: Kind
    package let isOptional: Bool
    /// Transient properties live only in objects: stores neither keep nor fetch by them.
    package let isTransient: Bool
    /// A derived attribute (`NSDerivedAttributeDescription`): the store computes its value (Apple's
    /// SQLite files keep it with triggers), so saves never write it over.
    package let isDerived: Bool
    /// An attribute whose value persistent history keeps when its row is deleted (the change's
    /// tombstone; `NSAttributeDescription.preservesValueInHistoryOnDeletion`). **Default:** false.
    package let preservesValueInHistoryOnDeletion: Bool
    /// A binary (or transformable) attribute whose values a store may keep outside its rows
    /// (`NSAttributeDescription.allowsExternalBinaryDataStorage`): the SQLite store keeps them in
    /// Apple's layout (`AppleExternalData`); the other stores keep plain bytes. **Default:** false.
    package let allowsExternalBinaryDataStorage: Bool

    package init(
        name: String, kind: Kind, isOptional: Bool = true, isTransient: Bool = false, isDerived: Bool = false,
        preservesValueInHistoryOnDeletion: Bool = false, allowsExternalBinaryDataStorage: Bool = false
    ) {
        self.name = name
        self.kind = kind
        self.isOptional = isOptional
        self.isTransient = isTransient
        self.isDerived = isDerived
        self.preservesValueInHistoryOnDeletion = preservesValueInHistoryOnDeletion
        self.allowsExternalBinaryDataStorage = allowsExternalBinaryDataStorage
    }
}

/// The attribute types, as stores keep their values.
///
/// Public only for `SQLRowDecoder`'s `decode` methods (see there): no product holds this module.
public enum AttributeKind: Sendable, Equatable {
    case integer16, integer32, integer64, decimal, double, float, string, boolean, date, binary, uuid, uri
    case transformable, objectID, undefined
}
