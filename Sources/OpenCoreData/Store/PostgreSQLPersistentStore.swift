#if PostgreSQL
    import Logging
    import OpenPostgreSQLStore
    import OpenPredicate
    import OpenStoreCore

    /// `NSPostgreSQLStoreType`: Apple's store layout in a schema of a PostgreSQL database, shared by
    /// every coordinator, process and server that adds a store with the same URL (see
    /// `PostgreSQLRowStore`).
    ///
    /// ```swift
    /// try coordinator.addPersistentStore(
    ///     ofType: NSPostgreSQLStoreType, configurationName: nil,
    ///     at: URL(string: "postgres://app:secret@db.internal:5432/shop?schema=catalog"),
    ///     options: [NSPersistentStoreConnectionPoolMaxSizeKey: 16])
    /// ```
    ///
    /// The URL names the server, the login, the database and the schema (`?schema=`, **default**
    /// `public`); `sslmode` asks for TLS as libpq reads it (`require`: encrypted; `verify-ca`,
    /// `verify-full`: the server's certificate checked against the system's authorities, or those
    /// of the PEM file `sslrootcert` names). Adding the store creates its tables when the
    /// schema has none, or checks an existing store's version hashes against the model, as the SQLite
    /// store does. `NSPersistentStoreConnectionPoolMaxSizeKey` sets the most connections the store
    /// opens (**default** 8). The store's `identifier` is its UUID (`Z_METADATA.Z_UUID`), the same
    /// for every server.
    ///
    /// With `NSPersistentHistoryTrackingKey`, each save records its history in the same transaction
    /// (Apple's `ATRANSACTION`/`ACHANGE` tables in the schema). With
    /// `NSPersistentStoreRemoteChangeNotificationPostOptionKey` as well, the store posts
    /// `NSPersistentStoreRemoteChange` when any server's save commits: a `NOTIFY` sent by the save
    /// wakes it at once, and it also checks the history every second, so that a notification lost
    /// with a dropped connection is made up by the next check.
    ///
    /// What runs where: Core Data's API is synchronous; each fetch and save blocks the calling
    /// thread (a context's queue) until the server answers, while the network I/O, and the
    /// decoding of each result row as it arrives, run on postgres-nio's event loops. The thread
    /// waits once for each statement of a fetch, and once for a whole save (its statements run
    /// one after the other on the event loop). Never call
    /// the store from an event loop thread (the call fails with an error rather than deadlock).
    ///
    /// **Differences from Apple:** Apple's Core Data has no PostgreSQL store; this type and its
    /// constant are this package's addition.
    final class PostgreSQLPersistentStore: RowBackedPersistentStore {
        /// The `LISTEN` that wakes the remote-change watcher; nil unless remote changes are posted.
        private var listener: PostgreSQLListener?

        /// How often the history is checked besides the `NOTIFY` wake-ups.
        static let remoteChangePollInterval: DispatchTimeInterval = .seconds(1)

        init(
            coordinator: NSPersistentStoreCoordinator, schema: StoreSchema, configurationName: String?, url: URL?,
            options: [AnyHashable: Any]?
        ) throws {
            guard let url, ["postgres", "postgresql"].contains(url.scheme?.lowercased() ?? "") else {
                throw CoreDataError.make(
                    code: NSPersistentStoreOpenError,
                    reason: "A PostgreSQL store needs a postgres:// URL, not \(url?.absoluteString ?? "nil")",
                    userInfo: [NSStoreTypeKey: NSPostgreSQLStoreType])
            }
            let readOnly = (options?[NSReadOnlyPersistentStoreOption] as? NSNumber)?.boolValue ?? false
            let poolSize = (options?[NSPersistentStoreConnectionPoolMaxSizeKey] as? NSNumber)?.intValue ?? 8
            let model = coordinator.managedObjectModel
            try LightweightMigration.migrateIfNeeded(at: url, type: NSPostgreSQLStoreType, model: model, options: options)
            let identifiers = model.versionIdentifiers.compactMap { $0 as? String }.sorted()
            let rows = try PostgreSQLRowStore.open(
                url: url, schema: schema, readOnly: readOnly, modelVersionHashes: model.entityVersionHashesByName,
                versionIdentifiers: identifiers.isEmpty ? [""] : identifiers, poolSize: max(poolSize, 1),
                tracksHistory: Self.optionFlag(options?[NSPersistentHistoryTrackingKey]),
                checksVersionHashes: !Self.optionFlag(options?[NSIgnorePersistentStoreVersioningOption]),
                logger: options?[NSPersistentStoreLoggerKey] as? Logger, trace: Self.sqlTrace(options))
            if let timeout = (options?[NSPersistentStoreTimeoutOption] as? NSNumber)?.doubleValue, timeout > 0, timeout.isFinite {
                rows.database.leaseTimeout = .milliseconds(Int64(min(timeout, 86_400) * 1000))
            }
            super.init(
                rows: rows, coordinator: coordinator, configurationName: configurationName, url: url, options: options,
                system: "postgresql", namespace: rows.database.url.database + "|" + rows.database.url.schema)
            isReadOnly = readOnly
            if let uuid = rows.storeUUID { identifier = uuid }
            if let watcher = startWatchingRemoteChanges(interval: Self.remoteChangePollInterval) {
                listener = try rows.listenForHistory { [weak watcher] in watcher?.check() }
            }
        }

        deinit { listener?.cancel() }

        override class var storeTypeName: String { NSPostgreSQLStoreType }
    }
#endif
