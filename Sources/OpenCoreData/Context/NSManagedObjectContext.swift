import OpenPredicate
import OpenStoreCore
import Tracing

/// A scratch pad of managed objects: objects are fetched into it, changed, inserted and deleted
/// there, and saved to the coordinator's stores together.
///
/// ```swift
/// let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
/// context.persistentStoreCoordinator = coordinator
/// try context.performAndWait {
///     let employee = NSManagedObject(entity: employeeEntity, insertInto: context)
///     employee.setValue("Ada", forKey: "name")
///     try context.save()
/// }
/// ```
///
/// Each context has a queue: use it through `perform(_:)` / `performAndWait(_:)`. A context
/// keeps one object per object ID (uniquing): fetching an object again gives the same instance,
/// with its unsaved changes.
///
/// A context is `Sendable`, as in Apple's SDK: the reference may cross tasks and threads, and
/// `perform(_:)` / `performAndWait(_:)` run work on the context's queue from anywhere. Its objects
/// are not `Sendable`: pass their `objectID`s.
///
/// See [NSManagedObjectContext](https://developer.apple.com/documentation/coredata/nsmanagedobjectcontext).
open class NSManagedObjectContext: NSObject, @unchecked Sendable {
    // @unchecked Sendable: the context's state is confined to its queue. `perform` and
    // `performAndWait` run there; other calls are made from the queue (or, as on Apple, by code
    // that owns the context alone), and the state other threads do touch (merges, the registry's
    // weak table, change notifications) is behind the locks of `ContextChangeState` and
    // `ObjectRegistry`.

    /// How a context's work is scheduled, with Apple's raw values.
    public enum ConcurrencyType: UInt, Sendable {
        /// Deprecated by Apple; treated as private-queue.
        case confinementConcurrencyType = 0
        /// The context has its own serial queue.
        case privateQueueConcurrencyType = 1
        /// The context works on the main queue.
        case mainQueueConcurrencyType = 2
    }

    /// How the context schedules its work.
    public let concurrencyType: ConcurrencyType
    private let queue: DispatchQueue
    private let queueKey = DispatchSpecificKey<ObjectIdentifier>()

    /// The coordinator whose stores the context fetches from and saves to; for a child context,
    /// its root context's coordinator. **Default:** `nil`.
    open var persistentStoreCoordinator: NSPersistentStoreCoordinator? {
        get { parent?.persistentStoreCoordinator ?? ownCoordinator }
        set { ownCoordinator = newValue }
    }

    /// A name for the context, shown in logs and recorded as the `contextName` of the
    /// persistent-history transactions its saves write. **Default:** `nil`.
    open var name: String?

    /// The author recorded in the persistent-history transactions this context's saves write
    /// (`NSPersistentHistoryTransaction.author`), so that a reader can skip its own changes.
    /// **Default:** `nil`.
    /// See [transactionAuthor](https://developer.apple.com/documentation/coredata/nsmanagedobjectcontext/transactionauthor).
    open var transactionAuthor: String?

    // The context's own storage below is touched only on its queue (Core Data's confinement),
    // for every fetched row: dynamic exclusivity checks are left out (`@exclusivity(unchecked)`).

    /// Objects by ID: every object the context knows. Unchanged objects are held weakly unless
    /// `retainsRegisteredObjects`; changed ones stay alive through the change lists below.
    let registry = ObjectRegistry()
    /// The bases of the context's objects, by the origin of their IDs (see `homeBase(for:)`).
    @exclusivity(unchecked) private var homeBases: [ObjectIdentifier: HomeBase] = [:]
    /// Changed objects, in the order they changed. Objects join and leave them only here (in
    /// `insert(_:)`, `delete(_:)`, `objectDidChange(_:)`, …); elsewhere they are read, which
    /// may compact them (see `ObjectList.objects`).
    var insertedList: ObjectList = []
    /// Whether an object inserted since `insertedList` was last emptied has an entity whose
    /// properties have rules (`PropertyLayout.checkedSlots`): while none has, and no class
    /// overrides `validateForInsert()` or `validateValue(_:forKey:)`, a save does not ask its
    /// inserted objects to validate (see `validateForSave(inserted:updated:deleted:)`).
    var insertsHaveRules = false
    /// What the objects inserted since `insertedList` was last emptied have in common: one
    /// entity, no store assigned and no permanent ID (`.one`), so that a save gives them their
    /// permanent IDs without grouping them by store and entity first, a pass over them (see
    /// `assignPermanentIDs(for:sole:coordinator:placingIn:)`).
    var insertedEntity = InsertedEntity.none
    var changedList: ObjectList = []
    var deletedList: ObjectList = []
    /// Inserted objects deleted before a save: forgotten at once, but their relationships still
    /// follow their delete rules at the next save (so that no other object keeps them).
    var deletedInserts: [NSManagedObject] = []
    /// Each entity's class as `managedObjectClass(for:)` found it, while the registry's
    /// `generation` is the one noted.
    private var knownClasses:
        (generation: Int, types: [ObjectIdentifier: (entity: NSEntityDescription, type: NSManagedObject.Type)]) = (-1, [:])
    /// The class `insert(_:)` registered last, not registered again for the next object.
    private var insertedClass: ObjectIdentifier?
    /// While a save runs (nil otherwise): the inserted objects its last
    /// `NSManagedObjectContextObjectsDidChange` announced, in the order noted, with the set it
    /// posted; its `NSManagedObjectContextDidSave` posts the same set when it saved those.
    var announcedInserts: AnnouncedInserts?

    /// See `insertedEntity`.
    enum InsertedEntity {
        /// Nothing inserted.
        case none
        /// Every object inserted is of this entity, with no store assigned and no permanent ID.
        case one(NSEntityDescription)
        /// Objects of several entities, or one assigned a store or given a permanent ID.
        case several

        /// The entity of `.one`.
        var sole: NSEntityDescription? {
            guard case .one(let entity) = self else { return nil }
            return entity
        }

        /// Notes an object inserted.
        mutating func note(_ object: NSManagedObject) {
            switch self {
            case .none: self = object.storeKey == nil && object.assignedStore == nil ? .one(object.entity) : .several
            case .one(let entity):
                if entity !== object.entity || object.storeKey != nil || object.assignedStore != nil { self = .several }
            case .several: break
            }
        }
    }

    struct AnnouncedInserts {
        /// The objects announced, in the order noted, by identity: `set` keeps each alive, so
        /// no other object takes one's identity meanwhile.
        var order: [ObjectIdentifier] = []
        var set: Set<NSManagedObject> = []

        /// Whether these are `objects`, in order (compared without reading the objects).
        func announced(_ objects: [NSManagedObject]) -> Bool {
            guard !objects.isEmpty, order.count == objects.count else { return false }
            return order.withUnsafeBytes { order in
                objects.withUnsafeBytes { objects in
                    stride(from: 0, to: order.count, by: MemoryLayout<UInt>.stride).allSatisfy {
                        order.load(fromByteOffset: $0, as: UInt.self) == objects.load(fromByteOffset: $0, as: UInt.self)
                    }
                }
            }
        }
    }
    /// Rows fetched but not yet loaded into objects: faults fill from here.
    @exclusivity(unchecked) var rowCache: [ObjectKey: RowSnapshot] = [:]
    /// When each row of `rowCache` was fetched (seconds since 2001), kept only while
    /// `stalenessInterval` is zero or more (see `loadValues(for:)`).
    @exclusivity(unchecked) var rowCacheTimes: [ObjectKey: TimeInterval] = [:]

    /// Whether a fault whose row is gone from its store (deleted by another context, process or
    /// server, or a key of a damaged store that names no row) becomes a deleted object: its
    /// attributes read as nil (0 through typed scalar properties), its relationships as nil or
    /// empty, and `isDeleted` is true; the context goes on, and saves its other changes.
    /// **Default:** `true`, as Apple's.
    ///
    /// With `false`, Apple's Core Data raises `NSObjectInaccessibleException`. Here no read
    /// stops the process: the object stays a fault whose values read as nil, the next `save()`
    /// throws `NSManagedObjectReferentialIntegrityError` naming it, and
    /// `existingObject(with:)` throws the same for its ID.
    ///
    /// **Differences from Apple:** `false` reports instead of raising.
    /// See [shouldDeleteInaccessibleFaults](https://developer.apple.com/documentation/coredata/nsmanagedobjectcontext/shoulddeleteinaccessiblefaults).
    open var shouldDeleteInaccessibleFaults = true

    /// Faults that failed to load since the last save: their store's errors and the objects,
    /// reported by the next `save()` (see `recordFaultFailure(_:for:)`).
    var faultFailures: [(error: NSError, object: NSManagedObject)] = []
    /// Fault failures beyond those `faultFailures` keeps.
    var faultFailureOverflow = 0

    /// Whether to turn an inaccessible fault (one whose row is gone) into a deleted object:
    /// `shouldDeleteInaccessibleFaults` unless a subclass decides otherwise, for instance per
    /// entity. `property` is the property whose read fired the fault, when known (always nil here:
    /// a fault fires for all its properties at once).
    ///
    /// **Default:** `shouldDeleteInaccessibleFaults`.
    /// See [shouldHandleInaccessibleFault(_:for:triggeredByProperty:)](https://developer.apple.com/documentation/coredata/nsmanagedobjectcontext/shouldhandleinaccessiblefault(_:for:triggeredbyproperty:)).
    open func shouldHandleInaccessibleFault(
        _ fault: NSManagedObject, for oid: NSManagedObjectID, triggeredByProperty property: NSPropertyDescription?
    ) -> Bool {
        shouldDeleteInaccessibleFaults
    }

    // MARK: - Parent contexts and fetching

    /// The context this one fetches from and saves into, instead of a coordinator's stores
    /// (see `NSManagedObjectContext+Parent`). **Default:** `nil` (the context is a root).
    ///
    /// A context has either a coordinator or a parent: a child's `persistentStoreCoordinator`
    /// is its root's. Set the parent before using the context.
    /// See [parent](https://developer.apple.com/documentation/coredata/nsmanagedobjectcontext/parent).
    open var parent: NSManagedObjectContext? {
        didSet {
            isChild = parent != nil
            updateFetchedRowFiring()
        }
    }
    /// Whether `parent` is set: read where a fault fires, without calling the open getter.
    final private(set) var isChild = false
    /// The coordinator set on this context itself.
    private var ownCoordinator: NSPersistentStoreCoordinator?

    // MARK: - Container and merging

    /// Merge settings and the changes not announced yet (see `NSManagedObjectContext+Merging`).
    let changeState = ContextChangeState()

    /// Forgets an object that another context deleted and saved (see
    /// `mergeChanges(fromContextDidSave:)`): it leaves the registry and every change list.
    func forgetDeletedElsewhere(_ object: NSManagedObject) {
        registry[object.objectID] = nil
        changedList.remove(object)
        deletedList.remove(object)
    }

    /// Objects changed while `willSave()` runs during a save (nil outside of it), so that the
    /// save calls `willSave()` again on them (see `NSManagedObjectContext+Lifecycle`).
    var changedDuringWillSave: Set<ObjectIdentifier>?
    /// Storage of `userInfo`, made on first use.
    private var storedUserInfo: NSMutableDictionary?

    /// A dictionary for the app's own data about the context. **Default:** empty.
    ///
    /// See [userInfo](https://developer.apple.com/documentation/coredata/nsmanagedobjectcontext/userinfo).
    open var userInfo: NSMutableDictionary {
        if let storedUserInfo { return storedUserInfo }
        let made = NSMutableDictionary()
        storedUserInfo = made
        return made
    }

    /// Creates a context of the deprecated confinement type
    /// (`.confinementConcurrencyType`), to be used from the thread that created it.
    ///
    /// **Differences from Apple:** Apple's confinement context refuses `perform(_:)` and
    /// `performAndWait(_:)`; this one runs them on a serial queue of its own, as a
    /// private-queue context does, so the same code works whether it calls them or not.
    /// See [init()](https://developer.apple.com/documentation/coredata/nsmanagedobjectcontext/init()).
    @available(*, deprecated, message: "Use init(concurrencyType:) instead")
    public override convenience init() {
        self.init(concurrencyType: .confinementConcurrencyType)
    }

    /// Creates a context with its own queue (or the main queue).
    public init(concurrencyType: ConcurrencyType) {
        self.concurrencyType = concurrencyType
        queue = concurrencyType == .mainQueueConcurrencyType ? .main : DispatchQueue(label: "NSManagedObjectContext")
        super.init()
        queue.setSpecific(key: queueKey, value: ObjectIdentifier(self))
        queue.setSpecific(key: Self.currentKey, value: CurrentContext(self))
    }

    // MARK: - Queue

    /// Whether the caller runs on the context's queue.
    var isOnQueue: Bool { DispatchQueue.getSpecific(key: queueKey) == ObjectIdentifier(self) }

    /// Runs `block` on the context's queue, later.
    ///
    /// The caller's `ServiceContext` (swift-distributed-tracing's) goes with the block, so the
    /// spans of its fetches and saves are children of the caller's span; the same holds for the
    /// async `perform` and `performBackgroundTask`.
    @preconcurrency
    open func perform(_ block: @escaping @Sendable () -> Void) {
        enqueue {
            block()
            self.processPendingChanges()
        }
    }

    /// Runs `work` on the context's queue, later, in the caller's `ServiceContext`.
    private func enqueue(_ work: @escaping @Sendable () -> Void) {
        let serviceContext = ServiceContext.current
        queue.async { ServiceContext.withValue(serviceContext, operation: work) }
    }

    /// Runs `block` on the context's queue and waits for it (directly, if already on it).
    @preconcurrency
    open func performAndWait<T>(_ block: @Sendable () throws -> T) rethrows -> T {
        try performAndWaitUnchecked(block)
    }

    /// `performAndWait(_:)` for the library's own blocks, which hold this context's objects or
    /// other values that are not `Sendable`: the caller waits for the block, so no value is used
    /// by two threads at once.
    func performAndWaitUnchecked<T>(_ block: () throws -> T) rethrows -> T {
        if isOnQueue { return try block() }
        return try queue.sync {
            defer { processPendingChanges() }
            return try block()
        }
    }

    /// `perform(_:)` for the library's own blocks that hand values that are not `Sendable` to the
    /// queue: the caller keeps no reference it uses while the block may run.
    func performUnchecked(_ block: @escaping () -> Void) {
        let work = UncheckedBox(block)
        perform { work.value() }
    }

    /// `perform(_:) async` for the library's own blocks, whose captures and result are not
    /// `Sendable`: the caller awaits the block and uses nothing it captured meanwhile.
    func performUnchecked<T>(_ block: @escaping () throws -> T) async throws -> T {
        let work = UncheckedBox(block)
        return try await perform { UncheckedBox(try work.value()) }.value
    }

    /// Runs `block` on the context's queue and returns its result.
    ///
    /// In Swift 6, a caller isolated to an actor gets only a `Sendable` result across the hop (as
    /// with Apple's): return object IDs or values, not managed objects.
    @preconcurrency
    public func perform<T>(_ block: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            enqueue {
                let value = block()
                self.processPendingChanges()
                continuation.resume(returning: UncheckedBox(value))
            }
        }.value
    }

    /// Runs a throwing `block` on the context's queue and returns its result.
    @preconcurrency
    public func perform<T>(_ block: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            enqueue {
                let result = Result { try block() }
                self.processPendingChanges()
                continuation.resume(with: result.map(UncheckedBox.init))
            }
        }.value
    }

    // MARK: - Registered and changed objects

    /// Whether the context keeps every registered object alive. When false, the context keeps
    /// only objects with unsaved changes (inserted, updated, deleted) alive: an unchanged object
    /// that nothing else references is freed and leaves `registeredObjects`, and a later fetch
    /// or `object(with:)` makes a new instance for its ID. While an object is alive, its ID
    /// gives the same instance. **Default:** `false`.
    ///
    /// As on Apple, objects that reference each other through fired relationships keep each
    /// other alive; `refresh(_:mergeChanges:)` with `false` breaks such a cycle.
    ///
    /// **Differences from Apple:** an object is freed as soon as its last reference goes, not
    /// when an autorelease pool drains.
    /// See [retainsRegisteredObjects](https://developer.apple.com/documentation/coredata/nsmanagedobjectcontext/retainsregisteredobjects).
    open var retainsRegisteredObjects: Bool {
        get { registry.retainsObjects }
        set { registry.retainsObjects = newValue }
    }

    /// Every object the context knows.
    open var registeredObjects: Set<NSManagedObject> { Set(registry.values) }
    /// Objects inserted since the last save.
    open var insertedObjects: Set<NSManagedObject> { Set(insertedList) }
    /// Saved objects changed since the last save (not deleted).
    open var updatedObjects: Set<NSManagedObject> { Set(changedList.filter { $0.isUpdated }) }
    /// Objects marked for deletion at the next save.
    open var deletedObjects: Set<NSManagedObject> { Set(deletedList) }
    /// Whether anything was inserted, changed or deleted since the last save.
    open var hasChanges: Bool { !insertedList.isEmpty || !deletedList.isEmpty || changedList.contains { $0.isUpdated } }

    /// The object with an ID, if the context has it already.
    open func registeredObject(for objectID: NSManagedObjectID) -> NSManagedObject? { registry[ownID(objectID)] }

    /// The object with an ID: the registered one, or a fault for it (which fails when fired if
    /// the row does not exist).
    ///
    /// An ID made by another coordinator for a store file this context's coordinator has open
    /// names the same object (the IDs are equal).
    open func object(with objectID: NSManagedObjectID) -> NSManagedObject {
        let objectID = ownID(objectID)
        if let object = registry[objectID] { return object }
        let object = managedObjectClass(for: objectID.entity).fault(
            entity: objectID.entity, base: homeBase(for: objectID.origin), key: objectID.rowKey)
        object.objectID = objectID
        registry[objectID] = object
        return object
    }

    /// The object with an ID, loaded; throws when the store has no such object.
    open func existingObject(with objectID: NSManagedObjectID) throws -> NSManagedObject {
        let objectID = ownID(objectID)
        if let object = registry[objectID], !object.isFault {
            guard object.inaccessible else { return object }
            throw Self.inaccessibleFaultError(object)
        }
        if parent?.canLoad(objectID) ?? false {
            let object = object(with: objectID)
            object.fireFault()
            return object
        }
        guard parent == nil, !objectID.isTemporaryID, let key = objectID.key, let row = try storeRow(for: objectID, key: key)
        else {
            throw CoreDataError.make(
                code: NSManagedObjectReferentialIntegrityError, reason: "No object exists for the ID \(objectID)",
                userInfo: ["objectID": objectID])
        }
        let object = object(with: objectID)
        cache(row, for: object, fetchedAt: nil)
        object.fireFault()
        return object
    }

    /// An ID as this context's coordinator makes it. IDs of one store share one origin, by
    /// which the registry finds objects; an ID made by another coordinator for a file this one
    /// has open too is equal to this coordinator's ID of the row, and becomes it here.
    func ownID(_ id: NSManagedObjectID) -> NSManagedObjectID {
        guard parent == nil, !id.isTemporaryID, let coordinator = persistentStoreCoordinator,
            id.persistentStore?.persistentStoreCoordinator !== coordinator
        else { return id }
        return coordinator.managedObjectID(forURIRepresentation: id.uriRepresentation()) ?? id
    }

    deinit {
        // Its objects may outlive it, and with them its registry (see `HomeBase`); their faults
        // no longer fire.
        for base in homeBases.values { base.firesFromFetchedRow.store(false, ordering: .relaxed) }
        registry.orphan()
    }

    /// The base that the context's objects whose IDs come from `origin` share (see `HomeBase`),
    /// made on first need and kept while the context lives.
    func homeBase(for origin: IDOrigin) -> HomeBase {
        if let base = homeBases[ObjectIdentifier(origin)] { return base }
        let base = HomeBase(context: self, origin: origin, entity: nil)
        base.firesFromFetchedRow.store(firesFromFetchedRow, ordering: .relaxed)
        homeBases[ObjectIdentifier(origin)] = base
        return base
    }

    /// Whether the context's faults fetched with their row may fire by taking it without asking
    /// the context (see `HomeBase.firesFromFetchedRow`): not in a child context (whose faults
    /// load from the parent), and not with a staleness interval (the row's age is checked).
    private final var firesFromFetchedRow: Bool { !isChild && stalenessInterval < 0 }

    /// Tells the context's bases whether its faults fire from their fetched row, after a change
    /// to `parent` or `stalenessInterval`.
    final func updateFetchedRowFiring() {
        let fires = firesFromFetchedRow
        for base in homeBases.values { base.firesFromFetchedRow.store(fires, ordering: .relaxed) }
    }

    /// Adds a new object to the context; it is saved at the next `save()`.
    open func insert(_ object: NSManagedObject) {
        if object.context === self, registry[object.idOrigin, object.identityKey] != nil { return }
        // An object registers in one context at a time: its `deinit` leaves only that one.
        if let previous = object.context, previous !== self {
            previous.registry.remove(Unmanaged.passUnretained(object), origin: object.idOrigin, key: object.identityKey)
        }
        if insertedClass != ObjectIdentifier(type(of: object)) {
            ManagedClassRegistry.register(type(of: object))
            insertedClass = ObjectIdentifier(type(of: object))
        }
        if object.identityOrigin == nil {
            // A new object's temporary ID is made when first asked for: most never are.
            object.setIdentity(
                origin: object.entity.temporaryIDOrigin, key: NSManagedObjectID.nextTemporaryKey(), context: self)
        } else {
            object.context = self
        }
        object.inserted = true
        object.isNewInEvent = true
        // Nothing is committed before the first save (see `committed`).
        object.commitValues()
        registry[object.idOrigin, object.identityKey] = object
        insertedList.append(object)
        if !insertsHaveRules && !object.layout.checkedSlots.isEmpty { insertsHaveRules = true }
        insertedEntity.note(object)
        changeState.noteInserted(object)
        object.awakeFromInsert()
    }

    /// Marks an object for deletion at the next save (an unsaved inserted object is forgotten at
    /// once); relationships follow their delete rules when the context saves, those of forgotten
    /// objects too (a department inserted and deleted before a save still cascades to its
    /// employees, and leaves no trace in their inverse).
    open func delete(_ object: NSManagedObject) {
        guard object.context === self, !object.deleted else { return }
        changeState.noteDeleted(object)
        if object.inserted {
            insertedList.remove(object)
            registry[object.objectID] = nil
            object.inserted = false
            object.deleted = true
            deletedInserts.append(object)
            return
        }
        object.deleted = true
        deletedList.append(object)
    }

    /// Records that an object changed (called by the object).
    func objectDidChange(_ object: NSManagedObject) {
        changedDuringWillSave?.insert(ObjectIdentifier(object))
        changeState.noteChanged(object)
        guard !object.inserted else { return }
        changedList.append(object)
    }

    /// Announces the changes made since the last announcement: posts
    /// `NSManagedObjectContextObjectsDidChange` with the objects inserted, updated and deleted
    /// since then (see `NSManagedObjectContext+Merging`).
    ///
    /// Called at the end of every `perform(_:)` / `performAndWait(_:)` block and by `save()`.
    ///
    /// **Differences from Apple:** delete rules run at save, not here.
    /// See [processPendingChanges()](https://developer.apple.com/documentation/coredata/nsmanagedobjectcontext/processpendingchanges()).
    open func processPendingChanges() {
        prepareDeletedObjects()
        postObjectsDidChange()
    }

    /// Forgets every unsaved change: inserted objects leave, deleted ones come back, changed ones
    /// return to their saved values.
    open func rollback() {
        let dropped = insertedList.objects
        for object in insertedList {
            registry[object.objectID] = nil
            object.inserted = false
            object.context = nil
        }
        var seen: Set<ObjectIdentifier> = []
        let restored = (changedList.objects + deletedList.objects).filter { seen.insert(ObjectIdentifier($0)).inserted }
        for object in restored {
            object.deleted = false
            object.preparedForDeletion = false
            object.refault(keepChanges: false, notifying: false)
        }
        forgetChangeLists()
        // Changes not announced yet are gone: nothing is left to announce, and the objects
        // noted for the announcement are no longer kept alive by it.
        processPendingChanges()
        // Their values are the saved ones again (they reload when next read).
        for object in restored { object.awake(fromSnapshotEvents: .rollback) }
        changeState.tellObservers(ContextChanges(updated: restored, deleted: dropped))
    }

    /// Forgets every object and change; objects fetched before are no longer valid.
    open func reset() {
        faultFailures = []
        faultFailureOverflow = 0
        for object in registry.removeAll() {
            // `willTurnIntoFault()` / `didTurnIntoFault()` while the object still has its context.
            object.refault(keepChanges: false)
            object.context = nil
        }
        forgetChangeLists()
        rowCache = [:]
        rowCacheTimes = [:]
        changeState.tellObservers(ContextChanges(invalidatedAll: true))
    }

    /// Turns an object back into a fault (its values reload when next read), keeping its
    /// unsaved changes when `flag` is true.
    ///
    /// The object is announced under `NSRefreshedObjectsKey` at the next
    /// `processPendingChanges()`, so fetched results controllers place it again.
    open func refresh(_ object: NSManagedObject, mergeChanges flag: Bool) {
        refresh(object, mergeChanges: flag, noting: true)
    }

    /// Refreshes an object; `noting` announces it at the next `processPendingChanges()` (a
    /// merge announces its refreshed objects itself).
    func refresh(_ object: NSManagedObject, mergeChanges flag: Bool, noting: Bool) {
        guard object.context === self else { return }
        if let key = object.storeKey { forgetCachedRow(for: object.objectID, key: key) }
        if !flag { changedList.remove(object) }
        if noting { changeState.noteRefreshed(object) }
        object.refault(keepChanges: flag)
    }

    /// Refreshes every registered object, keeping unsaved changes.
    open func refreshAllObjects() {
        for object in registry.values { refresh(object, mergeChanges: true) }
    }

    /// Called after a save: the saved objects' changes become their committed values. With
    /// `versioned` (a save to the stores), their rows' new versions become their versions, and
    /// the sets of the objects and IDs that `postDidSave` posts are made (and inserted objects'
    /// permanent IDs with them) in the same pass, while each object is in the processor's
    /// cache; without, the sets are empty.
    ///
    /// `inserted` is emptied when `versioned` and no class overrides `didSave()`: the objects
    /// are taken from its end as they are settled, each released while in the cache (the
    /// save's list is their last reference here; dropped after the pass, it would be another
    /// pass, over 10^5 objects long out of the cache).
    @discardableResult
    func didSave(
        inserted: inout [NSManagedObject], updated: [NSManagedObject], deleted: [NSManagedObject], versioned: Bool = false
    ) -> SavedIDs {
        processPendingChanges()
        let hadInserts = !inserted.isEmpty
        var ids = SavedIDs(capacities: versioned ? (inserted.count, updated.count, deleted.count) : (0, 0, 0))
        // The set the save's announcement posted, when it announced exactly these objects.
        let announced = versioned ? announcedInserts.flatMap { $0.announced(inserted) ? $0.set : nil } : nil
        let collecting = versioned && announced == nil
        if collecting { ids.insertedObjects = .sparse(capacity: inserted.count) }
        for object in deleted {
            let id = object.objectID
            registry[id] = nil
            if versioned { ids.deleted.insert(id) }
            object.context = nil
        }
        forgetChangeLists()
        // (The sets are passed in, not captured: a captured variable is checked for
        // exclusive access at run time, on every call.)
        func settle(_ object: NSManagedObject, _ ids: inout SavedIDs) {
            if versioned {
                object.version = 1
                ids.inserted.insert(object.objectID)
                if collecting { ids.insertedObjects.insert(object) }
            }
            object.inserted = false
            object.clearChangedKeys()
            object.commitValues()
        }
        // `NSManagedObject`'s `didSave()` does nothing: while no class overrides it, no pass
        // over the objects calls it.
        let callsDidSave = MethodOverride.didSave.isOverriddenByAnyClass
        if versioned && !callsDidSave {
            while let object = inserted.popLast() { settle(object, &ids) }
        } else {
            // Each list walked in place (10^5 objects saved are 10^5 cache misses a pass).
            inserted.forEachUnretained { settle($0, &ids) }
        }
        if let announced { ids.insertedObjects = announced }
        updated.forEachUnretained { object in
            if versioned {
                object.version = Self.version(after: object.version)
                ids.updated.insert(object.objectID)
            }
            object.clearChangedKeys()
            object.commitValues()
        }
        if callsDidSave {
            for objects in [inserted, updated, deleted] {
                objects.forEachUnretained { $0.didSave() }
            }
        }
        for object in deleted { object.turnIntoDeletedFault() }
        // Inserted objects have permanent IDs now.
        if hadInserts { changeState.tellObservers(ContextChanges(idsChanged: true)) }
        return ids
    }

    /// Empties the lists of inserted, changed and deleted objects (after a save, a rollback or
    /// a reset).
    private func forgetChangeLists() {
        insertedList = []
        insertsHaveRules = false
        insertedEntity = .none
        changedList = []
        deletedList = []
        deletedInserts = []
    }

    // MARK: - Conflict resolution (see `NSMergePolicy+Resolution`)

    /// Takes back the deletion of an object: it stays, with its values.
    func undoDeletion(_ object: NSManagedObject) {
        deletedList.remove(object)
        object.deleted = false
        object.preparedForDeletion = false
    }

    /// Drops an inserted object: it leaves the context as if deleted before the save.
    func discardInsertion(_ object: NSManagedObject) {
        insertedList.remove(object)
        registry[object.objectID] = nil
        object.inserted = false
        object.deleted = true
        object.context = nil
    }

    /// Turns an inserted object into the saved object with `id` (a stored row): it is no longer
    /// inserted but changed, and the object registered for `id` before, if another, leaves.
    func adoptStoredIdentity(_ object: NSManagedObject, id: NSManagedObjectID) {
        if let previous = registry[id], previous !== object {
            // Out of the registry before it loses its context (its `deinit` needs the context).
            registry[id] = nil
            changedList.remove(previous)
            previous.context = nil
        }
        registry[object.objectID] = nil
        insertedList.remove(object)
        object.objectID = id
        object.inserted = false
        registry[id] = object
        changedList.append(object)
    }

    /// Forgets the changes of an object whose row is being reloaded.
    func forgetChange(_ object: NSManagedObject) {
        changedList.remove(object)
    }

    // MARK: - Classes

    /// The class of an entity's objects (see `ManagedClassRegistry`), remembered per entity
    /// until a class is registered: the registry's lookup takes a lock and hashes the class's
    /// name, some 600 instructions for each relationship fault made and each
    /// `insertNewObject(forEntityName:into:)`.
    func managedObjectClass(for entity: NSEntityDescription) -> NSManagedObject.Type {
        let generation = ManagedClassRegistry.generation.load(ordering: .acquiring)
        if generation != knownClasses.generation {
            knownClasses = (generation, [:])
        } else if let known = knownClasses.types[ObjectIdentifier(entity)], known.entity === entity {
            return known.type
        }
        let type = ManagedClassRegistry.managedClass(named: entity.managedObjectClassName ?? "NSManagedObject")
        // Kept with its entity, so that no other entity takes the identifier while it is here.
        knownClasses.types[ObjectIdentifier(entity)] = (entity, type)
        return type
    }
}

/// Carries a value that is not `Sendable` across a hop to or from a queue. Safe where one side
/// hands the value over and does not touch it until the other is done (the uses above, and the
/// continuations of the `perform` family, resumed once with the block's result).
struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

// MARK: - The current context

extension NSManagedObjectContext {
    /// Marks each context's queue with its context, for `NSFetchRequest.execute()`.
    static let currentKey = DispatchSpecificKey<CurrentContext>()

    /// The context whose queue the caller runs on (inside `perform` or `performAndWait`); for
    /// the main queue, the main-queue context created last.
    static var current: NSManagedObjectContext? { DispatchQueue.getSpecific(key: currentKey)?.context }
}

/// A weak reference to a context, kept on its queue.
final class CurrentContext: @unchecked Sendable {
    // @unchecked Sendable: holds only a weak reference, which the runtime reads and clears
    // atomically.

    weak var context: NSManagedObjectContext?

    init(_ context: NSManagedObjectContext) {
        self.context = context
    }
}
