#if PostgreSQL
    import OpenPredicate
    import OpenSQLStore
    import OpenStoreCore

    extension PostgreSQLRowStore {
        /// The metadata of the store at `url` (Apple's keys, as `Z_METADATA.Z_PLIST` holds them);
        /// nil when the schema holds no store yet.
        /// - Throws: `NSPersistentStoreOpenError` when the server can't be reached;
        ///   `NSPersistentStoreInvalidTypeError` for metadata that can't be read.
        package static func metadata(url: URL) throws -> [String: Any]? {
            try withDatabase(url: url) { database, parsed in
                try database.withConnection { connection in
                    guard try hasStore(connection, schemaName: parsed.schema) else { return nil }
                    return try readMetadata(connection, name: parsed.redacted).dictionary
                }
            }
        }

        /// Lightweight migration of the store at `url` in place, in one transaction, as
        /// `SQLiteMigration` migrates a file: the same plan (`SQLMigrationPlan`) in PostgreSQL's
        /// dialect. An error, a lost connection or a killed process leaves the old store as it was
        /// (the server rolls the transaction back).
        /// - Parameter progress: called after each step with the fraction done (0…1); what it
        ///   throws stops the migration (rolled back) and is rethrown.
        /// - Throws: the errors of `open` for the source (`NSPersistentStoreIncompatibleVersionHashError`
        ///   when it is not a store of `sourceVersionHashes`); those of `SQLiteMigration.migrate`.
        package static func migrate(
            url: URL, migration: StoreMigration, sourceVersionHashes: [String: Data],
            destinationVersionHashes: [String: Data], versionIdentifiers: [String], progress: (Double) throws -> Void = { _ in }
        ) throws {
            try withDatabase(url: url) { database, parsed in
                let name = parsed.redacted
                try database.withTransaction { connection in
                    try connection.execute("SELECT pg_advisory_xact_lock($1)", [.integer(advisoryLockKey(parsed.schema))])
                    let (source, metadata) = try check(
                        connection, schema: migration.source, name: name, schemaName: parsed.schema, hashes: sourceVersionHashes)
                    let destination = try AppleSQLLayout(schema: migration.destination)
                    let plan = try SQLMigrationPlan(
                        source: source, destination: destination, migration: migration, dialect: .postgreSQL)
                    let session = PostgreSQLSession(
                        connection: connection,
                        statements: PostgreSQLStatements(layouts: [source, destination], storeName: name))
                    var oldKeys: [AppleSQLPrimaryKeyRow] = []
                    try session.query("SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY", []) { row in
                        oldKeys.append(
                            AppleSQLPrimaryKeyRow(
                                entityNumber: Int(row.int64(at: 0)), name: row.string(at: 1) ?? "",
                                superNumber: Int(row.int64(at: 2)), max: row.int64(at: 3)))
                    }
                    try clearAway(plan, connection: connection)
                    let statements = destination.postgreSQLCreateStatements.dropLast(2)
                    try plan.run(
                        on: session, path: name, oldKeys: oldKeys,
                        tables: statements.filter { $0.hasPrefix("CREATE TABLE ") },
                        indexes: statements.filter { !$0.hasPrefix("CREATE TABLE ") },
                        execute: { try connection.execute($0) }, progress: progress)
                    var migrated = metadata
                    migrated.versionHashes = destinationVersionHashes
                    migrated.versionIdentifiers = versionIdentifiers
                    migrated.dictionary["NSStoreModelVersionHashesDigest"] = nil
                    migrated.dictionary["NSStoreModelVersionChecksumKey"] = nil
                    try session.run("UPDATE Z_METADATA SET Z_PLIST = ?", [.data(try migrated.encodedPlist(path: name))])
                }
            }
            try progress(1)
        }

        /// Opens a one-connection database for `url` and closes it after `body`.
        private static func withDatabase<T>(url: URL, _ body: (PostgreSQLConnectionPool, PostgreSQLStoreURL) throws -> T) throws
            -> T
        {
            let (database, parsed) = try connect(url: url, poolSize: 1)
            defer { database.close() }
            do {
                return try body(database, parsed)
            } catch let error as PostgreSQLServerError {
                throw PostgreSQLStoreError.operation(
                    "Can't migrate the PostgreSQL store \(parsed.redacted): \(error)", store: parsed.redacted, underlying: error)
            }
        }

        /// Index names are the schema's, not the table's: the old tables' indexes go (their
        /// primary keys are renamed aside), so that the new tables can take the same names.
        private static func clearAway(_ plan: SQLMigrationPlan, connection: PostgreSQLConnection) throws {
            let oldTables = Set(plan.renames.map { SQLDialect.postgreSQLName($0.from) })
            var indexes: [(name: String, isPrimaryKey: Bool)] = []
            try connection.query(
                "SELECT i.relname, x.indisprimary::int, t.relname FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid "
                    + "JOIN pg_class t ON t.oid = x.indrelid JOIN pg_namespace n ON n.oid = t.relnamespace "
                    + "WHERE n.nspname = current_schema()", []
            ) { row in
                if let index = row.string(0), let table = row.string(2), oldTables.contains(table) {
                    indexes.append((index, row.int64(1) == 1))
                }
            }
            for (number, index) in indexes.enumerated() {
                let quoted = AppleSQLLayout.quoted(index.name)
                try connection.execute(
                    index.isPrimaryKey ? "ALTER INDEX \(quoted) RENAME TO z_old_key_\(number)" : "DROP INDEX \(quoted)")
            }
        }
    }
#endif
