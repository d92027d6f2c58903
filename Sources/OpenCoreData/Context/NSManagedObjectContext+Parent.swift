import OpenPredicate
import OpenStoreCore

/// Parent and child contexts (Apple's "Parent store" section of `NSManagedObjectContext`).
///
/// A child context (one whose `parent` is set) sees its parent as its store:
///
/// - **Objects** have the same IDs in the child as in the parent, temporary IDs included; a fault
///   in the child fills from the parent's object when the parent has it (with the parent's
///   unsaved changes), else from the parent's own store (recursively, up to the root).
/// - **Fetching** asks the parent: the parent's answer, its own pending changes included, is the
///   child's store state; the child's pending changes are merged on top; sorting and the window
///   are applied last.
/// - **Saving** pushes the child's inserted, updated and deleted objects into the parent, where
///   they become the parent's unsaved changes; nothing reaches a store until the root context
///   saves. Objects inserted by the child are inserted into the parent with the same
///   (temporary) ID.
/// - **`obtainPermanentIDs(for:)`** asks the root's coordinator, and the new IDs replace the
///   temporary ones in every ancestor that already has the object.
///
/// **Differences from Apple:** `fetchBatchSize` and `relationshipKeyPathsForPrefetching` are
/// ignored in a child context (its results fill from the parent, which holds the data). Objects
/// a child saved keep their temporary IDs after the parent saves (as on Apple, where the child
/// must refetch or call `obtainPermanentIDs(for:)` first).
/// A child reads and changes its parent inside the parent's `performAndWait(_:)`, on the
/// parent's queue, as Apple's does.
extension NSManagedObjectContext {
    // MARK: - Faults in a child

    /// The values of an object for a child context: relationships as object IDs. From this
    /// context's object when it is loaded (unsaved changes included), else from its parent or
    /// its store. Nil when no context or store has the object; the store's error when it could
    /// not be asked.
    func valuesForChild(of id: NSManagedObjectID) throws -> (values: PropertyValues, version: Int64)? {
        if let object = registry[id], !object.isFault {
            var values = object.values
            for (name, value) in object.values {
                if let destinations = value as? [NSManagedObject] {
                    values[name] = destinations.map(\.objectID)
                } else if let destination = ValueSemantics.objectCast(value, to: NSManagedObject.self) {
                    values[name] = destination.objectID
                } else if let fault = ValueSemantics.objectCast(value, to: RelationshipFault.self) {
                    values[name] = try fault.memberIDs()
                }
            }
            return (values, object.version)
        }
        if let parent { return try parent.performAndWait { try parent.valuesForChild(of: id) } }
        guard let key = id.key, let row = try cachedRow(for: id, key: key) ?? storeRow(for: id, key: key) else { return nil }
        return (decode(row, origin: id.origin) { $0 }, row.version)
    }

    /// Values from `valuesForChild(of:)` with relationship IDs turned into this context's objects.
    func importing(_ values: PropertyValues) -> PropertyValues {
        var result = values
        for (name, value) in values {
            switch value {
            case let id as NSManagedObjectID: result[name] = object(with: id)
            case let ids as [NSManagedObjectID]: result[name] = ids.map { object(with: $0) }
            default: continue
            }
        }
        return result
    }

    /// Whether this context, an ancestor or the store has an object with this ID.
    func canLoad(_ id: NSManagedObjectID) -> Bool {
        if let object = registry[id], !object.isFault { return true }
        if let parent { return parent.performAndWait { parent.canLoad(id) } }
        return storeHas(id)
    }

    private func storeHas(_ id: NSManagedObjectID) -> Bool {
        guard let key = id.key else { return false }
        return cachedRow(for: id, key: key) != nil || ((try? storeRow(for: id, key: key)) ?? nil) != nil
    }

    // MARK: - Saving into the parent

    /// Pushes a save of this child context into its parent: inserted objects are inserted there
    /// with the same IDs, changed values are set on the parent's objects (relationships as the
    /// parent's objects; both sides of each relationship changed here, so the parent's inverses
    /// stay in step), deleted objects are deleted there. Then this context's changes count as
    /// saved, and `NSManagedObjectContextDidSave` is posted.
    func saveIntoParent(
        _ parent: NSManagedObjectContext, inserted: [NSManagedObject], updated: [NSManagedObject], deleted: [NSManagedObject]
    ) {
        // The parent's objects change on the parent's queue, as Apple does.
        parent.performAndWaitUnchecked { push(into: parent, inserted: inserted, updated: updated, deleted: deleted) }
        var inserted = inserted
        didSave(inserted: &inserted, updated: updated, deleted: deleted)
        NotificationCenter.default.post(
            name: .NSManagedObjectContextDidSave, object: self,
            userInfo: [NSInsertedObjectsKey: Set(inserted), NSUpdatedObjectsKey: Set(updated), NSDeletedObjectsKey: Set(deleted)])
    }

    private func push(
        into parent: NSManagedObjectContext, inserted: [NSManagedObject], updated: [NSManagedObject],
        deleted: [NSManagedObject]
    ) {
        for object in inserted where parent.registry[object.objectID] == nil {
            let copy = parent.managedObjectClass(for: object.entity).init(entity: object.entity, insertInto: nil)
            copy.objectID = object.objectID
            parent.insert(copy)
            copy.values = PropertyValues(layout: copy.values.layout)
        }
        for object in inserted + updated {
            let target = parent.object(with: object.objectID)
            target.fireFault()
            let keys = object.inserted ? Set(object.values.keys) : object.changedKeys
            for key in keys {
                var value = object.values[key]
                if let destinations = value as? [NSManagedObject] {
                    value = destinations.map { parent.object(with: $0.objectID) }
                } else if let destination = ValueSemantics.objectCast(value, to: NSManagedObject.self) {
                    value = parent.object(with: destination.objectID)
                }
                target.store(value, forKey: key)
            }
        }
        for object in deleted {
            parent.delete(parent.object(with: object.objectID))
        }
    }

    /// After a descendant obtained a permanent ID for an object: the object, if this context
    /// has it under its temporary ID, takes the new ID; then the same in the parent.
    func adoptPermanentID(_ id: NSManagedObjectID, replacing temporary: NSManagedObjectID) {
        if let object = registry[temporary] {
            registry[temporary] = nil
            object.objectID = id
            registry[id] = object
            // An inserted object with a permanent ID: the next save groups its new objects.
            if object.inserted { insertedEntity = .several }
        }
        if let parent { parent.performAndWait { parent.adoptPermanentID(id, replacing: temporary) } }
    }
}
