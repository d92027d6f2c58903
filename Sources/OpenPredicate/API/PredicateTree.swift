import Foundation

/// Moves between predicate objects (ours, corelibs', anyone's) and the internal trees.
enum PredicateTree {
    /// The tree of any predicate: ours are read directly, corelibs' compound and constant
    /// predicates are looked into, anything else (corelibs' block predicates, foreign
    /// subclasses) becomes an opaque node evaluated through its own
    /// `evaluate(with:substitutionVariables:)`.
    static func node(_ predicate: Foundation.NSPredicate) -> PredicateNode {
        if let ours = predicate as? NSPredicate {
            return ours.node
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

    // Immutable after initialization and only compared against: safe to share between threads.
    nonisolated(unsafe) private static let trueConstant = Foundation.NSPredicate(value: true)
    nonisolated(unsafe) private static let falseConstant = Foundation.NSPredicate(value: false)

    /// The predicate object for a tree: comparisons are `NSComparisonPredicate`, AND/OR/NOT
    /// `NSCompoundPredicate`, constants and opaque predicates plain `NSPredicate`.
    static func predicate(_ node: PredicateNode) -> NSPredicate {
        switch node {
        case .comparison(let comparison):
            return NSComparisonPredicate(comparison: comparison)
        case .and, .or, .not:
            return NSCompoundPredicate(node: node)
        case .constant, .opaque:
            return NSPredicate(node: node)
        }
    }

    /// `predicate` as the class its tree calls for (`NSComparisonPredicate`,
    /// `NSCompoundPredicate`, …): itself when it is one already, else a new object. Code that
    /// looks into predicates by class (the fetch plan, the SQL compiler) reads this form, so a
    /// plain `NSPredicate` made by `self.init(format:)` in an extension, or corelibs' compound,
    /// is read like the others.
    static func canonical(_ predicate: Foundation.NSPredicate) -> NSPredicate {
        switch predicate {
        case let comparison as NSComparisonPredicate: return comparison
        case let compound as NSCompoundPredicate: return compound
        case let plain as NSPredicate:
            switch plain.node {
            case .constant, .opaque: return plain
            default: return Self.predicate(plain.node)
            }
        default: return Self.predicate(node(predicate))
        }
    }

    /// A whole predicate compiled into one closure (for filtering many objects).
    static func compile(_ predicate: Foundation.NSPredicate) -> CompiledPredicate {
        if let ours = predicate as? NSPredicate { return ours.compiled }
        return PredicateCompiler.compileTree(node(predicate))
    }

    static func nodeOrTrap(_ format: String, arguments: [Any?]) -> PredicateNode {
        switch parsePredicate(format, arguments: arguments) {
        case .success(let node): return node
        case .failure(let error): AppleException.invalidArgument(error.message)
        }
    }

    static func nodeOrThrow(_ format: String, arguments: [Any?]) throws -> PredicateNode {
        switch parsePredicate(format, arguments: arguments) {
        case .success(let node): return node
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

extension Foundation.NSPredicate {
    /// This predicate as the class its tree calls for (see `PredicateTree.canonical(_:)`).
    package var canonical: NSPredicate { PredicateTree.canonical(self) }
}
