import OpenPredicate
import OpenStoreCore

/// `userInfo` key of `NSManagedObjectContextObjectsDidChange`: the objects that were refreshed
/// (by `mergeChanges(fromContextDidSave:)`), not changed by the context itself.
public let NSRefreshedObjectsKey = "refreshed"
/// `userInfo` key of `NSManagedObjectContextObjectsDidChange`: objects that are no longer valid.
public let NSInvalidatedObjectsKey = "invalidated"
/// `userInfo` key of `NSManagedObjectContextObjectsDidChange`: every object is no longer valid.
public let NSInvalidatedAllObjectsKey = "invalidatedAll"
/// `userInfo` key of the object-ID notifications: the IDs of the inserted objects.
public let NSInsertedObjectIDsKey = "inserted_objectIDs"
/// `userInfo` key of the object-ID notifications: the IDs of the updated objects.
public let NSUpdatedObjectIDsKey = "updated_objectIDs"
/// `userInfo` key of the object-ID notifications: the IDs of the deleted objects.
public let NSDeletedObjectIDsKey = "deleted_objectIDs"
/// `userInfo` key of the object-ID notifications: the IDs of the refreshed objects.
public let NSRefreshedObjectIDsKey = "refreshed_objectIDs"
/// `userInfo` key of the object-ID notifications: the IDs of the invalidated objects.
public let NSInvalidatedObjectIDsKey = "invalidated_objectIDs"

extension Notification.Name {
    /// Posted by a context when its registered objects changed: by `processPendingChanges()`
    /// (at the end of each `perform` block and when saving) with the objects inserted, updated
    /// and deleted since the last post under `NSInsertedObjectsKey`, `NSUpdatedObjectsKey` and
    /// `NSDeletedObjectsKey`, and those refreshed (`refresh(_:mergeChanges:)`) under
    /// `NSRefreshedObjectsKey`; after a merge, with `NSRefreshedObjectsKey` too. Only non-empty
    /// sets are present; the notification's `object` is the context.
    ///
    /// **Differences from Apple:** Apple posts at the end of each run-loop event of the main
    /// queue; on Linux there is no such event, so a main-queue context posts at the end of its
    /// `perform` blocks, when saving, or when `processPendingChanges()` is called.
    /// See [NSManagedObjectContextObjectsDidChange](https://developer.apple.com/documentation/foundation/nsnotification/name-swift.struct/nsmanagedobjectcontextobjectsdidchange).
    public static let NSManagedObjectContextObjectsDidChange = Notification.Name(
        "NSObjectsChangedInManagingContextNotification")

    /// Posted by a context after it merged another context's save, with the IDs of the objects
    /// it inserted, refreshed and deleted under `NSInsertedObjectIDsKey`,
    /// `NSRefreshedObjectIDsKey` and `NSDeletedObjectIDsKey`.
    ///
    /// See [NSManagedObjectContextDidMergeChangesObjectIDs](https://developer.apple.com/documentation/foundation/nsnotification/name-swift.struct/nsmanagedobjectcontextdidmergechangesobjectids).
    public static let NSManagedObjectContextDidMergeChangesObjectIDs = Notification.Name(
        "NSManagedObjectContextDidMergeChangesObjectIDsNotification")
}

extension NSManagedObjectContext {
    /// The notification a context posts after it saved: `Notification.Name.NSManagedObjectContextDidSave`.
    ///
    /// See [didSaveObjectsNotification](https://developer.apple.com/documentation/coredata/nsmanagedobjectcontext/didsaveobjectsnotification).
    public static let didSaveObjectsNotification = Notification.Name.NSManagedObjectContextDidSave

    /// The notification a context posts when its objects changed:
    /// `Notification.Name.NSManagedObjectContextObjectsDidChange`.
    ///
    /// See [didChangeObjectsNotification](https://developer.apple.com/documentation/coredata/nsmanagedobjectcontext/didchangeobjectsnotification).
    public static let didChangeObjectsNotification = Notification.Name.NSManagedObjectContextObjectsDidChange

    /// The notification a context posts after it merged another context's save:
    /// `Notification.Name.NSManagedObjectContextDidMergeChangesObjectIDs`.
    ///
    /// See [didMergeChangesObjectIDsNotification](https://developer.apple.com/documentation/coredata/nsmanagedobjectcontext/didmergechangesobjectidsnotification).
    public static let didMergeChangesObjectIDsNotification = Notification.Name.NSManagedObjectContextDidMergeChangesObjectIDs

    // MARK: - Settings

    /// Whether the context merges, on its own queue, the saves of the other contexts of its
    /// coordinator, as if it called `mergeChanges(fromContextDidSave:)` for each.
    ///
    /// ```swift
    /// container.viewContext.automaticallyMergesChangesFromParent = true
    /// container.performBackgroundTask { background in
    ///     // ... changes ...
    ///     try? background.save()  // the view context's objects show the saved values
    /// }
    /// ```
    ///
    /// The merge is scheduled with `perform(_:)` when the other context's
    /// `NSManagedObjectContextDidSave` is posted; it runs after the blocks already queued.
    ///
    /// **Default:** `false`.
    ///
    /// For a context with a `parent`, the parent's saves are merged. For a context attached
    /// directly to a coordinator, the parent is the coordinator: saves of every other context
    /// without a parent whose `persistentStoreCoordinator` is the same object are merged (the
    /// saves of child contexts, which only reach their parent, are not).
    /// See [automaticallyMergesChangesFromParent](https://developer.apple.com/documentation/coredata/nsmanagedobjectcontext/automaticallymergeschangesfromparent).
    public var automaticallyMergesChangesFromParent: Bool {
        get { changeState.locked { $0.automaticallyMerges } }
        set {
            let start = changeState.locked { state -> Bool in
                defer { state.automaticallyMerges = newValue }
                return newValue && state.observer == nil
            }
            if start {
                observeSaves()
            } else if !newValue {
                changeState.stopObserving()
            }
        }
    }

    /// How conflicts between this context's changes and changes saved to the store meanwhile
    /// are resolved when it saves: one of `NSErrorMergePolicy`,
    /// `NSMergeByPropertyStoreTrumpMergePolicy`, `NSMergeByPropertyObjectTrumpMergePolicy`,
    /// `NSOverwriteMergePolicy`, `NSRollbackMergePolicy`, or any `NSMergePolicy`.
    ///
    /// **Default:** `NSErrorMergePolicy`.
    ///
    /// Both stores detect the conflicts (a row whose version changed since it was fetched, a
    /// broken uniqueness constraint); see `NSMergePolicy` for what each policy does with them.
    /// A value that is not an `NSMergePolicy` acts as `NSErrorMergePolicy`.
    ///
    /// **Differences from Apple:** Apple stops the process when given something that is not a
    /// merge policy; this keeps whatever it is given.
    /// See [mergePolicy](https://developer.apple.com/documentation/coredata/nsmanagedobjectcontext/mergepolicy).
    public var mergePolicy: Any {
        get { changeState.locked { $0.mergePolicy } }
        set { changeState.locked { $0.mergePolicy = newValue } }
    }

    /// How old, in seconds, a fetched row may be when an object's fault fires from it; an older
    /// row is read again from the store, so the object sees what other contexts and coordinators
    /// saved since the fetch. A negative value means no limit, zero means always from the store.
    ///
    /// ```swift
    /// context.stalenessInterval = 0    // faults always fire with the store's current values
    /// ```
    ///
    /// **Default:** `-1`.
    ///
    /// **Differences from Apple:** the rows a context caches are those its own fetches read
    /// (Apple's coordinator shares one cache between contexts); a row cached while the interval
    /// was negative counts as stale once it is set to zero or more.
    /// See [stalenessInterval](https://developer.apple.com/documentation/coredata/nsmanagedobjectcontext/stalenessinterval).
    public var stalenessInterval: TimeInterval {
        get { changeState.locked { $0.stalenessInterval } }
        set {
            changeState.locked { $0.stalenessInterval = newValue }
            updateFetchedRowFiring()
        }
    }

    // MARK: - Merging a save

    /// Brings another context's save into this context: objects it updated are refreshed,
    /// objects it inserted are registered here as faults, and objects it deleted leave this
    /// context.
    ///
    /// ```swift
    /// NotificationCenter.default.addObserver(
    ///     forName: .NSManagedObjectContextDidSave, object: background, queue: nil
    /// ) { notification in
    ///     viewContext.perform { viewContext.mergeChanges(fromContextDidSave: notification) }
    /// }
    /// ```
    ///
    /// - An updated object registered here and loaded gets the saved values; this context's own
    ///   unsaved changes to it are kept on top (`refresh(_:mergeChanges: true)`). One that is
    ///   still a fault loads the saved values when it fires.
    /// - An inserted object is registered here as a fault, so `registeredObject(for:)` finds it.
    /// - A deleted object registered here is unregistered, marked deleted, and loses its
    ///   context, with any unsaved change this context had for it.
    ///
    /// Afterwards the context posts `NSManagedObjectContextObjectsDidChange` (inserted,
    /// refreshed and deleted objects) and `NSManagedObjectContextDidMergeChangesObjectIDs`.
    /// Call it on the context's queue. The notification's `userInfo` may hold managed objects
    /// or object IDs, as sets or arrays, under `NSInsertedObjectsKey`/`NSInsertedObjectIDsKey`
    /// and the updated and deleted twins; IDs from another coordinator are matched by their URI.
    ///
    /// **Differences from Apple:** Apple calls `delete(_:)` on deleted objects; here they leave
    /// the context at once, so the merge never leaves `hasChanges` set.
    /// See [mergeChanges(fromContextDidSave:)](https://developer.apple.com/documentation/coredata/nsmanagedobjectcontext/mergechanges(fromcontextdidsave:)).
    ///
    /// - Parameter notification: An `NSManagedObjectContextDidSave` notification of another
    ///   context.
    public func mergeChanges(fromContextDidSave notification: Notification) {
        merge(SavedObjectIDs(notification))
    }

    /// Merges changes given as IDs into the contexts given.
    ///
    /// **Differences from Apple:** Apple's also accepts object URIs; this accepts objects and
    /// IDs, as sets or arrays (IDs of another coordinator's stores are matched by their URI).
    /// See [mergeChanges(fromRemoteContextSave:into:)](https://developer.apple.com/documentation/coredata/nsmanagedobjectcontext/mergechanges(fromremotecontextsave:into:)).
    ///
    /// - Parameters:
    ///   - changeNotificationData: Changes under `NSInsertedObjectsKey`, `NSUpdatedObjectsKey`,
    ///     `NSDeletedObjectsKey` or their `…ObjectIDsKey` twins.
    ///   - contexts: The contexts to update; each merges on its own queue, and this returns
    ///     when all have.
    public class func mergeChanges(
        fromRemoteContextSave changeNotificationData: [AnyHashable: Any], into contexts: [NSManagedObjectContext]
    ) {
        let saved = SavedObjectIDs(userInfo: changeNotificationData)
        for context in contexts {
            context.performAndWait { context.merge(saved) }
        }
    }

    /// Merges a save given as IDs (this context's queue).
    func merge(_ saved: SavedObjectIDs) {
        processPendingChanges()
        var inserted: Set<NSManagedObject> = []
        var refreshed: Set<NSManagedObject> = []
        var deleted: Set<NSManagedObject> = []
        // For observers: updated objects that are faults here, and IDs not registered here.
        var updatedFaults: Set<NSManagedObject> = []
        var updatedElsewhere: [NSManagedObjectID] = []
        for id in saved.updated.compactMap(local) {
            if let key = id.key { forgetCachedRow(for: id, key: key) }
            guard let object = registry[id] else {
                updatedElsewhere.append(id)
                continue
            }
            guard !object.isFault else {
                updatedFaults.insert(object)
                continue
            }
            guard !object.isInserted else { continue }
            refresh(object, mergeChanges: true, noting: false)
            refreshed.insert(object)
        }
        for id in saved.inserted.compactMap(local) where registry[id] == nil {
            inserted.insert(object(with: id))
        }
        for id in saved.deleted.compactMap(local) {
            if let key = id.key { forgetCachedRow(for: id, key: key) }
            guard let object = registry[id] else { continue }
            forgetDeletedElsewhere(object)
            object.deleted = true
            object.inserted = false
            object.context = nil
            deleted.insert(object)
        }
        changeState.forget(deleted)
        defer {
            changeState.tellObservers(
                ContextChanges(
                    inserted: Array(inserted), updated: Array(refreshed) + Array(updatedFaults), deleted: Array(deleted),
                    updatedElsewhere: updatedElsewhere))
        }
        var info: [AnyHashable: Any] = [:]
        if !inserted.isEmpty { info[NSInsertedObjectsKey] = inserted }
        if !refreshed.isEmpty { info[NSRefreshedObjectsKey] = refreshed }
        if !deleted.isEmpty { info[NSDeletedObjectsKey] = deleted }
        guard !info.isEmpty else { return }
        NotificationCenter.default.post(name: .NSManagedObjectContextObjectsDidChange, object: self, userInfo: info)
        NotificationCenter.default.post(
            name: .NSManagedObjectContextDidMergeChangesObjectIDs, object: self,
            userInfo: [
                NSInsertedObjectIDsKey: Set(inserted.map(\.objectID)),
                NSRefreshedObjectIDsKey: Set(refreshed.map(\.objectID)),
                NSDeletedObjectIDsKey: Set(deleted.map(\.objectID)),
            ])
    }

    /// The ID as this context's coordinator knows it: itself when it names one of the
    /// coordinator's stores, else the ID its URI names here (nil if none).
    private func local(_ id: NSManagedObjectID) -> NSManagedObjectID? {
        if parent != nil { return id }  // a child shares its ancestors' IDs, temporary ones too
        guard let coordinator = persistentStoreCoordinator, !id.isTemporaryID else { return nil }
        if let store = id.persistentStore, store.persistentStoreCoordinator === coordinator { return id }
        return coordinator.managedObjectID(forURIRepresentation: id.uriRepresentation())
    }

    // MARK: - Automatic merging

    /// Starts observing saves of the other contexts. A save is merged, on this context's queue,
    /// when it comes from this context's parent, or — for a context without a parent — from a
    /// context without a parent on the same coordinator (a save that reached the stores).
    private func observeSaves() {
        let receiver = WeakContext(self)
        let observer = NotificationCenter.default.addObserver(
            forName: .NSManagedObjectContextDidSave, object: nil, queue: nil
        ) { notification in
            guard let context = receiver.context, let sender = notification.object as? NSManagedObjectContext,
                sender !== context
            else { return }
            // Read on the saving context's queue, where its objects live.
            let saved = SavedObjectIDs(notification)
            let senderIsRoot = sender.parent == nil
            let senderCoordinator = sender.persistentStoreCoordinator.map(ObjectIdentifier.init)
            let senderID = ObjectIdentifier(sender)
            context.perform {
                guard context.automaticallyMergesChangesFromParent else { return }
                if let parent = context.parent {
                    guard ObjectIdentifier(parent) == senderID else { return }
                } else {
                    guard senderIsRoot, let senderCoordinator,
                        context.persistentStoreCoordinator.map(ObjectIdentifier.init) == senderCoordinator
                    else { return }
                }
                context.merge(saved)
            }
        }
        changeState.setObserver(observer)
    }

    // MARK: - Objects-did-change

    /// Posts `NSManagedObjectContextObjectsDidChange` for the changes noted since the last post
    /// that still hold: objects still inserted, updated or deleted in this context.
    func postObjectsDidChange() {
        var pending = changeState.takePending()
        // One pass over each list, in the order the changes were noted (for new objects, the
        // order they were made in, near enough the order of their memory): each object is read
        // while it is in the cache. Every pass over 10^5 objects costs a cache miss or more on
        // each, and passes like these were two fifths of the time of saving that many.
        func endEvent(_ object: NSManagedObject) {
            if object.extras != nil { object.eventOldValues = [:] }
        }
        var pendingInserted = pending.inserted
        pending.inserted = []
        let insertedCount = pendingInserted.count
        var inserted = Set<NSManagedObject>.sparse(capacity: insertedCount)
        // Within a save, the objects announced, by identity, for its did-save (taken in reverse).
        var announcedOrder: [ObjectIdentifier] = []
        if announcedInserts != nil { announcedOrder.reserveCapacity(insertedCount) }
        // Taken from the end, each released once read, while in the cache: dropping the list
        // after the pass would be another pass, over objects long out of the cache.
        while let object = pendingInserted.popLast() {
            // An object new in this event recorded no old values (`recordChange(forKey:)`).
            if object.isNewInEvent { object.isNewInEvent = false } else { endEvent(object) }
            if announcedInserts != nil { announcedOrder.append(ObjectIdentifier(object)) }
            if object.inserted && object.belongs(to: self) { inserted.insert(object) }
        }
        if announcedInserts != nil, insertedCount > 0 {
            // Within a save: when every object noted is announced, its did-save may post the same set.
            announcedOrder.reverse()
            announcedInserts =
                inserted.count == insertedCount ? AnnouncedInserts(order: announcedOrder, set: inserted) : AnnouncedInserts()
        }
        var updated: Set<NSManagedObject> = []
        // For observers: inserted objects changed since they were announced.
        var changedInserted: [NSManagedObject] = []
        for object in pending.updated {
            endEvent(object)
            guard object.belongs(to: self) else { continue }
            if object.isUpdated { updated.insert(object) }
            if object.inserted { changedInserted.append(object) }
        }
        var deleted: Set<NSManagedObject> = []
        for object in pending.deleted {
            endEvent(object)
            if object.deleted && object.belongs(to: self) { deleted.insert(object) }
        }
        let refreshed = Set(pending.refreshed.filter { !$0.deleted && $0.belongs(to: self) }).subtracting(updated)
        // For observers: the updated and refreshed objects, and inserted ones changed since they
        // were announced.
        var observed = Array(updated)
        observed.reserveCapacity(updated.count + refreshed.count + changedInserted.count)
        observed += refreshed
        observed += changedInserted
        var info: [AnyHashable: Any] = [:]
        if !inserted.isEmpty { info[NSInsertedObjectsKey] = inserted }
        if !updated.isEmpty { info[NSUpdatedObjectsKey] = updated }
        if !deleted.isEmpty { info[NSDeletedObjectsKey] = deleted }
        if !refreshed.isEmpty { info[NSRefreshedObjectsKey] = refreshed }
        if !info.isEmpty {
            NotificationCenter.default.post(name: .NSManagedObjectContextObjectsDidChange, object: self, userInfo: info)
        }
        guard !info.isEmpty || !observed.isEmpty else { return }
        changeState.tellObservers(ContextChanges(inserted: Array(inserted), updated: observed, deleted: Array(deleted)))
    }
}

/// A context's merge settings, its save observer, and the changes noted since its last
/// `NSManagedObjectContextObjectsDidChange`. Settings may be read from any thread, so access
/// goes through one lock.
final class ContextChangeState: @unchecked Sendable {
    // @unchecked Sendable: every field is read and written under its lock (see above).

    struct Settings {
        var automaticallyMerges = false
        var observer: NSObjectProtocol?
        var mergePolicy: Any = NSErrorMergePolicy
        var stalenessInterval: TimeInterval = -1
    }

    private let lock = NSLock()
    private var settings = Settings()
    /// Changes not announced yet, in the order noted.
    private var inserted: ObjectList = []
    private var updated: ObjectList = []
    private var deleted: ObjectList = []
    /// Held weakly: refreshing an object must not keep it alive (`refresh(_:mergeChanges:)`
    /// is how cycles are broken), and an object nothing holds is in no fetched results.
    private var refreshed: [ObjectIdentifier: WeakObject] = [:]
    /// What follows the context's changes from inside (fetched results controllers); used on
    /// the context's queue only.
    private var observers: [WeakChangeObserver] = []

    func locked<T>(_ body: (inout Settings) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&settings)
    }

    func setObserver(_ observer: NSObjectProtocol) {
        let old = locked { settings -> NSObjectProtocol? in
            defer { settings.observer = observer }
            return settings.observer
        }
        if let old { NotificationCenter.default.removeObserver(old) }
    }

    func stopObserving() {
        let old = locked { settings -> NSObjectProtocol? in
            defer { settings.observer = nil }
            return settings.observer
        }
        if let old { NotificationCenter.default.removeObserver(old) }
    }

    // The change lists below are used on the context's queue only.

    func noteInserted(_ object: NSManagedObject) {
        deleted.remove(object)
        inserted.append(object)
    }

    /// A changed object; inserted ones too (observers place them again; the notification
    /// leaves them out), except those inserted since the last post: observers get them among
    /// the inserted objects, and listing each new object twice made every save of new objects
    /// walk them once more.
    func noteChanged(_ object: NSManagedObject) {
        guard !object.deleted, !object.isNewInEvent else { return }
        updated.append(object)
    }

    /// An object inserted since the last post and deleted before it is never announced.
    func noteDeleted(_ object: NSManagedObject) {
        updated.remove(object)
        if !inserted.remove(object) { deleted.append(object) }
    }

    /// An object `refresh(_:mergeChanges:)` turned back into a fault or merged.
    func noteRefreshed(_ object: NSManagedObject) {
        guard !object.inserted, !object.deleted else { return }
        refreshed[ObjectIdentifier(object)] = WeakObject(object: object)
    }

    func forget(_ objects: Set<NSManagedObject>) {
        for object in objects {
            inserted.remove(object)
            updated.remove(object)
            deleted.remove(object)
            refreshed[ObjectIdentifier(object)] = nil
        }
    }

    /// The changes noted since the last post, and none left.
    func takePending() -> (
        inserted: [NSManagedObject], updated: [NSManagedObject], deleted: [NSManagedObject], refreshed: [NSManagedObject]
    ) {
        defer { refreshed = [:] }
        return (inserted.take(), updated.take(), deleted.take(), refreshed.values.compactMap(\.object))
    }

    // MARK: Observers (the context's queue)

    func addObserver(_ observer: ContextChangeObserver) {
        observers.removeAll { $0.observer == nil || $0.observer === observer }
        observers.append(WeakChangeObserver(observer: observer))
    }

    func removeObserver(_ observer: ContextChangeObserver) {
        observers.removeAll { $0.observer == nil || $0.observer === observer }
    }

    /// Hands changes to every observer still alive; made only when one is registered (listing
    /// a save's objects again would touch every one of them).
    func tellObservers(_ changes: @autoclosure () -> ContextChanges) {
        guard !observers.isEmpty else { return }
        let changes = changes()
        for entry in observers { entry.observer?.contextDidChange(changes) }
    }

    deinit {
        if let observer = settings.observer { NotificationCenter.default.removeObserver(observer) }
    }
}

/// A weak reference to an object.
struct WeakObject {
    weak var object: NSManagedObject?
}

/// The IDs a save touched, read out of its notification on the saving context's queue.
struct SavedObjectIDs: Sendable {
    var inserted: [NSManagedObjectID] = []
    var updated: [NSManagedObjectID] = []
    var deleted: [NSManagedObjectID] = []

    init(_ notification: Notification) {
        self.init(userInfo: notification.userInfo ?? [:])
    }

    init(userInfo: [AnyHashable: Any]) {
        inserted = Self.ids(userInfo[NSInsertedObjectsKey]) + Self.ids(userInfo[NSInsertedObjectIDsKey])
        updated = Self.ids(userInfo[NSUpdatedObjectsKey]) + Self.ids(userInfo[NSUpdatedObjectIDsKey])
        deleted = Self.ids(userInfo[NSDeletedObjectsKey]) + Self.ids(userInfo[NSDeletedObjectIDsKey])
    }

    /// IDs from a set or array of objects or IDs.
    private static func ids(_ value: Any?) -> [NSManagedObjectID] {
        let elements: [Any]
        switch value {
        case let objects as Set<NSManagedObject>: return objects.map(\.objectID)
        case let ids as Set<NSManagedObjectID>: return Array(ids)
        case let set as NSSet: elements = set.allObjects
        case let array as [Any]: elements = array
        case let set as Set<AnyHashable>: elements = Array(set)
        default: return []
        }
        return elements.compactMap { element in
            switch element {
            case let object as NSManagedObject: return object.objectID
            case let id as NSManagedObjectID: return id
            default: return nil
            }
        }
    }
}

/// A context held weakly by a notification observer.
private struct WeakContext: @unchecked Sendable {
    // @unchecked Sendable: a weak reference, which the runtime reads and clears atomically.

    weak var context: NSManagedObjectContext?
    init(_ context: NSManagedObjectContext) { self.context = context }
}
