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
    /// a save to the stores. Both sets of a list are made in one pass over it (a pass over 10^5
    /// saved objects costs a cache miss on each).
    func postDidSave(inserted: [NSManagedObject], updated: [NSManagedObject], deleted: [NSManagedObject]) {
        // The objects the save began by announcing as inserted, if it saved those: their set again.
        let announced = announcedInserts.flatMap { announced in
            !inserted.isEmpty && announced.objects.count == inserted.count
                && zip(announced.objects, inserted).allSatisfy { $0 === $1 } ? announced.set : nil
        }
        func sets(_ objects: [NSManagedObject], known: Set<NSManagedObject>? = nil)
            -> (objects: Set<NSManagedObject>, ids: Set<NSManagedObjectID>)
        {
            var sets = (
                objects: known ?? Set<NSManagedObject>.sparse(capacity: objects.count),
                ids: Set<NSManagedObjectID>.sparse(capacity: objects.count)
            )
            for object in objects {
                if known == nil { sets.objects.insert(object) }
                sets.ids.insert(object.objectID)
            }
            return sets
        }
        let (inserted, updated, deleted) = (sets(inserted, known: announced), sets(updated), sets(deleted))
        NotificationCenter.default.post(
            name: .NSManagedObjectContextDidSave, object: self,
            userInfo: [
                NSInsertedObjectsKey: inserted.objects, NSUpdatedObjectsKey: updated.objects,
                NSDeletedObjectsKey: deleted.objects,
            ])
        NotificationCenter.default.post(
            name: .NSManagedObjectContextDidSaveObjectIDs, object: self,
            userInfo: [
                NSInsertedObjectIDsKey: inserted.ids, NSUpdatedObjectIDsKey: updated.ids, NSDeletedObjectIDsKey: deleted.ids,
            ])
    }
}
