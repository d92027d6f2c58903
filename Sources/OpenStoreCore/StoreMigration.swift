import OpenPredicate

/// How the rows of a store of one schema become the rows of a store of another: for each
/// destination entity, the source entity whose rows it takes (if any), and for each of its
/// slots where the value comes from. OpenCoreData lowers an `NSMappingModel` into this when
/// every mapping is one a store can carry out in SQL (`SQLiteMigration`); object keys are kept,
/// so a row keeps its primary key and its relationships.
///
/// ```swift
/// // Book(title, pages) → Book(name ← title, pages as Integer 64, year = 2000)
/// StoreMigration(source: old, destination: new, entities: [
///     .init(sourceID: 1, values: [.attribute(slot: 0, kind: .string, fallback: nil),
///                                 .attribute(slot: 1, kind: .integer16, fallback: nil),
///                                 .constant(.integer(2000))]),
/// ])
/// ```
package struct StoreMigration: Sendable {
    /// Where one destination slot's value comes from.
    package enum Value: Sendable, Equatable {
        /// No value: the slot is empty (nil, or no members).
        case none
        /// The same value in every row: a new attribute's default.
        case constant(StoreValue)
        /// The source entity's attribute in `slot`, of `kind`, converted to the destination
        /// attribute's kind; an empty value becomes `fallback` when there is one (an attribute
        /// that became non-optional, with a default).
        case attribute(slot: Int, kind: AttributeKind, fallback: StoreValue?)
        /// The members of the source entity's relationship in `slot`.
        case relationship(slot: Int)
    }

    /// One destination entity.
    package struct Entity: Sendable {
        /// The source entity whose rows become this entity's rows; nil for a new entity.
        package let sourceID: Int?
        /// One per destination slot.
        package let values: [Value]

        package init(sourceID: Int?, values: [Value]) {
            self.sourceID = sourceID
            self.values = values
        }
    }

    package let source: StoreSchema
    package let destination: StoreSchema
    /// One per destination entity, at `id - 1`.
    package let entities: [Entity]

    package init(source: StoreSchema, destination: StoreSchema, entities: [Entity]) {
        self.source = source
        self.destination = destination
        self.entities = entities
    }

    /// The destination entity the rows of a source entity become, if any.
    package func destinationID(ofSource sourceID: Int) -> Int? {
        entities.firstIndex { $0.sourceID == sourceID }.map { $0 + 1 }
    }
}
