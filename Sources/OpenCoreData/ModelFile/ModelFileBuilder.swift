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
        var derivedAttributes: [(NSDerivedAttributeDescription, ModelFileElement)] = []
    }

    var records: [EntityRecord] = []
    var entitiesByName: [String: NSEntityDescription] = [:]
    /// Entity names by their upper case form, to find two that differ only in case.
    var entityNamesByUppercase: [String: String] = [:]
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
            try checkDerivations(of: record)
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
        if let problem = ModelNames.problem(entityName: name) {
            throw ModelFileError("entity name '\(name)' is not valid: \(problem)", at: element.location)
        }
        if entitiesByName[name] != nil {
            throw ModelFileError("a second entity named '\(name)'", at: element.location)
        }
        // SQLite stores name each table `Z` + the entity's name in upper case, and SQL names
        // ignore case: two such entities would claim one table.
        if let other = entityNamesByUppercase.updateValue(name, forKey: name.uppercased()) {
            throw ModelFileError(
                "entity names '\(other)' and '\(name)' differ only in case, which a SQLite store cannot tell apart",
                at: element.location)
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
                let attribute = try attribute(from: child)
                if let derived = attribute as? NSDerivedAttributeDescription { record.derivedAttributes.append((derived, child)) }
                property = attribute
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
            if let problem = ModelNames.problem(propertyName: property.name) {
                throw ModelFileError(
                    "\(child.name) name '\(property.name)' of entity '\(name)' is not valid: \(problem)", at: child.location)
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
    ///
    /// Linear in the number of entities, however deep the hierarchy: each entity's chain of
    /// parents is walked once (a walk stops at an entity already known to reach a root), and
    /// parents get their sub-entities from the roots down, so that linking a child never has
    /// a linked sub-tree below it to invalidate.
    private func linkInheritance() throws {
        var children: [ObjectIdentifier: [NSEntityDescription]] = [:]
        var parentIndex: [Int?] = Array(repeating: nil, count: records.count)
        var indexByName: [String: Int] = [:]
        for (index, record) in records.enumerated() { indexByName[record.entity.name ?? ""] = index }
        for (index, record) in records.enumerated() {
            guard let parentName = record.element.nonEmptyString("parentEntity") else { continue }
            guard let parent = indexByName[parentName] else {
                throw ModelFileError(
                    "entity '\(record.entity.name ?? "")' has parentEntity '\(parentName)', which the model does not have",
                    at: record.element.location)
            }
            parentIndex[index] = parent
            children[ObjectIdentifier(records[parent].entity), default: []].append(record.entity)
        }
        try checkInheritanceCycles(parentIndex)
        var queue = records.indices.filter { parentIndex[$0] == nil }.map { records[$0].entity }
        var next = 0
        while next < queue.count {
            let entity = queue[next]
            next += 1
            guard let subentities = children[ObjectIdentifier(entity)] else { continue }
            entity.subentities = subentities
            queue += subentities
        }
    }

    /// Fails on the first entity (in file order) whose chain of `parentEntity`s loops: "inherits
    /// from itself" when the entity is on the loop, "loops" when the loop is further up.
    private func checkInheritanceCycles(_ parentIndex: [Int?]) throws {
        enum Mark { case unvisited, onPath, reachesRoot }
        var marks = Array(repeating: Mark.unvisited, count: records.count)
        for start in records.indices where marks[start] == .unvisited {
            var path: [Int] = []
            var current: Int? = start
            while let index = current, marks[index] != .reachesRoot {
                if marks[index] == .onPath {
                    let record = records[start]
                    let name = record.entity.name ?? ""
                    throw ModelFileError(
                        index == start
                            ? "entity '\(name)' inherits from itself (through parentEntity)"
                            : "the parentEntity chain of entity '\(name)' loops", at: record.element.location)
                }
                marks[index] = .onPath
                path.append(index)
                current = parentIndex[index]
            }
            for index in path { marks[index] = .reachesRoot }
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
