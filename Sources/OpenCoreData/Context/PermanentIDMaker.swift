import OpenStoreCore

/// Makes the permanent IDs of one store's rows from the store's `IDOrigin`, looked up once per
/// fetch rather than once per row: each ID is then one allocation holding the origin and the key.
struct PermanentIDMaker {
    let origin: IDOrigin

    init(store: NSPersistentStore, coordinator: NSPersistentStoreCoordinator) {
        origin = store.idOrigin(entities: coordinator.entityDescriptions)
    }

    init(origin: IDOrigin) {
        self.origin = origin
    }

    /// The store the IDs name rows of (nil once it is gone).
    var store: NSPersistentStore? { origin.store }

    /// The permanent ID of a row of the store (as `NSManagedObjectContext.id(for:in:coordinator:)`).
    @inline(__always)
    func id(for key: ObjectKey) -> NSManagedObjectID { NSManagedObjectID(origin: origin, key: key) }

    /// The entity of a row (an empty one for a number the model lacks).
    @inline(__always)
    func entity(for key: ObjectKey) -> NSEntityDescription { origin.entity(for: key) }
}
