#if PostgreSQL
    import OpenPredicate
    import OpenSQLStore
    import OpenStoreCore

    /// Persistent history of the PostgreSQL store: Apple's `ATRANSACTION`, `ACHANGE` and
    /// `ATRANSACTIONSTRING` tables (`AppleSQLHistoryTables`) in the store's schema, written and read
    /// by the SQLite store's statements (`SQLHistory`).
    ///
    /// A save that carries a `HistoryTransactionDraft` writes it in the save's transaction. Its
    /// transaction number comes from `Z_PRIMARYKEY`, whose row the save keeps locked until it
    /// commits, so numbers are committed in the order they are handed out: a server that reads
    /// the history after a token never misses a transaction committed later with a smaller number.
    /// The save also sends `NOTIFY` on `historyChannel` with the number (delivered when it commits),
    /// the wake-up for other servers' `NSPersistentStoreRemoteChange`; the history, not the
    /// notification, is the source of truth.
    ///
    /// **Differences from the SQLite store:** `ZTOMBSTONE<n>` columns are `text` (a SQLite column
    /// takes any value); a tombstone reads back as the attribute's kind when its text spells one.
    extension PostgreSQLRowStore {
        /// The `LISTEN`/`NOTIFY` channel of the store's history: one per schema.
        package var historyChannel: String {
            "opencoredata_history_" + String(UInt64(bitPattern: Self.advisoryLockKey(url.schema)), radix: 16)
        }

        /// Creates the history tables, their indexes and `Z_PRIMARYKEY` rows when the schema lacks
        /// them, and the tombstone columns the model needs; called when the store is added with
        /// history tracking.
        static func createHistoryTables(_ connection: PostgreSQLConnection, layout: AppleSQLLayout, schemaName: String) throws
            -> AppleSQLHistoryTables
        {
            let q = AppleSQLLayout.quoted
            var columns: Set<String> = []
            try connection.query(
                "SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2",
                [.string(schemaName), .string("ACHANGE")]
            ) { row in if let name = row.string(0) { columns.insert(name) } }
            if columns.isEmpty {
                let statements = [
                    "CREATE TABLE \(q("ACHANGE")) (\(q("Z_PK")) bigint PRIMARY KEY, \(q("Z_ENT")) bigint, \(q("Z_OPT")) bigint, "
                        + "\(q("ZCHANGETYPE")) bigint, \(q("ZENTITY")) bigint, \(q("ZENTITYPK")) bigint, "
                        + "\(q("ZTRANSACTIONID")) bigint, \(q("ZCOLUMNS")) bytea)",
                    "CREATE TABLE \(q("ATRANSACTION")) (\(q("Z_PK")) bigint PRIMARY KEY, \(q("Z_ENT")) bigint, \(q("Z_OPT")) bigint, "
                        + "\(q("ZAUTHORTS")) bigint, \(q("ZBUNDLEIDTS")) bigint, \(q("ZCONTEXTNAMETS")) bigint, "
                        + "\(q("ZPROCESSIDTS")) bigint, \(q("ZTIMESTAMP")) double precision, \(q("ZAUTHOR")) text, "
                        + "\(q("ZBUNDLEID")) text, \(q("ZCONTEXTNAME")) text, \(q("ZPROCESSID")) text, \(q("ZQUERYGEN")) bytea)",
                    "CREATE TABLE \(q("ATRANSACTIONSTRING")) (\(q("Z_PK")) bigint PRIMARY KEY, \(q("Z_ENT")) bigint, "
                        + "\(q("Z_OPT")) bigint, \(q("ZNAME")) text COLLATE \"C\")",
                    "CREATE INDEX \(q("ACHANGE_ZTRANSACTIONID_INDEX")) ON \(q("ACHANGE")) (\(q("ZTRANSACTIONID")))",
                    "CREATE INDEX \(q("Z_TRANSACTION_TransactionTimestampIndex")) ON \(q("ATRANSACTION")) (\(q("ZTIMESTAMP")))",
                    "CREATE UNIQUE INDEX \(q("Z_TRANSACTIONSTRING_UNIQUE_NAME")) ON \(q("ATRANSACTIONSTRING")) (\(q("ZNAME")))",
                ]
                for statement in statements { try connection.execute(statement) }
                for (number, name) in [
                    (AppleSQLHistoryTables.changeEntity, "CHANGE"), (AppleSQLHistoryTables.transactionEntity, "TRANSACTION"),
                    (AppleSQLHistoryTables.stringEntity, "TRANSACTIONSTRING"),
                ] {
                    try connection.execute(
                        "INSERT INTO \(q("Z_PRIMARYKEY")) (\(q("Z_ENT")), \(q("Z_NAME")), \(q("Z_SUPER")), \(q("Z_MAX"))) "
                            + "VALUES ($1, $2, 0, 0) ON CONFLICT DO NOTHING",
                        [.integer(Int64(number)), .string(name)])
                }
            }
            let needed = layout.schema.entities.map { $0.tombstoneSlots.count }.max() ?? 0
            var count = 0
            while columns.contains("ZTOMBSTONE\(count)") { count += 1 }
            for index in count..<max(count, needed) {
                try connection.execute("ALTER TABLE \(q("ACHANGE")) ADD COLUMN IF NOT EXISTS \(q("ZTOMBSTONE\(index)")) text")
            }
            return AppleSQLHistoryTables(tombstoneColumns: max(count, needed))
        }

        /// The history tables' names, for `SQLDialect.finish(_:identifiers:)`.
        static let historyIdentifiers: Set<String> = {
            let names = [
                "ACHANGE", "ATRANSACTION", "ATRANSACTIONSTRING", "ZCHANGETYPE", "ZENTITY", "ZENTITYPK", "ZTRANSACTIONID",
                "ZCOLUMNS", "ZAUTHORTS", "ZBUNDLEIDTS", "ZCONTEXTNAMETS", "ZPROCESSIDTS", "ZTIMESTAMP", "ZAUTHOR", "ZBUNDLEID",
                "ZCONTEXTNAME", "ZPROCESSID", "ZQUERYGEN", "ZNAME",
            ]
            return Set(names + (0..<256).map { "ZTOMBSTONE\($0)" })
        }()

        /// Writes a save's history in its open transaction, and the `NOTIFY` that wakes the other
        /// servers when it commits.
        func writeHistory(_ draft: HistoryTransactionDraft, session: PostgreSQLSession) throws {
            guard let tables = historyTables else {
                throw PostgreSQLStoreError.operation(
                    "Can't record persistent history in \(storeName): the store was opened without history tracking",
                    store: storeName)
            }
            let history = SQLHistory(session: session, layout: layout, tables: tables)
            try history.write(draft)
            let number = try history.lastTransactionNumber() ?? 0
            // Delivered when the transaction commits (`PostgreSQLConnection.notify`).
            try session.run("SELECT pg_notify(?, ?)", [.string(historyChannel), .string(String(number))])
        }

        private func requireHistoryTables() throws -> AppleSQLHistoryTables {
            guard let historyTables else {
                throw HistoryUnavailableError("The store \(storeName) was opened without persistent history tracking")
            }
            return historyTables
        }

        package func history(after transactionNumber: Int64?, limit: Int?) throws -> [HistoryTransactionRecord] {
            let tables = try requireHistoryTables()
            return try withSession {
                try SQLHistory(session: $0, layout: layout, tables: tables).records(after: transactionNumber, limit: limit)
            }
        }

        package func deleteHistory(before transactionNumber: Int64) throws {
            try refuseIfReadOnly("delete persistent history")
            let tables = try requireHistoryTables()
            do {
                try database.withTransaction { connection in
                    try SQLHistory(
                        session: PostgreSQLSession(connection: connection, statements: statements), layout: layout, tables: tables
                    )
                    .delete(before: transactionNumber)
                }
            } catch let error as PostgreSQLServerError {
                throw PostgreSQLStoreError.operation(
                    "Can't delete history in \(storeName): \(error)", store: storeName, underlying: error)
            }
        }

        package func lastHistoryTransactionNumber() throws -> Int64? {
            let tables = try requireHistoryTables()
            return try withSession { try SQLHistory(session: $0, layout: layout, tables: tables).lastTransactionNumber() }
        }

        /// Calls `handler` (on a background queue) each time another save's history commits, from
        /// this or any other process or server (`LISTEN` on `historyChannel`). Notifications sent
        /// while the listening connection is down are lost: poll the history as well.
        package func listenForHistory(_ handler: @escaping @Sendable () -> Void) throws -> PostgreSQLListener {
            try database.listen(channel: historyChannel) { _ in handler() }
        }
    }
#endif
