import Foundation

// Hooks for the package's stores (OpenInMemoryStore): a predicate or expression compiled once
// per fetch and run over many rows with the throwing twins' error reporting, and a way for a
// row view to compare equal to the key that stands for its object.

/// A predicate compiled once and run over many objects; each evaluation reports the first
/// problem met, as `evaluate(validating:)` does.
package struct PredicateEvaluator {
    private let test: CompiledPredicate
    private var context = EvaluationContext()

    package init(_ predicate: Foundation.NSPredicate) {
        test = PredicateTree.compile(predicate)
    }

    /// Whether `object` matches; throws the `NSError` `evaluate(validating:)` would throw.
    package mutating func matches(_ object: KeyValueCodable) throws -> Bool {
        let result = test(EvaluationSubject(codable: object), &context)
        if let error = context.error {
            context.error = nil
            throw error.nsError
        }
        return result
    }
}

/// An expression compiled once and evaluated for many objects; each evaluation reports the
/// first problem met, as `expressionValue(validating:context:)` does.
package struct ExpressionEvaluator {
    private let compiled: CompiledExpression
    private var context = EvaluationContext()

    package init(_ expression: NSExpression) {
        compiled = expression.compiled
    }

    /// The value for `object`; throws the `NSError` `expressionValue(validating:context:)` would
    /// throw.
    package mutating func value(for object: KeyValueCodable) throws -> Any? {
        let value = compiled(EvaluationSubject(codable: object), &context)
        if let error = context.error {
            context.error = nil
            throw error.nsError
        }
        return value
    }
}

/// A value that `==`, `IN` and `CONTAINS` treat as another: a store's view of a row stands for
/// the row's key, so `self == %@` and `department IN %@` match when the constants are keys.
package protocol PredicateIdentity {
    /// What the value compares and hashes as.
    var predicateIdentity: AnyHashable { get }
}

/// A context that can run fetch requests: what Core Data's `NSFetchRequestExpression` (which
/// stands in a predicate as `FETCH(request, context, countOnly)`) needs from its context
/// expression's value. OpenCoreData's `NSManagedObjectContext` conforms.
package protocol PredicateFetchContext: AnyObject {
    /// The results of `request` (an `NSFetchRequest`), or their number as an `NSNumber` when
    /// `countOnly`; throws when the value is not a request or the fetch fails.
    func predicateFetch(_ request: Any, countOnly: Bool) throws -> Any
}
