import Foundation
import OpenSQLStore

extension SQLStoreReport {
    /// The report of the SQLite store file at `url`, read straight from its tables (opened
    /// read-only), with its journal mode.
    /// - Throws: `NSPersistentStoreOpenError` when the file can't be opened,
    ///   `NSPersistentStoreInvalidTypeError` when it is not a Core Data store, `NSSQLiteError`.
    package static func sqliteFile(at url: URL) throws -> SQLStoreReport {
        let connection = try SQLiteConnection(url: url, mode: .readOnly)
        let metadata = try AppleSQLMetadata.read(from: connection)
        let journalMode = try connection.journalMode()
        let entities = try AppleSQLPrimaryKeys.read(from: connection)
        return SQLStoreReport(
            metadata: metadata, entities: entities, rowCounts: try rowCounts(entities, connection), journalMode: journalMode)
    }

    /// Counts each entity's rows in its root's table (`Z` + the root's name in capitals, as
    /// Apple names tables), by `Z_ENT`.
    private static func rowCounts(_ entities: [AppleSQLPrimaryKeyRow], _ connection: SQLiteConnection) throws -> [Int: Int] {
        let tables = Set(try connection.schemaObjectNames(type: "table"))
        let tableNames = AppleSQLPrimaryKeys.tableNames(of: entities)
        var counts: [Int: Int] = [:]
        for entity in entities {
            guard let table = tableNames[entity.entityNumber] else { continue }
            // Only a table the file has, spelled with identifier characters, is ever named in SQL.
            guard tables.contains(table), table.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }) else {
                continue
            }
            let statement = try connection.statement("SELECT count(*) FROM \(table) WHERE Z_ENT = ?")
            defer { statement.reset() }
            try statement.bind([.integer(Int64(entity.entityNumber))])
            if try statement.step() { counts[entity.entityNumber] = Int(statement.int64(at: 0)) }
        }
        return counts
    }
}
