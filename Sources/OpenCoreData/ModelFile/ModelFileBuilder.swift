import OpenPredicate

/// Turns the element tree of a model file into a model: entities (in file order) with their
/// properties, inheritance, relationship destinations and inverses, configurations and fetch
/// request templates.
///
/// Entities are read first, each on its own; what refers to other entities (super-entities,
/// destinations, inverses, fetch requests, configurations) is resolved once every entity is
/// known, and a name that leads nowhere is an error at the line of the element that names it.
///
/// Elements Xcode writes for its own use are skipped: `<elements>` (diagram layout) and
/// `<compoundIndexes>` (deprecated, superseded by `<fetchIndex>`); so are a model-level
/// `<userInfo>` (a model has no user info) and a `<composite>` definition's attributes once
/// checked (there is no composite attribute description yet). Any other unknown element inside
/// a model, an entity or a property is an error: skipping it could silently lose part of the model.
struct ModelFileBuilder {
    /// An entity read from the file, with what remains to resolve.
    struct EntityRecord {
        var entity: NSEntityDescription
        var element: ModelFileElement
        var relationships: [(NSRelationshipDescription, ModelFileElement)] = []
        var fetchedProperties: [(NSFetchedPropertyDescription, ModelFileElement)] = []
        var indexes: [(NSFetchIndexDescription, ModelFileElement)] = []
    }

    var records: [EntityRecord] = []
    var entitiesByName: [String: NSEntityDescription] = [:]
    /// The names of the model's `<composite>` definitions.
    var compositeNames: Set<String> = []

    /// Reads `root` (a `<model>` element) into `model`, which must be empty.
    static func build(_ root: ModelFileElement, into model: NSManagedObjectModel) throws {
        guard root.name == "model" else {
            throw ModelFileError("not a Core Data model file: the root element is <\(root.name)>, not <model>", at: root.location)
        }
        var builder = ModelFileBuilder()
        try builder.build(root, into: model)
    }

    private mutating func build(_ root: ModelFileElement, into model: NSManagedObjectModel) throws {
        try root.checkChildren(["entity", "configuration", "fetchRequest", "composite", "elements", "userInfo"])
        for composite in root.children(named: "composite") {
            compositeNames.insert(try composite.requiredString("name"))
        }
        for composite in root.children(named: "composite") {
            try composite.checkChildren(["attribute"])
            for attribute in composite.children { _ = try self.attribute(from: attribute) }
        }
        for element in root.children(named: "entity") {
            try readEntity(element)
        }
        try linkInheritance()
        for index in records.indices {
            try linkRelationships(of: records[index])
            try linkFetchedProperties(of: records[index])
        }
        for record in records {
            try checkUniquenessConstraints(of: record)
            try checkIndexes(of: record)
        }
        model.entities = records.map(\.entity)
        try readConfigurations(root, into: model)
        for element in root.children(named: "fetchRequest") {
            let name = try element.requiredString("name")
            if model.fetchRequestTemplate(forName: name) != nil {
                throw ModelFileError("a second fetch request template named '\(name)'", at: element.location)
            }
            model.setFetchRequestTemplate(try fetchRequest(from: element), forName: name)
        }
        if let identifier = root.nonEmptyString("userDefinedModelVersionIdentifier") {
            model.versionIdentifiers = [identifier]
        }
    }

    // MARK: - Entities

    private mutating func readEntity(_ element: ModelFileElement) throws {
        let name = try element.requiredString("name")
        if entitiesByName[name] != nil {
            throw ModelFileError("a second entity named '\(name)'", at: element.location)
        }
        try element.checkChildren([
            "attribute", "relationship", "fetchedProperty", "userInfo", "uniquenessConstraints", "fetchIndex",
            "compoundIndexes",
        ])
        let entity = NSEntityDescription()
        entity.name = name
        if let className = element.nonEmptyString("representedClassName") { entity.managedObjectClassName = className }
        entity.isAbstract = try element.flag("isAbstract")
        entity.renamingIdentifier = element.nonEmptyString("elementID") ?? element.nonEmptyString("renamingIdentifier")
        entity.versionHashModifier = element.nonEmptyString("versionHashModifier")
        entity.userInfo = try element.userInfo()
        var record = EntityRecord(entity: entity, element: element)
        var properties: [NSPropertyDescription] = []
        var seen: Set<String> = []
        for child in element.children {
            let property: NSPropertyDescription
            switch child.name {
            case "attribute":
                property = try attribute(from: child)
            case "relationship":
                let relationship = try relationship(from: child)
                record.relationships.append((relationship, child))
                property = relationship
            case "fetchedProperty":
                let fetched = try fetchedProperty(from: child)
                record.fetchedProperties.append((fetched.property, fetched.request))
                property = fetched.property
            default:
                continue
            }
            guard seen.insert(property.name).inserted else {
                throw ModelFileError("a second property named '\(property.name)' in entity '\(name)'", at: child.location)
            }
            properties.append(property)
        }
        entity.properties = properties
        entity.uniquenessConstraints = try uniquenessConstraints(from: element)
        record.indexes = try fetchIndexes(from: element)
        entity.indexes = record.indexes.map(\.0)
        records.append(record)
        entitiesByName[name] = entity
    }

    /// Sets each parent's `subentities` (children in file order) after checking that every
    /// `parentEntity` exists and that no entity inherits from itself.
    private func linkInheritance() throws {
        var children: [ObjectIdentifier: [NSEntityDescription]] = [:]
        var parentNames: [String: String] = [:]
        for record in records {
            guard let parentName = record.element.nonEmptyString("parentEntity") else { continue }
            guard let parent = entitiesByName[parentName] else {
                throw ModelFileError(
                    "entity '\(record.entity.name ?? "")' has parentEntity '\(parentName)', which the model does not have",
                    at: record.element.location)
            }
            children[ObjectIdentifier(parent), default: []].append(record.entity)
            parentNames[record.entity.name ?? ""] = parentName
        }
        for record in records {
            var current = record.entity.name ?? ""
            var steps = 0
            while let next = parentNames[current] {
                steps += 1
                if next == record.entity.name {
                    throw ModelFileError(
                        "entity '\(record.entity.name ?? "")' inherits from itself (through parentEntity)",
                        at: record.element.location)
                }
                if steps > records.count {
                    throw ModelFileError(
                        "the parentEntity chain of entity '\(record.entity.name ?? "")' loops", at: record.element.location)
                }
                current = next
            }
        }
        for record in records {
            if let subentities = children[ObjectIdentifier(record.entity)] { record.entity.subentities = subentities }
        }
    }

    // MARK: - Configurations

    private func readConfigurations(_ root: ModelFileElement, into model: NSManagedObjectModel) throws {
        for element in root.children(named: "configuration") {
            let name = try element.requiredString("name")
            try element.checkChildren(["memberEntity", "userInfo"])
            if model.configurations.contains(name) {
                throw ModelFileError("a second configuration named '\(name)'", at: element.location)
            }
            var members: [NSEntityDescription] = []
            for member in element.children(named: "memberEntity") {
                let entityName = try member.requiredString("name")
                guard let entity = entitiesByName[entityName] else {
                    throw ModelFileError(
                        "configuration '\(name)' lists entity '\(entityName)', which the model does not have", at: member.location
                    )
                }
                members.append(entity)
            }
            model.setEntities(members, forConfigurationName: name)
        }
    }

    // MARK: - Shared helpers

    /// The entity named by `key` of `element`, or an error naming the missing entity.
    func entity(named key: String, of element: ModelFileElement) throws -> NSEntityDescription {
        let name = try element.requiredString(key)
        guard let entity = entitiesByName[name] else {
            throw ModelFileError("\(key) '\(name)' of \(element.label) is not an entity of the model", at: element.location)
        }
        return entity
    }

    /// Parses a predicate format stored in the file; a parse error becomes an error at the
    /// element's line that includes the parser's message.
    static func predicate(_ format: String, in element: ModelFileElement, key: String) throws -> NSPredicate {
        do {
            return try NSPredicate(validatingFormat: format, argumentArray: [])
        } catch {
            let underlying = error as NSError
            throw ModelFileError(
                "\(key) of \(element.label) does not parse: \(underlying.localizedDescription)", at: element.location,
                underlying: underlying)
        }
    }

    /// Applies the XML attributes every property kind shares.
    static func readCommonValues(of property: NSPropertyDescription, from element: ModelFileElement) throws {
        property.name = try element.requiredString("name")
        property.isOptional = try element.flag("optional")
        property.isTransient = try element.flag("transient")
        property.isIndexed = try element.flag("indexed")
        property.isIndexedBySpotlight = try element.flag("spotlightIndexingEnabled")
        property.renamingIdentifier = element.nonEmptyString("elementID") ?? element.nonEmptyString("renamingIdentifier")
        property.versionHashModifier = element.nonEmptyString("versionHashModifier")
        property.userInfo = try element.userInfo()
    }
}
