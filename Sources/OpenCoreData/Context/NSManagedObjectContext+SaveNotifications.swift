import OpenPredicate

extension Notification.Name {
    /// Posted by a context when it is about to save (after it found that it has changes, before
    /// delete rules, `willSave()` and validation); the notification's `object` is the context
    /// and it has no `userInfo`. The name is Apple's
    /// (`"NSManagingContextWillSaveChangesNotification"`).
    ///
    /// See [NSManagedObjectContextWillSave](https://developer.apple.com/documentation/foundation/nsnotification/name-swift.struct/nsmanagedobjectcontextwillsave).
    public static let NSManagedObjectContextWillSave = Notification.Name("NSManagingContextWillSaveChangesNotification")

    /// Posted by a context after it saved to its coordinator's stores, right after
    /// `NSManagedObjectContextDidSave`, with the IDs of the saved objects: sets of
    /// `NSManagedObjectID` under `NSInsertedObjectIDsKey`, `NSUpdatedObjectIDsKey` and
    /// `NSDeletedObjectIDsKey` (each present, possibly empty). The notification's `object` is the
    /// context.
    ///
    /// **Differences from Apple:** a child context's save into its parent does not post it.
    /// See [NSManagedObjectContextDidSaveObjectIDs](https://developer.apple.com/documentation/foundation/nsnotification/name-swift.struct/nsmanagedobjectcontextdidsaveobjectids).
    public static let NSManagedObjectContextDidSaveObjectIDs = Notification.Name(
        "NSManagedObjectContextDidSaveObjectIDsNotification")
}

extension NSManagedObjectContext {
    /// The notification a context posts before it saves:
    /// `Notification.Name.NSManagedObjectContextWillSave`.
    ///
    /// See [willSaveObjectsNotification](https://developer.apple.com/documentation/coredata/nsmanagedobjectcontext/willsaveobjectsnotification).
    public static let willSaveObjectsNotification = Notification.Name.NSManagedObjectContextWillSave

    /// The notification with the IDs of the objects a context saved:
    /// `Notification.Name.NSManagedObjectContextDidSaveObjectIDs`.
    ///
    /// See [didSaveObjectIDsNotification](https://developer.apple.com/documentation/coredata/nsmanagedobjectcontext/didsaveobjectidsnotification).
    public static let didSaveObjectIDsNotification = Notification.Name.NSManagedObjectContextDidSaveObjectIDs

    /// Posts `NSManagedObjectContextDidSave`, then `NSManagedObjectContextDidSaveObjectIDs`, for
    /// a save to the stores: `saved` (made by `didSave(inserted:updated:deleted:versioned:)`)
    /// holds the inserted objects and the IDs.
    func postDidSave(updated: [NSManagedObject], deleted: [NSManagedObject], ids saved: SavedIDs) {
        func set(_ objects: [NSManagedObject]) -> Set<NSManagedObject> {
            var set = Set<NSManagedObject>.sparse(capacity: objects.count)
            for object in objects { set.insert(object) }
            return set
        }
        NotificationCenter.default.post(
            name: .NSManagedObjectContextDidSave, object: self,
            userInfo: [
                NSInsertedObjectsKey: saved.insertedObjects, NSUpdatedObjectsKey: set(updated), NSDeletedObjectsKey: set(deleted),
            ])
        NotificationCenter.default.post(
            name: .NSManagedObjectContextDidSaveObjectIDs, object: self,
            userInfo: [
                NSInsertedObjectIDsKey: saved.inserted, NSUpdatedObjectIDsKey: saved.updated,
                NSDeletedObjectIDsKey: saved.deleted,
            ])
    }
}

/// The IDs of the objects a save to the stores saved, by change (see `postDidSave`).
struct SavedIDs {
    /// The inserted objects: the set the save's announcement posted, when it announced exactly
    /// those, else one made in `didSave`'s pass.
    var insertedObjects: Set<NSManagedObject> = []
    var inserted: Set<NSManagedObjectID>
    var updated: Set<NSManagedObjectID>
    var deleted: Set<NSManagedObjectID>

    /// Empty sets with room for as many IDs as given.
    init(capacities: (inserted: Int, updated: Int, deleted: Int)) {
        inserted = .sparse(capacity: capacities.inserted)
        updated = .sparse(capacity: capacities.updated)
        deleted = .sparse(capacity: capacities.deleted)
    }
}
