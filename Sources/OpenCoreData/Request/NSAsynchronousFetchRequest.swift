import OpenPredicate
import OpenStoreCore

/// The result of a request a context executed with `execute(_:)`.
///
/// See [NSPersistentStoreResult](https://developer.apple.com/documentation/coredata/nspersistentstoreresult).
open class NSPersistentStoreResult: NSObject {}

/// The result of a request that runs in the background: its context, its error once finished,
/// and a way to cancel it.
///
/// See [NSPersistentStoreAsynchronousResult](https://developer.apple.com/documentation/coredata/nspersistentstoreasynchronousresult).
open class NSPersistentStoreAsynchronousResult: NSPersistentStoreResult {
    private weak var context: NSManagedObjectContext?
    let lock = NSLock()
    var cancelled = false
    var error: Error?
    private let reporting: Progress

    init(context: NSManagedObjectContext, progress: Progress) {
        self.context = context
        reporting = progress
        super.init()
    }

    /// The context that executes the request.
    ///
    /// **Differences from Apple:** optional, because the result does not keep its context alive.
    open var managedObjectContext: NSManagedObjectContext? { context }

    /// The error the request finished with, if any. **Default:** `nil`.
    open var operationError: Error? {
        lock.lock()
        defer { lock.unlock() }
        return error
    }

    /// The request's progress: made when the request is executed, as a child of the thread's
    /// current progress if there is one (`Progress.current()`, as Apple's), its total the
    /// request's `estimatedResultCount` (indeterminate, -1, when that is 0). Its completed count
    /// is the rows the store has read so far (counted a run of rows at a time, up to the total),
    /// and the total when the fetch ends; without an estimate, the total becomes the number of
    /// rows read when the fetch ends. Cancelling it cancels the request.
    open var progress: Progress? { reporting }

    /// Cancels the request: before it runs, it does not run; while the store reads its rows,
    /// the statement stops there, no object is made, and the context is left as it was. Either
    /// way the completion block is not called and `operationError` is `NSUserCancelledError`.
    open func cancel() {
        lock.lock()
        cancelled = true
        lock.unlock()
        reporting.cancel()
    }
}

/// The result of an `NSAsynchronousFetchRequest`: the fetched objects once the fetch finished.
///
/// See [NSAsynchronousFetchResult](https://developer.apple.com/documentation/coredata/nsasynchronousfetchresult).
open class NSAsynchronousFetchResult<ResultType>: NSPersistentStoreAsynchronousResult {
    /// The request that produced this result.
    public let fetchRequest: NSAsynchronousFetchRequest<ResultType>
    private var results: [ResultType]?

    init(fetchRequest: NSAsynchronousFetchRequest<ResultType>, context: NSManagedObjectContext, progress: Progress) {
        self.fetchRequest = fetchRequest
        super.init(context: context, progress: progress)
    }

    /// The fetched objects; nil until the fetch finished, or if it failed or was cancelled.
    open var finalResult: [ResultType]? {
        lock.lock()
        defer { lock.unlock() }
        return results
    }

    func finish(_ outcome: Result<[ResultType], Error>) {
        lock.lock()
        switch outcome {
        case .success(let values): results = values
        case .failure(let failure): error = failure
        }
        lock.unlock()
    }
}

/// A fetch request that a context runs on its queue, later, calling a block with the result.
///
/// ```swift
/// let request = NSAsynchronousFetchRequest(fetchRequest: employees) { result in
///     print(result.finalResult?.count ?? 0)
/// }
/// try context.execute(request)
/// ```
///
/// **Differences from Apple:** `ResultType` is unconstrained, as for `NSFetchRequest`.
/// See [NSAsynchronousFetchRequest](https://developer.apple.com/documentation/coredata/nsasynchronousfetchrequest).
open class NSAsynchronousFetchRequest<ResultType>: NSPersistentStoreRequest, AsynchronousFetchRunning {
    /// The fetch to run.
    public let fetchRequest: NSFetchRequest<ResultType>
    /// Called on the context's queue when the fetch finished (not when cancelled).
    public let completionBlock: ((NSAsynchronousFetchResult<ResultType>) -> Void)?
    /// An estimate of the number of results: the total of the result's `progress`. **Default:**
    /// `0` (the progress is indeterminate until the fetch ends).
    open var estimatedResultCount: Int = 0

    /// Creates an asynchronous request for a fetch request.
    public init(
        fetchRequest request: NSFetchRequest<ResultType>,
        completionBlock block: ((NSAsynchronousFetchResult<ResultType>) -> Void)? = nil
    ) {
        fetchRequest = request
        completionBlock = block
        super.init()
    }

    func start(in context: NSManagedObjectContext) -> NSPersistentStoreResult {
        // Made here, on the caller's thread, so that it becomes a child of its current progress.
        let progress = Progress(totalUnitCount: estimatedResultCount > 0 ? Int64(estimatedResultCount) : -1)
        let result = NSAsynchronousFetchResult(fetchRequest: self, context: context, progress: progress)
        context.performUnchecked { [weak context] in
            guard let context, !result.isCancelled, !progress.isCancelled else { return result.endCancelled() }
            // The total is never changed while rows arrive: Foundation's `Progress` on Linux traps on
            // an arithmetic overflow when the total of a child changes after its count did.
            var read: Int64 = 0
            let watch = FetchProgress { rows in
                read += Int64(rows)
                let total = progress.totalUnitCount
                progress.completedUnitCount = total >= 0 ? min(read, total) : read
                return !progress.isCancelled
            }
            let outcome = Result { try FetchProgress.$current.withValue(watch) { try context.fetch(self.fetchRequest) } }
            if case .failure(let error) = outcome, error is FetchCancelledError || progress.isCancelled {
                return result.endCancelled()
            }
            if progress.totalUnitCount < 0 { progress.totalUnitCount = read }
            progress.completedUnitCount = max(progress.totalUnitCount, 0)
            result.finish(outcome)
            self.completionBlock?(result)
        }
        return result
    }
}

/// Any specialization of `NSAsynchronousFetchRequest`, for `execute(_:)`.
protocol AsynchronousFetchRunning {
    func start(in context: NSManagedObjectContext) -> NSPersistentStoreResult
}

extension NSPersistentStoreAsynchronousResult {
    var isCancelled: Bool {
        lock.lock()
        defer { lock.unlock() }
        return cancelled
    }

    /// Ends a request that was cancelled: `operationError` is `NSUserCancelledError`.
    func endCancelled() {
        lock.lock()
        cancelled = true
        error = CocoaError(.userCancelled)
        lock.unlock()
    }
}

extension NSManagedObjectContext {
    /// Executes a request against the stores: an `NSAsynchronousFetchRequest` runs on the
    /// context's queue after this returns, and its result (returned at once) fills in when it
    /// finishes. An `NSPersistentHistoryChangeRequest` fetches or deletes persistent history
    /// (see `NSManagedObjectContext+History`). An `NSBatchDeleteRequest`,
    /// `NSBatchUpdateRequest` or `NSBatchInsertRequest` writes in the stores and returns an
    /// `NSBatchDeleteResult`, `NSBatchUpdateResult` or `NSBatchInsertResult`.
    ///
    /// - Throws: `NSPersistentStoreUnsupportedRequestTypeError` for other requests, and for a
    ///   batch request in an in-memory store.
    ///
    /// The result is discardable, as that of Apple's `execute(_:)` (imported from Objective-C).
    @discardableResult
    public func execute(_ request: NSPersistentStoreRequest) throws -> NSPersistentStoreResult {
        if let asynchronous = request as? AsynchronousFetchRunning { return asynchronous.start(in: self) }
        if let history = request as? NSPersistentHistoryChangeRequest { return try executeHistory(history) }
        if let delete = request as? NSBatchDeleteRequest { return try executeBatchDelete(delete) }
        if let update = request as? NSBatchUpdateRequest { return try executeBatchUpdate(update) }
        if let insert = request as? NSBatchInsertRequest { return try executeBatchInsert(insert) }
        throw CoreDataError.make(
            code: NSPersistentStoreUnsupportedRequestTypeError,
            reason: "\(type(of: request)) cannot be executed by execute(_:) yet; fetch requests run with fetch(_:)")
    }
}
