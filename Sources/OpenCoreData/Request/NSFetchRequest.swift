import OpenPredicate

/// A description of what to fetch from persistent stores: an entity, a predicate, an order, a
/// window (limit and offset), and the shape of the results.
///
/// ```swift
/// let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Employee")
/// request.predicate = NSPredicate(format: "salary > %@", 50_000 as NSNumber)
/// request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
/// request.fetchLimit = 10
/// ```
///
/// **Differences from Apple:** `ResultType` is unconstrained, because a Swift protocol does not
/// conform to itself and `NSFetchRequest<NSFetchRequestResult>` must compile (see
/// `NSFetchRequestResult`).
/// See [NSFetchRequest](https://developer.apple.com/documentation/coredata/nsfetchrequest).
open class NSFetchRequest<ResultType>: NSPersistentStoreRequest {
    private var storedEntityName: String?

    /// Creates a request with no entity yet.
    public override init() {
        super.init()
    }

    /// Creates a request for the entity with this name; the entity itself is found in the
    /// model when the request runs.
    public convenience init(entityName: String) {
        self.init()
        storedEntityName = entityName
    }

    /// The entity to fetch. Setting it also sets `entityName`. **Default:** `nil` (a request
    /// made with `init(entityName:)` finds its entity when it runs).
    open var entity: NSEntityDescription? {
        didSet { if let entity { storedEntityName = entity.name } }
    }

    /// The name of the entity to fetch.
    open var entityName: String? { entity?.name ?? storedEntityName }

    /// Which objects to fetch; `nil` fetches every instance. **Default:** `nil`.
    open var predicate: NSPredicate?

    /// The order of the results, applied in array order; `nil` means no particular order.
    /// **Default:** `nil`.
    open var sortDescriptors: [NSSortDescriptor]?

    /// The greatest number of results; `0` means no limit. **Default:** `0`.
    open var fetchLimit: Int = 0

    /// How many matching results to skip before the first one returned. **Default:** `0`.
    open var fetchOffset: Int = 0

    /// How many objects to load at a time; `0` loads all at once. **Default:** `0`.
    open var fetchBatchSize: Int = 0

    /// What the request returns. **Default:** `.managedObjectResultType`.
    open var resultType: NSFetchRequestResultType = .managedObjectResultType

    /// Whether instances of sub-entities match too. **Default:** `true`.
    open var includesSubentities: Bool = true

    /// Whether unsaved changes in the context are taken into account. **Default:** `true`.
    open var includesPendingChanges: Bool = true

    /// Whether property values are loaded with the objects (`false` loads only their IDs).
    /// **Default:** `true`.
    open var includesPropertyValues: Bool = true

    /// Whether the objects come back as faults. **Default:** `true`.
    open var returnsObjectsAsFaults: Bool = true

    /// The properties to fetch: property descriptions, their names, or expression descriptions.
    /// **Default:** `nil` (all).
    open var propertiesToFetch: [Any]?

    /// The properties (or names, or expression descriptions) to group dictionary results by.
    /// **Default:** `nil`.
    open var propertiesToGroupBy: [Any]?

    /// The predicate that filters groups. **Default:** `nil`.
    open var havingPredicate: NSPredicate?

    /// Whether dictionary results leave out duplicates. **Default:** `false`.
    open var returnsDistinctResults: Bool = false

    /// Relationship key paths whose destination objects are fetched with the results.
    /// **Default:** `nil`.
    open var relationshipKeyPathsForPrefetching: [String]?

    /// Whether objects already in the context are updated with the fetched values.
    /// **Default:** `false`.
    open var shouldRefreshRefetchedObjects: Bool = false

    /// A copy of every setting (the predicate and sort descriptors are shared: they are
    /// immutable).
    func copyRequest() -> NSFetchRequest<ResultType> {
        let copy = NSFetchRequest<ResultType>()
        copy.storedEntityName = storedEntityName
        copy.entity = entity
        copy.affectedStores = affectedStores
        copy.predicate = predicate
        copy.sortDescriptors = sortDescriptors
        copy.fetchLimit = fetchLimit
        copy.fetchOffset = fetchOffset
        copy.fetchBatchSize = fetchBatchSize
        copy.resultType = resultType
        copy.includesSubentities = includesSubentities
        copy.includesPendingChanges = includesPendingChanges
        copy.includesPropertyValues = includesPropertyValues
        copy.returnsObjectsAsFaults = returnsObjectsAsFaults
        copy.propertiesToFetch = propertiesToFetch
        copy.propertiesToGroupBy = propertiesToGroupBy
        copy.havingPredicate = havingPredicate
        copy.returnsDistinctResults = returnsDistinctResults
        copy.relationshipKeyPathsForPrefetching = relationshipKeyPathsForPrefetching
        copy.shouldRefreshRefetchedObjects = shouldRefreshRefetchedObjects
        return copy
    }

    /// Returns a copy of the request.
    open override func copy(with zone: NSZone? = nil) -> Any { copyRequest() }

    /// The entity and the settings that differ from the defaults.
    open override var description: String {
        var parts = ["entity: \(entityName ?? "(none)")"]
        parts.append("predicate: (\(predicate?.description ?? "null"))")
        parts.append("sortDescriptors: (\(sortDescriptors.map { $0.map(\.description).joined(separator: ", ") } ?? "null"))")
        parts.append("type: \(resultType.rawValue)")
        if fetchLimit != 0 { parts.append("limit: \(fetchLimit)") }
        if fetchOffset != 0 { parts.append("offset: \(fetchOffset)") }
        return "<NSFetchRequest: \(parts.joined(separator: "; "))>"
    }
}
