import OpenPredicate
import OpenStoreCore

/// Lowers a managed object model into the schema stores work with.
///
/// Entities are numbered as Apple's SQLite store numbers them in `Z_PRIMARYKEY` (observed in
/// every real store): hierarchy roots in name order, each followed by its sub-entities, depth
/// first, siblings in name order. A store that already has numbers (an existing SQLite file)
/// keeps its own. Each entity's slots are its persistent properties in `properties` order
/// (inherited first); fetched properties and expression descriptions have no slot, transient
/// ones do (marked) so that objects can keep them, but stores neither save nor fetch by them.
enum SchemaLowering {
    static func schema(for model: NSManagedObjectModel) -> StoreSchema {
        let ordered = numberedEntities(model)
        var ids: [ObjectIdentifier: Int] = [:]
        for (index, entity) in ordered.enumerated() { ids[ObjectIdentifier(entity)] = index + 1 }
        func id(of entity: NSEntityDescription?) -> Int? { entity.flatMap { ids[ObjectIdentifier($0)] } }

        let entities = ordered.enumerated().map { index, entity in
            var family: Set<Int> = []
            var pending = [entity]
            while let next = pending.popLast() {
                if let nextID = id(of: next) { family.insert(nextID) }
                pending += next.subentities
            }
            let properties = entity.properties.compactMap { property in lower(property, id: id) }
            return EntitySchema(
                id: index + 1, name: entity.name ?? "", isAbstract: entity.isAbstract, superID: id(of: entity.superentity),
                familyIDs: family, properties: properties, renamingIdentifier: entity.renamingIdentifier,
                uniquenessConstraints: uniquenessConstraints(of: entity, properties: properties),
                fetchIndexes: fetchIndexes(of: entity, properties: properties))
        }
        return StoreSchema(entities: entities)
    }

    /// The constraints an entity declares (not those it inherits), as slots. A group naming a
    /// property the entity lacks, or one that is not an attribute or a to-one relationship, or
    /// a transient one, is left out (it cannot be enforced by a store).
    private static func uniquenessConstraints(of entity: NSEntityDescription, properties: [PropertySchema]) -> [[Int]] {
        var slots: [String: Int] = [:]
        for (slot, property) in properties.enumerated() { slots[property.name] = slot }
        let inherited = Set(entity.superentity?.uniquenessConstraints.map { $0.map(constraintElementName) } ?? [])
        return entity.uniquenessConstraints.compactMap { group -> [Int]? in
            let names = group.map(constraintElementName)
            guard !names.isEmpty, !inherited.contains(names) else { return nil }
            let groupSlots = names.compactMap { slots[$0] }
            guard groupSlots.count == names.count,
                groupSlots.allSatisfy({ slot in
                    switch properties[slot].kind {
                    case .attribute, .toOne: !properties[slot].isTransient
                    case .toMany: false
                    }
                })
            else { return nil }
            return groupSlots
        }
    }

    /// The fetch indexes an entity declares, as slots. An index whose elements are all R-tree
    /// elements is an R-tree over numeric attributes; a partial index keeps its predicate.
    /// Indexes a store cannot build are left out: elements naming a property without a column
    /// (transient, to-many, unknown), R-tree elements mixed with binary ones or naming a
    /// non-numeric property.
    private static func fetchIndexes(of entity: NSEntityDescription, properties: [PropertySchema]) -> [FetchIndexSchema] {
        var slots: [String: Int] = [:]
        for (slot, property) in properties.enumerated() { slots[property.name] = slot }
        return entity.indexes.compactMap { index -> FetchIndexSchema? in
            guard !index.elements.isEmpty else { return nil }
            let isRTree = index.elements.allSatisfy { $0.collationType == .rTree }
            var elements: [FetchIndexSchema.Element] = []
            for element in index.elements {
                guard element.collationType == (isRTree ? .rTree : .binary), let name = element.propertyName,
                    let slot = slots[name], !properties[slot].isTransient
                else { return nil }
                switch properties[slot].kind {
                case .toMany: return nil
                case .toOne where isRTree: return nil
                case .attribute(let kind) where isRTree && !rTreeKinds.contains(kind): return nil
                default: break
                }
                elements.append(FetchIndexSchema.Element(slot: slot, ascending: element.isAscending))
            }
            return FetchIndexSchema(
                name: index.name, kind: isRTree ? .rTree : .binary, elements: elements, condition: index.partialIndexPredicate)
        }
    }

    /// The attribute kinds an R-tree element can index: numbers and dates.
    private static let rTreeKinds: [AttributeKind] = [.integer16, .integer32, .integer64, .double, .float, .decimal, .date]

    /// A constraint element's property name: the name itself, or a property description's.
    private static func constraintElementName(_ element: Any) -> String {
        (element as? NSPropertyDescription)?.name ?? (element as? String) ?? "\(element)"
    }

    /// The model's entities in Apple's numbering order.
    static func numberedEntities(_ model: NSManagedObjectModel) -> [NSEntityDescription] {
        func byName(_ entities: [NSEntityDescription]) -> [NSEntityDescription] {
            entities.sorted { ($0.name ?? "") < ($1.name ?? "") }
        }
        var ordered: [NSEntityDescription] = []
        func visit(_ entity: NSEntityDescription) {
            ordered.append(entity)
            for sub in byName(entity.subentities) { visit(sub) }
        }
        for root in byName(model.entities.filter { $0.superentity == nil }) { visit(root) }
        return ordered
    }

    private static func lower(_ property: NSPropertyDescription, id: (NSEntityDescription?) -> Int?) -> PropertySchema? {
        let kind: PropertySchema.Kind
        switch property {
        case is NSFetchedPropertyDescription, is NSExpressionDescription:
            return nil
        case let attribute as NSAttributeDescription:
            kind = .attribute(attributeKind(attribute.attributeType))
        case let relationship as NSRelationshipDescription:
            guard let destination = id(relationship.destinationEntity) else { return nil }
            let inverse = relationship.inverseRelationship?.name
            kind =
                relationship.isToMany
                ? .toMany(destination: destination, inverse: inverse, ordered: relationship.isOrdered)
                : .toOne(destination: destination, inverse: inverse)
        default:
            return nil
        }
        return PropertySchema(
            name: property.name, kind: kind, isOptional: property.isOptional, isTransient: property.isTransient,
            isDerived: property is NSDerivedAttributeDescription,
            preservesValueInHistoryOnDeletion: (property as? NSAttributeDescription)?.preservesValueInHistoryOnDeletion ?? false,
            allowsExternalBinaryDataStorage: (property as? NSAttributeDescription)?.allowsExternalBinaryDataStorage ?? false)
    }

    static func attributeKind(_ type: NSAttributeType) -> AttributeKind {
        switch type {
        case .integer16AttributeType: return .integer16
        case .integer32AttributeType: return .integer32
        case .integer64AttributeType: return .integer64
        case .decimalAttributeType: return .decimal
        case .doubleAttributeType: return .double
        case .floatAttributeType: return .float
        case .stringAttributeType: return .string
        case .booleanAttributeType: return .boolean
        case .dateAttributeType: return .date
        case .binaryDataAttributeType: return .binary
        case .UUIDAttributeType: return .uuid
        case .URIAttributeType: return .uri
        case .transformableAttributeType: return .transformable
        case .objectIDAttributeType: return .objectID
        case .undefinedAttributeType, .compositeAttributeType: return .undefined
        }
    }
}
