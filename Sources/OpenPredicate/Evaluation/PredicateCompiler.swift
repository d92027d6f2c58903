import Foundation

/// Compiles a `PredicateNode` into a closure once per predicate.
///
/// Semantics (Apple's where documented, ours where not — each tested):
/// - `AND`/`OR` short-circuit in order; empty `AND` is true, empty `OR` is false.
/// - `ANY x op y` is true when some element of `x` matches; `ALL` when every element does (also
///   for an empty collection); `NONE` is `NOT ANY`. A non-collection under `ANY`/`ALL` is treated
///   as a one-element collection, `nil` as an empty one.
/// - Ordering (`<` `<=` `>` `>=`, `BETWEEN`) with `nil`/`NSNull` on either side, or between values
///   that have no common order (a number and a string), is false — Apple raises for the latter.
/// - `==` is true for `nil == nil`; `!=` is its negation.
/// - String operators with a non-string operand are false; `BEGINSWITH`, `ENDSWITH`, `CONTAINS`
///   and `IN` with an empty string to look for are false, as `NSString`'s searches are.
enum PredicateCompiler {
    /// Compiles `node`; deep trees compile through `LargeStack`.
    static func compileTree(_ node: PredicateNode) -> CompiledPredicate {
        // Boxed: a closure returned as the generic `T` would come back wrapped in two
        // reabstraction thunks, paid on every evaluation.
        node.onEnoughStack { Box(closure: compile(node)) }.closure
    }

    /// A compiled predicate carried through generic code at its own abstraction.
    struct Box {
        let closure: CompiledPredicate
    }

    static func compile(_ node: PredicateNode) -> CompiledPredicate {
        switch node {
        case .constant(let value):
            return { _, _ in value }
        // Two subpredicates (the commonest case) are compiled straight into locals: a closure
        // taken out of an array is stored at maximal abstraction and every call to it would go
        // through a reabstraction thunk.
        case .and(let subpredicates) where subpredicates.count == 2:
            let first = compile(subpredicates[0])
            let second = compile(subpredicates[1])
            return { object, context in first(object, &context) && second(object, &context) }
        case .or(let subpredicates) where subpredicates.count == 2:
            let first = compile(subpredicates[0])
            let second = compile(subpredicates[1])
            return { object, context in first(object, &context) || second(object, &context) }
        case .and(let subpredicates):
            let closures = subpredicates.map(compile)
            switch closures.count {
            case 0: return { _, _ in true }
            case 1: return closures[0]
            default:
                return { object, context in
                    for closure in closures where !closure(object, &context) { return false }
                    return true
                }
            }
        case .or(let subpredicates):
            let closures = subpredicates.map(compile)
            switch closures.count {
            case 0: return { _, _ in false }
            case 1: return closures[0]
            default:
                return { object, context in
                    for closure in closures where closure(object, &context) { return true }
                    return false
                }
            }
        case .not(let subpredicate):
            let closure = compile(subpredicate)
            return { object, context in !closure(object, &context) }
        case .opaque(let opaque):
            let predicate = opaque.predicate
            return { object, context in
                predicate.evaluate(with: object.object, substitutionVariables: context.variables)
            }
        case .comparison(let comparison):
            return compile(comparison)
        }
    }

    static func compile(_ comparison: ComparisonNode) -> CompiledPredicate {
        if comparison.operatorType == .matches { return compileMatches(comparison) }
        let left = ExpressionCompiler.compile(comparison.left)
        let right = ExpressionCompiler.compile(comparison.right)
        let test = ComparisonTest.make(comparison)

        switch comparison.modifier {
        case .direct:
            if let constant = comparison.right.compileTimeValue {
                let rightValue = constant.value
                if let fast = ComparisonTest.fastConstantTest(comparison, constant: rightValue) {
                    // `key op constant`: the key read inline, as the key path's closure reads it
                    // (`ExpressionCompiler`), one closure call fewer per object; an object that
                    // reads its integers and strings without an `Any` is handed the test in that
                    // form (`ScalarKeyValueCodable`).
                    if let key = comparison.left.singleKey {
                        let (test, scalarTests) = (fast.value, fast.scalar)
                        return { object, _ in
                            if let scalar = object.scalar { return scalar.scalarTest(forKey: key, scalarTests) }
                            return test(object.codable.value(forKey: key))
                        }
                    }
                    let test = fast.value
                    return { object, context in test(left(object, &context)) }
                }
                return { object, context in test(left(object, &context), rightValue) }
            }
            return { object, context in test(left(object, &context), right(object, &context)) }
        case .any, .all:
            let requireAll = comparison.modifier == .all
            return { object, context in
                let elements = anyAllElements(left(object, &context))
                let rhs = right(object, &context)
                if requireAll {
                    return elements.allSatisfy { test($0, rhs) }
                }
                return elements.contains { test($0, rhs) }
            }
        }
    }
}

extension PredicateCompiler {
    /// The elements an `ANY`/`ALL` comparison tests: a collection's, a single value alone,
    /// none for nil.
    static func anyAllElements(_ collection: Any?) -> [Any] {
        if let list = ExpressionCompiler.collectionElements(collection) { return list }
        if let single = ValueSemantics.unwrapOptional(collection) { return [single] }
        return []
    }

    /// `MATCHES`, whose test reports an invalid pattern to the evaluation's context (see
    /// `StringMatching.Matcher`). A constant pattern compiles once, here (an invalid one is
    /// reported when a string is tested against it); other patterns usually repeat from object
    /// to object and the last one is kept.
    static func compileMatches(_ comparison: ComparisonNode) -> CompiledPredicate {
        let left = ExpressionCompiler.compile(comparison.left)
        let right = ExpressionCompiler.compile(comparison.right)
        let matcher = StringMatching.Matcher(
            options: comparison.options, constantPattern: comparison.right.compileTimeValue?.value)
        switch comparison.modifier {
        case .direct:
            if let constant = comparison.right.compileTimeValue {
                let pattern = constant.value
                if let key = comparison.left.singleKey {
                    return { object, context in matcher.test(object.codable.value(forKey: key), pattern, &context) }
                }
                return { object, context in matcher.test(left(object, &context), pattern, &context) }
            }
            return { object, context in
                let lhs = left(object, &context)
                return matcher.test(lhs, right(object, &context), &context)
            }
        case .any, .all:
            let requireAll = comparison.modifier == .all
            return { object, context in
                let elements = anyAllElements(left(object, &context))
                let rhs = right(object, &context)
                for element in elements {
                    let matched = matcher.test(element, rhs, &context)
                    if matched != requireAll { return matched }
                }
                return requireAll
            }
        }
    }
}

/// The test one operator applies to two evaluated operands.
enum ComparisonTest {
    typealias Test = (Any?, Any?) -> Bool

    static func make(_ comparison: ComparisonNode) -> Test {
        let options = comparison.options
        let folds = options.contains(.caseInsensitive) || options.contains(.diacriticInsensitive)
        func fold(_ s: String) -> String { folds ? StringFolding.fold(s, options: options) : s }

        switch comparison.operatorType {
        case .equalTo:
            return { equal($0, $1, options: options) }
        case .notEqualTo:
            return { !equal($0, $1, options: options) }
        case .lessThan:
            return { order($0, $1, options: options) == .orderedAscending }
        case .lessThanOrEqualTo:
            return { order($0, $1, options: options).map { $0 != .orderedDescending } ?? false }
        case .greaterThan:
            return { order($0, $1, options: options) == .orderedDescending }
        case .greaterThanOrEqualTo:
            return { order($0, $1, options: options).map { $0 != .orderedAscending } ?? false }
        case .beginsWith:
            return { lhs, rhs in
                guard let s = ValueSemantics.string(lhs), let p = ValueSemantics.string(rhs), !p.isEmpty else { return false }
                return fold(s).hasPrefix(fold(p))
            }
        case .endsWith:
            return { lhs, rhs in
                guard let s = ValueSemantics.string(lhs), let p = ValueSemantics.string(rhs), !p.isEmpty else { return false }
                return fold(s).hasSuffix(fold(p))
            }
        case .like:
            return { lhs, rhs in
                guard let s = ValueSemantics.string(lhs), let p = ValueSemantics.string(rhs) else { return false }
                return StringMatching.like(fold(s), pattern: fold(p))
            }
        case .matches:
            // Without a context to report to: an invalid pattern answers false. Predicates
            // compile `MATCHES` with `compileMatches`, which reports it.
            let matcher = StringMatching.Matcher(options: options)
            return { lhs, rhs in
                var context = EvaluationContext()
                return matcher.test(lhs, rhs, &context)
            }
        case .contains:
            return { lhs, rhs in contains(container: lhs, element: rhs, options: options) }
        case .in:
            return { lhs, rhs in contains(container: rhs, element: lhs, options: options) }
        case .between:
            return { lhs, rhs in
                guard let bounds = ExpressionCompiler.collectionElements(rhs), bounds.count == 2 else { return false }
                guard let low = order(lhs, bounds[0], options: options),
                    let high = order(lhs, bounds[1], options: options)
                else { return false }
                return low != .orderedAscending && high != .orderedDescending
            }
        case .customSelector:
            let selector = comparison.customSelector ?? ""
            return { lhs, rhs in
                (SelectorInvocation.invoke(selector, on: lhs, arguments: [rhs]) as? Bool) ?? false
            }
        }
    }

    /// `==` with options: strings fold, everything else is `isEqual:`.
    static func equal(_ lhs: Any?, _ rhs: Any?, options: ComparisonOptions) -> Bool {
        if options.contains(.caseInsensitive) || options.contains(.diacriticInsensitive),
            let a = ValueSemantics.string(lhs), let b = ValueSemantics.string(rhs)
        {
            return StringFolding.fold(a, options: options) == StringFolding.fold(b, options: options)
        }
        return ValueSemantics.isEqual(lhs, rhs)
    }

    /// `compare:` with options: strings fold first.
    static func order(_ lhs: Any?, _ rhs: Any?, options: ComparisonOptions) -> ComparisonResult? {
        if options.contains(.caseInsensitive) || options.contains(.diacriticInsensitive),
            let a = ValueSemantics.string(lhs), let b = ValueSemantics.string(rhs)
        {
            return ValueSemantics.compareStrings(StringFolding.fold(a, options: options), StringFolding.fold(b, options: options))
        }
        return ValueSemantics.compare(lhs, rhs)
    }

    /// `CONTAINS` / `IN`: substring when both are strings, membership when the container is a
    /// collection (a dictionary's values), false otherwise.
    static func contains(container: Any?, element: Any?, options: ComparisonOptions) -> Bool {
        guard let container = ValueSemantics.unwrapOptional(container) else { return false }
        if let haystack = ValueSemantics.string(container) {
            guard let needle = ValueSemantics.string(element), !needle.isEmpty else { return false }
            if options.contains(.caseInsensitive) || options.contains(.diacriticInsensitive) {
                return StringSearch.contains(
                    StringFolding.fold(haystack, options: options), StringFolding.fold(needle, options: options))
            }
            return StringSearch.contains(haystack, needle)
        }
        guard let elements = (container as? PredicateCollection)?.predicateElements else { return false }
        return elements.contains { equal($0, element, options: options) }
    }
}
