import OpenPredicate

/// A fetch request checked against the model it runs on: the model's entity, and the property
/// lists as property descriptions of that entity (see `FetchPropertyChecker`).
struct ValidatedFetchRequest {
    /// The model's entity of the request's name.
    let entity: NSEntityDescription
    /// `propertiesToFetch` as the model's property descriptions; nil when the request fetches
    /// every property.
    let propertiesToFetch: [NSPropertyDescription]?
    /// `propertiesToGroupBy` as the model's property descriptions; nil without grouping.
    let propertiesToGroupBy: [NSPropertyDescription]?
}

extension NSFetchRequest {
    /// Checks everything Apple checks when a request runs, against `model`, and resolves the
    /// entity and the property lists; the context calls this before it fetches.
    ///
    /// In order, with Apple's reasons:
    /// 1. the entity: neither an entity nor a name → "`<operation>` A fetch request must have an
    ///    entity."; a name the model lacks → "NSFetchRequest could not locate an
    ///    NSEntityDescription for entity name 'X'"; an entity object of another model is replaced
    ///    by the model's entity of the same name, as Apple does, or if there is none → "The fetch
    ///    request's entity 'X' appears to be from a different NSManagedObjectModel than this
    ///    context's";
    /// 2. a negative `fetchLimit`, `fetchOffset` or `fetchBatchSize` (our wording: Apple's are
    ///    unsigned);
    /// 3. `propertiesToFetch`, then `propertiesToGroupBy`, by `FetchPropertyChecker`'s rules;
    /// 4. "Invalid fetch request: HAVING with no GROUP BY";
    /// 5. "Invalid fetch request: GROUP BY requires NSDictionaryResultType";
    /// 6. with grouping, every fetched property that is not an aggregate or other computed
    ///    expression must be grouped: "SELECT clauses in queries with GROUP BY components can
    ///    only contain properties named in the GROUP BY or aggregate functions (X is not in the
    ///    GROUP BY)". Without `propertiesToFetch` the fetched properties are all the entity's
    ///    stored attributes (our reading: Apple selects them all then).
    ///
    /// An empty `propertiesToGroupBy` counts as none.
    ///
    /// - Parameters:
    ///   - model: The model of the coordinator the request runs against.
    ///   - operation: The Objective-C selector Apple names in the missing-entity reason.
    /// - Throws: An `NSError` in `NSCocoaErrorDomain` with code `NSCoreDataError`, the reason as
    ///   its description, and the culprit (property, key path or entity name) under
    ///   `FetchRequestError.culpritKey`.
    func validated(in model: NSManagedObjectModel, operation: String = "executeFetchRequest:error:") throws
        -> ValidatedFetchRequest
    {
        do {
            return try validating(in: model, operation: operation)
        } catch let error as FetchRequestError {
            throw error.nsError
        }
    }

    private func validating(in model: NSManagedObjectModel, operation: String) throws -> ValidatedFetchRequest {
        let settings = settings
        let entity = try resolvedEntity(in: model, operation: operation)
        for (name, value) in [
            ("fetchLimit", settings.fetchLimit), ("fetchOffset", settings.fetchOffset),
            ("fetchBatchSize", settings.fetchBatchSize),
        ] where value < 0 {
            throw FetchRequestError("Invalid fetch request: \(name) must not be negative (\(value))", culprit: name)
        }
        func checked(_ values: [Any]?, _ list: FetchPropertyList) throws -> [NSPropertyDescription]? {
            let checker = FetchPropertyChecker(
                entity: entity, list: list, resultType: settings.resultType, keepsGivenDescriptions: false)
            return try values.map(checker.check)
        }
        let fetched = try checked(settings.propertiesToFetch, .fetch)
        let grouped = try checked(settings.propertiesToGroupBy, .groupBy)
        let groupBy = (grouped?.isEmpty ?? true) ? nil : grouped
        if settings.havingPredicate != nil, groupBy == nil {
            throw FetchRequestError("Invalid fetch request: HAVING with no GROUP BY")
        }
        if let groupBy {
            guard settings.resultType == .dictionaryResultType else {
                throw FetchRequestError("Invalid fetch request: GROUP BY requires NSDictionaryResultType")
            }
            let selected = (fetched?.isEmpty ?? true) ? Self.storedAttributes(of: entity) : fetched ?? []
            try Self.checkSelect(selected, groupedBy: groupBy)
        }
        return ValidatedFetchRequest(entity: entity, propertiesToFetch: fetched, propertiesToGroupBy: groupBy)
    }

    private func resolvedEntity(in model: NSManagedObjectModel, operation: String) throws -> NSEntityDescription {
        if let entity = settings.entity {
            let name = entity.name ?? ""
            if let own = model.entitiesByName[name] { return own }
            throw FetchRequestError(
                "The fetch request's entity '\(name)' appears to be from a different NSManagedObjectModel than this context's",
                culprit: name)
        }
        guard let name = settings.initialEntityName else {
            throw FetchRequestError("\(operation) A fetch request must have an entity.")
        }
        guard let entity = model.entitiesByName[name] else {
            throw FetchRequestError(
                "NSFetchRequest could not locate an NSEntityDescription for entity name '\(name)'", culprit: name)
        }
        return entity
    }

    /// What a dictionary fetch without `propertiesToFetch` selects: every stored attribute.
    private static func storedAttributes(of entity: NSEntityDescription) -> [NSPropertyDescription] {
        entity.properties.filter { $0 is NSAttributeDescription && !$0.isTransient }
    }

    /// SQL's rule: with GROUP BY, a selected column is grouped or computed (an aggregate, a
    /// function, a constant, the object ID).
    private static func checkSelect(_ selected: [NSPropertyDescription], groupedBy groupBy: [NSPropertyDescription]) throws {
        let groupedKeys = Set(groupBy.compactMap(groupingKey))
        for property in selected {
            guard let key = groupingKey(property), !groupedKeys.contains(key) else { continue }
            throw FetchRequestError(
                "SELECT clauses in queries with GROUP BY components can only contain properties named in the GROUP BY or aggregate functions (\(key) is not in the GROUP BY)",
                culprit: key)
        }
    }

    /// The key path a column reads, or nil for a computed column (a key path that ends in a
    /// collection operator, `employees.@count`, is an aggregate: see `CollectionOperatorPath`).
    private static func groupingKey(_ property: NSPropertyDescription) -> String? {
        guard let description = property as? NSExpressionDescription else { return property.name }
        guard let expression = description.expression, expression.expressionType == .keyPath else { return nil }
        return expression.keyPath.contains("@") ? nil : expression.keyPath
    }
}
