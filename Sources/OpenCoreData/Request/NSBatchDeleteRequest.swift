import OpenPredicate

/// What an `NSBatchDeleteRequest` returns, with Apple's raw values.
///
/// See [NSBatchDeleteRequestResultType](https://developer.apple.com/documentation/coredata/nsbatchdeleterequestresulttype).
public enum NSBatchDeleteRequestResultType: UInt, Sendable {
    /// Whether the request succeeded: `result` is `true` (an `NSNumber`).
    case resultTypeStatusOnly = 0
    /// The IDs of the objects deleted: `result` is `[NSManagedObjectID]`.
    case resultTypeObjectIDs = 1
    /// How many objects were deleted: `result` is an `NSNumber`.
    case resultTypeCount = 2
}

/// A request that deletes the objects a fetch request matches, or the objects of a list of IDs,
/// in the store, without loading them into a context.
///
/// ```swift
/// let old = NSFetchRequest<NSFetchRequestResult>(entityName: "Event")
/// old.predicate = NSPredicate(format: "date < %@", cutoff as NSDate)
/// let purge = NSBatchDeleteRequest(fetchRequest: old)
/// purge.resultType = .resultTypeObjectIDs
/// let result = try context.execute(purge) as? NSBatchDeleteResult
/// let ids = result?.result as? [NSManagedObjectID] ?? []
/// NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSDeletedObjectsKey: ids], into: [viewContext])
/// ```
///
/// The request runs in the store, in one transaction: the objects' delete rules are applied
/// (cascade deletes the destinations, nullify clears the inverse to-one of the destinations that
/// remain, deny refuses the whole request when a destination exists), join-table rows go with
/// their objects, and persistent history records the deletions when the store tracks it.
/// Validation rules are not checked, and contexts are not told: merge the IDs, as above, or
/// read the history.
///
/// **Differences from Apple:** Apple runs it on SQLite stores only; here the PostgreSQL store
/// runs it too, and an in-memory store refuses it with Apple's
/// `NSPersistentStoreUnsupportedRequestTypeError`. The IDs and the count include the objects
/// deleted by cascade, so that merging the IDs removes those too.
///
/// See [NSBatchDeleteRequest](https://developer.apple.com/documentation/coredata/nsbatchdeleterequest).
open class NSBatchDeleteRequest: NSPersistentStoreRequest {
    /// The request whose objects are deleted: its entity (with sub-entities unless
    /// `includesSubentities` is false), predicate, sort descriptors, limit and offset.
    public let fetchRequest: NSFetchRequest<NSFetchRequestResult>
    /// The objects to delete when made with `init(objectIDs:)`; nil otherwise.
    let objectIDs: [NSManagedObjectID]?

    /// What `execute(_:)` returns. **Default:** `.resultTypeStatusOnly`.
    open var resultType: NSBatchDeleteRequestResultType = .resultTypeStatusOnly

    /// A request deleting the objects `fetch` matches.
    public init(fetchRequest fetch: NSFetchRequest<NSFetchRequestResult>) {
        fetchRequest = fetch.copyRequest()
        objectIDs = nil
        super.init()
        affectedStores = fetch.affectedStores
    }

    /// A request deleting the objects with these IDs, all of one entity (mixing entities is an
    /// error when the request runs). IDs of objects no longer in the store are skipped.
    public convenience init(objectIDs objects: [NSManagedObjectID]) {
        let fetch = NSFetchRequest<NSFetchRequestResult>()
        fetch.entity = objects.first?.entity
        self.init(fetchRequest: fetch, objectIDs: objects)
    }

    private init(fetchRequest fetch: NSFetchRequest<NSFetchRequestResult>, objectIDs: [NSManagedObjectID]) {
        fetchRequest = fetch
        self.objectIDs = objectIDs
        super.init()
    }

    /// `.batchDeleteRequestType`.
    open override var requestType: NSPersistentStoreRequestType { .batchDeleteRequestType }

    /// Returns a copy with the same fetch request (copied), IDs, result type and affected stores.
    open override func copy(with zone: NSZone? = nil) -> Any {
        let copy =
            objectIDs.map { NSBatchDeleteRequest(fetchRequest: fetchRequest.copyRequest(), objectIDs: $0) }
            ?? NSBatchDeleteRequest(fetchRequest: fetchRequest)
        copy.resultType = resultType
        copy.affectedStores = affectedStores
        return copy
    }
}

/// The result of an `NSBatchDeleteRequest`.
///
/// See [NSBatchDeleteResult](https://developer.apple.com/documentation/coredata/nsbatchdeleteresult).
open class NSBatchDeleteResult: NSPersistentStoreResult {
    /// `true`, the IDs deleted or their count, as `resultType` says.
    public let result: Any?
    /// The kind of `result`: the request's `resultType`.
    public let resultType: NSBatchDeleteRequestResultType

    init(result: Any?, resultType: NSBatchDeleteRequestResultType) {
        self.result = result
        self.resultType = resultType
        super.init()
    }
}
