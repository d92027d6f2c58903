import CoreData

/// What differs between the model a store was written with and the model it is opened with,
/// entity by entity, and whether the store's tables show it: names, types, relationships,
/// inheritance, constraints and indexes do; optionality, defaults, validation, delete rules and
/// version hash modifiers don't.
struct ModelDifferences {
    struct Entry {
        let entity: String
        let text: String
        let changesLayout: Bool
    }

    private(set) var entries: [Entry] = []

    /// True when a difference changes the store's tables or columns.
    var changesLayout: Bool { entries.contains { $0.changesLayout } }

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
        var matched: Set<String> = []
        for entity in new.entities.sorted(by: { ($0.name ?? "") < ($1.name ?? "") }) {
            let name = entity.name ?? ""
            guard let source = Self.counterpart(name, entity.renamingIdentifier, in: old.entitiesByName) else {
                add(name, "added entity", layout: true)
                continue
            }
            matched.insert(source.name ?? "")
            if source.name != name { add(name, "renamed from \(source.name ?? "")", layout: true) }
            if source.superentity?.name != entity.superentity?.name {
                add(
                    name, "parent entity \(source.superentity?.name ?? "none") → \(entity.superentity?.name ?? "none")",
                    layout: true)
            }
            if source.isAbstract != entity.isAbstract {
                add(name, entity.isAbstract ? "now abstract" : "no longer abstract", layout: false)
            }
            if source.versionHashModifier != entity.versionHashModifier {
                add(name, "version hash modifier changed", layout: false)
            }
            if Self.constraints(source) != Self.constraints(entity) { add(name, "uniqueness constraints changed", layout: true) }
            if source.indexes.map(\.name) != entity.indexes.map(\.name) { add(name, "fetch indexes changed", layout: true) }
            compareProperties(of: name, old: source, new: entity)
        }
        for entity in old.entities where !matched.contains(entity.name ?? "") {
            add(entity.name ?? "", "removed entity", layout: true)
        }
    }

    private mutating func add(_ entity: String, _ text: String, layout: Bool) {
        entries.append(Entry(entity: entity, text: text, changesLayout: layout))
    }

    private static func counterpart<T>(_ name: String, _ renamingIdentifier: String?, in elements: [String: T]) -> T? {
        if let renamingIdentifier, !renamingIdentifier.isEmpty, let found = elements[renamingIdentifier] { return found }
        return elements[name]
    }

    private static func constraints(_ entity: NSEntityDescription) -> [[String]] {
        entity.uniquenessConstraints.map { group in group.map { ($0 as? NSPropertyDescription)?.name ?? "\($0)" } }
    }

    private mutating func compareProperties(of entity: String, old: NSEntityDescription, new: NSEntityDescription) {
        var matched: Set<String> = []
        for property in new.properties where !(property is NSFetchedPropertyDescription) {
            let kind = property is NSRelationshipDescription ? "relationship" : "attribute"
            guard let source = Self.counterpart(property.name, property.renamingIdentifier, in: old.propertiesByName) else {
                add(entity, "added \(kind) \(property.name)", layout: !property.isTransient)
                continue
            }
            matched.insert(source.name)
            let name = property.name
            if source.name != name { add(entity, "\(kind) \(name) renamed from \(source.name)", layout: true) }
            if source.isTransient != property.isTransient {
                add(entity, "\(name) \(property.isTransient ? "now transient" : "no longer transient")", layout: true)
            }
            if source.isOptional != property.isOptional {
                add(entity, "\(name) \(property.isOptional ? "now optional" : "now required")", layout: false)
            }
            if source.versionHashModifier != property.versionHashModifier {
                add(entity, "\(name) version hash modifier changed", layout: false)
            }
            switch (source, property) {
            case let (old as NSAttributeDescription, new as NSAttributeDescription):
                if old.attributeType != new.attributeType {
                    add(entity, "\(name) type \(old.attributeTypeName) → \(new.attributeTypeName)", layout: true)
                }
                if "\(old.defaultValue ?? "none")" != "\(new.defaultValue ?? "none")" {
                    add(entity, "\(name) default \(old.defaultValue ?? "none") → \(new.defaultValue ?? "none")", layout: false)
                }
                if old.validationPredicates.map(\.predicateFormat) != new.validationPredicates.map(\.predicateFormat) {
                    add(entity, "\(name) validation changed", layout: false)
                }
            case let (old as NSRelationshipDescription, new as NSRelationshipDescription):
                if old.destinationEntity?.name != new.destinationEntity?.name {
                    add(
                        entity, "\(name) destination \(old.destinationEntity?.name ?? "") → \(new.destinationEntity?.name ?? "")",
                        layout: true)
                }
                if old.isToMany != new.isToMany || old.isOrdered != new.isOrdered {
                    add(entity, "\(name) \(Self.cardinality(old)) → \(Self.cardinality(new))", layout: true)
                }
                if old.inverseRelationship?.name != new.inverseRelationship?.name {
                    add(entity, "\(name) inverse changed", layout: true)
                }
                if old.deleteRule != new.deleteRule { add(entity, "\(name) delete rule changed", layout: false) }
            default:
                add(entity, "\(name) is now a \(kind)", layout: true)
            }
        }
        for property in old.properties where !(property is NSFetchedPropertyDescription) && !matched.contains(property.name) {
            let kind = property is NSRelationshipDescription ? "relationship" : "attribute"
            add(entity, "removed \(kind) \(property.name)", layout: !property.isTransient)
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
