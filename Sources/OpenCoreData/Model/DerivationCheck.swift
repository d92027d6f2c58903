import OpenPredicate

/// Checks a derived attribute's `derivationExpression` against its entity, so that a derivation
/// that names a key the entity does not have is refused with a message instead of stopping the
/// process when a save computes it (key-value coding on a managed object raises for an unknown
/// key, as Apple's does).
///
/// The rules follow the fetch plan's key path rules (`FetchPlanBuilder`): each step of a key
/// path must be a property of the entity reached so far; a relationship leads to its
/// destination; after an attribute or `@count` the rest is the value's own business; after
/// another collection operator (`pages.@sum.number`) the rest is read from each object of the
/// collection, so it is checked against the destination; a fetched property cannot be read by
/// a store. Function receivers and arguments, aggregates, subqueries (the collection against
/// the entity, the predicate's `$member.key` paths against the members' entity), set
/// operations and conditionals (their predicates too) are checked part by part; constants, variables
/// and `now()` need no check. The model file loader and the context's save both use it.
enum DerivationCheck {
    /// What is wrong with `derived`'s expression as a derivation of `entity`, or nil when every
    /// key path it reads leads somewhere.
    static func problem(of derived: NSDerivedAttributeDescription, in entity: NSEntityDescription) -> String? {
        guard let expression = derived.derivationExpression else { return nil }
        var check = DerivationCheck.Walk(entity: entity)
        return check.problem(of: expression)
    }

    /// The most expression parts one derivation may have before the check gives up (a derivation
    /// is a key path or a short function; a larger one comes from a hostile file).
    static let maximumParts = 1_000

    /// One check: the entity the object has, the entities a subquery's variables stand for, and
    /// the parts left to look at.
    private struct Walk {
        let entity: NSEntityDescription
        var variables: [String: NSEntityDescription] = [:]
        var budget = maximumParts

        init(entity: NSEntityDescription) {
            self.entity = entity
        }

        mutating func problem(of expression: NSExpression) -> String? {
            budget -= 1
            guard budget >= 0 else { return "the expression has more than \(maximumParts) parts" }
            switch expression.expressionType {
            case .keyPath:
                let operand = expression.operand
                switch operand.expressionType {
                case .evaluatedObject: return DerivationCheck.problem(ofKeyPath: expression.keyPath, in: entity)
                case .variable:
                    // `$member.key` inside a subquery: checked against the members' entity.
                    guard let member = variables[operand.variable] else { return nil }
                    return DerivationCheck.problem(ofKeyPath: expression.keyPath, in: member)
                default: return problem(of: operand)
                }
            case .function:
                // `FUNCTION(receiver, 'selector', …)` reads its receiver too (a key path, most often).
                let operand = expression.operand
                if operand.expressionType != .evaluatedObject, let found = problem(of: operand) { return found }
                for argument in expression.arguments ?? [] {
                    if let found = problem(of: argument) { return found }
                }
                return nil
            case .aggregate:
                for case let element as NSExpression in expression.collection as? [Any] ?? [] {
                    if let found = problem(of: element) { return found }
                }
                return nil
            case .subquery:
                // The collection is read from the object; the predicate from each member, through
                // the subquery's variable.
                guard let collection = expression.collection as? NSExpression else { return nil }
                if let found = problem(of: collection) { return found }
                let outer = variables
                defer { variables = outer }
                if collection.expressionType == .keyPath, collection.operand.expressionType == .evaluatedObject,
                    let members = DerivationCheck.destination(ofKeyPath: collection.keyPath, from: entity)
                {
                    variables[expression.variable] = members
                } else {
                    variables[expression.variable] = nil
                }
                return problem(of: expression.predicate)
            case .unionSet, .intersectSet, .minusSet:
                return problem(of: expression.left) ?? problem(of: expression.right)
            case .conditional:
                return problem(of: expression.predicate) ?? problem(of: expression.true) ?? problem(of: expression.false)
            default:
                return nil
            }
        }

        /// Checks the expressions of a predicate (a subquery's, a conditional's).
        mutating func problem(of predicate: NSPredicate) -> String? {
            budget -= 1
            guard budget >= 0 else { return "the expression has more than \(maximumParts) parts" }
            switch predicate {
            case let comparison as OpenPredicate.NSComparisonPredicate:
                return problem(of: comparison.leftExpression) ?? problem(of: comparison.rightExpression)
            case let compound as OpenPredicate.NSCompoundPredicate:
                for case let part as NSPredicate in compound.subpredicates {
                    if let found = problem(of: part) { return found }
                }
                return nil
            default:
                return nil
            }
        }
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

    /// Checks a key path step by step from `entity`.
    private static func problem(ofKeyPath keyPath: String, in entity: NSEntityDescription) -> String? {
        guard !keyPath.isEmpty, !keyPath.hasPrefix("$") else { return nil }
        var current = entity
        for step in keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init) {
            if step.uppercased() == "SELF" { continue }
            if step.hasPrefix("@") {
                // `@count` ends the path; `@sum.pages` and the like read the rest from each object
                // of the collection, which is the entity reached so far.
                if step == "@count" { return nil }
                continue
            }
            guard let property = current.propertiesByName[step] else {
                return "the key path '\(keyPath)' names '\(step)', which is not a property of entity '\(current.name ?? "")'"
            }
            switch property {
            case let relationship as NSRelationshipDescription:
                guard let destination = relationship.destinationEntity else {
                    return "the key path '\(keyPath)' goes through relationship '\(step)', which has no destination entity"
                }
                current = destination
            case is NSFetchedPropertyDescription:
                return "the key path '\(keyPath)' reads the fetched property '\(step)', which a derivation cannot use"
            default:
                return nil  // an attribute: the rest is the value's own
            }
        }
        return nil
    }
}
