import OpenPredicate

/// `<relationship>`, `<fetchedProperty>` and `<fetchRequest>` elements: everything that names
/// another entity, read first and resolved once every entity is known.
extension ModelFileBuilder {
    // MARK: - Relationships

    /// A relationship without its destination and inverse (see `linkRelationships(of:)`).
    ///
    /// A to-one relationship has `maxCount` 1 whatever the file says; a to-many one the file's
    /// `maxCount`, or 0 (no limit) when it has none; -1 (no limit, as Apple's compiled models
    /// keep it, which enters the version hash) stays -1. An absent `deletionRule` is Nullify.
    func relationship(from element: ModelFileElement) throws -> NSRelationshipDescription {
        try element.checkChildren(["userInfo"])
        let relationship = NSRelationshipDescription()
        try Self.readCommonValues(of: relationship, from: element)
        relationship.minCount = try element.count("minCount") ?? 0
        relationship.maxCount = try element.flag("toMany") ? (try element.count("maxCount", allowingMinusOne: true) ?? 0) : 1
        relationship.isOrdered = try element.flag("ordered")
        let rules: [String: NSDeleteRule] = [
            "Nullify": .nullifyDeleteRule, "Cascade": .cascadeDeleteRule, "Deny": .denyDeleteRule,
            "No Action": .noActionDeleteRule, "NoAction": .noActionDeleteRule,
        ]
        if let name = element.string("deletionRule") {
            guard let rule = rules[name] else {
                throw ModelFileError("unknown deletionRule '\(name)' of \(element.label)", at: element.location)
            }
            relationship.deleteRule = rule
        }
        return relationship
    }

    /// Sets the destination and inverse of each relationship of `record`'s entity. The inverse
    /// is looked up by `inverseName` in `inverseEntity` (or the destination when the file gives
    /// no `inverseEntity`), inherited relationships included.
    func linkRelationships(of record: EntityRecord) throws {
        for (relationship, element) in record.relationships {
            let destination = try entity(named: "destinationEntity", of: element)
            relationship.destinationEntity = destination
            guard let inverseName = element.nonEmptyString("inverseName") else { continue }
            let inverseEntity =
                element.nonEmptyString("inverseEntity") == nil ? destination : try entity(named: "inverseEntity", of: element)
            // `propertiesByName` is kept once made; `relationshipsByName` would be rebuilt per lookup.
            guard let inverse = inverseEntity.propertiesByName[inverseName] as? NSRelationshipDescription else {
                throw ModelFileError(
                    "inverse '\(inverseName)' of \(element.label) is not a relationship of entity '\(inverseEntity.name ?? "")'",
                    at: element.location)
            }
            relationship.inverseRelationship = inverse
        }
    }

    // MARK: - Fetched properties

    /// A fetched property and the `<fetchRequest>` element to resolve later.
    func fetchedProperty(from element: ModelFileElement) throws -> (
        property: NSFetchedPropertyDescription, request: ModelFileElement
    ) {
        try element.checkChildren(["fetchRequest", "userInfo"])
        let requests = element.children(named: "fetchRequest")
        guard requests.count == 1, let request = requests.first else {
            throw ModelFileError("\(element.label) needs exactly one <fetchRequest>, not \(requests.count)", at: element.location)
        }
        let property = NSFetchedPropertyDescription()
        try Self.readCommonValues(of: property, from: element)
        return (property, request)
    }

    func linkFetchedProperties(of record: EntityRecord) throws {
        for (property, element) in record.fetchedProperties {
            property.fetchRequest = try fetchRequest(from: element)
        }
    }

    // MARK: - Fetch requests

    /// A fetch request (a model's template or a fetched property's request) from its element.
    ///
    /// `$VARIABLES` stay in the predicate. A flag the file does not write keeps
    /// `NSFetchRequest`'s default (`includeSubentities`, `includePropertyValues`,
    /// `includesPendingChanges`, `returnObjectsAsFaults` true; `returnDistinctResults` false).
    func fetchRequest(from element: ModelFileElement) throws -> NSFetchRequest<NSFetchRequestResult> {
        try element.checkChildren([])
        let request = NSFetchRequest<NSFetchRequestResult>()
        request.entity = try entity(named: "entity", of: element)
        if let format = element.nonEmptyString("predicateString") {
            request.predicate = try Self.predicate(format, in: element, key: "predicateString")
        }
        if let raw = try element.count("resultType") {
            let known: [NSFetchRequestResultType] = [
                .managedObjectResultType, .managedObjectIDResultType, .dictionaryResultType, .countResultType,
            ]
            guard let type = known.first(where: { $0.rawValue == UInt(raw) }) else {
                throw ModelFileError("unknown resultType \(raw) of \(element.label)", at: element.location)
            }
            request.resultType = type
        }
        request.fetchLimit = try element.count("fetchLimit") ?? 0
        request.fetchOffset = try element.count("fetchOffset") ?? 0
        request.fetchBatchSize = try element.count("fetchBatchSize") ?? 0
        request.includesSubentities = try element.bool("includeSubentities") ?? request.includesSubentities
        request.includesPropertyValues = try element.bool("includePropertyValues") ?? request.includesPropertyValues
        // Only when the file says so: the getter answers false for dictionary results (as Apple's does).
        if let pending = try element.bool("includesPendingChanges") { request.includesPendingChanges = pending }
        request.returnsObjectsAsFaults = try element.bool("returnObjectsAsFaults") ?? request.returnsObjectsAsFaults
        request.returnsDistinctResults = try element.bool("returnDistinctResults") ?? request.returnsDistinctResults
        return request
    }
}
