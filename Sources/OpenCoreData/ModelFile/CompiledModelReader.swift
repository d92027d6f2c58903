import OpenPredicate

/// Reads a compiled model (a `.mom` file: the keyed archive of an `NSManagedObjectModel` that
/// Xcode's model compiler writes) into a model.
///
/// The archive is turned into the element tree the `contents` XML would give (entities,
/// properties, inheritance, relationships, constraints, indexes, configurations), so that
/// `ModelFileBuilder` checks and links it exactly as it does the XML; what the XML holds as text
/// but the archive holds as objects (default values, validation predicates, fetch requests)
/// is set on the built model afterwards, decoded from the archive.
///
/// Keys read (as Xcode 15's compiler writes them): the model's `NSEntities`,
/// `NSConfigurations`, `NSFetchRequestTemplates`, `NSVersionIdentifiers`; an entity's
/// `NSEntityName`, `NSClassNameForEntity`, `NSSuperentity`, `NSIsAbstract`, `NSProperties`,
/// `NSUserInfo`, `NSVersionHashModifier`, `NSRenamingIdentifier`, `NSUniqueTuples`,
/// `NSFetchIndexDescriptions`; a property's `NSPropertyName`, `NSIsOptional`, `NSIsTransient`,
/// `NSIsIndexed`, `NSIsIndexedBySpotlight`, `NSUserInfo`, `NSVersionHashModifier`,
/// `NSRenamingIdentifier`, `NSValidationPredicates`, `NSValidationWarnings`; an attribute's
/// `NSAttributeType`, `NSDefaultValue`, `NSValueTransformerName`, `NSAttributeValueClassName`
/// and `NSFlagsKey` (0x4 external binary storage, 0x10 preserved on deletion), a derived
/// attribute's `NSDerivationExpression`; a relationship's
/// `NSDestinationEntity`, `NSInverseRelationship` (or `_NSDestinationEntityName`,
/// `_NSInverseRelationshipName`), `NSMinCount`, `NSMaxCount`, `NSDeleteRule`, `NSIsOrdered`; a
/// fetched property's `NSFetchRequest`. Other keys are Core Data's own bookkeeping and are
/// skipped. The model Apple's Core Data caches in a store (`Z_MODELCACHE`) is the same archive,
/// with its dictionaries of entities and properties sometimes archived as
/// `NSKnownKeysDictionary1` (see `ArchiveGraph.entries(of:)`) and a to-many without a limit as
/// `NSMaxCount` -1.
struct CompiledModelReader {
    let archive: ArchiveGraph
    /// What to set on the built model that the element tree cannot carry.
    var attributeExtras: [(entity: String, attribute: String, object: ArchiveGraph.Object)] = []
    var fetchedExtras: [(entity: String, property: String, object: ArchiveGraph.Object)] = []
    /// The to-many relationships archived with a `maxCount` of -1.
    var unlimitedToManys: [(entity: String, relationship: String)] = []

    /// The location every element of the tree gets: the file, without a line.
    var location: ModelFileLocation { ModelFileLocation(file: archive.file, line: 0, column: 0) }

    /// Reads the archive of a `.mom` file into `model`, which must be empty.
    static func read(_ archive: ArchiveGraph, into model: NSManagedObjectModel) throws {
        var reader = CompiledModelReader(archive: archive)
        let root = try reader.modelElement()
        try ModelFileBuilder.build(root, into: model)
        try reader.applyExtras(to: model)
    }

    func element(_ name: String, _ attributes: [String: String], _ children: [ModelFileElement] = []) -> ModelFileElement {
        ModelFileElement(name: name, attributes: attributes, children: children, location: location)
    }

    // MARK: - Model

    mutating func modelElement() throws -> ModelFileElement {
        let model = archive.root
        guard model.className == "NSManagedObjectModel" else {
            throw archive.error("not a compiled Core Data model: the archive's root is \(model.className)")
        }
        var entities: [(String, ArchiveGraph.Object)] = []
        for (name, value) in try archive.entries(model, "NSEntities") {
            guard let entity = try archive.object(reference: value, what: "entity '\(name)'"),
                entity.className == "NSEntityDescription"
            else {
                throw archive.error("entity '\(name)' of the model is not an NSEntityDescription")
            }
            entities.append((name, entity))
        }
        var children: [ModelFileElement] = []
        for (name, entity) in entities.sorted(by: { $0.0 < $1.0 }) {
            children.append(try entityElement(entity, name: name))
        }
        for (name, value) in try archive.entries(model, "NSConfigurations") {
            children.append(try configurationElement(name: name, value))
        }
        var attributes: [String: String] = [:]
        let identifiers = try archive.elements(model, "NSVersionIdentifiers").map {
            try archive.plainValue($0, what: "a version identifier of the model")
        }
        if identifiers.count == 1, let identifier = identifiers.first as? String {
            attributes["userDefinedModelVersionIdentifier"] = identifier
        }
        return element("model", attributes, children)
    }

    func configurationElement(name: String, _ value: PropertyListValue) throws -> ModelFileElement {
        guard let collection = try archive.object(reference: value, what: "configuration '\(name)'") else {
            return element("configuration", ["name": name])
        }
        var members: [ModelFileElement] = []
        for member in try archive.elements(of: collection) {
            let what = "a member of configuration '\(name)'"
            let entityName: String?
            if case .uid = member, let entity = try? archive.object(reference: member, what: what),
                entity.className == "NSEntityDescription"
            {
                entityName = try archive.string(entity, "NSEntityName")
            } else {
                entityName = try archive.string(member, what: what)
            }
            guard let entityName else { throw archive.error("\(what) names no entity") }
            members.append(element("memberEntity", ["name": entityName]))
        }
        return element("configuration", ["name": name], members)
    }

    // MARK: - Entities

    mutating func entityElement(_ entity: ArchiveGraph.Object, name key: String) throws -> ModelFileElement {
        let name = try archive.string(entity, "NSEntityName") ?? key
        guard name == key else {
            throw archive.error("the model lists entity '\(key)' under a name other than its own ('\(name)')")
        }
        var attributes = ["name": name]
        if let className = try archive.string(entity, "NSClassNameForEntity") {
            attributes["representedClassName"] = className
        }
        if let parent = try archive.object(entity, "NSSuperentity") {
            guard let parentName = try archive.string(parent, "NSEntityName") else {
                throw archive.error("the superentity of entity '\(name)' has no name")
            }
            attributes["parentEntity"] = parentName
        }
        if try archive.flag(entity, "NSIsAbstract") { attributes["isAbstract"] = "YES" }
        if let renaming = try archive.string(entity, "NSRenamingIdentifier"), renaming != name {
            attributes["elementID"] = renaming
        }
        if let modifier = try archive.string(entity, "NSVersionHashModifier") { attributes["versionHashModifier"] = modifier }
        var children: [ModelFileElement] = []
        var attributeElements: [(String, ModelFileElement)] = []
        var relationshipElements: [(String, ModelFileElement)] = []
        var fetchedElements: [(String, ModelFileElement)] = []
        for (propertyName, value) in try archive.entries(entity, "NSProperties") {
            let what = "property '\(propertyName)' of entity '\(name)'"
            guard let property = try archive.object(reference: value, what: what) else {
                throw archive.error("\(what) is null")
            }
            let ownName = try archive.string(property, "NSPropertyName") ?? propertyName
            guard ownName == propertyName else {
                throw archive.error("entity '\(name)' lists property '\(propertyName)' under a name other than its own")
            }
            switch property.className {
            case "NSAttributeDescription", "NSDerivedAttributeDescription":
                attributeElements.append((propertyName, try attributeElement(property, name: propertyName)))
                attributeExtras.append((name, propertyName, property))
            case "NSRelationshipDescription":
                relationshipElements.append(
                    (propertyName, try relationshipElement(property, name: propertyName, entityName: name)))
            case "NSFetchedPropertyDescription":
                fetchedElements.append((propertyName, try fetchedPropertyElement(property, name: propertyName)))
                fetchedExtras.append((name, propertyName, property))
            default:
                throw ModelFileError(
                    .unsupportedFormat,
                    "\(what) is a \(property.className), which OpenCoreData does not read from compiled models",
                    file: archive.file)
            }
        }
        // Xcode's `contents` order: attributes, relationships, fetched properties, each by name.
        for group in [attributeElements, relationshipElements, fetchedElements] {
            children += group.sorted { $0.0 < $1.0 }.map(\.1)
        }
        if let info = try userInfoElement(entity, what: "entity '\(name)'") { children.append(info) }
        let tuples = try archive.elements(entity, "NSUniqueTuples")
        if !tuples.isEmpty {
            var constraints: [ModelFileElement] = []
            for tuple in tuples {
                let what = "a uniqueness constraint of entity '\(name)'"
                guard let list = try archive.object(reference: tuple, what: what) else { continue }
                let names = try archive.elements(of: list).map { try propertyName($0, what: what) }
                constraints.append(element("uniquenessConstraint", [:], names.map { element("constraint", ["value": $0]) }))
            }
            children.append(element("uniquenessConstraints", [:], constraints))
        }
        for value in try archive.elements(entity, "NSFetchIndexDescriptions") {
            guard let index = try archive.object(reference: value, what: "a fetch index of entity '\(name)'") else { continue }
            children.append(try fetchIndexElement(index, entity: name))
        }
        return element("entity", attributes, children)
    }

    /// A property named by a string, or by a property object (its `NSPropertyName`).
    func propertyName(_ value: PropertyListValue, what: String) throws -> String {
        if case .uid = value, let object = try? archive.object(reference: value, what: what),
            object.className.hasSuffix("Description")
        {
            guard let name = try archive.string(object, "NSPropertyName") else { throw archive.error("\(what) has no name") }
            return name
        }
        guard let name = try archive.string(value, what: what) else { throw archive.error("\(what) names no property") }
        return name
    }

    func fetchIndexElement(_ index: ArchiveGraph.Object, entity: String) throws -> ModelFileElement {
        guard let name = try archive.string(index, "NSIndexName") else {
            throw archive.error("a fetch index of entity '\(entity)' has no name")
        }
        if try archive.object(index, "NSPartialIndexPredicate") != nil {
            throw ModelFileError(
                .unsupportedFormat, "fetch index '\(name)' of entity '\(entity)' is a partial index, which is not supported",
                file: archive.file)
        }
        var parts: [ModelFileElement] = []
        for value in try archive.elements(index, "NSIndexElements") {
            let what = "an element of fetch index '\(name)' of entity '\(entity)'"
            guard let part = try archive.object(reference: value, what: what) else { continue }
            // An element on an expression has no property name; like the XML's, it is skipped.
            guard part.fields["NSPropertyName"] != nil || part.fields["NSProperty"] != nil else { continue }
            let property = try propertyName(part.fields["NSPropertyName"] ?? part.fields["NSProperty"] ?? .null, what: what)
            let type = try archive.integer(part, "NSFetchIndexElementType") ?? 0
            guard type == 0 || type == 1 else { throw archive.error("\(what) has unknown type \(type)") }
            let ascending = part.fields["NSAscending"] == nil ? true : try archive.flag(part, "NSAscending")
            parts.append(
                element(
                    "fetchIndexElement",
                    [
                        "property": property, "type": type == 0 ? "Binary" : "RTree",
                        "order": ascending ? "ascending" : "descending",
                    ]
                ))
        }
        return element("fetchIndex", ["name": name], parts)
    }

    // MARK: - Properties

    func commonAttributes(_ property: ArchiveGraph.Object, name: String) throws -> [String: String] {
        var attributes = ["name": name]
        if try archive.flag(property, "NSIsOptional") { attributes["optional"] = "YES" }
        if try archive.flag(property, "NSIsTransient") { attributes["transient"] = "YES" }
        if try archive.flag(property, "NSIsIndexed") { attributes["indexed"] = "YES" }
        if try archive.flag(property, "NSIsIndexedBySpotlight") { attributes["spotlightIndexingEnabled"] = "YES" }
        if let renaming = try archive.string(property, "NSRenamingIdentifier"), renaming != name {
            attributes["elementID"] = renaming
        }
        if let modifier = try archive.string(property, "NSVersionHashModifier") { attributes["versionHashModifier"] = modifier }
        return attributes
    }

    func attributeElement(_ property: ArchiveGraph.Object, name: String) throws -> ModelFileElement {
        var attributes = try commonAttributes(property, name: name)
        if let derivation = property.fields["NSDerivationExpression"],
            try archive.object(reference: derivation, what: name) != nil
        {
            // A derived attribute: its expression archived, given to the builder as the XML's
            // format string (the builder parses and checks it as it does the XML's).
            var reader = ArchivedPredicateReader(archive: archive)
            let expression = try reader.expression(derivation, what: "the derivation of attribute '\(name)'", depth: 0)
            attributes["derived"] = "YES"
            attributes["derivationExpression"] = expression.description
        }
        let raw = try archive.integer(property, "NSAttributeType") ?? 0
        guard let type = NSAttributeType.allTypes.first(where: { Int($0.rawValue) == raw }) else {
            throw archive.error("attribute '\(name)' has unknown NSAttributeType \(raw)")
        }
        attributes["attributeType"] = type.modelFileName
        if type == .compositeAttributeType {
            throw ModelFileError(
                .unsupportedFormat, "attribute '\(name)' is a composite attribute, which compiled models cannot give yet",
                file: archive.file)
        }
        if let transformer = try archive.string(property, "NSValueTransformerName") {
            attributes["valueTransformerName"] = transformer
        }
        if type == .transformableAttributeType, let className = try archive.string(property, "NSAttributeValueClassName") {
            attributes["customClassName"] = className
        }
        let flags = try archive.integer(property, "NSFlagsKey") ?? 0
        if flags & 0x4 != 0 { attributes["allowsExternalBinaryDataStorage"] = "YES" }
        if flags & 0x10 != 0 { attributes["preserveAfterDeletion"] = "YES" }
        var children: [ModelFileElement] = []
        if let info = try userInfoElement(property, what: "attribute '\(name)'") { children.append(info) }
        return element("attribute", attributes, children)
    }

    mutating func relationshipElement(_ property: ArchiveGraph.Object, name: String, entityName: String) throws
        -> ModelFileElement
    {
        var attributes = try commonAttributes(property, name: name)
        let destination: String?
        if let entity = try archive.object(property, "NSDestinationEntity") {
            destination = try archive.string(entity, "NSEntityName")
        } else {
            destination = try archive.string(property, "_NSDestinationEntityName")
        }
        guard let destination else { throw archive.error("relationship '\(name)' has no destination entity") }
        attributes["destinationEntity"] = destination
        if let inverse = try archive.object(property, "NSInverseRelationship") {
            attributes["inverseName"] = try archive.string(inverse, "NSPropertyName")
            if let owner = try archive.object(inverse, "NSEntity") {
                attributes["inverseEntity"] = try archive.string(owner, "NSEntityName")
            }
        } else if let inverse = try archive.string(property, "_NSInverseRelationshipName") {
            attributes["inverseName"] = inverse
        }
        let minCount = try archive.integer(property, "NSMinCount") ?? 0
        var maxCount = try archive.integer(property, "NSMaxCount") ?? 0
        // -1 (an unsigned maximum, archived signed) is a to-many without a limit, inferred from
        // the model Apple's Core Data cached for a model built in code. It is kept (set after the
        // build): the version hash holds its low 32 bits.
        if maxCount == -1 {
            maxCount = 0
            unlimitedToManys.append((entityName, name))
        }
        guard minCount >= 0, maxCount >= 0 else { throw archive.error("relationship '\(name)' has a negative count") }
        if minCount > 0 { attributes["minCount"] = String(minCount) }
        if maxCount != 1 {
            attributes["toMany"] = "YES"
            if maxCount > 0 { attributes["maxCount"] = String(maxCount) }
        }
        if try archive.flag(property, "NSIsOrdered") { attributes["ordered"] = "YES" }
        let rules = [0: "No Action", 1: "Nullify", 2: "Cascade", 3: "Deny"]
        let rule = try archive.integer(property, "NSDeleteRule") ?? 1
        guard let ruleName = rules[rule] else { throw archive.error("relationship '\(name)' has unknown NSDeleteRule \(rule)") }
        attributes["deletionRule"] = ruleName
        var children: [ModelFileElement] = []
        if let info = try userInfoElement(property, what: "relationship '\(name)'") { children.append(info) }
        return element("relationship", attributes, children)
    }

    func fetchedPropertyElement(_ property: ArchiveGraph.Object, name: String) throws -> ModelFileElement {
        let attributes = try commonAttributes(property, name: name)
        guard let request = try archive.object(property, "NSFetchRequest") else {
            throw archive.error("fetched property '\(name)' has no fetch request")
        }
        // The request's predicate and options are set after the build (`applyExtras`).
        var children = [element("fetchRequest", ["name": "fetchedPropertyFetchRequest", "entity": try entityName(of: request)])]
        if let info = try userInfoElement(property, what: "fetched property '\(name)'") { children.append(info) }
        return element("fetchedProperty", attributes, children)
    }

    /// The name of the entity an archived fetch request fetches.
    func entityName(of request: ArchiveGraph.Object) throws -> String {
        if let entity = try archive.object(request, "NSEntity"), entity.className == "NSEntityDescription" {
            if let name = try archive.string(entity, "NSEntityName") { return name }
        }
        if let name = try archive.string(request, "NSEntityName") { return name }
        throw archive.error("\(request.label) names no entity")
    }

    /// A `<userInfo>` element for an object's `NSUserInfo`, or nil when it is empty. Values
    /// that are not strings become their description (Xcode's editor writes strings only).
    func userInfoElement(_ owner: ArchiveGraph.Object, what: String) throws -> ModelFileElement? {
        let entries = try archive.entries(owner, "NSUserInfo")
        guard !entries.isEmpty else { return nil }
        var children: [ModelFileElement] = []
        for (key, value) in entries {
            let plain = try archive.plainValue(value, what: "user info '\(key)' of \(what)")
            let text = plain.map { ($0 as? String) ?? String(describing: $0) } ?? ""
            children.append(element("entry", ["key": key, "value": text]))
        }
        return element("userInfo", [:], children)
    }

    // MARK: - Values the element tree cannot carry

    func applyExtras(to model: NSManagedObjectModel) throws {
        let entities = model.entitiesByName
        for (entityName, attributeName, object) in attributeExtras {
            guard let attribute = entities[entityName]?.propertiesByName[attributeName] as? NSAttributeDescription else {
                continue
            }
            let what = "the default value of attribute '\(attributeName)' of entity '\(entityName)'"
            // A transformable attribute's default may be an object of the app's own class, which
            // no file tells how to rebuild: the attribute is kept, without a default.
            let transformable = attribute.attributeType == .transformableAttributeType
            if let value = transformable
                ? (try? archive.plainValue(object.fields["NSDefaultValue"], what: what)) ?? nil
                : try archive.plainValue(object.fields["NSDefaultValue"], what: what)
            {
                attribute.defaultValue = try Self.defaultValue(value, type: attribute.attributeType, what: what, archive: archive)
            }
            try applyValidation(object, to: attribute, what: "attribute '\(attributeName)' of entity '\(entityName)'")
        }
        for (entityName, name) in unlimitedToManys {
            (entities[entityName]?.propertiesByName[name] as? NSRelationshipDescription)?.maxCount = -1
        }
        var predicates = ArchivedPredicateReader(archive: archive)
        for (entityName, propertyName, object) in fetchedExtras {
            guard let property = entities[entityName]?.propertiesByName[propertyName] as? NSFetchedPropertyDescription,
                let archived = try archive.object(object, "NSFetchRequest")
            else { continue }
            property.fetchRequest = try fetchRequest(archived, in: model, predicates: &predicates)
        }
        for (name, value) in try archive.entries(archive.root, "NSFetchRequestTemplates") {
            guard let archived = try archive.object(reference: value, what: "fetch request template '\(name)'") else { continue }
            model.setFetchRequestTemplate(try fetchRequest(archived, in: model, predicates: &predicates), forName: name)
        }
        let identifiers = try archive.elements(archive.root, "NSVersionIdentifiers").compactMap {
            try archive.plainValue($0, what: "a version identifier of the model") as? AnyHashable
        }
        if identifiers.count > 1 { model.versionIdentifiers = Set(identifiers) }
    }

    /// The default value as the attribute's type wants it (the archive holds `NSNumber`s for
    /// Booleans and numbers, and objects for the rest).
    static func defaultValue(_ value: Any, type: NSAttributeType, what: String, archive: ArchiveGraph) throws -> Any {
        switch type {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .doubleAttributeType,
            .floatAttributeType, .booleanAttributeType:
            guard value is NSNumber else { throw archive.error("\(what) is not a number") }
        case .decimalAttributeType:
            if let number = value as? NSDecimalNumber { return number }
            guard let number = value as? NSNumber else { throw archive.error("\(what) is not a number") }
            return NSDecimalNumber(decimal: number.decimalValue)
        case .stringAttributeType:
            guard value is String else { throw archive.error("\(what) is not a string") }
        case .dateAttributeType:
            guard value is Date else { throw archive.error("\(what) is not a date") }
        case .UUIDAttributeType:
            guard value is UUID else { throw archive.error("\(what) is not a UUID") }
        case .URIAttributeType:
            guard value is URL else { throw archive.error("\(what) is not a URL") }
        default:
            break
        }
        return value
    }

    func applyValidation(_ object: ArchiveGraph.Object, to attribute: NSAttributeDescription, what: String) throws {
        let archived = try archive.elements(object, "NSValidationPredicates")
        guard !archived.isEmpty else { return }
        var predicates = ArchivedPredicateReader(archive: archive)
        let rules = try archived.map { try predicates.predicate($0, what: "a validation predicate of \(what)") }
        let warnings = try archive.elements(object, "NSValidationWarnings").map {
            try archive.plainValue($0, what: "a validation warning of \(what)") ?? ""
        }
        guard warnings.count == rules.count else {
            throw archive.error("\(what) has \(rules.count) validation predicates but \(warnings.count) warnings")
        }
        attribute.setValidationPredicates(rules, warningValues: warnings)
    }

    /// An archived fetch request (a template or a fetched property's): entity, predicate,
    /// sort descriptors are not read (Xcode's editor cannot set them), limit, offset, batch
    /// size, result type.
    func fetchRequest(
        _ archived: ArchiveGraph.Object, in model: NSManagedObjectModel, predicates: inout ArchivedPredicateReader
    ) throws -> NSFetchRequest<NSFetchRequestResult> {
        let request = NSFetchRequest<NSFetchRequestResult>()
        let name = try entityName(of: archived)
        guard let entity = model.entitiesByName[name] else {
            throw archive.error("\(archived.label) fetches entity '\(name)', which the model does not have")
        }
        request.entity = entity
        if let predicate = archived.fields["NSPredicate"], try archive.resolved(predicate, what: "") != nil {
            request.predicate = try predicates.predicate(predicate, what: "the predicate of \(archived.label)")
        }
        request.fetchLimit = max(0, try archive.integer(archived, "NSFetchLimit") ?? 0)
        request.fetchOffset = max(0, try archive.integer(archived, "NSFetchOffset") ?? 0)
        request.fetchBatchSize = max(0, try archive.integer(archived, "NSBatchSize") ?? 0)
        if let raw = try archive.integer(archived, "NSResultType") {
            let known: [NSFetchRequestResultType] = [
                .managedObjectResultType, .managedObjectIDResultType, .dictionaryResultType, .countResultType,
            ]
            guard let type = known.first(where: { Int($0.rawValue) == raw }) else {
                throw archive.error("\(archived.label) has unknown NSResultType \(raw)")
            }
            request.resultType = type
        }
        return request
    }
}
