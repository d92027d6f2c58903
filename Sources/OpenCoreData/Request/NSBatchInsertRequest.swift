import OpenPredicate

/// What an `NSBatchInsertRequest` returns, with Apple's raw values.
///
/// See [NSBatchInsertRequestResultType](https://developer.apple.com/documentation/coredata/nsbatchinsertrequestresulttype).
public enum NSBatchInsertRequestResultType: UInt, Sendable {
    /// Whether the request succeeded: `result` is `true` (an `NSNumber`).
    case statusOnly = 0
    /// The IDs of the objects inserted (or updated, see `NSBatchInsertRequest`): `result` is
    /// `[NSManagedObjectID]`.
    case objectIDs = 1
    /// How many objects were inserted or updated: `result` is an `NSNumber`.
    case count = 2
}

/// A request that adds objects of one entity to the store from dictionaries of attribute
/// values, without making objects in a context.
///
/// ```swift
/// let request = NSBatchInsertRequest(entityName: "Quake", objects: feed.map { ["code": $0.code, "magnitude": $0.magnitude] })
/// request.resultType = .objectIDs
/// let result = try context.execute(request) as? NSBatchInsertResult
/// let ids = result?.result as? [NSManagedObjectID] ?? []
/// NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSInsertedObjectsKey: ids], into: [viewContext])
/// ```
///
/// The values come from `objectsToInsert`, or from a handler the request calls until it returns
/// `true` (that call's dictionary or object is not inserted): `dictionaryHandler` fills a
/// dictionary, `managedObjectHandler` sets an object's properties (typed properties included; the
/// object belongs to no context). Keys are attribute names; attributes not given get the
/// model's default value. Relationships are not set (as with Apple's).
///
/// The request runs in the store, in one transaction; primary keys are reserved as saves reserve
/// them, so that later saves never collide with the rows. Uniqueness constraints are honoured as
/// Apple's are: a row whose constraint values an existing object already has updates that object
/// with the values given (the others keep theirs), and of two rows of the request with the same
/// values the later one wins. Validation rules are not checked, and contexts are not told: merge
/// the IDs, as above, or read the persistent history, which records the inserts (and updates).
///
/// **Differences from Apple:** Apple runs it on SQLite stores only; here the PostgreSQL store
/// runs it too, and an in-memory store refuses it with Apple's
/// `NSPersistentStoreUnsupportedRequestTypeError`. A key that is not an attribute of the entity,
/// or a value of the wrong type, fails the request with `NSManagedObjectValidationError` (1550)
/// naming it before anything is written (Apple raises an exception or skips the key).
///
/// See [NSBatchInsertRequest](https://developer.apple.com/documentation/coredata/nsbatchinsertrequest).
open class NSBatchInsertRequest: NSPersistentStoreRequest {
    private var namedEntity: NSEntityDescription

    /// The name of the entity whose objects are inserted.
    open var entityName: String { namedEntity.name ?? "" }

    /// The entity whose objects are inserted: the one given, or for a request made with an
    /// entity name, an entity with that name until the request runs, then the model's.
    open var entity: NSEntityDescription? { namedEntity }

    /// The attribute values of each object to insert. **Default:** nil (then a handler gives them).
    open var objectsToInsert: [[String: Any]]?

    /// Called for each object to insert, with an empty dictionary to fill; returns `true` to stop
    /// (that dictionary is not inserted). **Default:** nil.
    open var dictionaryHandler: ((NSMutableDictionary) -> Bool)?

    /// Called for each object to insert, with a new object of the entity (in no context) whose
    /// properties it sets; returns `true` to stop (that object is not inserted). **Default:** nil.
    open var managedObjectHandler: ((NSManagedObject) -> Bool)?

    /// What `execute(_:)` returns. **Default:** `.statusOnly`.
    open var resultType: NSBatchInsertRequestResultType = .statusOnly

    /// A request inserting `dictionaries` as objects of the entity named `entityName`.
    public convenience init(entityName: String, objects dictionaries: [[String: Any]]) {
        self.init(named: entityName)
        objectsToInsert = dictionaries
    }

    /// A request inserting `dictionaries` as objects of `entity`.
    public convenience init(entity: NSEntityDescription, objects dictionaries: [[String: Any]]) {
        self.init(entity)
        objectsToInsert = dictionaries
    }

    /// A request inserting objects of `entity` that `handler` describes, one call each.
    public convenience init(entity: NSEntityDescription, dictionaryHandler handler: @escaping (NSMutableDictionary) -> Bool) {
        self.init(entity)
        dictionaryHandler = handler
    }

    /// A request inserting objects of the entity named `entityName` that `handler` describes.
    public convenience init(entityName: String, dictionaryHandler handler: @escaping (NSMutableDictionary) -> Bool) {
        self.init(named: entityName)
        dictionaryHandler = handler
    }

    /// A request inserting objects of `entity` that `handler` fills, one object each call.
    public convenience init(entity: NSEntityDescription, managedObjectHandler handler: @escaping (NSManagedObject) -> Bool) {
        self.init(entity)
        managedObjectHandler = handler
    }

    /// A request inserting objects of the entity named `entityName` that `handler` fills.
    public convenience init(entityName: String, managedObjectHandler handler: @escaping (NSManagedObject) -> Bool) {
        self.init(named: entityName)
        managedObjectHandler = handler
    }

    private init(_ entity: NSEntityDescription) {
        namedEntity = entity
        super.init()
    }

    private convenience init(named entityName: String) {
        let placeholder = NSEntityDescription()
        placeholder.name = entityName
        self.init(placeholder)
    }

    /// `.batchInsertRequestType`.
    open override var requestType: NSPersistentStoreRequestType { .batchInsertRequestType }

    /// Notes the model's entity once the request runs.
    func resolve(_ entity: NSEntityDescription) { namedEntity = entity }

    /// Returns a copy with the same entity, objects, handlers, result type and stores.
    open override func copy(with zone: NSZone? = nil) -> Any {
        let copy = NSBatchInsertRequest(namedEntity)
        copy.objectsToInsert = objectsToInsert
        copy.dictionaryHandler = dictionaryHandler
        copy.managedObjectHandler = managedObjectHandler
        copy.resultType = resultType
        copy.affectedStores = affectedStores
        return copy
    }
}

/// The result of an `NSBatchInsertRequest`.
///
/// See [NSBatchInsertResult](https://developer.apple.com/documentation/coredata/nsbatchinsertresult).
open class NSBatchInsertResult: NSPersistentStoreResult {
    /// `true`, the IDs inserted or their count, as `resultType` says.
    public let result: Any?
    /// The kind of `result`: the request's `resultType`.
    public let resultType: NSBatchInsertRequestResultType

    init(result: Any?, resultType: NSBatchInsertRequestResultType) {
        self.result = result
        self.resultType = resultType
        super.init()
    }
}
