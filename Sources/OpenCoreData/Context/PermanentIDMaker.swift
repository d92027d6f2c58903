import OpenStoreCore

/// Makes the permanent IDs of one store's rows, with what every ID shares (the store, its
/// identifier, the model's entities) looked up once per fetch rather than once per row.
struct PermanentIDMaker {
    let store: NSPersistentStore
    let storeIdentifier: String
    let entities: [NSEntityDescription]

    init(store: NSPersistentStore, coordinator: NSPersistentStoreCoordinator) {
        self.store = store
        storeIdentifier = store.identifier ?? ""
        entities = coordinator.entityDescriptions
    }

    /// The permanent ID of a row of the store (as `NSManagedObjectContext.id(for:in:coordinator:)`).
    func id(for key: ObjectKey) -> NSManagedObjectID {
        NSManagedObjectID(
            entity: entity(for: key), identity: .permanent(storeIdentifier: storeIdentifier, key: key), store: store)
    }

    /// The entity of a row (an empty one for a number the model lacks).
    func entity(for key: ObjectKey) -> NSEntityDescription {
        entities.indices.contains(key.entityID - 1) ? entities[key.entityID - 1] : NSEntityDescription()
    }
}
