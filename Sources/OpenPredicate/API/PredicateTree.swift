import Foundation

/// Moves between predicate objects (ours, corelibs', anyone's) and the internal trees.
enum PredicateTree {
    /// The tree of any `NSPredicate`: ours (`TRUEPREDICATE` included) are read directly,
    /// corelibs' compound and constant predicates are looked into, anything else (block
    /// predicates, foreign subclasses) becomes an opaque node evaluated through its own
    /// `evaluate(with:substitutionVariables:)`.
    static func node(_ predicate: Foundation.NSPredicate) -> PredicateNode {
        if let comparison = predicate as? NSComparisonPredicate {
            return .comparison(comparison.comparison)
        }
        if let compound = predicate as? CompoundPredicate {
            return compound.node
        }
        if let constant = predicate as? ConstantPredicate {
            return .constant(constant.evaluate(with: nil))
        }
        if let compound = predicate as? Foundation.NSCompoundPredicate {
            let children = compound.subpredicates.map(node)
            switch compound.compoundPredicateType {
            case .and: return .and(children)
            case .or: return .or(children)
            case .not: return children.first.map { .not($0) } ?? .constant(true)
            @unknown default: return .opaque(OpaquePredicate(predicate))
            }
        }
        if type(of: predicate) == Foundation.NSPredicate.self {
            if predicate.isEqual(trueConstant) { return .constant(true) }
            if predicate.isEqual(falseConstant) { return .constant(false) }
        }
        return .opaque(OpaquePredicate(predicate))
    }

    private static let trueConstant = Foundation.NSPredicate(value: true)
    private static let falseConstant = Foundation.NSPredicate(value: false)

    /// The predicate object for a tree: comparisons are `NSComparisonPredicate`, AND/OR/NOT our
    /// `NSCompoundPredicate` subclass, constants `ConstantPredicate`.
    static func predicate(_ node: PredicateNode) -> Foundation.NSPredicate {
        switch node {
        case .constant(let value):
            return ConstantPredicate(value: value)
        case .comparison(let comparison):
            return NSComparisonPredicate(comparison: comparison)
        case .and, .or, .not:
            return CompoundPredicate(node: node)
        case .opaque(let opaque):
            return opaque.predicate
        }
    }

    /// A whole predicate compiled into one closure (for filtering many objects).
    static func compile(_ predicate: Foundation.NSPredicate) -> CompiledPredicate {
        if let comparison = predicate as? NSComparisonPredicate { return comparison.compiled }
        if let compound = predicate as? CompoundPredicate { return compound.compiled }
        return PredicateCompiler.compileTree(node(predicate))
    }

    static func predicateOrTrap(_ format: String, arguments: [Any?]) -> Foundation.NSPredicate {
        switch parsePredicate(format, arguments: arguments) {
        case .success(let node): return predicate(node)
        case .failure(let error): AppleException.invalidArgument(error.message)
        }
    }

    static func predicateOrThrow(_ format: String, arguments: [Any?]) throws -> Foundation.NSPredicate {
        switch parsePredicate(format, arguments: arguments) {
        case .success(let node): return predicate(node)
        case .failure(let error): throw error.nsError
        }
    }

    static func parsePredicate(_ format: String, arguments: [Any?]) -> Result<PredicateNode, PredicateSyntaxError> {
        Result { () throws(PredicateSyntaxError) -> PredicateNode in
            try PredicateParser.parsePredicate(format, arguments: arguments)
        }
    }

    static func parseExpression(_ format: String, arguments: [Any?]) -> Result<ExpressionNode, PredicateSyntaxError> {
        Result { () throws(PredicateSyntaxError) -> ExpressionNode in
            try PredicateParser.parseExpression(format, arguments: arguments)
        }
    }

    /// Variable bindings from an expression-evaluation context dictionary.
    static func bindings(from dictionary: NSMutableDictionary?) -> [String: Any] {
        guard let dictionary else { return [:] }
        var bindings: [String: Any] = [:]
        for (key, value) in dictionary {
            if let name = ValueSemantics.string(key) { bindings[name] = value }
        }
        return bindings
    }
}

/// `TRUEPREDICATE` / `FALSEPREDICATE` from a format string: corelibs' `NSPredicate(value:)`
/// (which evaluates and copies correctly) with Apple's `description` (corelibs' own prints
/// `<NSPredicate: 0x…>`) and a hash consistent with equality (corelibs' hashes the identity).
final class ConstantPredicate: Foundation.NSPredicate {
    override var description: String {
        evaluate(with: nil) ? "TRUEPREDICATE" : "FALSEPREDICATE"
    }

    override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? Foundation.NSPredicate else { return false }
        return other === self || PredicateTree.node(other) == .constant(evaluate(with: nil))
    }

    override var hash: Int { PredicateNode.constant(evaluate(with: nil)).hashValue }
}
