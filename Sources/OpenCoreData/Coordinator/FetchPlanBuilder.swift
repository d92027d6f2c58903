import OpenPredicate
import OpenStoreCore

/// Turns a fetch request into the plan stores run: the request is validated against the model
/// (Apple's rules, see `NSFetchRequest.validated(in:operation:)`), every key path of its
/// predicate and sort descriptors is checked against the entity, and the result shape is
/// resolved into columns. Done once per fetch, before any store is asked.
///
/// Key path rules (the context reports them as `NSError`s naming the key path and entity):
/// - each step must be a property of the entity reached so far ("keypath X not found in entity
///   Y", Apple's wording without the SQL entity's address);
/// - transient and fetched properties cannot be used: stores do not keep them;
/// - a sort key may not cross a to-many relationship ("to-many key not allowed here", Apple's
///   wording); predicates may (`ANY employees.salary > 5`, `employees.@count`);
/// - after an attribute or a collection operator (`@count`, `@sum.salary`) the rest of the path
///   is the value's own business and is not checked;
/// - a `SUBQUERY`'s `$x.key` is checked against the entity its collection leads to, and a
///   function's receiver like any other operand (`KeyPathWalk`); paths that start at another
///   variable (`$FETCH_SOURCE.name`) are checked when it is bound, not here; paths from a
///   constant (a bound variable such as a fetched property's `$FETCHED_PROPERTY.userInfo.key`)
///   are the constant's own business.
struct FetchPlanBuilder {
    let model: NSManagedObjectModel
    let schema: StoreSchema

    func plan<ResultType>(for request: NSFetchRequest<ResultType>) throws -> FetchPlan {
        let validated = try request.validated(in: model)
        let entity = validated.entity
        guard let entitySchema = schema.entity(named: entity.name ?? "") else {
            throw FetchRequestError("The entity \(entity.name ?? "") is not in the store's schema", culprit: entity.name).nsError
        }
        do {
            if let predicate = request.predicate {
                var walk = KeyPathWalk { keyPath, entity in try check(keyPath: keyPath, in: entity, allowsToMany: true) }
                try walk.walk(predicate.canonical, from: entity)
            }
            for descriptor in request.sortDescriptors ?? [] {
                if let key = descriptor.key {
                    try check(keyPath: key, in: entity, allowsToMany: false)
                } else if descriptor.hasUnnamedKeyPath {
                    throw FetchRequestError(
                        "The sort key path \(descriptor.keyPath) has no string form: only key paths of @Managed and stored "
                            + "properties name a property of entity \(entity.name ?? "")", culprit: "\(descriptor.keyPath)")
                }
            }
        } catch let error as FetchRequestError {
            throw error.nsError
        }
        let output: FetchPlan.Output
        switch request.resultType {
        case .managedObjectIDResultType: output = .keys
        case .dictionaryResultType: output = .dictionaries(try dictionaryShape(request, validated))
        case .countResultType: output = .count
        default: output = request.includesPropertyValues ? .rows : .keys
        }
        return FetchPlan(
            entityID: entitySchema.id, entityIDs: request.includesSubentities ? entitySchema.familyIDs : [entitySchema.id],
            predicate: request.predicate?.canonical, sortDescriptors: request.sortDescriptors ?? [], limit: request.fetchLimit,
            offset: request.fetchOffset, output: output)
    }

    // MARK: - Key paths

    /// Checks a key path step by step from `entity`.
    func check(keyPath: String, in entity: NSEntityDescription, allowsToMany: Bool) throws {
        guard !keyPath.isEmpty, !keyPath.hasPrefix("$") else { return }
        var current = entity
        for step in keyPath.split(separator: ".").map(String.init) {
            if step.hasPrefix("@") || step.uppercased() == "SELF" { return }
            guard let property = current.propertiesByName[step] else {
                throw FetchRequestError("keypath \(keyPath) not found in entity \(current.name ?? "")", culprit: keyPath)
            }
            if property.isTransient {
                throw FetchRequestError(
                    "keypath \(keyPath) uses the transient property \(step) of entity \(current.name ?? ""): stores do not "
                        + "keep transient values, so a fetch cannot filter or sort by them", culprit: keyPath)
            }
            switch property {
            case let relationship as NSRelationshipDescription:
                if relationship.isToMany && !allowsToMany {
                    throw FetchRequestError("to-many key not allowed here (\(keyPath))", culprit: keyPath)
                }
                guard let destination = relationship.destinationEntity else { return }
                current = destination
            case is NSFetchedPropertyDescription:
                throw FetchRequestError(
                    "keypath \(keyPath) uses the fetched property \(step) of entity \(current.name ?? ""), which a store "
                        + "cannot fetch by", culprit: keyPath)
            default:
                return  // an attribute: the rest is the value's own
            }
        }
    }

    // MARK: - Dictionary results

    private func dictionaryShape<ResultType>(_ request: NSFetchRequest<ResultType>, _ validated: ValidatedFetchRequest)
        throws -> DictionaryShape
    {
        let fetched =
            validated.propertiesToFetch
            ?? validated.entity.properties.filter { $0 is NSAttributeDescription && !$0.isTransient }
        let groupBy = validated.propertiesToGroupBy ?? []
        let columns = try fetched.map { property in
            try column(property, entity: validated.entity, grouped: !groupBy.isEmpty)
        }
        return DictionaryShape(
            columns: columns, groupBy: groupBy.map { column($0) },
            having: request.havingPredicate?.canonical, distinct: request.returnsDistinctResults)
    }

    /// A fetched column; a key path through a to-many relationship that ends in a collection
    /// operator is an aggregate over each group in a grouped fetch (`CollectionOperatorPath`).
    private func column(_ property: NSPropertyDescription, entity: NSEntityDescription, grouped: Bool) throws
        -> DictionaryShape.Column
    {
        guard let description = property as? NSExpressionDescription, let expression = description.expression,
            expression.expressionType == .keyPath, let path = CollectionOperatorPath(expression.keyPath, from: entity)
        else { return column(property) }
        var aggregate = path.perObjectExpression
        if grouped {
            guard let groupAggregate = path.groupAggregate else {
                throw FetchRequestError(
                    "Invalid keypath \(expression.keyPath) passed to setPropertiesToFetch: (@avg over the objects of a group "
                        + "is not supported; fetch @sum and @count instead)", culprit: expression.keyPath
                ).nsError
            }
            aggregate = groupAggregate
        }
        let type = description.expressionResultType
        return DictionaryShape.Column(
            name: description.name, expression: aggregate,
            resultKind: SchemaLowering.attributeKind(type == .undefinedAttributeType ? path.resultType : type))
    }

    private func column(_ property: NSPropertyDescription) -> DictionaryShape.Column {
        switch property {
        case let description as NSExpressionDescription:
            let type = description.expressionResultType
            return DictionaryShape.Column(
                name: description.name, expression: description.expression ?? NSExpression.expressionForEvaluatedObject(),
                resultKind: type == .undefinedAttributeType ? nil : SchemaLowering.attributeKind(type))
        case let attribute as NSAttributeDescription:
            return DictionaryShape.Column(
                name: attribute.name, expression: NSExpression(forKeyPath: attribute.name),
                resultKind: SchemaLowering.attributeKind(attribute.attributeType))
        default:
            return DictionaryShape.Column(
                name: property.name, expression: NSExpression(forKeyPath: property.name), resultKind: nil)
        }
    }
}
