import OpenPredicate
import OpenStoreCore

extension NSFetchRequest {
    /// Runs the request in a context for a fetch request expression: the results, or their
    /// number as an `NSNumber` when `countOnly`.
    func results(in context: NSManagedObjectContext, countOnly: Bool) throws -> Any {
        if countOnly { return NSNumber(value: try context.count(for: self)) }
        return try context.runFetch(self)
    }
}

extension NSManagedObjectContext: PredicateFetchContext {
    /// Runs the request of a `FETCH(request, context, countOnly)` met inside a predicate or
    /// expression (an `NSFetchRequestExpression`) in this context.
    package func predicateFetch(_ request: Any, countOnly: Bool) throws -> Any {
        guard let request = request as? AnyFetchRequest else {
            throw FetchRequestError(
                "NSFetchRequestExpression needs an NSFetchRequest; its request expression gave \(PropertyListText.text(of: request))"
            ).nsError
        }
        return try request.results(in: self, countOnly: countOnly)
    }
}
