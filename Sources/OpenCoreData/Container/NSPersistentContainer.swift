import OpenPredicate

/// The Core Data stack in one object: a model, a coordinator, its stores, a main-queue context
/// for the UI and private-queue contexts for background work.
///
/// ```swift
/// let container = NSPersistentContainer(name: "Model")  // finds Model.xcdatamodeld
/// let description = NSPersistentStoreDescription()
/// description.type = NSInMemoryStoreType
/// container.persistentStoreDescriptions = [description]
/// container.loadPersistentStores { description, error in
///     if let error { print("\(description): \(error.localizedDescription)") }
/// }
/// let notes = try container.viewContext.fetch(NSFetchRequest<NSManagedObject>(entityName: "Note"))
/// ```
///
/// The default store description is an SQLite store (as on Apple), created on first load.
/// A container is `Sendable`, as in Apple's SDK: keep it in an app's (Sendable) state and make
/// a context per task with `newBackgroundContext()` or `performBackgroundTask(_:)`.
///
/// See [NSPersistentContainer](https://developer.apple.com/documentation/coredata/nspersistentcontainer).
open class NSPersistentContainer: NSObject, @unchecked Sendable {
    // @unchecked Sendable: its model and coordinator are set in `init` and Sendable themselves; the
    // view context is made once under `lock`; `persistentStoreDescriptions` is set up before
    // `loadPersistentStores`, by the code that made the container, as on Apple.

    /// The container's name: the model's file name, and the default store's file name.
    open private(set) var name: String

    /// The model of the container's stores and contexts.
    open private(set) var managedObjectModel: NSManagedObjectModel

    /// The coordinator of the container's stores.
    open private(set) var persistentStoreCoordinator: NSPersistentStoreCoordinator

    /// The stores `loadPersistentStores(completionHandler:)` adds, in order.
    ///
    /// **Default:** one description of an SQLite store at
    /// `defaultDirectoryURL()/<name>.sqlite`.
    open var persistentStoreDescriptions: [NSPersistentStoreDescription]

    /// Why `init(name:)` found no model; reported by `loadPersistentStores`.
    private var modelError: Error?
    private let lock = NSLock()
    private var mainContext: NSManagedObjectContext?

    /// Creates a container whose model is the model file named `name` in the app's bundles.
    ///
    /// ```swift
    /// // Package.swift: .executableTarget(name: "App", resources: [.copy("Model.xcdatamodeld")])
    /// let container = NSPersistentContainer(name: "Model")
    /// ```
    ///
    /// The model is `<name>.xcdatamodeld` (its current version), `<name>.xcdatamodel`,
    /// `<name>.momd` or `<name>.mom` (looked for in that order), loaded as by
    /// `NSManagedObjectModel(contentsOf:)`, from the first folder that has one of: the
    /// resource folders of `Bundle.main` and of every loaded bundle (`Bundle.allBundles`), and
    /// the SwiftPM resource bundles (`*.resources`, `*.bundle`) next to them — where
    /// `.copy("Model.xcdatamodeld")` in `Package.swift` puts it.
    ///
    /// **Differences from Apple:** Apple's loads only the compiled `<name>.momd` that Xcode puts
    /// in the main bundle; there is no model compiler on Linux, so this loads the model files
    /// themselves too. When no model is found or it does not load, the container gets an empty
    /// model and `loadPersistentStores(completionHandler:)` passes the reason (an `NSError`
    /// naming the folders searched, or the model file's error) to its handler for every
    /// description, instead of Apple's log line and later failures.
    /// See [init(name:)](https://developer.apple.com/documentation/coredata/nspersistentcontainer/init(name:)).
    ///
    /// - Parameter name: The model's file name without extension; also the default store's name.
    public convenience init(name: String) {
        switch NSPersistentContainer.model(named: name) {
        case .success(let model):
            self.init(name: name, managedObjectModel: model)
        case .failure(let error):
            self.init(name: name, managedObjectModel: NSManagedObjectModel())
            modelError = error
        }
    }

    /// Creates a container with a model.
    ///
    /// See [init(name:managedObjectModel:)](https://developer.apple.com/documentation/coredata/nspersistentcontainer/init(name:managedobjectmodel:)).
    ///
    /// - Parameters:
    ///   - name: The container's name, used for the default store's file name.
    ///   - model: The model; it becomes immutable, as for any coordinator.
    public init(name: String, managedObjectModel model: NSManagedObjectModel) {
        self.name = name
        managedObjectModel = model
        persistentStoreCoordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        persistentStoreDescriptions = []
        super.init()
        let url = Self.defaultDirectoryURL().appendingPathComponent(name).appendingPathExtension("sqlite")
        persistentStoreDescriptions = [NSPersistentStoreDescription(url: url)]
    }

    /// The folder where the default store is kept.
    ///
    /// **Default:** the user's application-support folder
    /// (`FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask)`): on
    /// Linux `$XDG_DATA_HOME`, or `~/.local/share`; the temporary folder if there is none.
    /// Override it in a subclass to move the default store.
    ///
    /// **Differences from Apple:** Apple's is the app's Application Support folder; this build
    /// does not create the folder (no store it opens writes files yet).
    /// See [defaultDirectoryURL()](https://developer.apple.com/documentation/coredata/nspersistentcontainer/defaultdirectoryurl()).
    ///
    /// - Returns: The folder's URL.
    open class func defaultDirectoryURL() -> URL {
        FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
            ?? FileManager.default.temporaryDirectory
    }

    /// The main-queue context, created when first asked for, attached to the coordinator.
    ///
    /// Use it on the main queue (or through `perform`); its
    /// `automaticallyMergesChangesFromParent` is `false` unless set.
    ///
    /// See [viewContext](https://developer.apple.com/documentation/coredata/nspersistentcontainer/viewcontext).
    open var viewContext: NSManagedObjectContext {
        lock.lock()
        defer { lock.unlock() }
        if let mainContext { return mainContext }
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = persistentStoreCoordinator
        mainContext = context
        return context
    }

    /// Adds a store for each of `persistentStoreDescriptions`, calling `block` once per
    /// description with the error, if any; never stops the process.
    ///
    /// ```swift
    /// container.loadPersistentStores { description, error in
    ///     if let error { print("\(description): \(error.localizedDescription)") }
    /// }
    /// ```
    ///
    /// Each store is added as by the coordinator's `addPersistentStore(with:completionHandler:)`:
    /// before this returns, unless the description's `shouldAddStoreAsynchronously` is set.
    ///
    /// **Differences from Apple:** see `init(name:)` for a missing model, and the type
    /// description for SQLite stores.
    /// See [loadPersistentStores(completionHandler:)](https://developer.apple.com/documentation/coredata/nspersistentcontainer/loadpersistentstores(completionhandler:)).
    ///
    /// - Parameter block: Called once for each description, with `nil` or the error.
    open func loadPersistentStores(completionHandler block: @escaping (NSPersistentStoreDescription, Error?) -> Void) {
        for description in persistentStoreDescriptions {
            if let modelError {
                block(description, modelError)
            } else {
                persistentStoreCoordinator.addPersistentStore(with: description, completionHandler: block)
            }
        }
    }

    /// A new private-queue context attached to the coordinator, for work off the main queue.
    ///
    /// See [newBackgroundContext()](https://developer.apple.com/documentation/coredata/nspersistentcontainer/newbackgroundcontext()).
    ///
    /// - Returns: A new context; use it through `perform` / `performAndWait`.
    open func newBackgroundContext() -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = persistentStoreCoordinator
        return context
    }

    /// Runs `block` on a new background context's queue, later.
    ///
    /// ```swift
    /// container.performBackgroundTask { context in
    ///     // insert, change, delete ...
    ///     try? context.save()
    /// }
    /// ```
    ///
    /// See [performBackgroundTask(_:)](https://developer.apple.com/documentation/coredata/nspersistentcontainer/performbackgroundtask(_:)).
    ///
    /// - Parameter block: Given the new context, on its queue.
    @preconcurrency
    open func performBackgroundTask(_ block: @escaping @Sendable (NSManagedObjectContext) -> Void) {
        let context = newBackgroundContext()
        context.perform { block(context) }
    }

    /// Runs `block` on a new background context's queue and returns its result.
    ///
    /// ```swift
    /// let count = try await container.performBackgroundTask { context in
    ///     try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Note"))
    /// }
    /// ```
    ///
    /// **Differences from Apple:** Apple's is one `rethrows` method; here a non-throwing and a
    /// throwing overload do the same (a `rethrows` function cannot carry an error across the
    /// hop to the context's queue).
    /// See [performBackgroundTask(_:)](https://developer.apple.com/documentation/coredata/nspersistentcontainer/performbackgroundtask(_:)-2ttsi).
    ///
    /// - Parameter block: Given the new context, on its queue.
    /// - Returns: What `block` returns.
    @preconcurrency
    public func performBackgroundTask<T>(_ block: @escaping @Sendable (NSManagedObjectContext) -> T) async -> T {
        let context = newBackgroundContext()
        return await context.perform { block(context) }
    }

    /// The throwing form of `performBackgroundTask(_:) async`.
    ///
    /// - Parameter block: Given the new context, on its queue.
    /// - Returns: What `block` returns.
    /// - Throws: What `block` throws.
    @preconcurrency
    public func performBackgroundTask<T>(
        _ block: @escaping @Sendable (NSManagedObjectContext) throws -> T
    ) async throws -> T {
        let context = newBackgroundContext()
        return try await context.perform { try block(context) }
    }
}
