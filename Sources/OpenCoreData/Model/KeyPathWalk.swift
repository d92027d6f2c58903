import OpenPredicate

/// Visits every key path an expression or predicate reads from an object, each with the entity
/// it starts from, so that a check can refuse one that names nothing before anything reads it
/// (reading an unknown key from a managed object stops the process, as Apple's raises). The
/// fetch plan (`FetchPlanBuilder`) and derived attributes (`DerivationCheck`) walk with their own
/// rules for a key path.
///
/// Reached: key paths from the object (`department.title`), function receivers and arguments
/// (`FUNCTION(name, 'uppercaseString')`), aggregates, set operations, conditionals and their
/// predicates, and subqueries: the collection from the object, and the predicate's `$member.key`
/// paths from the entity the collection leads to. Paths from other variables (`$FETCH_SOURCE`)
/// and from constants are not the entity's, and are left alone.
struct KeyPathWalk {
    /// The walk was given more parts than its `limit` (a hostile model file).
    struct TooLarge: Error {
        let limit: Int
    }

    /// Checks one key path, read from an object of the entity; throws to refuse it.
    let check: (_ keyPath: String, _ entity: NSEntityDescription) throws -> Void
    /// The most parts looked at before the walk throws `TooLarge`; nil for no limit.
    let limit: Int?
    private var parts = 0
    /// The entities of the subquery variables in scope.
    private var variables: [String: NSEntityDescription] = [:]

    init(limit: Int? = nil, check: @escaping (_ keyPath: String, _ entity: NSEntityDescription) throws -> Void) {
        self.limit = limit
        self.check = check
    }

    mutating func walk(_ predicate: NSPredicate, from entity: NSEntityDescription) throws {
        try count()
        switch predicate {
        case let comparison as OpenPredicate.NSComparisonPredicate:
            try walk(comparison.leftExpression, from: entity)
            try walk(comparison.rightExpression, from: entity)
        case let compound as OpenPredicate.NSCompoundPredicate:
            for case let part as NSPredicate in compound.subpredicates { try walk(part, from: entity) }
        default:
            break  // TRUEPREDICATE, FALSEPREDICATE, blocks
        }
    }

    mutating func walk(_ expression: NSExpression, from entity: NSEntityDescription) throws {
        try count()
        switch expression.expressionType {
        case .keyPath:
            let operand = expression.operand
            switch operand.expressionType {
            case .evaluatedObject: try check(expression.keyPath, entity)
            case .variable: if let member = variables[operand.variable] { try check(expression.keyPath, member) }
            default: try walk(operand, from: entity)  // `FUNCTION(…).key`: the rest is the value's own
            }
        case .function:
            let operand = expression.operand
            if operand.expressionType != .evaluatedObject { try walk(operand, from: entity) }
            for argument in expression.arguments ?? [] { try walk(argument, from: entity) }
        case .aggregate:
            for case let element as NSExpression in expression.collection as? [Any] ?? [] { try walk(element, from: entity) }
        case .subquery:
            guard let collection = expression.collection as? NSExpression else { return }
            try walk(collection, from: entity)
            let outer = variables
            defer { variables = outer }
            variables[expression.variable] =
                collection.expressionType == .keyPath && collection.operand.expressionType == .evaluatedObject
                ? Self.destination(ofKeyPath: collection.keyPath, from: entity) : nil
            try walk(expression.predicate, from: entity)
        case .unionSet, .intersectSet, .minusSet:
            try walk(expression.left, from: entity)
            try walk(expression.right, from: entity)
        case .conditional:
            try walk(expression.predicate, from: entity)
            try walk(expression.true, from: entity)
            try walk(expression.false, from: entity)
        default:
            break  // constants, variables, `now()`
        }
    }

    private mutating func count() throws {
        parts += 1
        if let limit, parts > limit { throw TooLarge(limit: limit) }
    }

    /// The entity a key path of relationships leads to from `entity` (nil when it ends elsewhere).
    private static func destination(ofKeyPath keyPath: String, from entity: NSEntityDescription) -> NSEntityDescription? {
        var current = entity
        for step in keyPath.split(separator: ".", omittingEmptySubsequences: false) {
            guard let relationship = current.relationshipsByName[String(step)], let next = relationship.destinationEntity else {
                return nil
            }
            current = next
        }
        return current
    }
}
