import OpenPredicate

/// The `expressionType` of an `NSFetchRequestExpression`: 50, as on Apple.
///
/// See [NSFetchRequestExpressionType](https://developer.apple.com/documentation/coredata/nsfetchrequestexpressiontype).
public let NSFetchRequestExpressionType = NSExpression.ExpressionType.fetchRequest

/// An expression whose value is the result of running a fetch request in a managed object
/// context: the fetched objects, or their count.
///
/// ```swift
/// let fetch = NSFetchRequestExpression.expression(
///     forFetch: NSExpression(forConstantValue: request),
///     context: NSExpression(forVariable: "context"),
///     countOnly: true)
/// fetch.description  // FETCH(<NSFetchRequest> (entity: …), $context, YES)
/// ```
///
/// The request expression must evaluate to an `NSFetchRequest` and the context expression to
/// an `NSManagedObjectContext`; both are evaluated against the same object and variables as the
/// fetch expression.
///
/// Evaluating runs the request in the context: `count(for:)` as an `NSNumber` when count-only,
/// `fetch(_:)` as an array otherwise. Inside a predicate it works the same way:
///
/// ```swift
/// let big = NSFetchRequest<NSFetchRequestResult>(entityName: "Employee")
/// big.predicate = NSPredicate(format: "salary > 100000")
/// let count = NSFetchRequestExpression.expression(
///     forFetch: NSExpression(forConstantValue: big),
///     context: NSExpression(forConstantValue: context), countOnly: true)
/// let predicate = NSComparisonPredicate(
///     leftExpression: count, rightExpression: NSExpression(forConstantValue: 0),
///     modifier: .direct, type: .greaterThan)
/// ```
///
/// **Differences from Apple:** inside a predicate or another expression it stands as the call
/// `FETCH(request, context, 1)` (Apple keeps the object itself there), and the in-memory store
/// runs the fetch again for each row it tests (Apple's SQLite store makes it a subquery). The
/// class is final.
/// See [NSFetchRequestExpression](https://developer.apple.com/documentation/coredata/nsfetchrequestexpression).
public final class NSFetchRequestExpression: NSExpression, @unchecked Sendable {
    // @unchecked Sendable: as `NSExpression`: immutable once made.

    private let request: NSExpression
    private let managedObjectContext: NSExpression
    private let countOnly: Bool

    private init(request: NSExpression, context: NSExpression, countOnly: Bool) {
        self.request = request
        self.managedObjectContext = context
        self.countOnly = countOnly
        super.init(subclassFunction: "FETCH", arguments: [request, context, NSExpression(forConstantValue: countOnly)])
    }

    // MARK: - Archiving

    /// Reads a fetch request expression archived by `encode(with:)`, under Apple's keys
    /// (`NSFRExpression`, `NSMOCExpression`, `NSCountOnlyFlag`). A missing expression makes this
    /// initializer fail and the coder report `NSCoderReadCorruptError`.
    ///
    /// **Differences from Apple:** a request expression that is a constant `NSFetchRequest`
    /// cannot be archived yet (fetch requests are not `NSCoding` yet).
    public required init?(coder: NSCoder) {
        guard let request = coder.decodeObject(of: NSExpression.self, forKey: Self.requestKey),
            let context = coder.decodeObject(of: NSExpression.self, forKey: Self.contextKey)
        else {
            coder.failWithError(
                CoreDataError.make(
                    code: CocoaError.Code.coderReadCorrupt.rawValue,
                    reason: "An archived NSFetchRequestExpression lacks its request or context expression"))
            return nil
        }
        self.request = request
        self.managedObjectContext = context
        self.countOnly = coder.decodeBool(forKey: Self.countOnlyKey)
        super.init(subclassFunction: "FETCH", arguments: [request, context, NSExpression(forConstantValue: countOnly)])
    }

    /// Archives the request and context expressions and the count flag under Apple's keys.
    public override func encode(with coder: NSCoder) {
        coder.encode(request, forKey: Self.requestKey)
        coder.encode(managedObjectContext, forKey: Self.contextKey)
        coder.encode(countOnly, forKey: Self.countOnlyKey)
    }

    private static let requestKey = "NSFRExpression"
    private static let contextKey = "NSMOCExpression"
    private static let countOnlyKey = "NSCountOnlyFlag"

    // MARK: - Creating

    /// Returns an expression that evaluates to the result of running a fetch request in a
    /// context.
    ///
    /// - Parameters:
    ///   - fetch: An expression that evaluates to an `NSFetchRequest`.
    ///   - context: An expression that evaluates to an `NSManagedObjectContext`.
    ///   - countFlag: `true` to evaluate to the number of matches (`count(for:)`), `false` to
    ///     the fetched results (`fetch(_:)`).
    /// - Returns: An `NSFetchRequestExpression`.
    /// See [expression(forFetch:context:countOnly:)](https://developer.apple.com/documentation/coredata/nsfetchrequestexpression/expression(forfetch:context:countonly:)).
    public class func expression(forFetch fetch: NSExpression, context: NSExpression, countOnly countFlag: Bool) -> NSExpression {
        NSFetchRequestExpression(request: fetch, context: context, countOnly: countFlag)
    }

    /// The expression that evaluates to the fetch request.
    /// See [requestExpression](https://developer.apple.com/documentation/coredata/nsfetchrequestexpression/requestexpression).
    public var requestExpression: NSExpression { request }

    /// The expression that evaluates to the managed object context.
    /// See [contextExpression](https://developer.apple.com/documentation/coredata/nsfetchrequestexpression/contextexpression).
    public var contextExpression: NSExpression { managedObjectContext }

    /// Whether the expression evaluates to a count (`count(for:)`) rather than to the fetched
    /// results (`fetch(_:)`).
    /// See [isCountOnlyRequest](https://developer.apple.com/documentation/coredata/nsfetchrequestexpression/iscountonlyrequest).
    public var isCountOnlyRequest: Bool { countOnly }

    /// `NSFetchRequestExpressionType` (50).
    public override var expressionType: ExpressionType { .fetchRequest }

    // MARK: - Evaluating

    /// The result of the fetch: the request's results (an array), or their number (an
    /// `NSNumber`) for a count-only expression.
    ///
    /// Stops the process with `NSInternalInconsistencyException` when the request or context
    /// cannot be evaluated (Apple's reason "NSFetchRequestExpression could not evaluate its
    /// request or context.") or the fetch fails; `expressionValue(validating:context:)` throws
    /// instead.
    public override func expressionValue(with object: Any?, context: NSMutableDictionary?) -> Any? {
        do {
            return try expressionValue(validating: object, context: context)
        } catch {
            AppleException.internalInconsistency(error.localizedDescription)
        }
    }

    /// The throwing twin of `expressionValue(with:context:)`: evaluates the request and context
    /// expressions and runs the fetch, throwing an `NSError` (`NSCocoaErrorDomain`,
    /// `NSCoreDataError`, or the fetch's own error) instead of stopping the process.
    public override func expressionValue(validating object: Any?, context: NSMutableDictionary?) throws -> Any? {
        let requestValue = try request.expressionValue(validating: object, context: context)
        let contextValue = try managedObjectContext.expressionValue(validating: object, context: context)
        let hasContext = contextValue.map { !($0 is NSNull) } ?? false
        guard let requestValue, !(requestValue is NSNull), let contextValue, hasContext else {
            throw FetchRequestError("NSFetchRequestExpression could not evaluate its request or context.").nsError
        }
        guard let fetchRequest = requestValue as? AnyFetchRequest else {
            let found = PropertyListText.text(of: requestValue)
            throw FetchRequestError("\(self) needs an NSFetchRequest; its request expression gave \(found)").nsError
        }
        guard let managedObjectContext = contextValue as? NSManagedObjectContext else {
            let found = PropertyListText.text(of: contextValue)
            throw FetchRequestError(
                "\(self) needs a managed object context to run its fetch request; its context expression gave \(found)"
            ).nsError
        }
        return try fetchRequest.results(in: managedObjectContext, countOnly: countOnly)
    }

    // MARK: - NSObject

    /// Apple's format: `FETCH(request, context, YES|NO)`.
    public override var description: String {
        "FETCH(\(request), \(managedObjectContext), \(countOnly ? "YES" : "NO"))"
    }

    /// Equal when `object` is a fetch request expression with the same count flag and equal
    /// request and context expressions.
    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSFetchRequestExpression else { return false }
        return other === self
            || (other.countOnly == countOnly && other.request.isEqual(request)
                && other.managedObjectContext.isEqual(managedObjectContext))
    }

    /// A hash consistent with `isEqual(_:)` (Apple's: the two expressions' hashes combined).
    public override var hash: Int {
        request.hash ^ managedObjectContext.hash
    }
}
