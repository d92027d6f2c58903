import CSQLite
import OpenPredicate
import OpenSQLStore

/// Copies one SQLite database file over another with SQLite's online backup API, so that the
/// copy is consistent (it includes what the source's `-wal` holds) and connections already open
/// on the destination see the new content.
package enum SQLiteBackup {
    /// Replaces the content of the database at `destination` (created if missing) with that of
    /// the database at `source`.
    ///
    /// - Throws: `NSPersistentStoreOpenError` when either file cannot be opened (the source must
    ///   exist and be a database); `NSSQLiteError` when the copy fails.
    package static func copy(from source: URL, to destination: URL) throws {
        let from = try SQLiteConnection(url: source, mode: .readOnly)
        // A new destination stays in the rollback journal until the copy gives it the source's
        // header: SQLite can't copy into a WAL database of another page size (Apple's older
        // stores have 1024-byte pages).
        let to = try SQLiteConnection(url: destination, mode: .create, walWhenNew: false)
        guard let backup = sqlite3_backup_init(to.handle, "main", from.handle, "main") else {
            throw SQLiteStoreError.sqlite(
                "Can't copy \(source.path): \(to.lastErrorMessage)", resultCode: sqlite3_errcode(to.handle), sql: nil,
                path: destination.path)
        }
        let stepped = sqlite3_backup_step(backup, -1)
        let finished = sqlite3_backup_finish(backup)
        guard stepped == SQLITE_DONE, finished == SQLITE_OK else {
            let code = stepped == SQLITE_DONE ? finished : stepped
            throw SQLiteStoreError.sqlite(
                "Can't copy \(source.path): \(String(cString: sqlite3_errstr(code)))", resultCode: code, sql: nil,
                path: destination.path)
        }
    }
}
