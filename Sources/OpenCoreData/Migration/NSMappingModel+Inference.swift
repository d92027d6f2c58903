import OpenPredicate
import OpenSQLStore
import OpenStoreCore

extension NSMappingModel {
    /// The mapping lightweight migration infers between two model versions, by Apple's rules.
    ///
    /// ```swift
    /// let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: v1, destinationModel: v2)
    /// mapping.entityMappingsByName["PostToPost"]?.attributeMappings?.map(\.name)   // ["date", "hexColor", "postID"]
    /// ```
    ///
    /// - A destination entity or property takes the source entity or property whose canonical
    ///   name (its `renamingIdentifier`, or else its name) equals its own canonical name, or
    ///   else the one *named* by its canonical name: set a renamed element's renaming identifier
    ///   to its old name. A destination element with no source is new (an `add` entity mapping,
    ///   a property mapping without a value expression); a source entity with no destination is
    ///   removed (a `remove` mapping).
    /// - Attributes may change optionality (an attribute that becomes required takes its default
    ///   where a row has no value) and type where the value converts: numbers, Booleans and
    ///   strings among themselves, dates and numbers, URIs and strings.
    /// - Relationships may change cardinality (to-one ↔ to-many), ordering and inverse, as long
    ///   as their destination is the same entity (or one of its family) in both versions.
    /// - The inheritance tree may change (new parents, entities moved in or out of a
    ///   hierarchy), except that entities of two source hierarchies can't share a hierarchy in
    ///   the destination.
    ///
    /// See [inferredMappingModel(forSourceModel:destinationModel:)](https://developer.apple.com/documentation/coredata/nsmappingmodel/inferredmappingmodel(forsourcemodel:destinationmodel:)).
    ///
    /// - Throws: `NSInferredMappingModelError` (134190) whose message, and `userInfo["entity"]`
    ///   and `userInfo["property"]`, name what can't be inferred and why.
    public class func inferredMappingModel(
        forSourceModel sourceModel: NSManagedObjectModel, destinationModel: NSManagedObjectModel
    ) throws -> NSMappingModel {
        try MappingInference(source: sourceModel, destination: destinationModel).mappingModel()
    }
}

/// Apple's inference rules (`NSMappingModel.inferredMappingModel`).
struct MappingInference {
    let source: NSManagedObjectModel
    let destination: NSManagedObjectModel

    static func canonicalName(_ name: String?, _ renamingIdentifier: String?) -> String? {
        renamingIdentifier.flatMap { $0.isEmpty ? nil : $0 } ?? name
    }

    /// The source entity a destination entity comes from.
    func sourceEntity(for entity: NSEntityDescription) -> NSEntityDescription? {
        guard let key = Self.canonicalName(entity.name, entity.renamingIdentifier) else { return nil }
        return source.entities.first { Self.canonicalName($0.name, $0.renamingIdentifier) == key }
            ?? source.entitiesByName[key]
    }

    /// The source property a destination property comes from.
    static func sourceProperty(for property: NSPropertyDescription, in entity: NSEntityDescription)
        -> NSPropertyDescription?
    {
        let key = canonicalName(property.name, property.renamingIdentifier)
        let candidates = entity.properties.filter { !$0.isTransient && !($0 is NSFetchedPropertyDescription) }
        return candidates.first { canonicalName($0.name, $0.renamingIdentifier) == key }
            ?? candidates.first { $0.name == key }
    }

    func failure(_ reason: String, entity: String?, property: String? = nil) -> NSError {
        var info: [String: Any] = [:]
        if let entity { info["entity"] = entity }
        if let property { info["property"] = property }
        return CoreDataError.make(
            code: NSInferredMappingModelError, reason: "Can't infer a mapping model: \(reason)", userInfo: info)
    }

    func mappingModel() throws -> NSMappingModel {
        var pairs: [(destination: NSEntityDescription, source: NSEntityDescription?)] = []
        var used: Set<ObjectIdentifier> = []
        for entity in destination.entities {
            var from = sourceEntity(for: entity)
            if let found = from, !used.insert(ObjectIdentifier(found)).inserted { from = nil }
            pairs.append((entity, from))
        }
        try checkHierarchies(pairs)
        var mappings: [NSEntityMapping] = []
        for (entity, from) in pairs {
            mappings.append(try entityMapping(entity, from: from, pairs: pairs))
        }
        for entity in source.entities where !used.contains(ObjectIdentifier(entity)) {
            let mapping = NSEntityMapping()
            mapping.name = "Remove\(entity.name ?? "")"
            mapping.mappingType = .removeEntityMappingType
            mapping.sourceEntityName = entity.name
            mapping.sourceEntityVersionHash = entity.versionHash
            mapping.inferred = true
            mappings.append(mapping)
        }
        let model = NSMappingModel()
        model.entityMappings = mappings
        return model
    }

    /// Entities of two source hierarchies can't share a destination hierarchy.
    private func checkHierarchies(_ pairs: [(destination: NSEntityDescription, source: NSEntityDescription?)]) throws {
        func root(_ entity: NSEntityDescription) -> NSEntityDescription {
            var current = entity
            while let parent = current.superentity { current = parent }
            return current
        }
        var sourceRoots: [ObjectIdentifier: (root: NSEntityDescription, entity: NSEntityDescription)] = [:]
        for (entity, from) in pairs {
            guard let from else { continue }
            let key = ObjectIdentifier(root(entity))
            let sourceRoot = root(from)
            if let earlier = sourceRoots[key], earlier.root !== sourceRoot {
                throw failure(
                    "the entities \(earlier.entity.name ?? "") and \(entity.name ?? "") share the hierarchy of "
                        + "\(root(entity).name ?? "") but come from the separate hierarchies of \(earlier.root.name ?? "") and "
                        + "\(sourceRoot.name ?? "") (Core Data can't merge entity hierarchies)", entity: entity.name)
            }
            sourceRoots[key] = (sourceRoot, entity)
        }
    }

    private func entityMapping(
        _ entity: NSEntityDescription, from: NSEntityDescription?,
        pairs: [(destination: NSEntityDescription, source: NSEntityDescription?)]
    ) throws -> NSEntityMapping {
        let mapping = NSEntityMapping()
        let name = entity.name ?? ""
        mapping.destinationEntityName = entity.name
        mapping.destinationEntityVersionHash = entity.versionHash
        if let from {
            mapping.name = "\(from.name ?? "")To\(name)"
            mapping.mappingType = from.versionHash == entity.versionHash ? .copyEntityMappingType : .transformEntityMappingType
            mapping.sourceEntityName = from.name
            mapping.sourceEntityVersionHash = from.versionHash
            mapping.sourceExpression = try? NSExpression(
                validatingFormat:
                    "FETCH(FUNCTION($manager, \"fetchRequestForSourceEntityNamed:predicateString:\", \"\(from.name ?? "")\", \"TRUEPREDICATE\"), $manager.sourceContext, NO)"
            )
        } else {
            mapping.name = "Add\(name)"
            mapping.mappingType = .addEntityMappingType
        }
        var attributes: [NSPropertyMapping] = []
        var relationships: [NSPropertyMapping] = []
        for property in entity.properties where !property.isTransient {
            let propertyMapping = NSPropertyMapping()
            propertyMapping.name = property.name
            let sourceProperty = from.flatMap { Self.sourceProperty(for: property, in: $0) }
            switch property {
            case let attribute as NSAttributeDescription:
                if let sourceProperty {
                    guard let sourceAttribute = sourceProperty as? NSAttributeDescription else {
                        throw failure(
                            "\(name).\(property.name) is an attribute, and was the relationship \(sourceProperty.name) of "
                                + "\(from?.name ?? "")", entity: name, property: property.name)
                    }
                    try checkConversion(from: sourceAttribute, to: attribute, entity: name)
                    propertyMapping.valueExpression = try? NSExpression(
                        validatingFormat: "FUNCTION($source, \"valueForKey:\", \"\(sourceAttribute.name)\")")
                    propertyMapping.inferredSourceName = sourceAttribute.name
                } else {
                    propertyMapping.inferredEmpty = true
                }
                attributes.append(propertyMapping)
            case let relationship as NSRelationshipDescription:
                if let sourceProperty {
                    guard let sourceRelationship = sourceProperty as? NSRelationshipDescription else {
                        throw failure(
                            "\(name).\(property.name) is a relationship, and was the attribute \(sourceProperty.name) of "
                                + "\(from?.name ?? "")", entity: name, property: property.name)
                    }
                    try checkDestination(of: sourceRelationship, to: relationship, entity: name, pairs: pairs)
                    propertyMapping.valueExpression = try? NSExpression(
                        validatingFormat:
                            "FUNCTION($manager, \"destinationInstancesForSourceRelationshipNamed:sourceInstances:\", "
                            + "\"\(sourceRelationship.name)\", $source.\(sourceRelationship.name))")
                    propertyMapping.inferredSourceName = sourceRelationship.name
                } else {
                    propertyMapping.inferredEmpty = true
                }
                relationships.append(propertyMapping)
            default:
                continue
            }
        }
        mapping.attributeMappings = attributes
        mapping.relationshipMappings = relationships
        mapping.inferred = true
        return mapping
    }

    /// The type changes a store converts (`SQLMigrationPlan.conversion`).
    private func checkConversion(from old: NSAttributeDescription, to new: NSAttributeDescription, entity: String) throws {
        guard old.attributeType != new.attributeType else { return }
        let from = SchemaLowering.attributeKind(old.attributeType)
        let to = SchemaLowering.attributeKind(new.attributeType)
        guard SQLMigrationPlan.conversion(of: "x", from: from, to: to) != nil else {
            throw failure(
                "the type of \(entity).\(new.name) changed from \(old.attributeType.modelFileName) to "
                    + "\(new.attributeType.modelFileName), which Core Data can't convert", entity: entity, property: new.name)
        }
    }

    /// A relationship keeps its destination: the destination entity in the new model comes
    /// from the old destination's family, or the other way round.
    private func checkDestination(
        of old: NSRelationshipDescription, to new: NSRelationshipDescription, entity: String,
        pairs: [(destination: NSEntityDescription, source: NSEntityDescription?)]
    ) throws {
        guard let oldTarget = old.destinationEntity, let newTarget = new.destinationEntity else { return }
        func family(_ entity: NSEntityDescription) -> [NSEntityDescription] {
            [entity] + entity.subentities.flatMap(family)
        }
        let newFamily = family(newTarget).map(ObjectIdentifier.init)
        let oldFamily = family(oldTarget).map(ObjectIdentifier.init)
        let related = pairs.contains { pair in
            guard let from = pair.source else { return false }
            return newFamily.contains(ObjectIdentifier(pair.destination)) && oldFamily.contains(ObjectIdentifier(from))
        }
        guard related else {
            throw failure(
                "the destination of \(entity).\(new.name) changed from \(oldTarget.name ?? "") to \(newTarget.name ?? ""), "
                    + "which isn't a version of it", entity: entity, property: new.name)
        }
    }
}

extension NSManagedObjectModel {
    /// Whether stores written with this model and with `other` have the same tables, columns
    /// and indexes (Apple's layout of both, statement for statement), so that a store of one
    /// reads correctly with the other. Names, types, relationships, inheritance, constraints and
    /// indexes show in the layout; optionality, defaults, validation, delete rules and version
    /// hash modifiers don't. False when either model has no layout (a model a store refuses).
    /// The `coredata` tool opens a store of another model version read-only when this holds.
    package func hasSameStoreLayout(as other: NSManagedObjectModel) -> Bool {
        guard let mine = try? AppleSQLLayout(schema: SchemaLowering.schema(for: self)),
            let theirs = try? AppleSQLLayout(schema: SchemaLowering.schema(for: other))
        else { return false }
        return mine.createStatements == theirs.createStatements
    }

    /// The entity of `source` (an earlier version of this model) that `entity` comes from, by
    /// the inference rules; nil for a new entity.
    package func sourceEntity(of entity: NSEntityDescription, in source: NSManagedObjectModel) -> NSEntityDescription? {
        MappingInference(source: source, destination: self).sourceEntity(for: entity)
    }
}

extension NSPropertyDescription {
    /// The property of `source` (this property's entity in an earlier model version) it comes
    /// from, by the inference rules (renaming identifier, then name; stored properties only);
    /// nil for a new property.
    package func sourceProperty(in source: NSEntityDescription) -> NSPropertyDescription? {
        MappingInference.sourceProperty(for: self, in: source)
    }
}
