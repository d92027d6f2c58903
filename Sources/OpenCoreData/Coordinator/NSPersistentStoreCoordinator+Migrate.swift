import OpenPredicate
import OpenSQLStore
import OpenSQLiteStore
import OpenStoreCore

extension NSPersistentStoreCoordinator {
    /// Moves a store to a new location, changing its type if asked: adds a store of `storeType`
    /// at `url`, copies every row into it, and removes `store` from the coordinator (its own
    /// file or database is left as it was).
    ///
    /// ```swift
    /// // Serve an app's device store from PostgreSQL, or write a server's data back to a file:
    /// let server = try coordinator.migratePersistentStore(
    ///     deviceStore, to: URL(string: "postgres://app@db/shop?schema=catalog")!, withType: NSPostgreSQLStoreType)
    /// ```
    ///
    /// Between any two of the SQLite, PostgreSQL and in-memory stores, every row keeps its
    /// primary key and each hierarchy its highest key (`Z_MAX`), and the new store takes the old
    /// one's UUID (`identifier`), so object IDs and their URIs stay valid and new objects get the
    /// keys they would have got. The copy is one transaction: a failure leaves the destination
    /// without rows.
    ///
    /// **Differences from Apple:** the copy reports its progress to the `Progress` current on
    /// the calling thread, if there is one (implicit composition): a child whose unit is one
    /// row, of an unknown count while the source is read, then of the store's row count,
    /// completed as rows are written.
    ///
    /// ```swift
    /// let progress = Progress(totalUnitCount: 1)
    /// progress.becomeCurrent(withPendingUnitCount: 1)
    /// try coordinator.migratePersistentStore(store, to: url, withType: NSSQLiteStoreType)
    /// progress.resignCurrent()  // progress.fractionCompleted rose to 1 as rows were written
    /// ```
    ///
    /// See [migratePersistentStore(_:to:options:withType:)](https://developer.apple.com/documentation/coredata/nspersistentstorecoordinator/migratepersistentstore(_:to:options:withtype:)).
    ///
    /// - Parameters:
    ///   - store: One of the coordinator's stores.
    ///   - url: Where the new store goes (a file URL, or a `postgres://` URL).
    ///   - options: The new store's options.
    ///   - storeType: The new store's type.
    /// - Returns: The new store, now one of the coordinator's.
    /// - Throws: `NSPersistentStoreOperationError` when `store` is not one of the coordinator's,
    ///   or when the destination already holds rows; the errors of
    ///   `addPersistentStore(ofType:configurationName:at:options:)`.
    @discardableResult
    public func migratePersistentStore(
        _ store: NSPersistentStore, to url: URL, options: [AnyHashable: Any]? = nil, withType storeType: String
    ) throws -> NSPersistentStore {
        guard persistentStores.contains(where: { $0 === store }),
            let source = (store as? RowBackedPersistentStore)?.rows as? any TransferableRowStore
        else {
            throw CoreDataError.make(
                code: NSPersistentStoreOperationError,
                reason: "Can't migrate the store \(store.url?.absoluteString ?? ""): it is not a store of this coordinator",
                userInfo: [NSStoreTypeKey: store.type])
        }
        let configuration =
            store.configurationName == NSManagedObjectModel.defaultConfigurationName ? nil : store.configurationName
        let destination = try addPersistentStore(ofType: storeType, configurationName: configuration, at: url, options: options)
        do {
            guard let target = (destination as? RowBackedPersistentStore)?.rows as? any TransferableRowStore else {
                throw CoreDataError.make(
                    code: NSPersistentStoreOperationError,
                    reason: "Can't migrate a store to the type \(storeType): it keeps no rows to copy into",
                    userInfo: [NSStoreTypeKey: storeType])
            }
            // Rows as the unit: unknown while the source is read, then its row count.
            let progress = Progress(totalUnitCount: -1)
            let contents = try source.exportContents()
            progress.totalUnitCount = Int64(contents.rows.count)
            try target.importContents(contents, storeUUID: store.identifier) { progress.completedUnitCount = Int64($0) }
            progress.completedUnitCount = progress.totalUnitCount
        } catch {
            try? remove(destination)
            throw error
        }
        if let uuid = store.identifier { destination.identifier = uuid }
        try remove(store)
        return destination
    }
}
