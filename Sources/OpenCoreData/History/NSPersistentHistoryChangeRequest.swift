import OpenPredicate

/// What a persistent-history request returns, with Apple's raw values.
///
/// See [NSPersistentHistoryResultType](https://developer.apple.com/documentation/coredata/nspersistenthistoryresulttype).
public enum NSPersistentHistoryResultType: Int, Sendable {
    /// Whether the request succeeded (`result` is an `NSNumber` holding true).
    case statusOnly = 0
    /// The IDs of the objects changed (`result` is `[NSManagedObjectID]`, each once).
    case objectIDs = 1
    /// The number of changes (`result` is an `NSNumber`); for a delete request, of the changes
    /// deleted.
    case count = 2
    /// The transactions without their changes (`result` is `[NSPersistentHistoryTransaction]`).
    case transactionsOnly = 3
    /// The changes without their transactions (`result` is `[NSPersistentHistoryChange]`).
    case changesOnly = 4
    /// The transactions with their changes (`result` is `[NSPersistentHistoryTransaction]`).
    case transactionsAndChanges = 5
}

/// A request to fetch or delete persistent history, run with `NSManagedObjectContext.execute(_:)`.
///
/// ```swift
/// let request = NSPersistentHistoryChangeRequest.fetchHistory(after: lastToken)
/// let result = try context.execute(request) as? NSPersistentHistoryResult
/// for transaction in result?.result as? [NSPersistentHistoryTransaction] ?? [] {
///     context.mergeChanges(fromContextDidSave: transaction.objectIDNotification())
/// }
/// ```
///
/// It reads the stores in `affectedStores` (**Default:** every store of the coordinator that
/// was added with `NSPersistentHistoryTrackingKey`), and fails with
/// `NSPersistentStoreUnsupportedRequestTypeError` when a store it names keeps no history.
/// Transactions come oldest first, store by store.
///
/// **Differences from Apple:** `fetchRequest` filters with its predicate only, in memory after
/// the history is read (see `NSPersistentHistoryTransaction.fetchRequest` and
/// `NSPersistentHistoryChange.fetchRequest`); a delete request refuses one. Requests by date
/// read the stores' history and filter it by timestamp.
/// See [NSPersistentHistoryChangeRequest](https://developer.apple.com/documentation/coredata/nspersistenthistorychangerequest).
open class NSPersistentHistoryChangeRequest: NSPersistentStoreRequest {
    /// Where the request starts or ends.
    enum Boundary {
        case token(NSPersistentHistoryToken?)
        case date(Date)
        case transaction(NSPersistentHistoryTransaction?)
    }

    private(set) var boundary = Boundary.token(nil)
    /// True for a delete request.
    private(set) var deletes = false

    /// What the request returns. **Default:** `.transactionsAndChanges`.
    open var resultType: NSPersistentHistoryResultType = .transactionsAndChanges

    /// A fetch request filtering the history: `NSPersistentHistoryTransaction.fetchRequest` or
    /// `NSPersistentHistoryChange.fetchRequest` with a predicate. **Default:** nil.
    ///
    /// **Differences from Apple:** only its predicate is used; `execute(_:)` refuses a request
    /// for another entity, and a delete request with one.
    open var fetchRequest: NSFetchRequest<NSFetchRequestResult>?

    /// The token a request by token was made with; nil for other requests.
    open var token: NSPersistentHistoryToken? {
        if case .token(let token) = boundary { return token }
        return nil
    }

    /// Fetch requests run as such.
    open override var requestType: NSPersistentStoreRequestType { .fetchRequestType }

    /// A request that fetches every transaction (as `fetchHistory(after: nil as NSPersistentHistoryToken?)`).
    public required override init() {
        super.init()
    }

    private static func make(_ boundary: Boundary, deletes: Bool) -> Self {
        let request = Self()
        request.boundary = boundary
        request.deletes = deletes
        return request
    }

    /// The transactions after `token` (every transaction for nil).
    open class func fetchHistory(after token: NSPersistentHistoryToken?) -> Self {
        make(.token(token), deletes: false)
    }

    /// The transactions saved after `date`.
    open class func fetchHistory(after date: Date) -> Self {
        make(.date(date), deletes: false)
    }

    /// The transactions after `transaction` (every transaction for nil).
    open class func fetchHistory(after transaction: NSPersistentHistoryTransaction?) -> Self {
        make(.transaction(transaction), deletes: false)
    }

    /// Deletes the transactions up to and including the last one `token` covers (every
    /// transaction for nil), so that fetching after the same token returns what it did before.
    ///
    /// Apple documents it as purging the history "older than" the token without saying whether
    /// the token's own transaction goes: here it does (it was processed when the token was kept).
    open class func deleteHistory(before token: NSPersistentHistoryToken?) -> Self {
        make(.token(token), deletes: true)
    }

    /// Deletes the transactions saved before `date`.
    open class func deleteHistory(before date: Date) -> Self {
        make(.date(date), deletes: true)
    }

    /// Deletes the transactions up to and including `transaction` (every transaction for nil),
    /// as `deleteHistory(before:)` with its token does.
    open class func deleteHistory(before transaction: NSPersistentHistoryTransaction?) -> Self {
        make(.transaction(transaction), deletes: true)
    }

    /// A copy with the same boundary, result type and affected stores.
    open override func copy(with zone: NSZone? = nil) -> Any {
        let copy = Self.make(boundary, deletes: deletes)
        copy.resultType = resultType
        copy.fetchRequest = fetchRequest
        copy.affectedStores = affectedStores
        return copy
    }
}

/// The result of a persistent-history request.
///
/// See [NSPersistentHistoryResult](https://developer.apple.com/documentation/coredata/nspersistenthistoryresult).
open class NSPersistentHistoryResult: NSPersistentStoreResult {
    /// What the request asked for.
    public let resultType: NSPersistentHistoryResultType
    /// The result, of the type `resultType` says.
    public let result: Any?

    init(resultType: NSPersistentHistoryResultType, result: Any?) {
        self.resultType = resultType
        self.result = result
        super.init()
    }
}
