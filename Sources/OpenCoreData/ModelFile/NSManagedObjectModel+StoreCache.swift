import OpenSQLStore
import OpenSQLiteStore

extension NSManagedObjectModel {
    /// The model Apple's Core Data cached in the SQLite store at `url` (its `Z_MODELCACHE`
    /// table: the compiled model the store was last written with), loaded as a `.mom` file is;
    /// nil when the store keeps no copy (stores written by older versions of Core Data, or by
    /// this package, have none).
    ///
    /// With it, a store opens without its model file:
    ///
    /// ```swift
    /// guard let model = try NSManagedObjectModel.cachedModel(ofStoreAt: url) else { … }
    /// let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
    /// try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url)
    /// ```
    ///
    /// The store is opened read-only and left as it is (a store in WAL mode keeps its `-wal`).
    ///
    /// **Differences from Apple:** Apple's Core Data reads this cache only inside migration
    /// (as a source model when no bundled version matches the store) and offers no API for it;
    /// this one is an addition.
    ///
    /// - Throws: `NSFileReadNoSuchFileError` when there is no file; `NSPersistentStoreInvalidTypeError`
    ///   for a file that is not a Core Data SQLite store, or whose cache cannot be inflated
    ///   (`userInfo["NSStoreModelCacheDamaged"]` is `true`); a model file error
    ///   (`NSManagedObjectModel(validatingContentsOf:)`'s) when the inflated cache is not a model
    ///   this package can read. Each names the file.
    public static func cachedModel(ofStoreAt url: URL) throws -> NSManagedObjectModel? {
        let path = url.path
        guard FileManager.default.fileExists(atPath: path) else {
            throw CoreDataError.make(
                code: NSFileReadNoSuchFileError, reason: "The store file \(path) does not exist",
                userInfo: [NSFilePathErrorKey: path])
        }
        let connection = try SQLiteConnection(url: url, mode: .readOnly)
        // A Core Data store (its metadata readable) before anything is read of its cache.
        _ = try AppleSQLMetadata.read(from: connection)
        guard let data = try AppleModelCache.compiledModel(from: connection) else { return nil }
        let model = NSManagedObjectModel()
        do {
            try loadArchive(data, file: url.appendingPathComponent("Z_MODELCACHE"), into: model)
        } catch let error as ModelFileError {
            throw error.nsError
        }
        return model
    }
}
