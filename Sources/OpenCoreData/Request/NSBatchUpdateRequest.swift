import OpenPredicate

/// What an `NSBatchUpdateRequest` returns, with Apple's raw values.
///
/// See [NSBatchUpdateRequestResultType](https://developer.apple.com/documentation/coredata/nsbatchupdaterequestresulttype).
public enum NSBatchUpdateRequestResultType: UInt, Sendable {
    /// Whether the request succeeded: `result` is `true` (an `NSNumber`).
    case statusOnlyResultType = 0
    /// The IDs of the objects updated: `result` is `[NSManagedObjectID]`.
    case updatedObjectIDsResultType = 1
    /// How many objects were updated: `result` is an `NSNumber`.
    case updatedObjectsCountResultType = 2
}

/// A request that changes attributes of the objects of an entity in the store, without loading
/// them into a context.
///
/// ```swift
/// let raise = NSBatchUpdateRequest(entityName: "Employee")
/// raise.predicate = NSPredicate(format: "department.name == %@", "Sales")
/// raise.propertiesToUpdate = ["salary": NSExpression(format: "salary + 1000"), "reviewed": true]
/// raise.resultType = .updatedObjectIDsResultType
/// let result = try context.execute(raise) as? NSBatchUpdateResult
/// let ids = result?.result as? [NSManagedObjectID] ?? []
/// NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSUpdatedObjectsKey: ids], into: [viewContext])
/// ```
///
/// The request runs in the store as one `UPDATE`, in one transaction: each matched row gets the
/// new values and a new version (`Z_OPT`, so that contexts holding the objects see a conflict
/// when they save them), and persistent history records the change when the store tracks it.
/// Validation rules are not checked, and contexts are not told: merge the IDs, as above, or
/// read the history.
///
/// Values are constants of the attribute's type (`nil` or `NSNull` for none) or expressions of
/// the object's own attributes (`salary * 1.1`, `lowercase:(name)`: arithmetic and the string
/// functions a predicate can use in the store). On PostgreSQL, whose SQL has no exact
/// counterpart of Foundation's case mapping, an update with `uppercase:` or `lowercase:` reads
/// the matched rows, computes the values in memory, and writes the rows as one save.
///
/// **Differences from Apple:** Apple runs it on SQLite stores only; here the PostgreSQL store
/// runs it too, and an in-memory store refuses it with Apple's
/// `NSPersistentStoreUnsupportedRequestTypeError`. A value of the wrong type is refused with
/// `NSManagedObjectValidationError` (1550) before anything is written; an unknown property, a
/// relationship, or an expression reading through a relationship with
/// `NSPersistentStoreUnsupportedRequestTypeError` naming it (Apple raises an exception).
///
/// See [NSBatchUpdateRequest](https://developer.apple.com/documentation/coredata/nsbatchupdaterequest).
open class NSBatchUpdateRequest: NSPersistentStoreRequest {
    private var namedEntity: NSEntityDescription

    /// The name of the entity whose objects are updated.
    open var entityName: String { namedEntity.name ?? "" }

    /// The entity whose objects are updated. For a request made with `init(entityName:)`, an
    /// entity with that name until the request runs, then the model's.
    open var entity: NSEntityDescription { namedEntity }

    /// The objects to update; nil updates every object of the entity. **Default:** nil.
    open var predicate: NSPredicate?

    /// Whether objects of sub-entities are updated too. **Default:** `true`.
    open var includesSubentities = true

    /// What `execute(_:)` returns. **Default:** `.statusOnlyResultType`.
    open var resultType: NSBatchUpdateRequestResultType = .statusOnlyResultType

    /// The new values, by attribute: keys are attribute names (`String`) or
    /// `NSPropertyDescription`s, values constants or `NSExpression`s. **Default:** nil (the
    /// request then fails when it runs).
    open var propertiesToUpdate: [AnyHashable: Any]?

    /// A request updating objects of the entity named `entityName` (looked up in the model of
    /// the context that executes it).
    public init(entityName: String) {
        let placeholder = NSEntityDescription()
        placeholder.name = entityName
        namedEntity = placeholder
        super.init()
    }

    /// A request updating objects of `entity`.
    public init(entity: NSEntityDescription) {
        namedEntity = entity
        super.init()
    }

    /// The same as `init(entityName:)`.
    open class func batchUpdateRequest(entityName: String) -> NSBatchUpdateRequest {
        NSBatchUpdateRequest(entityName: entityName)
    }

    /// `.batchUpdateRequestType`.
    open override var requestType: NSPersistentStoreRequestType { .batchUpdateRequestType }

    /// Notes the model's entity once the request runs.
    func resolve(_ entity: NSEntityDescription) { namedEntity = entity }

    /// Returns a copy with the same entity, predicate, properties, result type and stores.
    open override func copy(with zone: NSZone? = nil) -> Any {
        let copy = NSBatchUpdateRequest(entity: namedEntity)
        copy.predicate = predicate
        copy.includesSubentities = includesSubentities
        copy.resultType = resultType
        copy.propertiesToUpdate = propertiesToUpdate
        copy.affectedStores = affectedStores
        return copy
    }
}

/// The result of an `NSBatchUpdateRequest`.
///
/// See [NSBatchUpdateResult](https://developer.apple.com/documentation/coredata/nsbatchupdateresult).
open class NSBatchUpdateResult: NSPersistentStoreResult {
    /// `true`, the IDs updated or their count, as `resultType` says.
    public let result: Any?
    /// The kind of `result`: the request's `resultType`.
    public let resultType: NSBatchUpdateRequestResultType

    init(result: Any?, resultType: NSBatchUpdateRequestResultType) {
        self.result = result
        self.resultType = resultType
        super.init()
    }
}
