import OpenPredicate
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
/// A SQLite store migrated with an inferred mapping is migrated with SQL alone, in one
/// transaction, without loading its objects (as Apple's lightweight migration does "in situ");
/// see `SQLiteMigration` for what the result holds. To a different URL, the store is first
/// copied there (the source is not changed); to its own URL, it is migrated in place.
///
/// **Differences from Apple:** only SQLite stores with mappings as inference makes them are
/// migrated yet; other store types and mappings with custom expressions or entity migration
/// policies fail with `NSMigrationError` saying so.
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
    open private(set) var migrationProgress: Float = 0
    /// The entity mapping being carried out. **Default:** nil.
    ///
    /// **Differences from Apple:** an in-place SQL migration carries out every mapping at once,
    /// so this stays nil.
    // swift-format-ignore: NeverUseImplicitlyUnwrappedOptionals
    open private(set) var currentEntityMapping: NSEntityMapping!
    /// Anything the app wants to keep with the manager. **Default:** nil.
    open var userInfo: [AnyHashable: Any]?
    /// Whether the store's type may migrate in its own way (SQL, in place, for SQLite).
    /// **Default:** true.
    open var usesStoreSpecificMigrationManager = true

    private var cancellation: Error?

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

    /// Stops the running migration, which then fails with `error`; the store is left as it was.
    open func cancelMigrationWithError(_ error: Error) {
        cancellation = error
    }

    /// Migrates the store at `sourceURL` into a store at `dURL`.
    ///
    /// - Parameters:
    ///   - sourceURL: The store to migrate, written with `sourceModel`.
    ///   - sStoreType: Its type (`NSSQLiteStoreType`).
    ///   - sOptions: Its options.
    ///   - mappings: The mapping from `sourceModel` to `destinationModel`.
    ///   - dURL: Where the migrated store goes: `sourceURL` itself to migrate in place, or a
    ///     location where no file is yet.
    ///   - dStoreType: The migrated store's type (`NSSQLiteStoreType`).
    ///   - dOptions: Its options.
    /// - Throws: `NSMigrationManagerSourceStoreError` when the source is not a store of
    ///   `sourceModel`; `NSMigrationManagerDestinationStoreError` when a file already exists at
    ///   `dURL`; `NSMigrationError` for a mapping or store type this version can't migrate, and
    ///   for rows the destination model refuses (naming the entity and property);
    ///   `NSMigrationConstraintViolationError` when rows break a new uniqueness constraint;
    ///   `NSMigrationCancelledError` (or the error given) after `cancelMigrationWithError(_:)`.
    ///   On any error, the source is unchanged and no destination is left behind.
    open func migrateStore(
        from sourceURL: URL, sourceType sStoreType: String, options sOptions: [AnyHashable: Any]? = nil,
        with mappings: NSMappingModel?, toDestinationURL dURL: URL, destinationType dStoreType: String,
        destinationOptions dOptions: [AnyHashable: Any]? = nil
    ) throws {
        cancellation = nil
        migrationProgress = 0
        let mapping =
            try mappings ?? NSMappingModel.inferredMappingModel(forSourceModel: sourceModel, destinationModel: destinationModel)
        mappingModel = mapping
        let sqlTypes: Set = [NSSQLiteStoreType, NSPostgreSQLStoreType]
        guard sqlTypes.contains(sStoreType), sqlTypes.contains(dStoreType),
            let migration = try MigrationLowering.storeMigration(mapping, source: sourceModel, destination: destinationModel)
        else {
            throw CoreDataError.make(
                code: NSMigrationError,
                reason:
                    "Can't migrate \(LightweightMigration.name(of: sourceURL)): this version migrates SQLite and PostgreSQL stores with "
                    + "inferred mappings only (asked: \(sStoreType) to \(dStoreType)\(mapping.isInferred ? "" : ", a custom mapping"))",
                userInfo: [NSStoreTypeKey: sStoreType])
        }
        let inPlace = sStoreType == dStoreType && sourceURL.standardizedFileURL == dURL.standardizedFileURL
        if !inPlace {
            try copyStore(from: sourceURL, type: sStoreType, to: dURL, type: dStoreType, options: dOptions)
        }
        do {
            try migrateInPlace(at: dURL, type: dStoreType, migration: migration)
        } catch {
            if !inPlace {
                try? NSPersistentStoreCoordinator(managedObjectModel: sourceModel).destroyPersistentStore(
                    at: dURL, ofType: dStoreType)
            }
            throw error
        }
        migrationProgress = 1
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
        if type == NSSQLiteStoreType, FileManager.default.fileExists(atPath: url.path) {
            throw CoreDataError.make(
                code: NSMigrationManagerDestinationStoreError,
                reason: "Can't migrate \(LightweightMigration.name(of: sourceURL)) to \(url.path): a file is already there",
                userInfo: [NSFilePathErrorKey: url.path])
        }
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

    private func sourceStoreError(_ url: URL, _ error: NSError) -> NSError {
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
