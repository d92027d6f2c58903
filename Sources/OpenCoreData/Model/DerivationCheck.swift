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
/// a store. Function receivers and arguments, aggregates, subqueries' collections, set
/// operations and conditionals are checked part by part; constants, variables
/// and `now()` need no check. The model file loader and the context's save both use it.
enum DerivationCheck {
    /// What is wrong with `derived`'s expression as a derivation of `entity`, or nil when every
    /// key path it reads leads somewhere.
    static func problem(of derived: NSDerivedAttributeDescription, in entity: NSEntityDescription) -> String? {
        guard let expression = derived.derivationExpression else { return nil }
        var budget = maximumParts
        return problem(of: expression, in: entity, budget: &budget)
    }

    /// The most expression parts one derivation may have before the check gives up (a derivation
    /// is a key path or a short function; a larger one comes from a hostile file).
    static let maximumParts = 1_000

    private static func problem(of expression: NSExpression, in entity: NSEntityDescription, budget: inout Int) -> String? {
        budget -= 1
        guard budget >= 0 else { return "the expression has more than \(maximumParts) parts" }
        switch expression.expressionType {
        case .keyPath:
            let operand = expression.operand
            guard operand.expressionType == .evaluatedObject else { return problem(of: operand, in: entity, budget: &budget) }
            return problem(ofKeyPath: expression.keyPath, in: entity)
        case .function:
            // `FUNCTION(receiver, 'selector', …)` reads its receiver too (a key path, most often).
            let operand = expression.operand
            if operand.expressionType != .evaluatedObject, let found = problem(of: operand, in: entity, budget: &budget) {
                return found
            }
            for argument in expression.arguments ?? [] {
                if let found = problem(of: argument, in: entity, budget: &budget) { return found }
            }
            return nil
        case .subquery:
            // The collection is read from the object; the predicate from each member, through the
            // subquery's variable (not checked here: a store refuses an unknown key there).
            guard let collection = expression.collection as? NSExpression else { return nil }
            return problem(of: collection, in: entity, budget: &budget)
        case .aggregate:
            for case let element as NSExpression in expression.collection as? [Any] ?? [] {
                if let found = problem(of: element, in: entity, budget: &budget) { return found }
            }
            return nil
        case .unionSet, .intersectSet, .minusSet:
            return problem(of: expression.left, in: entity, budget: &budget)
                ?? problem(of: expression.right, in: entity, budget: &budget)
        case .conditional:
            return problem(of: expression.true, in: entity, budget: &budget)
                ?? problem(of: expression.false, in: entity, budget: &budget)
        default:
            return nil
        }
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
