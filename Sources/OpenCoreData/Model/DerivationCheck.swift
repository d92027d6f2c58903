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
/// a store. `KeyPathWalk` finds the key paths, wherever they stand (function receivers and
/// arguments, aggregates, subqueries, set operations, conditionals). The model file loader and
/// the context's save both use it.
enum DerivationCheck {
    /// What is wrong with `derived`'s expression as a derivation of `entity`, or nil when every
    /// key path it reads leads somewhere.
    static func problem(of derived: NSDerivedAttributeDescription, in entity: NSEntityDescription) -> String? {
        guard let expression = derived.derivationExpression else { return nil }
        var walk = KeyPathWalk(limit: maximumParts) { keyPath, entity in
            if let problem = problem(ofKeyPath: keyPath, in: entity) { throw Problem(message: problem) }
        }
        do {
            try walk.walk(expression, from: entity)
            return nil
        } catch let problem as Problem {
            return problem.message
        } catch {
            return "the expression has more than \(maximumParts) parts"
        }
    }

    /// The most expression parts one derivation may have before the check gives up (a derivation
    /// is a key path or a short function; a larger one comes from a hostile file).
    static let maximumParts = 1_000

    private struct Problem: Error {
        let message: String
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
