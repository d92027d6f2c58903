import Foundation
import OpenSQLStore
import OpenStoreCore

// Apple's layout read from and written to a SQLite file (the types are the SQL stores' own).

extension AppleSQLMetadata {
    /// Reads the metadata row.
    /// - Throws: `NSPersistentStoreInvalidTypeError` (134000) naming the file when there is no
    ///   `Z_METADATA` table or row; the same code, with a message saying the metadata is damaged
    ///   and `userInfo["NSStoreMetadataDamaged"] = true`, when `Z_PLIST` is empty, not a property
    ///   list, not a dictionary, or has no `NSStoreModelVersionHashes` dictionary of data (Apple
    ///   has no code of its own for damaged metadata; this is its code for a file that is not a
    ///   store it can read, and it keeps a damaged file from passing for another model's store);
    ///   `NSSQLiteError` when SQLite fails.
    package static func read(from connection: SQLiteConnection) throws -> AppleSQLMetadata {
        let path = connection.url.path
        guard try connection.tableExists("Z_METADATA") else {
            throw SQLStoreError.invalidType(
                "The file \(path) is a SQLite database but not a Core Data store (no Z_METADATA table)", path: path)
        }
        let statement = try connection.statement("SELECT Z_VERSION, Z_UUID, Z_PLIST FROM Z_METADATA ORDER BY Z_VERSION LIMIT 1")
        defer { statement.reset() }
        guard try statement.step() else {
            throw SQLStoreError.invalidType("The store \(path) has no metadata (Z_METADATA is empty)", path: path)
        }
        return try decode(
            version: statement.int64(at: 0), uuid: statement.string(at: 1), plist: statement.data(at: 2), path: path)
    }

    /// Writes (replaces) the metadata row, as a binary property list.
    package func write(to connection: SQLiteConnection) throws {
        let data = try encodedPlist(path: connection.url.path)
        if !(try connection.tableExists("Z_METADATA")) { try connection.execute(AppleSQLMetadata.tableDDL) }
        try connection.run("DELETE FROM Z_METADATA")
        try connection.run(
            "INSERT INTO Z_METADATA (Z_VERSION, Z_UUID, Z_PLIST) VALUES (?, ?, ?)",
            [.integer(version), storeUUID.map(StoreValue.string) ?? .null, .data(data)])
    }
}

extension AppleSQLPrimaryKeys {
    /// Every row, by entity number.
    /// - Throws: `NSPersistentStoreInvalidTypeError` naming the file when the table is missing.
    package static func read(from connection: SQLiteConnection) throws -> [AppleSQLPrimaryKeyRow] {
        guard try connection.tableExists("Z_PRIMARYKEY") else {
            let path = connection.url.path
            throw SQLStoreError.invalidType("The file \(path) is not a Core Data store (no Z_PRIMARYKEY table)", path: path)
        }
        let statement = try connection.statement("SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT")
        var rows: [AppleSQLPrimaryKeyRow] = []
        while try statement.step() {
            rows.append(
                AppleSQLPrimaryKeyRow(
                    entityNumber: Int(statement.int64(at: 0)), name: statement.string(at: 1) ?? "",
                    superNumber: Int(statement.int64(at: 2)), max: statement.int64(at: 3)))
        }
        return rows
    }

    /// Inserts the rows of a new store.
    package static func insert(_ rows: [AppleSQLPrimaryKeyRow], into connection: SQLiteConnection) throws {
        for row in rows {
            try connection.run(
                "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, ?)",
                [.integer(Int64(row.entityNumber)), .string(row.name), .integer(Int64(row.superNumber)), .integer(row.max)])
        }
    }
}

extension AppleSQLHistoryTables {
    /// The tables as `connection`'s file has them; nil when it has no history tables.
    package static func read(from connection: SQLiteConnection) throws -> AppleSQLHistoryTables? {
        guard try connection.tableExists("ATRANSACTION"), try connection.tableExists("ACHANGE"),
            try connection.tableExists("ATRANSACTIONSTRING")
        else { return nil }
        let columns = Set(try connection.columnNames(of: "ACHANGE"))
        var count = 0
        while columns.contains("ZTOMBSTONE\(count)") { count += 1 }
        return AppleSQLHistoryTables(tombstoneColumns: count)
    }

    /// Creates the history tables, their indexes and `Z_PRIMARYKEY` rows when the file lacks
    /// them, and the `ZTOMBSTONE<n>` columns the schema needs that `ACHANGE` lacks, in one
    /// transaction; a file that has all of them is left untouched.
    /// - Returns: the tables as they are afterwards.
    package static func create(in connection: SQLiteConnection, schema: StoreSchema) throws -> AppleSQLHistoryTables {
        let needed = schema.entities.map { $0.tombstoneSlots.count }.max() ?? 0
        if let tables = try read(from: connection), tables.tombstoneColumns >= needed { return tables }
        try connection.transaction {
            if try !connection.tableExists("ACHANGE") {
                for statement in createStatements { try connection.execute(statement) }
                try AppleSQLPrimaryKeys.insert(
                    [
                        AppleSQLPrimaryKeyRow(entityNumber: changeEntity, name: "CHANGE", superNumber: 0, max: 0),
                        AppleSQLPrimaryKeyRow(entityNumber: transactionEntity, name: "TRANSACTION", superNumber: 0, max: 0),
                        AppleSQLPrimaryKeyRow(entityNumber: stringEntity, name: "TRANSACTIONSTRING", superNumber: 0, max: 0),
                    ], into: connection)
            }
            let columns = Set(try connection.columnNames(of: "ACHANGE"))
            for index in 0..<needed where !columns.contains("ZTOMBSTONE\(index)") {
                try connection.execute("ALTER TABLE ACHANGE ADD COLUMN ZTOMBSTONE\(index) BLOB")
            }
        }
        return AppleSQLHistoryTables(tombstoneColumns: max(needed, try read(from: connection)?.tombstoneColumns ?? 0))
    }
}

extension AppleSQLLayout {
    /// The tables and columns this layout needs that the database lacks, as `TABLE.COLUMN` (or
    /// `TABLE` for a whole table); empty when the file matches.
    package func missingColumns(in connection: SQLiteConnection) throws -> [String] {
        var missing: [String] = []
        func check(_ table: String, _ needed: [String]) throws {
            let present = Set(try connection.columnNames(of: table))
            if present.isEmpty {
                missing.append(table)
                return
            }
            missing += needed.filter { !present.contains($0) }.map { "\(table).\($0)" }
        }
        for table in tables { try check(table.name, ["Z_PK", "Z_ENT", "Z_OPT"] + table.columns.map(\.name)) }
        for join in joinTables { try check(join.name, [join.firstColumn, join.secondColumn] + join.orderColumns) }
        return missing
    }
}
