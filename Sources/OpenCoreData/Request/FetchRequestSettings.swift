import OpenPredicate

/// Every setting of a fetch request except the affected stores (which its superclass keeps), as
/// one value: copying a request copies this value, equality and `description` read it whole,
/// and the keyed archiver (`NSFetchRequest+Coding.swift`, to come) will write and read it.
///
/// The defaults are Apple's (see each property of `NSFetchRequest`).
struct FetchRequestSettings {
    /// The entity object, once set; `entityName` is then the entity's name.
    var entity: NSEntityDescription?
    /// The name given to `init(entityName:)`, used while `entity` is nil.
    var initialEntityName: String?
    var predicate: NSPredicate?
    var sortDescriptors: [NSSortDescriptor]?
    var fetchLimit = 0
    var fetchOffset = 0
    var fetchBatchSize = 0
    var resultType = NSFetchRequestResultType.managedObjectResultType
    var includesSubentities = true
    /// The stored flag; the public property also answers false for dictionary results.
    var includesPendingChanges = true
    var includesPropertyValues = true
    var returnsObjectsAsFaults = true
    var propertiesToFetch: [Any]?
    var propertiesToGroupBy: [Any]?
    var havingPredicate: NSPredicate?
    var returnsDistinctResults = false
    var relationshipKeyPathsForPrefetching: [String]?
    var shouldRefreshRefetchedObjects = false

    /// The name of the entity to fetch.
    var entityName: String? { entity?.name ?? initialEntityName }

    /// Whether the entity is known only by name, so that property names wait for the model to be
    /// checked (Apple's "entity is a name" state).
    var entityIsName: Bool { entity == nil && initialEntityName != nil }
}

/// Any specialization of `NSFetchRequest`: equality and the fetch request expression look at
/// requests whatever their `ResultType`, as Objective-C sees one class.
protocol AnyFetchRequest: NSPersistentStoreRequest {
    var settings: FetchRequestSettings { get }
    /// Runs the request in a context: its results as `[Any]`, or their number as an
    /// `NSNumber` when `countOnly`.
    func results(in context: NSManagedObjectContext, countOnly: Bool) throws -> Any
}
