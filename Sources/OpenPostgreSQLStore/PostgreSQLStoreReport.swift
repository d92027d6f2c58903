#if PostgreSQL
    import Foundation
    import OpenSQLiteStore
    import OpenStoreCore

    /// What `coredata stores` shows of a PostgreSQL store, read straight from its tables without a
    /// model: the metadata, `Z_PRIMARYKEY`, and each entity's row count.
    package struct PostgreSQLStoreReport {
        package let metadata: SQLiteMetadata
        package let entities: [SQLitePrimaryKeyRow]
        /// Rows per entity number (the entity's own rows); nil when its table is missing.
        package let rowCounts: [Int: Int]

        /// Reads the store at `url` (read only).
        /// - Throws: `NSPersistentStoreOpenError` when the server cannot be reached,
        ///   `NSPersistentStoreInvalidTypeError` when the schema holds no store.
        package init(url: URL) throws {
            let parsed: PostgresStoreURL
            do {
                parsed = try PostgresStoreURL(url)
            } catch {
                throw PostgreSQLStoreError.open("\(url.absoluteString.redactingPassword): \(error)", store: "")
            }
            let name = parsed.redacted
            let database: PostgresDatabase
            do {
                database = try PostgresDatabase(url: parsed, poolSize: 1)
            } catch {
                throw PostgreSQLStoreError.open("Can't connect to \(name): \(error)", store: name, underlying: error)
            }
            defer { database.close() }
            do {
                var tables: Set<String> = []
                try database.withConnection { connection in
                    try connection.query(
                        "SELECT table_name FROM information_schema.tables WHERE table_schema = $1", [.string(parsed.schema)]
                    ) { row in if let table = row.string(0) { tables.insert(table) } }
                }
                guard tables.contains("Z_METADATA"), tables.contains("Z_PRIMARYKEY") else {
                    throw PostgreSQLStoreError.invalidType(
                        "The schema of \(name) holds no Core Data store (no Z_METADATA table)", store: name)
                }
                var metadataRow: (Int64, String?, Data?)?
                var entities: [SQLitePrimaryKeyRow] = []
                var counts: [Int: Int] = [:]
                try database.withConnection { connection in
                    try connection.query(
                        "SELECT \"Z_VERSION\", \"Z_UUID\", \"Z_PLIST\" FROM \"Z_METADATA\" ORDER BY \"Z_VERSION\" LIMIT 1", []
                    ) { metadataRow = ($0.int64(0) ?? 0, $0.string(1), $0.data(2)) }
                    try connection.query(
                        "SELECT \"Z_ENT\", \"Z_NAME\", \"Z_SUPER\", \"Z_MAX\" FROM \"Z_PRIMARYKEY\" ORDER BY \"Z_ENT\"", []
                    ) { row in
                        entities.append(
                            SQLitePrimaryKeyRow(
                                entityNumber: Int(row.int64(0) ?? 0), name: row.string(1) ?? "",
                                superNumber: Int(row.int64(2) ?? 0),
                                max: row.int64(3) ?? 0))
                    }
                    let tableNames = SQLitePrimaryKeys.tableNames(of: entities)
                    for entity in entities {
                        // Only a table the schema has, named by identifier characters, is named in SQL.
                        guard let table = tableNames[entity.entityNumber] else { continue }
                        guard tables.contains(table), PostgresStoreURL.isIdentifier(table) else { continue }
                        try connection.query(
                            "SELECT count(*) FROM \(SQLiteLayout.quoted(table)) WHERE \"Z_ENT\" = $1",
                            [.integer(Int64(entity.entityNumber))]
                        ) { counts[entity.entityNumber] = Int($0.int64(0) ?? 0) }
                    }
                }
                guard let metadataRow else {
                    throw PostgreSQLStoreError.invalidType("The store \(name) has no metadata (Z_METADATA is empty)", store: name)
                }
                metadata = try SQLiteMetadata.decode(
                    version: metadataRow.0, uuid: metadataRow.1, plist: metadataRow.2, path: name)
                self.entities = entities
                rowCounts = counts
            } catch let error as PostgresStoreError {
                throw PostgreSQLStoreError.operation("Can't read the store \(name): \(error)", store: name, underlying: error)
            }
        }
    }
#endif
