import OpenPredicate
import OpenStoreCore

/// The object that connects contexts to persistent stores through one managed object model.
///
/// Creating a coordinator makes its model immutable: from then on, changing the model or any of
/// its entities and properties stops the process with "Can't modify an immutable model.", as on
/// Apple. Add stores with `addPersistentStore(ofType:configurationName:at:options:)`; each holds
/// the entities of its configuration.
///
/// A coordinator is `Sendable`, as in Apple's SDK: contexts on any queue share it.
///
/// See [NSPersistentStoreCoordinator](https://developer.apple.com/documentation/coredata/nspersistentstorecoordinator).
open class NSPersistentStoreCoordinator: NSObject, @unchecked Sendable {
    // @unchecked Sendable: its model and schema are immutable; `savesInFlight` has its own lock;
    // its list of stores is guarded by `lock` (a recursive lock, which `perform` and
    // `performAndWait` blocks hold too); the stores are thread-safe themselves (the SQLite store's
    // connection lock, the PostgreSQL store's pool, the in-memory store's lock).

    /// The model the coordinator's stores and contexts use.
    public let managedObjectModel: NSManagedObjectModel

    /// The model lowered for stores, once.
    let schema: StoreSchema
    /// The model's entity for each schema entity (`entityDescriptions[id - 1]`), so that turning
    /// rows into objects looks up no names.
    let entityDescriptions: [NSEntityDescription]

    /// Serializes the store list and the blocks of `perform(_:)` / `performAndWait(_:)`.
    let lock = NSRecursiveLock()
    /// The serial queue of `perform(_:)`.
    let performQueue = DispatchQueue(label: "NSPersistentStoreCoordinator")
    private var stores: [NSPersistentStore] = []
    /// The saves writing to the stores now (see `shutdown()`).
    let savesInFlight = SavesInFlight()

    /// Creates a coordinator for a model, which becomes immutable.
    public init(managedObjectModel model: NSManagedObjectModel) {
        managedObjectModel = model
        model.markInUse()
        schema = SchemaLowering.schema(for: model)
        let byName = model.entitiesByName
        entityDescriptions = schema.entities.map { byName[$0.name] ?? NSEntityDescription() }
        super.init()
        LiveCoordinators.add(self)
    }

    /// The stores added so far, in the order they were added.
    open var persistentStores: [NSPersistentStore] {
        lock.lock()
        defer { lock.unlock() }
        return stores
    }

    /// Adds a store of the given type holding the entities of a configuration, posting
    /// `NSPersistentStoreCoordinatorStoresWillChange` before and
    /// `NSPersistentStoreCoordinatorStoresDidChange` after it joins the coordinator.
    ///
    /// ```swift
    /// let store = try coordinator.addPersistentStore(
    ///     ofType: NSSQLiteStoreType, configurationName: nil, at: folder.appendingPathComponent("Model.sqlite"))
    /// ```
    ///
    /// A SQLite store is created (with its folder) when there is no file at `storeURL`, in
    /// Apple's layout, WAL journal mode, and metadata holding the model's version hashes and a new
    /// UUID, which becomes the store's `identifier`. An existing file is opened; its entity
    /// numbers are taken from its `Z_PRIMARYKEY`.
    ///
    /// - Parameters:
    ///   - storeType: `NSInMemoryStoreType`, `NSSQLiteStoreType` or `NSPostgreSQLStoreType`.
    ///   - configuration: A configuration of the model; `nil` for every entity.
    ///   - storeURL: Where the store lives; ignored by the in-memory store (its `url` is then
    ///     `/dev/null`); a file URL for the SQLite store; a `postgres://` URL for the PostgreSQL store.
    ///   - options: Store options, e.g. `NSReadOnlyPersistentStoreOption` (a read-only SQLite
    ///     store is never written: saves to it fail with `NSPersistentStoreOperationError`).
    /// - Returns: The new store.
    /// - Throws: `NSPersistentStoreInvalidTypeError` for a type this build cannot open (or a
    ///   file that is not a Core Data store), `NSCoreDataError` for a configuration the model
    ///   does not have; for SQLite, `NSPersistentStoreOpenError` (missing or unreadable file,
    ///   not a database), `NSPersistentStoreIncompatibleVersionHashError` (the store was made
    ///   with another model; `userInfo["entities"]` names the entities that differ) and
    ///   `NSPersistentStoreIncompatibleSchemaError`; with `NSMigratePersistentStoresAutomaticallyOption`,
    ///   a store of an older version of the model is migrated first, and the migration's errors
    ///   (`NSMigrationMissingSourceModelError`, `NSMigrationMissingMappingModelError`,
    ///   `NSInferredMappingModelError`, `NSMigrationError`, …) are thrown with the store unchanged.
    @discardableResult
    open func addPersistentStore(
        ofType storeType: String, configurationName configuration: String?, at storeURL: URL?,
        options: [AnyHashable: Any]? = nil
    ) throws -> NSPersistentStore {
        if let configuration, managedObjectModel.entities(forConfigurationName: configuration) == nil {
            throw CoreDataError.make(
                code: NSCoreDataError, reason: "The model has no configuration named '\(configuration)'",
                userInfo: [NSStoreTypeKey: storeType])
        }
        let store: NSPersistentStore
        switch storeType {
        case NSInMemoryStoreType:
            store = InMemoryPersistentStore(
                coordinator: self, schema: schema, configurationName: configuration, url: storeURL, options: options)
        case NSSQLiteStoreType:
            store = try SQLitePersistentStore(
                coordinator: self, schema: schema, configurationName: configuration, url: storeURL, options: options)
        case NSPostgreSQLStoreType:
            #if PostgreSQL
                store = try PostgreSQLPersistentStore(
                    coordinator: self, schema: schema, configurationName: configuration, url: storeURL, options: options)
            #else
                throw Self.postgreSQLNotBuilt()
            #endif
        default:
            throw CoreDataError.make(
                code: NSPersistentStoreInvalidTypeError, reason: "Unsupported store type '\(storeType)'",
                userInfo: [NSStoreTypeKey: storeType])
        }
        postStoresWillChange(added: [store], removed: [])
        lock.lock()
        stores.append(store)
        lock.unlock()
        postStoresDidChange(added: [store], removed: [])
        return store
    }

    /// Detaches a store from the coordinator, posting `NSPersistentStoreCoordinatorStoresWillChange`
    /// before and `NSPersistentStoreCoordinatorStoresDidChange` after.
    ///
    /// - Throws: `NSCoreDataError` when the store is not one of the coordinator's.
    open func remove(_ store: NSPersistentStore) throws {
        guard persistentStores.contains(where: { $0 === store }) else {
            throw CoreDataError.make(
                code: NSCoreDataError, reason: "The store \(store.identifier ?? "") is not in this coordinator")
        }
        postStoresWillChange(added: [], removed: [store])
        lock.lock()
        stores.removeAll { $0 === store }
        lock.unlock()
        postStoresDidChange(added: [], removed: [store])
    }

    /// The store at a URL, if the coordinator has one there.
    open func persistentStore(for url: URL) -> NSPersistentStore? {
        persistentStores.first { $0.url?.standardizedFileURL == url.standardizedFileURL }
    }

    /// The ID named by a URI from `NSManagedObjectID.uriRepresentation()`, if it names a row of
    /// one of the coordinator's stores (`x-coredata://<store UUID>/<Entity>/p<n>`).
    open func managedObjectID(forURIRepresentation url: URL) -> NSManagedObjectID? {
        guard url.scheme == "x-coredata", let storeIdentifier = url.host else { return nil }
        let parts = url.path.split(separator: "/").map(String.init)
        guard parts.count == 2, parts[1].hasPrefix("p"), let primaryKey = Int64(parts[1].dropFirst()), primaryKey > 0,
            let store = persistentStores.first(where: { $0.identifier == storeIdentifier }),
            let entityID = schema.entityIDsByName[parts[0]]
        else { return nil }
        return NSManagedObjectID(
            origin: store.idOrigin(entities: entityDescriptions), key: ObjectKey(entityID: entityID, primaryKey: primaryKey))
    }
}
