import OpenPredicate

/// The object that connects contexts to persistent stores through one managed object model.
///
/// Creating a coordinator makes its model immutable: from then on, changing the model or any of
/// its entities and properties stops the process with "Can't modify an immutable model.", as on
/// Apple. Stores and fetching come with the coordinator's next parts.
///
/// See [NSPersistentStoreCoordinator](https://developer.apple.com/documentation/coredata/nspersistentstorecoordinator).
open class NSPersistentStoreCoordinator: NSObject {
    /// The model the coordinator's stores and contexts use.
    public let managedObjectModel: NSManagedObjectModel

    /// Creates a coordinator for a model, which becomes immutable.
    public init(managedObjectModel model: NSManagedObjectModel) {
        managedObjectModel = model
        model.markInUse()
        super.init()
    }
}
