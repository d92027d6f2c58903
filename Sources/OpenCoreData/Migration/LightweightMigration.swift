import OpenPredicate
import OpenSQLStore
import OpenSQLiteStore

/// Automatic migration when a store is added (`NSMigratePersistentStoresAutomaticallyOption`,
/// `NSInferMappingModelAutomaticallyOption`), as Apple's coordinator does it.
enum LightweightMigration {
    /// Migrates the store at `url` (an `NSSQLiteStoreType` file or an `NSPostgreSQLStoreType`
    /// schema) to `model` when the store was written with another version of it and `options`
    /// ask for automatic migration; does nothing otherwise (the store's open then reports any
    /// mismatch).
    ///
    /// The store's model is found by its version hashes (`NSManagedObjectModel.storeModel(forMetadata:besides:)`),
    /// else it is the model an SQLite store caches (`Z_MODELCACHE`) when that has them;
    /// the mapping is a mapping model found for the two versions or, with
    /// `NSInferMappingModelAutomaticallyOption`, the inferred one.
    /// - Throws: `NSMigrationMissingSourceModelError` when no version of the model, and no model
    ///   the store caches, matches the store; `NSMigrationMissingMappingModelError` when no mapping is found and inference is
    ///   off; the errors of `NSMappingModel.inferredMappingModel` and of
    ///   `NSMigrationManager.migrateStore`. The store is unchanged after any of them.
    /// The model an SQLite store caches (`Z_MODELCACHE`), when it has the store's version
    /// hashes: as Apple's Core Data does, a store migrates from it when no version of the model
    /// matches the store.
    private static func cachedStoreModel(at url: URL, type: String, metadata: [String: Any]) -> NSManagedObjectModel? {
        guard type == NSSQLiteStoreType, let cached = try? NSManagedObjectModel.cachedModel(ofStoreAt: url),
            let hashes = NSManagedObjectModel.storeHashes(metadata), cached.hashesEqual(hashes)
        else { return nil }
        return cached
    }

    static func migrateIfNeeded(at url: URL, type: String, model: NSManagedObjectModel, options: [AnyHashable: Any]?) throws {
        guard flag(options?[NSMigratePersistentStoresAutomaticallyOption]),
            !flag(options?[NSReadOnlyPersistentStoreOption]), !flag(options?[NSIgnorePersistentStoreVersioningOption])
        else { return }
        // A file that can't be read (missing, empty, not a store) is left to the store's open,
        // which creates it or says what is wrong.
        guard !(type == NSSQLiteStoreType && SQLiteConnection.isInMemory(url)),
            let metadata = try? NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: type, at: url)
        else { return }
        let stored = (metadata[NSStoreModelVersionHashesKey] as? [String: Any] ?? [:]).compactMapValues { $0 as? Data }
        let differing = AppleSQLCompatibility.differingEntities(store: stored, model: model.entityVersionHashesByName)
        guard !differing.isEmpty else { return }
        guard
            let sourceModel = NSManagedObjectModel.storeModel(forMetadata: metadata, besides: model)
                ?? cachedStoreModel(at: url, type: type, metadata: metadata)
        else {
            throw CoreDataError.make(
                code: NSMigrationMissingSourceModelError,
                reason:
                    "Can't find the model the store \(Self.name(of: url)) was written with, so it can't be migrated: no version "
                    + "of the model has its version hashes (entities that differ from the current model: "
                    + "\(differing.joined(separator: ", ")))",
                userInfo: [NSURLErrorKey: url, "entities": differing])
        }
        let mapping: NSMappingModel
        if let found = NSMappingModel(from: nil, forSourceModel: sourceModel, destinationModel: model) {
            mapping = found
        } else if flag(options?[NSInferMappingModelAutomaticallyOption]) {
            mapping = try NSMappingModel.inferredMappingModel(forSourceModel: sourceModel, destinationModel: model)
        } else {
            throw CoreDataError.make(
                code: NSMigrationMissingMappingModelError,
                reason:
                    "Can't migrate the store \(Self.name(of: url)): no mapping model from its model to the current one was found, "
                    + "and NSInferMappingModelAutomaticallyOption is off",
                userInfo: [NSURLErrorKey: url])
        }
        let manager = NSMigrationManager(sourceModel: sourceModel, destinationModel: model)
        try manager.migrateStore(
            from: url, sourceType: type, options: options, with: mapping, toDestinationURL: url, destinationType: type,
            destinationOptions: options)
    }

    /// A store's name for messages: a file's path, or a URL without its password.
    static func name(of url: URL) -> String {
        guard !url.isFileURL else { return url.path }
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false), components.password != nil else {
            return url.absoluteString
        }
        components.password = "***"
        return components.string ?? url.absoluteString
    }

    private static func flag(_ value: Any?) -> Bool {
        switch value {
        case let value as Bool: value
        case let value as NSNumber: value.boolValue
        default: false
        }
    }
}
