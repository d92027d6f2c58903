#if PostgreSQL
    import Foundation
    import OpenSQLStore
    import OpenStoreCore

    extension SQLStoreReport {
        /// The report of the PostgreSQL store at `url`, read straight from its tables (read only).
        /// - Throws: `NSPersistentStoreOpenError` when the server cannot be reached,
        ///   `NSPersistentStoreInvalidTypeError` when the schema holds no store.
        package static func postgreSQLStore(at url: URL) throws -> SQLStoreReport {
            let parsed: PostgreSQLStoreURL
            do {
                parsed = try PostgreSQLStoreURL(url)
            } catch {
                throw PostgreSQLStoreError.open("\(url.absoluteString.redactingPassword): \(error)", store: "")
            }
            let name = parsed.redacted
            let database: PostgreSQLConnectionPool
            do {
                database = try PostgreSQLConnectionPool(url: parsed, poolSize: 1)
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
                var entities: [AppleSQLPrimaryKeyRow] = []
                var counts: [Int: Int] = [:]
                try database.withConnection { connection in
                    try connection.query(
                        "SELECT \"Z_VERSION\", \"Z_UUID\", \"Z_PLIST\" FROM \"Z_METADATA\" ORDER BY \"Z_VERSION\" LIMIT 1", []
                    ) { metadataRow = ($0.int64(0) ?? 0, $0.string(1), $0.data(2)) }
                    try connection.query(
                        "SELECT \"Z_ENT\", \"Z_NAME\", \"Z_SUPER\", \"Z_MAX\" FROM \"Z_PRIMARYKEY\" ORDER BY \"Z_ENT\"", []
                    ) { row in
                        entities.append(
                            AppleSQLPrimaryKeyRow(
                                entityNumber: Int(row.int64(0) ?? 0), name: row.string(1) ?? "",
                                superNumber: Int(row.int64(2) ?? 0),
                                max: row.int64(3) ?? 0))
                    }
                    let tableNames = AppleSQLPrimaryKeys.tableNames(of: entities)
                    for entity in entities {
                        // Only a table the schema has, named by identifier characters, is named in SQL.
                        guard let table = tableNames[entity.entityNumber] else { continue }
                        guard tables.contains(table), PostgreSQLStoreURL.isIdentifier(table) else { continue }
                        try connection.query(
                            "SELECT count(*) FROM \(AppleSQLLayout.quoted(table)) WHERE \"Z_ENT\" = $1",
                            [.integer(Int64(entity.entityNumber))]
                        ) { counts[entity.entityNumber] = Int($0.int64(0) ?? 0) }
                    }
                }
                guard let metadataRow else {
                    throw PostgreSQLStoreError.invalidType("The store \(name) has no metadata (Z_METADATA is empty)", store: name)
                }
                let metadata = try AppleSQLMetadata.decode(
                    version: metadataRow.0, uuid: metadataRow.1, plist: metadataRow.2, path: name)
                return SQLStoreReport(metadata: metadata, entities: entities, rowCounts: counts, journalMode: nil)
            } catch let error as PostgreSQLServerError {
                throw PostgreSQLStoreError.operation("Can't read the store \(name): \(error)", store: name, underlying: error)
            }
        }
    }
#endif
