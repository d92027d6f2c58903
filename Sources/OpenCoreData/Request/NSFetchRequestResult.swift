import OpenPredicate

/// The kinds of value a fetch request can return: managed objects, object IDs, dictionaries
/// (`NSDictionary`) and counts (`NSNumber`).
///
/// **Differences from Apple:** Apple's is an `@objc` protocol, which conforms to itself, so
/// that `NSFetchRequest<NSFetchRequestResult>` satisfies the request's generic constraint. A Swift
/// protocol cannot, so our `NSFetchRequest`'s `ResultType` is unconstrained; the same code
/// compiles, and the context checks results against `ResultType` when it fetches.
/// See [NSFetchRequestResult](https://developer.apple.com/documentation/coredata/nsfetchrequestresult).
public protocol NSFetchRequestResult: NSObjectProtocol {}

extension NSDictionary: NSFetchRequestResult {}

extension NSNumber: NSFetchRequestResult {}

extension NSManagedObjectID: NSFetchRequestResult {}

/// What a fetch request returns, with Apple's raw values.
///
/// See [NSFetchRequestResultType](https://developer.apple.com/documentation/coredata/nsfetchrequestresulttype).
public struct NSFetchRequestResultType: OptionSet, Sendable, Hashable {
    /// The raw value: 0 objects, 1 object IDs, 2 dictionaries, 4 a count.
    public let rawValue: UInt

    /// Creates a result type from Apple's raw value.
    public init(rawValue: UInt) {
        self.rawValue = rawValue
    }

    /// Managed objects (the default).
    public static let managedObjectResultType = NSFetchRequestResultType([])
    /// Managed object IDs.
    public static let managedObjectIDResultType = NSFetchRequestResultType(rawValue: 1)
    /// Dictionaries of property names (or expression description names) to values.
    public static let dictionaryResultType = NSFetchRequestResultType(rawValue: 2)
    /// The number of matching objects, as one `NSNumber`.
    public static let countResultType = NSFetchRequestResultType(rawValue: 4)
}
