import OpenPredicate
import OpenSQLStore
import OpenSQLiteStore
import OpenStoreCore

#if PostgreSQL
    import OpenPostgreSQLStore
#endif

/// Migrates a store from one model version to another with a mapping model.
///
/// ```swift
/// let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: v1, destinationModel: v2)
/// let manager = NSMigrationManager(sourceModel: v1, destinationModel: v2)
/// try manager.migrateStore(
///     from: oldURL, sourceType: NSSQLiteStoreType, options: nil, with: mapping,
///     toDestinationURL: newURL, destinationType: NSSQLiteStoreType, destinationOptions: nil)
/// ```
///
/// How a store migrates:
/// - **SQL, in place** (`usesStoreSpecificMigrationManager`, the default): a SQLite or
///   PostgreSQL store with a mapping as inference makes it migrates with SQL alone, in one
///   transaction, without loading its objects, as Apple's lightweight migration does "in situ"
///   (see `SQLiteMigration`). To another URL or type, the store is first copied there (every
///   row with its key), then migrated; the source is not changed.
/// - **Objects**, for mappings with custom expressions or entity migration policies (or when
///   `usesStoreSpecificMigrationManager` is false): the source is read through `sourceContext`,
///   each entity mapping's `NSEntityMigrationPolicy` makes objects in `destinationContext`,
///   then their relationships, and the destination is saved once. In place (SQLite only), the
///   new store is made beside the old one and then replaces it in one transaction.
///
/// Either way a failed or cancelled migration leaves the source as it was and no destination.
///
/// **Differences from Apple:** mapping models come from code (`.xcmappingmodel` files are not
/// read); an entity mapping's `sourceExpression` is not evaluated (every object of its source
/// entity, sub-entities apart, is migrated); a store migrated through objects gets a new UUID.
/// See [NSMigrationManager](https://developer.apple.com/documentation/coredata/nsmigrationmanager).
open class NSMigrationManager: NSObject {
    /// The model of the store being migrated.
    public let sourceModel: NSManagedObjectModel
    /// The model the store is migrated to.
    public let destinationModel: NSManagedObjectModel
    /// The mapping of the migration running or last run; nil before the first.
    // swift-format-ignore: NeverUseImplicitlyUnwrappedOptionals
    open private(set) var mappingModel: NSMappingModel!
    /// How far the running migration is, from 0 to 1. **Default:** 0.
    ///
    /// An in-place SQL migration advances as each table is copied, by the rows copied out of
    /// all the store's rows; an object migration as objects are made.
    ///
    /// **Differences from Apple:** the migration also reports to the `Progress` current on the
    /// thread that called `migrateStore` (implicit composition), if there is one: a child of
    /// 1,000 units, completed as this property rises, so another thread can read it safely.
    open internal(set) var migrationProgress: Float = 0 {
        didSet { reportedProgress?.completedUnitCount = Int64((migrationProgress * 1000).rounded(.down)) }
    }
    /// The child of the caller's current `Progress` that the running migration reports to.
    private var reportedProgress: Progress?
    /// The entity mapping being carried out. **Default:** nil.
    ///
    /// **Differences from Apple:** an in-place SQL migration carries out every mapping at once,
    /// so this stays nil.
    // swift-format-ignore: NeverUseImplicitlyUnwrappedOptionals
    open internal(set) var currentEntityMapping: NSEntityMapping!
    /// Anything the app wants to keep with the manager. **Default:** nil.
    open var userInfo: [AnyHashable: Any]?
    /// Whether the store's type may migrate in its own way (SQL, in place, for SQLite).
    /// **Default:** true.
    open var usesStoreSpecificMigrationManager = true

    /// The context the source objects are read in, while an object migration runs; nil
    /// otherwise (an in-place SQL migration reads no objects).
    // swift-format-ignore: NeverUseImplicitlyUnwrappedOptionals
    open internal(set) var sourceContext: NSManagedObjectContext!
    /// The context the destination objects are made in, while an object migration runs.
    // swift-format-ignore: NeverUseImplicitlyUnwrappedOptionals
    open internal(set) var destinationContext: NSManagedObjectContext!

    var cancellation: Error?
    /// Source object IDs → destination objects, and back, per entity mapping name.
    var associations: [String: (forward: [NSManagedObjectID: [NSManagedObject]], backward: [ObjectIdentifier: NSManagedObject])] =
        [:]

    /// Creates a manager between two model versions.
    public init(sourceModel: NSManagedObjectModel, destinationModel: NSManagedObjectModel) {
        self.sourceModel = sourceModel
        self.destinationModel = destinationModel
        super.init()
    }

    /// The source model's entity of an entity mapping.
    open func sourceEntity(for mEntity: NSEntityMapping) -> NSEntityDescription? {
        mEntity.sourceEntityName.flatMap { sourceModel.entitiesByName[$0] }
    }

    /// The destination model's entity of an entity mapping.
    open func destinationEntity(for mEntity: NSEntityMapping) -> NSEntityDescription? {
        mEntity.destinationEntityName.flatMap { destinationModel.entitiesByName[$0] }
    }

    /// Records that `destinationInstance` was made from `sourceInstance` by `entityMapping`
    /// (the default policy does it for each object it makes).
    open func associate(
        sourceInstance: NSManagedObject, withDestinationInstance destinationInstance: NSManagedObject,
        for entityMapping: NSEntityMapping
    ) {
        let name = entityMapping.name ?? ""
        associations[name, default: ([:], [:])].forward[sourceInstance.objectID, default: []].append(destinationInstance)
        associations[name, default: ([:], [:])].backward[ObjectIdentifier(destinationInstance)] = sourceInstance
    }

    /// The objects `mappingName` made from `sourceInstances`; from every source object when nil.
    open func destinationInstances(forEntityMappingName mappingName: String, sourceInstances: [NSManagedObject]?)
        -> [NSManagedObject]
    {
        guard let association = associations[mappingName] else { return [] }
        guard let sourceInstances else { return association.forward.values.flatMap { $0 } }
        return sourceInstances.flatMap { association.forward[$0.objectID] ?? [] }
    }

    /// The source objects `mappingName` made `destinationInstances` from; every source object
    /// of the mapping when nil.
    open func sourceInstances(forEntityMappingName mappingName: String, destinationInstances: [NSManagedObject]?)
        -> [NSManagedObject]
    {
        guard let association = associations[mappingName] else { return [] }
        guard let destinationInstances else { return Array(association.backward.values) }
        return destinationInstances.compactMap { association.backward[ObjectIdentifier($0)] }
    }

    /// Stops the running migration, which then fails with `error`; the store is left as it was.
    open func cancelMigrationWithError(_ error: Error) {
        cancellation = error
    }

    /// Migrates the store at `sourceURL` into a store at `dURL`.
    ///
    /// - Parameters:
    ///   - sourceURL: The store to migrate, written with `sourceModel`.
    ///   - sStoreType: Its type (`NSSQLiteStoreType`, `NSPostgreSQLStoreType`; any type through objects).
    ///   - sOptions: Its options.
    ///   - mappings: The mapping from `sourceModel` to `destinationModel`.
    ///   - dURL: Where the migrated store goes: `sourceURL` itself to migrate in place, or a
    ///     location where no store is yet.
    ///   - dStoreType: The migrated store's type (`NSSQLiteStoreType`, `NSPostgreSQLStoreType`;
    ///     `NSInMemoryStoreType` through objects).
    ///   - dOptions: Its options.
    /// - Throws: `NSMigrationManagerSourceStoreError` when the source is not a store of
    ///   `sourceModel`; `NSMigrationManagerDestinationStoreError` when a store already exists at
    ///   `dURL`; `NSMigrationError` for rows the destination model refuses (naming the entity and
    ///   property) and for a custom mapping in place in a PostgreSQL store;
    ///   `NSMigrationConstraintViolationError` when rows break a new uniqueness constraint;
    ///   `NSEntityMigrationPolicyError` when a policy class can't be found or an expression fails;
    ///   what a policy throws; the validation errors of the destination's save; the error given
    ///   to `cancelMigrationWithError(_:)`. On any error, the source is unchanged and no
    ///   destination is left behind.
    open func migrateStore(
        from sourceURL: URL, sourceType sStoreType: String, options sOptions: [AnyHashable: Any]? = nil,
        with mappings: NSMappingModel?, toDestinationURL dURL: URL, destinationType dStoreType: String,
        destinationOptions dOptions: [AnyHashable: Any]? = nil
    ) throws {
        cancellation = nil
        reportedProgress = Progress(totalUnitCount: 1000)
        defer { reportedProgress = nil }
        migrationProgress = 0
        let mapping =
            try mappings ?? NSMappingModel.inferredMappingModel(forSourceModel: sourceModel, destinationModel: destinationModel)
        mappingModel = mapping
        let sqlTypes: Set = [NSSQLiteStoreType, NSPostgreSQLStoreType]
        let inPlace = sStoreType == dStoreType && sourceURL.standardizedFileURL == dURL.standardizedFileURL
        guard usesStoreSpecificMigrationManager, sqlTypes.contains(sStoreType), sqlTypes.contains(dStoreType),
            let migration = try MigrationLowering.storeMigration(mapping, source: sourceModel, destination: destinationModel)
        else {
            try migrateObjects(
                from: sourceURL, type: sStoreType, mapping: mapping, to: dURL, type: dStoreType, options: dOptions,
                inPlace: inPlace)
            migrationProgress = 1
            return
        }
        if !inPlace {
            try copyStore(from: sourceURL, type: sStoreType, to: dURL, type: dStoreType, options: dOptions)
        }
        do {
            try migrateInPlace(at: dURL, type: dStoreType, migration: migration)
        } catch {
            if !inPlace { destroyStore(at: dURL, type: dStoreType) }
            throw error
        }
        migrationProgress = 1
    }

    /// An object migration to a new store, or, in place, to a new file that then replaces the
    /// store's (SQLite's backup API: one transaction).
    private func migrateObjects(
        from sourceURL: URL, type sStoreType: String, mapping: NSMappingModel, to dURL: URL, type dStoreType: String,
        options: [AnyHashable: Any]?, inPlace: Bool
    ) throws {
        if inPlace {
            guard sStoreType == NSSQLiteStoreType else {
                throw CoreDataError.make(
                    code: NSMigrationError,
                    reason: "Can't migrate \(LightweightMigration.name(of: sourceURL)) in place with a custom mapping: only "
                        + "SQLite stores are; migrate it to a new store instead", userInfo: [NSStoreTypeKey: sStoreType])
            }
            let temporary = dURL.deletingLastPathComponent().appendingPathComponent(
                ".\(dURL.lastPathComponent).migrating-\(UUID().uuidString)")
            defer { destroyStore(at: temporary, type: NSSQLiteStoreType) }
            try migrateObjects(
                from: sourceURL, type: sStoreType, mapping: mapping, to: temporary, type: NSSQLiteStoreType, options: options)
            try NSPersistentStoreCoordinator(managedObjectModel: destinationModel).replacePersistentStore(
                at: dURL, withPersistentStoreFrom: temporary, ofType: NSSQLiteStoreType)
            return
        }
        try refuseExistingStore(at: dURL, type: dStoreType, source: sourceURL)
        do {
            try migrateObjects(from: sourceURL, type: sStoreType, mapping: mapping, to: dURL, type: dStoreType, options: options)
        } catch {
            destroyStore(at: dURL, type: dStoreType)
            throw error
        }
    }

    private func destroyStore(at url: URL, type: String) {
        guard type != NSInMemoryStoreType else { return }
        try? NSPersistentStoreCoordinator(managedObjectModel: sourceModel).destroyPersistentStore(at: url, ofType: type)
    }

    /// A migration goes to a new store: a file or a schema holding a store already is refused.
    private func refuseExistingStore(at url: URL, type: String, source: URL) throws {
        let exists: Bool
        switch type {
        case NSSQLiteStoreType: exists = FileManager.default.fileExists(atPath: url.path)
        case NSPostgreSQLStoreType:
            exists = (try? NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: type, at: url)) != nil
        default: exists = false
        }
        guard !exists else {
            throw CoreDataError.make(
                code: NSMigrationManagerDestinationStoreError,
                reason: "Can't migrate \(LightweightMigration.name(of: source)) to \(LightweightMigration.name(of: url)): "
                    + "a store is already there",
                userInfo: [NSURLErrorKey: url])
        }
    }

    /// Migrates the store at `sourceURL` into a store at `destinationURL` (the iOS 15 form of) `migrateStore(from:sourceType:options:with:toDestinationURL:destinationType:destinationOptions:)`.
    ///
    /// See [migrateStore(from:type:options:mapping:to:type:options:)](https://developer.apple.com/documentation/coredata/nsmigrationmanager/migratestore(from:type:options:mapping:to:type:options:)).
    open func migrateStore(
        from sourceURL: URL, type sourceType: NSPersistentStore.StoreType, options sourceOptions: [AnyHashable: Any]? = nil,
        mapping: NSMappingModel, to destinationURL: URL, type destinationType: NSPersistentStore.StoreType,
        options destinationOptions: [AnyHashable: Any]? = nil
    ) throws {
        try migrateStore(
            from: sourceURL, sourceType: sourceType.rawValue, options: sourceOptions, with: mapping,
            toDestinationURL: destinationURL, destinationType: destinationType.rawValue, destinationOptions: destinationOptions)
    }

    /// Copies the source store, unchanged, to where the migration goes: a file copy between
    /// SQLite stores; otherwise every row with its key through a coordinator of the source model
    /// (`migratePersistentStore(_:to:options:withType:)`).
    private func copyStore(from sourceURL: URL, type sourceType: String, to url: URL, type: String, options: [AnyHashable: Any]?)
        throws
    {
        try refuseExistingStore(at: url, type: type, source: sourceURL)
        if sourceType == NSSQLiteStoreType, type == NSSQLiteStoreType {
            return try SQLiteBackup.copy(from: sourceURL, to: url)
        }
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: sourceModel)
        var destinationOptions = options ?? [:]
        destinationOptions[NSMigratePersistentStoresAutomaticallyOption] = false
        do {
            let source = try coordinator.addPersistentStore(
                ofType: sourceType, configurationName: nil, at: sourceURL, options: [NSReadOnlyPersistentStoreOption: true])
            try coordinator.remove(
                try coordinator.migratePersistentStore(source, to: url, options: destinationOptions, withType: type))
        } catch let error as NSError where error.code == NSPersistentStoreIncompatibleVersionHashError {
            throw sourceStoreError(sourceURL, error)
        }
    }

    private func migrateInPlace(at url: URL, type: String, migration: StoreMigration) throws {
        let identifiers = destinationModel.versionIdentifiers.compactMap { $0 as? String }.sorted()
        let progress = { (fraction: Double) throws in
            self.migrationProgress = Float(fraction)
            if let cancellation = self.cancellation { throw cancellation }
        }
        do {
            if type == NSPostgreSQLStoreType {
                #if PostgreSQL
                    try PostgreSQLRowStore.migrate(
                        url: url, migration: migration, sourceVersionHashes: sourceModel.entityVersionHashesByName,
                        destinationVersionHashes: destinationModel.entityVersionHashesByName,
                        versionIdentifiers: identifiers.isEmpty ? [""] : identifiers, progress: progress)
                #else
                    throw NSPersistentStoreCoordinator.postgreSQLNotBuilt()
                #endif
            } else {
                try SQLiteMigration.migrate(
                    at: url, migration: migration, sourceVersionHashes: sourceModel.entityVersionHashesByName,
                    destinationVersionHashes: destinationModel.entityVersionHashesByName,
                    versionIdentifiers: identifiers.isEmpty ? [""] : identifiers, progress: progress)
            }
        } catch let error as NSError where error.code == NSPersistentStoreIncompatibleVersionHashError {
            throw sourceStoreError(url, error)
        }
    }

    func sourceStoreError(_ url: URL, _ error: NSError) -> NSError {
        CoreDataError.make(
            code: NSMigrationManagerSourceStoreError,
            reason: "Can't migrate \(LightweightMigration.name(of: url)): it is not a store of the migration's source model "
                + "(\(error.localizedDescription))",
            userInfo: [NSURLErrorKey: url, NSUnderlyingErrorKey: error])
    }
}

extension NSPersistentStore {
    /// A store type, in the iOS 15 API's form.
    ///
    /// See [NSPersistentStore.StoreType](https://developer.apple.com/documentation/coredata/nspersistentstore/storetype).
    public struct StoreType: RawRepresentable, Hashable, Sendable {
        /// The type's name (`NSSQLiteStoreType`, …).
        public let rawValue: String

        /// A store type by name.
        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// `NSSQLiteStoreType`.
        public static let sqlite = StoreType(rawValue: NSSQLiteStoreType)
        /// `NSInMemoryStoreType`.
        public static let inMemory = StoreType(rawValue: NSInMemoryStoreType)
        /// `NSBinaryStoreType` (**differences from Apple:** not available here).
        public static let binary = StoreType(rawValue: NSBinaryStoreType)
    }
}
