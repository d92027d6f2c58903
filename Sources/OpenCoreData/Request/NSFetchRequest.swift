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
/// A request is only a description: the context checks it against its model when it runs
/// (an unknown entity, `propertiesToGroupBy` without dictionary results, … are errors then).
/// Requests copy deeply enough that changing a copy never changes the original, compare equal
/// when every setting is equal, and describe themselves as Apple's do.
///
/// **Differences from Apple:** `ResultType` is unconstrained, because a Swift protocol does not
/// conform to itself and `NSFetchRequest<NSFetchRequestResult>` must compile (see
/// `NSFetchRequestResult`). Apple's `entity` raises for a request made with
/// `init(entityName:)` until a context has used it; ours answers `nil`. Requests archive with
/// `NSKeyedArchiver` under Apple's keys, but read back through
/// `NSKeyedUnarchiver.unarchivedFetchRequest(from:)` (corelibs cannot name a generic class in an
/// archive), with the entity by name.
/// See [NSFetchRequest](https://developer.apple.com/documentation/coredata/nsfetchrequest).
open class NSFetchRequest<ResultType>: NSPersistentStoreRequest, AnyFetchRequest, NSSecureCoding {
    /// Every setting but the affected stores; see `FetchRequestSettings`.
    var settings = FetchRequestSettings()

    /// Set when the request becomes a fetch request template of a model in use.
    private var isInUse = false

    /// Apple's reason for changing a template of a model a coordinator uses.
    static var immutableTemplateReason: String { "Can't modify a named fetch request in an immutable model." }

    /// Creates a request with no entity yet; set `entity` before it runs.
    public override init() {
        super.init()
    }

    /// Creates a request for the entity with this name; the entity itself is found in the
    /// model when the request runs.
    ///
    /// - Parameter entityName: The name of an entity of the model the request will run against.
    public convenience init(entityName: String) {
        self.init()
        settings.initialEntityName = entityName
    }

    // MARK: - Archiving

    /// Fetch requests decode securely. **Default:** `true`.
    open class var supportsSecureCoding: Bool { true }

    /// Archives every setting under Apple's keys (the entity by name); see
    /// `NSFetchRequest+Coding.swift`.
    open func encode(with coder: NSCoder) {
        settings.encode(to: coder)
    }

    /// Reads a request archived by `encode(with:)`; nil (and the coder's error set) for a
    /// malformed archive. Archives written by `NSKeyedArchiver` are read back with
    /// `NSKeyedUnarchiver.unarchivedFetchRequest(from:)`.
    public required init?(coder: NSCoder) {
        guard let decoded = FetchRequestSettings(coder: coder) else { return nil }
        settings = decoded
        super.init()
    }

    /// The class an `NSKeyedArchiver` records: a plain one, as corelibs cannot name a generic class.
    open override var classForKeyedArchiver: AnyClass? { ArchivedFetchRequest.self }

    /// What an `NSKeyedArchiver` writes in place of the request: the same settings in a plain class.
    open override func replacementObject(for archiver: NSKeyedArchiver) -> Any? {
        ArchivedFetchRequest(settings: settings)
    }

    // MARK: - Entity

    /// The entity to fetch. Setting it also sets `entityName`.
    ///
    /// **Default:** `nil` (a request made with `init(entityName:)` finds its entity when it
    /// runs).
    ///
    /// **Differences from Apple:** Apple raises when this is read on a request made with
    /// `init(entityName:)` before a context used it; ours answers `nil`. Setting `nil` keeps the
    /// name given to `init(entityName:)` (Apple forgets it).
    /// See [entity](https://developer.apple.com/documentation/coredata/nsfetchrequest/entity).
    open var entity: NSEntityDescription? {
        get { settings.entity }
        set {
            if newValue == nil, settings.entity == nil { return }
            // Apple lets a context give a template its entity of the same name.
            if !(settings.entityIsName && newValue?.name == settings.initialEntityName) { ensureEditable() }
            settings.entity = newValue
        }
    }

    /// The name of the entity to fetch: the entity's name, or the name given to
    /// `init(entityName:)`. **Default:** `nil`.
    /// See [entityName](https://developer.apple.com/documentation/coredata/nsfetchrequest/entityname).
    open var entityName: String? { settings.entityName }

    /// Whether instances of sub-entities match too; `false` fetches only objects of exactly
    /// `entity`. **Default:** `true`.
    /// See [includesSubentities](https://developer.apple.com/documentation/coredata/nsfetchrequest/includessubentities).
    open var includesSubentities: Bool {
        get { settings.includesSubentities }
        set {
            ensureEditable()
            settings.includesSubentities = newValue
        }
    }

    // MARK: - Constraints and order

    /// Which objects to fetch; `nil` fetches every instance of the entity. **Default:** `nil`.
    /// See [predicate](https://developer.apple.com/documentation/coredata/nsfetchrequest/predicate).
    open var predicate: NSPredicate? {
        get { settings.predicate }
        set {
            ensureEditable()
            settings.predicate = newValue
        }
    }

    /// The order of the results, applied in array order; `nil` means no particular order.
    /// **Default:** `nil`.
    /// See [sortDescriptors](https://developer.apple.com/documentation/coredata/nsfetchrequest/sortdescriptors).
    open var sortDescriptors: [NSSortDescriptor]? {
        get { settings.sortDescriptors }
        set {
            ensureEditable()
            settings.sortDescriptors = newValue
        }
    }

    /// The greatest number of results; `0` means no limit. **Default:** `0`.
    ///
    /// **Differences from Apple:** Apple's is unsigned underneath; a negative value here is an
    /// error when the request runs.
    /// See [fetchLimit](https://developer.apple.com/documentation/coredata/nsfetchrequest/fetchlimit).
    open var fetchLimit: Int {
        get { settings.fetchLimit }
        set {
            ensureEditable()
            settings.fetchLimit = newValue
        }
    }

    /// How many matching results to skip before the first one returned; ignored in nested
    /// requests such as subqueries. **Default:** `0`.
    /// See [fetchOffset](https://developer.apple.com/documentation/coredata/nsfetchrequest/fetchoffset).
    open var fetchOffset: Int {
        get { settings.fetchOffset }
        set {
            ensureEditable()
            settings.fetchOffset = newValue
        }
    }

    /// How many objects' data to load at a time; `0` loads all at once. **Default:** `0`.
    ///
    /// With a batch size, the whole request is evaluated and every matching object's ID
    /// recorded, but no data is loaded: the results are faults, and the first fault of each
    /// window of `fetchBatchSize` results (`0..<n`, `n..<2n`, …) to fire loads the data of the
    /// whole window from the store in one call (relationship key paths to prefetch are then
    /// fetched for that window).
    ///
    /// **Differences from Apple:** Apple returns an `NSArray` proxy that fetches batches as
    /// elements are touched; a Swift array cannot be a proxy, so the array here holds faults
    /// that load a batch at a time when one of them fires, which costs the same store calls.
    /// Ignored in a child context (whose data comes from its parent).
    /// See [fetchBatchSize](https://developer.apple.com/documentation/coredata/nsfetchrequest/fetchbatchsize).
    open var fetchBatchSize: Int {
        get { settings.fetchBatchSize }
        set {
            ensureEditable()
            settings.fetchBatchSize = newValue
        }
    }

    /// The stores to search; `nil` searches every store of the coordinator. **Default:** `nil`.
    /// See [affectedStores](https://developer.apple.com/documentation/coredata/nspersistentstorerequest/affectedstores).
    open override var affectedStores: [NSPersistentStore]? {
        get { super.affectedStores }
        set {
            ensureEditable()
            super.affectedStores = newValue
        }
    }

    // MARK: - Results

    /// What the request returns. **Default:** `.managedObjectResultType`.
    ///
    /// As on Apple, choosing `.managedObjectIDResultType` or `.countResultType` also sets
    /// `includesPropertyValues` to `false` (neither needs property values).
    /// See [resultType](https://developer.apple.com/documentation/coredata/nsfetchrequest/resulttype).
    open var resultType: NSFetchRequestResultType {
        get { settings.resultType }
        set {
            ensureEditable()
            settings.resultType = newValue
            if newValue == .managedObjectIDResultType || newValue == .countResultType {
                settings.includesPropertyValues = false
            }
        }
    }

    /// Whether unsaved changes in the context are taken into account. **Default:** `true`.
    ///
    /// As on Apple, this reads `false` while `resultType` is `.dictionaryResultType`: dictionary
    /// results (aggregates included) reflect only what the stores hold. The setting itself is
    /// kept and reads `true` again with another result type.
    /// See [includesPendingChanges](https://developer.apple.com/documentation/coredata/nsfetchrequest/includespendingchanges).
    open var includesPendingChanges: Bool {
        get { settings.includesPendingChanges && settings.resultType != .dictionaryResultType }
        set {
            ensureEditable()
            settings.includesPendingChanges = newValue
        }
    }

    /// Whether property values are loaded with the objects (`false` loads only what identifies
    /// them). **Default:** `true`; `false` after `resultType` is set to object IDs or a count.
    ///
    /// With `false`, managed object results are faults whose data is fetched from the store
    /// when each fires (`returnsObjectsAsFaults` is then moot).
    /// See [includesPropertyValues](https://developer.apple.com/documentation/coredata/nsfetchrequest/includespropertyvalues).
    open var includesPropertyValues: Bool {
        get { settings.includesPropertyValues }
        set {
            ensureEditable()
            settings.includesPropertyValues = newValue
        }
    }

    /// Whether the objects come back as faults; ignored for object ID results.
    /// **Default:** `true`.
    /// See [returnsObjectsAsFaults](https://developer.apple.com/documentation/coredata/nsfetchrequest/returnsobjectsasfaults).
    open var returnsObjectsAsFaults: Bool {
        get { settings.returnsObjectsAsFaults }
        set {
            ensureEditable()
            settings.returnsObjectsAsFaults = newValue
        }
    }

    /// Whether dictionary results leave out duplicates of the `propertiesToFetch` values; used
    /// only with `.dictionaryResultType`. **Default:** `false`.
    /// See [returnsDistinctResults](https://developer.apple.com/documentation/coredata/nsfetchrequest/returnsdistinctresults).
    open var returnsDistinctResults: Bool {
        get { settings.returnsDistinctResults }
        set {
            ensureEditable()
            settings.returnsDistinctResults = newValue
        }
    }

    /// Relationship key paths (`"department"`, `"department.manager"`) whose destination
    /// objects are fetched along with the results.
    ///
    /// After the fetch, the destinations of each step of each key path are loaded in one store
    /// call per step, so firing their faults asks the store for nothing more. To-many steps
    /// work as to-one steps do. Each step must be a relationship; otherwise the fetch throws an
    /// error naming the key path.
    ///
    /// **Default:** `nil` (no prefetching). Apple's documentation says "an empty array"; Apple's
    /// framework answers `nil`, and so does this.
    ///
    /// **Differences from Apple:** ignored in a child context, whose data comes from its parent.
    /// See [relationshipKeyPathsForPrefetching](https://developer.apple.com/documentation/coredata/nsfetchrequest/relationshipkeypathsforprefetching).
    open var relationshipKeyPathsForPrefetching: [String]? {
        get { settings.relationshipKeyPathsForPrefetching }
        set {
            ensureEditable()
            settings.relationshipKeyPathsForPrefetching = newValue
        }
    }

    /// Whether objects already in the context get the store's current values when fetched again.
    /// **Default:** `false`.
    /// See [shouldRefreshRefetchedObjects](https://developer.apple.com/documentation/coredata/nsfetchrequest/shouldrefreshrefetchedobjects).
    open var shouldRefreshRefetchedObjects: Bool {
        get { settings.shouldRefreshRefetchedObjects }
        set {
            ensureEditable()
            settings.shouldRefreshRefetchedObjects = newValue
        }
    }

    // MARK: - Properties to fetch and to group by

    /// The properties to fetch: attribute and to-one relationship descriptions of the entity,
    /// their names or key paths (`"department.title"`), `"objectID"`, or
    /// `NSExpressionDescription`s. With `.dictionaryResultType` each result maps these names to
    /// values. **Default:** `nil` (every property).
    ///
    /// ```swift
    /// request.resultType = .dictionaryResultType
    /// request.propertiesToFetch = ["name", "department.title"]
    /// ```
    ///
    /// When `entity` is set, names are checked against it at once and stored as Apple stores
    /// them: a name becomes the entity's property description, a key path an
    /// `NSExpressionDescription` of that key path (so reading the property back gives
    /// descriptions, not strings). A request made with `init(entityName:)` keeps the values as
    /// given; the model checks them when the request runs. With neither an entity nor an entity
    /// name, names and property descriptions cannot be checked and are refused, as on Apple
    /// (expression descriptions need no entity). A refused value stops the process with
    /// `NSInvalidArgumentException` and Apple's reason, e.g.
    /// "Invalid keypath nmae passed to setPropertiesToFetch:"; use
    /// `setPropertiesToFetch(validating:)` to get an error instead.
    ///
    /// **Differences from Apple:** a to-many relationship given by name is refused here with
    /// "Invalid to many relationship in setPropertiesToFetch: (name)" (Apple lets it through at
    /// this point).
    /// See [propertiesToFetch](https://developer.apple.com/documentation/coredata/nsfetchrequest/propertiestofetch).
    open var propertiesToFetch: [Any]? {
        get { settings.propertiesToFetch }
        set {
            do {
                try setPropertiesToFetch(validating: newValue)
            } catch {
                AppleException.invalidArgument(error.localizedDescription)
            }
        }
    }

    /// The throwing twin of setting `propertiesToFetch`: the same checks, but a refused value
    /// throws an `NSError` (`NSCocoaErrorDomain`, `NSCoreDataError`) with Apple's reason and
    /// the request is left unchanged.
    ///
    /// **Differences from Apple:** an OpenCoreData addition.
    ///
    /// - Parameter properties: The new value of `propertiesToFetch`.
    public func setPropertiesToFetch(validating properties: [Any]?) throws {
        ensureEditable()
        settings.propertiesToFetch = try checkedAtSetting(properties, for: .fetch)
    }

    /// The properties (descriptions, names or key paths without to-many steps, or
    /// `NSExpressionDescription`s of key paths) to group dictionary results by, as SQL's
    /// `GROUP BY`. **Default:** `nil`.
    ///
    /// Grouping requires `.dictionaryResultType`, and then `propertiesToFetch` may hold only the
    /// grouped properties and aggregates; the model checks that when the request runs. Names are
    /// checked and stored as for `propertiesToFetch`; a refused value stops the process with
    /// Apple's reason (e.g. "Invalid keypath employees passed to setPropertiesToGroupBy:");
    /// `setPropertiesToGroupBy(validating:)` throws instead.
    /// See [propertiesToGroupBy](https://developer.apple.com/documentation/coredata/nsfetchrequest/propertiestogroupby).
    open var propertiesToGroupBy: [Any]? {
        get { settings.propertiesToGroupBy }
        set {
            do {
                try setPropertiesToGroupBy(validating: newValue)
            } catch {
                AppleException.invalidArgument(error.localizedDescription)
            }
        }
    }

    /// The throwing twin of setting `propertiesToGroupBy`: a refused value throws an `NSError`
    /// with Apple's reason and the request is left unchanged.
    ///
    /// **Differences from Apple:** an OpenCoreData addition.
    ///
    /// - Parameter properties: The new value of `propertiesToGroupBy`.
    public func setPropertiesToGroupBy(validating properties: [Any]?) throws {
        ensureEditable()
        settings.propertiesToGroupBy = try checkedAtSetting(properties, for: .groupBy)
    }

    /// The predicate that filters the groups of a request with `propertiesToGroupBy` (SQL's
    /// `HAVING`); it requires `propertiesToGroupBy`, which the model checks when the request
    /// runs. **Default:** `nil`.
    /// See [havingPredicate](https://developer.apple.com/documentation/coredata/nsfetchrequest/havingpredicate).
    open var havingPredicate: NSPredicate? {
        get { settings.havingPredicate }
        set {
            ensureEditable()
            settings.havingPredicate = newValue
        }
    }

    /// Checks a property list as Apple's setters do: against `entity` when there is one, not at
    /// all while the entity is known only by name.
    private func checkedAtSetting(_ properties: [Any]?, for list: FetchPropertyList) throws -> [Any]? {
        guard let properties, !settings.entityIsName else { return properties }
        let checker = FetchPropertyChecker(
            entity: settings.entity, list: list, resultType: settings.resultType, keepsGivenDescriptions: true)
        do {
            return try checker.check(properties)
        } catch let error as FetchRequestError {
            throw error.nsError
        }
    }

    // MARK: - NSObject

    /// Returns a copy of the request: every setting, with its own arrays, so that changing the
    /// copy never changes the original. Predicates and sort descriptors are immutable and shared;
    /// the entity, the stores and property descriptions are shared, as Apple shares them. The
    /// copy of a template of a model in use is editable.
    /// See [copy(with:)](https://developer.apple.com/documentation/foundation/nscopying/copy(with:)).
    open override func copy(with zone: NSZone? = nil) -> Any { copyRequest() }

    /// Whether `object` is a fetch request (of any `ResultType`) with equal settings: the same
    /// entity name, result type, flags, limit, offset and batch size, equal predicates, sort
    /// descriptors, property lists and having predicate, the same prefetching key paths and the
    /// same affected stores (by identity).
    ///
    /// **Differences from Apple:** Apple's leaves out `relationshipKeyPathsForPrefetching` and
    /// `affectedStores`; they change what a fetch does, so they count here.
    /// See [isEqual(_:)](https://developer.apple.com/documentation/objectivec/nsobjectprotocol/isequal(_:)).
    open override func isEqual(_ object: Any?) -> Bool { isEqualRequest(object) }

    /// A hash consistent with `isEqual(_:)`.
    open override var hash: Int { requestHash }

    /// Apple's description, without the address: the entity, predicate and sort descriptors,
    /// then each setting that differs from its default, e.g.
    /// `<NSFetchRequest> (entity: Employee; predicate: (salary > 50000); sortDescriptors: ((null)); limit: 10; type: NSManagedObjectResultType; )`.
    open override var description: String { requestDescription }

    // MARK: - Editing

    /// Whether the request may still change: `true` unless it is a fetch request template of a
    /// model that a persistent store coordinator uses (a copy is editable again). Changing an
    /// immutable template stops the process with Apple's reason
    /// "Can't modify a named fetch request in an immutable model."
    ///
    /// **Differences from Apple:** an OpenCoreData addition, so that code can check first.
    public var isEditable: Bool { !isInUse }

    /// Makes the request immutable; the model calls it for its templates when it comes into use.
    func markInUse() {
        isInUse = true
    }

    func ensureEditable() {
        if isInUse { AppleException.internalInconsistency(Self.immutableTemplateReason) }
    }
}
