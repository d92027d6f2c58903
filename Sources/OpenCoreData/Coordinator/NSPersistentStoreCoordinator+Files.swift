import OpenPredicate
import OpenSQLStore
import OpenSQLiteStore

#if PostgreSQL
    import OpenPostgreSQLStore
#endif

extension NSPersistentStoreCoordinator {
    /// Deletes a store: the coordinator's store at `url`, if it has one, is removed from it, then
    /// a SQLite store's file and its `-wal` and `-shm` files are deleted, with the values it kept
    /// in files beside it: the folder `.<name>_SUPPORT/_EXTERNAL_DATA`, and the support folder
    /// `.<name>_SUPPORT` when nothing else is left in it.
    ///
    /// ```swift
    /// try coordinator.destroyPersistentStore(at: storeURL, ofType: NSSQLiteStoreType)
    /// ```
    ///
    /// Files that do not exist are skipped (destroying a store that was never created does
    /// nothing), and `/dev/null` is never deleted. An in-memory store has no files: the
    /// coordinator's in-memory store at `url`, if any, is only removed. A PostgreSQL store's
    /// schema is dropped with everything in it (a store in the `public` schema is refused: the
    /// schema may hold other tables). Objects of a removed store can no longer be fetched or
    /// saved.
    ///
    /// **Differences from Apple:** Apple truncates the database through SQLite so that other
    /// processes' connections see it empty; this deletes the files, and connections other
    /// coordinators still have open keep reading what they had. `options` are accepted and
    /// ignored.
    /// See [destroyPersistentStore(at:ofType:options:)](https://developer.apple.com/documentation/coredata/nspersistentstorecoordinator/destroypersistentstore(at:oftype:options:)).
    ///
    /// - Parameters:
    ///   - url: Where the store is.
    ///   - storeType: `NSSQLiteStoreType`, `NSPostgreSQLStoreType` or `NSInMemoryStoreType`.
    ///   - options: The options the store was added with.
    /// - Throws: `NSPersistentStoreInvalidTypeError` for another store type;
    ///   `NSPersistentStoreOperationError` when a file cannot be deleted or a schema dropped.
    public func destroyPersistentStore(at url: URL, ofType storeType: String, options: [AnyHashable: Any]? = nil) throws {
        if storeType == NSPostgreSQLStoreType {
            #if PostgreSQL
                if let store = persistentStores.first(where: { $0.url == url && $0.type == storeType }) { try remove(store) }
                return try PostgreSQLRowStore.destroy(url: url)
            #else
                throw Self.postgreSQLNotBuilt()
            #endif
        }
        try Self.checkFileStoreType(storeType)
        if let store = persistentStore(for: url), store.type == storeType { try remove(store) }
        guard storeType == NSSQLiteStoreType else { return }
        for file in Self.sqliteFiles(of: url) where FileManager.default.fileExists(atPath: file.path) {
            do {
                try FileManager.default.removeItem(at: file)
            } catch {
                throw CoreDataError.make(
                    code: NSPersistentStoreOperationError, reason: "Can't delete \(file.path): \(error.localizedDescription)",
                    userInfo: [NSUnderlyingErrorKey: error, NSFilePathErrorKey: file.path])
            }
        }
        try Self.destroyExternalData(of: url)
    }

    /// Deletes the external data folder of the SQLite store at `url` (Apple's layout, see
    /// `AppleExternalData`), and its support folder when that is then empty (it may hold other
    /// things of Apple's, which are kept).
    private static func destroyExternalData(of url: URL) throws {
        guard url.isFileURL, url.standardizedFileURL.path != "/dev/null" else { return }
        let manager = FileManager.default
        let folder = AppleExternalData.folder(forStoreAt: url)
        if manager.fileExists(atPath: folder.path) {
            do {
                try manager.removeItem(at: folder)
            } catch {
                throw CoreDataError.make(
                    code: NSPersistentStoreOperationError,
                    reason: "Can't delete \(folder.path), the values the store kept in files: \(error.localizedDescription)",
                    userInfo: [NSUnderlyingErrorKey: error, NSFilePathErrorKey: folder.path])
            }
        }
        let support = AppleExternalData.supportFolder(forStoreAt: url)
        if let left = try? manager.contentsOfDirectory(atPath: support.path), left.isEmpty {
            try? manager.removeItem(at: support)
        }
    }

    /// Replaces the store at `destinationURL` with a copy of the store at `sourceURL`.
    ///
    /// ```swift
    /// try coordinator.replacePersistentStore(
    ///     at: liveURL, destinationOptions: nil, withPersistentStoreFrom: backupURL, sourceOptions: nil,
    ///     ofType: NSSQLiteStoreType)
    /// ```
    ///
    /// For SQLite the copy goes through SQLite's online backup API: it is consistent (the
    /// source's `-wal` content included), the destination file is created when missing, and a
    /// store already open at the destination, in this coordinator or another, reads the new
    /// content from its next fetch (objects already loaded keep their values until refreshed).
    /// The values the source keeps in files beside it (attributes that allow external storage)
    /// are copied into the destination's `.<name>_SUPPORT/_EXTERNAL_DATA` folder first, and the
    /// destination's files the source lacks removed after. In-memory stores have no files:
    /// nothing is copied.
    ///
    /// **Differences from Apple:** `destinationOptions` and `sourceOptions` are accepted and
    /// ignored.
    /// See [replacePersistentStore(at:destinationOptions:withPersistentStoreFrom:sourceOptions:ofType:)](https://developer.apple.com/documentation/coredata/nspersistentstorecoordinator/replacepersistentstore(at:destinationoptions:withpersistentstorefrom:sourceoptions:oftype:)).
    ///
    /// - Parameters:
    ///   - destinationURL: The store to overwrite.
    ///   - destinationOptions: The options of the destination store.
    ///   - sourceURL: The store to copy.
    ///   - sourceOptions: The options of the source store.
    ///   - storeType: `NSSQLiteStoreType` or `NSInMemoryStoreType`.
    /// - Throws: `NSPersistentStoreInvalidTypeError` for another store type;
    ///   `NSPersistentStoreOpenError` when the source is missing or not a database;
    ///   `NSSQLiteError` when the copy fails.
    public func replacePersistentStore(
        at destinationURL: URL, destinationOptions: [AnyHashable: Any]? = nil, withPersistentStoreFrom sourceURL: URL,
        sourceOptions: [AnyHashable: Any]? = nil, ofType storeType: String
    ) throws {
        try Self.checkFileStoreType(storeType)
        guard storeType == NSSQLiteStoreType else { return }
        try SQLiteBackup.copy(from: sourceURL, to: destinationURL)
    }

    /// Only the SQLite and in-memory stores are known here.
    private static func checkFileStoreType(_ storeType: String) throws {
        guard storeType == NSSQLiteStoreType || storeType == NSInMemoryStoreType else {
            throw CoreDataError.make(
                code: NSPersistentStoreInvalidTypeError, reason: "Unsupported store type '\(storeType)'",
                userInfo: [NSStoreTypeKey: storeType])
        }
    }

    /// A SQLite store's files: the database and its `-wal` and `-shm` (none for `/dev/null`).
    private static func sqliteFiles(of url: URL) -> [URL] {
        guard url.isFileURL, url.standardizedFileURL.path != "/dev/null" else { return [] }
        return [url, URL(fileURLWithPath: url.path + "-wal"), URL(fileURLWithPath: url.path + "-shm")]
    }
}

extension NSPersistentStoreCoordinator {
    /// The error for `NSPostgreSQLStoreType` in a build of the package without its `PostgreSQL`
    /// trait (the trait is on by default).
    static func postgreSQLNotBuilt() -> NSError {
        CoreDataError.make(
            code: NSPersistentStoreInvalidTypeError,
            reason: "This build of OpenCoreData has no PostgreSQL store: it was built without the package trait PostgreSQL",
            userInfo: [NSStoreTypeKey: NSPostgreSQLStoreType])
    }
}
