import OpenSQLStore
import OpenSQLiteStore

extension NSPersistentStore {
    /// For an SQLite store, SQLite's `integrity_check` and every to-one key that names no row
    /// of its destination (or a row of another entity), read from the file; nil for other
    /// stores. The `coredata check` command prints them.
    package func checkFile() throws -> (integrity: [String], danglingKeys: [DanglingToOneKey])? {
        guard let rows = (self as? RowBackedPersistentStore)?.rows as? SQLiteRowStore else { return nil }
        return try rows.checkFile()
    }
}
