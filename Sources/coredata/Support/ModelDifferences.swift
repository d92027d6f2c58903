import CoreData

/// What differs between the model a store was written with and the model it is opened with,
/// entity by entity, for people to read. Entities and properties are matched as migration
/// matches them (the library's inference rules: renaming identifiers, then names), and whether
/// the store's tables show a difference is the library's answer too (`hasSameStoreLayout(as:)`:
/// Apple's layout of both models compared).
struct ModelDifferences {
    private var entries: [(entity: String, text: String)] = []

    /// True when the store's tables, columns or indexes differ between the two models.
    let changesLayout: Bool

    /// One line per entity: `Post: added attribute hide; removed attribute color`.
    var lines: [String] {
        var order: [String] = []
        var texts: [String: [String]] = [:]
        for entry in entries {
            if texts[entry.entity] == nil { order.append(entry.entity) }
            texts[entry.entity, default: []].append(entry.text)
        }
        return order.map { "\($0): \(texts[$0, default: []].joined(separator: "; "))" }
    }

    init(from old: NSManagedObjectModel, to new: NSManagedObjectModel) {
        changesLayout = !new.hasSameStoreLayout(as: old)
        var matched: Set<ObjectIdentifier> = []
        for entity in new.entities.sorted(by: { ($0.name ?? "") < ($1.name ?? "") }) {
            let name = entity.name ?? ""
            guard let source = new.sourceEntity(of: entity, in: old) else {
                add(name, "added entity")
                continue
            }
            matched.insert(ObjectIdentifier(source))
            if source.name != name { add(name, "renamed from \(source.name ?? "")") }
            if source.superentity?.name != entity.superentity?.name {
                add(name, "parent entity \(source.superentity?.name ?? "none") → \(entity.superentity?.name ?? "none")")
            }
            if source.isAbstract != entity.isAbstract { add(name, entity.isAbstract ? "now abstract" : "no longer abstract") }
            if source.versionHashModifier != entity.versionHashModifier { add(name, "version hash modifier changed") }
            if Self.constraints(source) != Self.constraints(entity) { add(name, "uniqueness constraints changed") }
            if source.indexes.map(\.name) != entity.indexes.map(\.name) { add(name, "fetch indexes changed") }
            compareProperties(of: name, old: source, new: entity)
        }
        for entity in old.entities where !matched.contains(ObjectIdentifier(entity)) {
            add(entity.name ?? "", "removed entity")
        }
    }

    private mutating func add(_ entity: String, _ text: String) {
        entries.append((entity, text))
    }

    private static func constraints(_ entity: NSEntityDescription) -> [[String]] {
        entity.uniquenessConstraints.map { group in group.map { ($0 as? NSPropertyDescription)?.name ?? "\($0)" } }
    }

    private mutating func compareProperties(of entity: String, old: NSEntityDescription, new: NSEntityDescription) {
        var matched: Set<String> = []
        for property in new.properties where !(property is NSFetchedPropertyDescription) && !property.isTransient {
            let kind = property is NSRelationshipDescription ? "relationship" : "attribute"
            guard let source = property.sourceProperty(in: old) else {
                add(entity, "added \(kind) \(property.name)")
                continue
            }
            matched.insert(source.name)
            let name = property.name
            if source.name != name { add(entity, "\(kind) \(name) renamed from \(source.name)") }
            if source.isOptional != property.isOptional {
                add(entity, "\(name) \(property.isOptional ? "now optional" : "now required")")
            }
            if source.versionHashModifier != property.versionHashModifier {
                add(entity, "\(name) version hash modifier changed")
            }
            switch (source, property) {
            case let (old as NSAttributeDescription, new as NSAttributeDescription):
                if old.attributeType != new.attributeType {
                    add(entity, "\(name) type \(old.attributeTypeName) → \(new.attributeTypeName)")
                }
                if "\(old.defaultValue ?? "none")" != "\(new.defaultValue ?? "none")" {
                    add(entity, "\(name) default \(old.defaultValue ?? "none") → \(new.defaultValue ?? "none")")
                }
                if old.validationPredicates.map(\.predicateFormat) != new.validationPredicates.map(\.predicateFormat) {
                    add(entity, "\(name) validation changed")
                }
            case let (old as NSRelationshipDescription, new as NSRelationshipDescription):
                if old.destinationEntity?.name != new.destinationEntity?.name {
                    add(
                        entity, "\(name) destination \(old.destinationEntity?.name ?? "") → \(new.destinationEntity?.name ?? "")")
                }
                if old.isToMany != new.isToMany || old.isOrdered != new.isOrdered {
                    add(entity, "\(name) \(Self.cardinality(old)) → \(Self.cardinality(new))")
                }
                if old.inverseRelationship?.name != new.inverseRelationship?.name {
                    add(entity, "\(name) inverse changed")
                }
                if old.deleteRule != new.deleteRule { add(entity, "\(name) delete rule changed") }
            default:
                add(entity, "\(name) is now a \(kind)")
            }
        }
        for property in old.properties
        where !(property is NSFetchedPropertyDescription) && !property.isTransient && !matched.contains(property.name) {
            let kind = property is NSRelationshipDescription ? "relationship" : "attribute"
            add(entity, "removed \(kind) \(property.name)")
        }
    }

    private static func cardinality(_ relationship: NSRelationshipDescription) -> String {
        relationship.isToMany ? (relationship.isOrdered ? "ordered to-many" : "to-many") : "to-one"
    }
}

extension NSAttributeDescription {
    /// The type as a model file names it (`Integer 16`, `String`).
    fileprivate var attributeTypeName: String {
        switch attributeType {
        case .integer16AttributeType: "Integer 16"
        case .integer32AttributeType: "Integer 32"
        case .integer64AttributeType: "Integer 64"
        case .decimalAttributeType: "Decimal"
        case .doubleAttributeType: "Double"
        case .floatAttributeType: "Float"
        case .stringAttributeType: "String"
        case .booleanAttributeType: "Boolean"
        case .dateAttributeType: "Date"
        case .binaryDataAttributeType: "Binary"
        case .UUIDAttributeType: "UUID"
        case .URIAttributeType: "URI"
        case .transformableAttributeType: "Transformable"
        case .objectIDAttributeType: "ObjectID"
        default: "Undefined"
        }
    }
}
