import OpenSQLStore
import OpenSQLiteStore

#if PostgreSQL
    import OpenPostgreSQLStore
#endif

extension NSPersistentStoreCoordinator {
    /// The metadata of a store file, read without adding the store to a coordinator: what apps
    /// check before opening a store, to decide whether it needs a migration.
    ///
    /// ```swift
    /// let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
    /// if !model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata) { /* migrate */ }
    /// ```
    ///
    /// The keys are Apple's, as the file holds them: `NSStoreType`, `NSStoreUUID`,
    /// `NSStoreModelVersionHashes` (entity name → `Data`), `NSStoreModelVersionIdentifiers`,
    /// `NSPersistenceFrameworkVersion`, and any key the app stored. The file is opened
    /// read-only and not changed (a `-wal` file beside it is read, not checkpointed).
    ///
    /// - Parameters:
    ///   - storeType: `NSSQLiteStoreType`, or `NSPostgreSQLStoreType` (the metadata of the store
    ///     in the URL's schema); other types keep no metadata to read.
    ///   - url: The store file (or `postgres://` URL).
    ///   - options: Ignored, as the SQLite store's options do not change how metadata is read.
    /// - Throws: `NSFileReadNoSuchFileError` (260) when there is no file (no store in the schema);
    ///   `NSPersistentStoreOpenError` (134080) for a file SQLite cannot read;
    ///   `NSPersistentStoreInvalidTypeError` (134000) for a type without files or an SQLite file
    ///   that is not a Core Data store. Each names the file.
    ///
    /// See [metadataForPersistentStore(ofType:at:options:)](https://developer.apple.com/documentation/coredata/nspersistentstorecoordinator/metadataforpersistentstore(oftype:at:options:)).
    public class func metadataForPersistentStore(
        ofType storeType: String, at url: URL, options: [AnyHashable: Any]? = nil
    ) throws -> [String: Any] {
        let path = url.path
        if storeType == NSPostgreSQLStoreType {
            #if PostgreSQL
                guard let metadata = try PostgreSQLRowStore.metadata(url: url) else {
                    throw CoreDataError.make(
                        code: NSFileReadNoSuchFileError,
                        reason:
                            "There is no store at \(url.absoluteString.redactingPassword) (its schema has no Z_METADATA table)",
                        userInfo: [NSURLErrorKey: url])
                }
                return metadata
            #else
                throw postgreSQLNotBuilt()
            #endif
        }
        guard storeType == NSSQLiteStoreType else {
            throw CoreDataError.make(
                code: NSPersistentStoreInvalidTypeError,
                reason: "Can't read the metadata of \(path): stores of type \(storeType) keep no metadata in a file",
                userInfo: [NSFilePathErrorKey: path])
        }
        guard FileManager.default.fileExists(atPath: path) else {
            throw CoreDataError.make(
                code: NSFileReadNoSuchFileError, reason: "The store file \(path) does not exist",
                userInfo: [NSFilePathErrorKey: path])
        }
        let connection = try SQLiteConnection(url: url, mode: .readOnly)
        return try AppleSQLMetadata.read(from: connection).dictionary
    }
}

extension NSManagedObjectModel {
    /// Whether a store written with the given metadata holds exactly what this model's
    /// configuration describes: its `NSStoreModelVersionHashes` equal the
    /// `entityVersionHashesByName` of the configuration's entities, entity for entity (Apple's
    /// rule for opening a store without migrating it).
    ///
    /// - Parameters:
    ///   - configuration: A configuration name, or nil for every entity.
    ///   - metadata: A store's metadata (`metadataForPersistentStore(ofType:at:options:)`).
    /// - Returns: false for an unknown configuration or metadata without version hashes.
    ///
    /// See [isConfiguration(withName:compatibleWithStoreMetadata:)](https://developer.apple.com/documentation/coredata/nsmanagedobjectmodel/isconfiguration(withname:compatiblewithstoremetadata:)).
    public func isConfiguration(withName configuration: String?, compatibleWithStoreMetadata metadata: [String: Any]) -> Bool {
        guard let entities = entities(forConfigurationName: configuration),
            let stored = metadata[NSStoreModelVersionHashesKey] as? [String: Any]
        else { return false }
        let modelHashes = entityVersionHashesByName
        var expected: [String: Data] = [:]
        for entity in entities {
            guard let name = entity.name, let hash = modelHashes[name] else { return false }
            expected[name] = hash
        }
        return stored.count == expected.count && expected.allSatisfy { name, hash in (stored[name] as? Data) == hash }
    }
}
