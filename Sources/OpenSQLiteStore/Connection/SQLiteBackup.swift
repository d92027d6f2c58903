import CSQLite
import Foundation
import OpenPredicate
import OpenSQLStore

/// Copies one SQLite database file over another with SQLite's online backup API, so that the
/// copy is consistent (it includes what the source's `-wal` holds) and connections already open
/// on the destination see the new content; and the values the source keeps in files beside it
/// (Apple's external data layout, `AppleExternalData`) into the destination's folder.
package enum SQLiteBackup {
    /// Replaces the content of the database at `destination` (created if missing) with that of
    /// the database at `source`, and the files of its external data folder with the source's.
    ///
    /// The source's files are copied first (a file of the same name, named by a UUID, is the same
    /// value and is kept), then the database, then the destination's files the source does not
    /// have are removed: the destination's rows never point to a file that is not there.
    ///
    /// - Throws: `NSPersistentStoreOpenError` when either file cannot be opened (the source must
    ///   exist and be a database); `NSSQLiteError` when the copy fails;
    ///   `NSPersistentStoreOperationError` when a file of the external data folder can't be
    ///   copied.
    package static func copy(from source: URL, to destination: URL) throws {
        let stale = try copyExternalData(from: source, to: destination)
        try copyDatabase(from: source, to: destination)
        for file in stale { try? FileManager.default.removeItem(at: file) }
    }

    /// Copies the files of the source's external data folder that the destination's lacks; the
    /// destination's files the source lacks (to remove once the database is copied).
    private static func copyExternalData(from source: URL, to destination: URL) throws -> [URL] {
        guard !SQLiteConnection.isInMemory(source), !SQLiteConnection.isInMemory(destination) else { return [] }
        let from = AppleExternalData.folder(forStoreAt: source)
        let to = AppleExternalData.folder(forStoreAt: destination)
        guard from.standardizedFileURL.path != to.standardizedFileURL.path else { return [] }
        let manager = FileManager.default
        let names = Set((try? manager.contentsOfDirectory(atPath: from.path)) ?? [])
        let existing = Set((try? manager.contentsOfDirectory(atPath: to.path)) ?? [])
        for name in names.subtracting(existing).sorted() {
            let target = to.appendingPathComponent(name, isDirectory: false)
            do {
                try manager.createDirectory(at: to, withIntermediateDirectories: true)
                try manager.copyItem(at: from.appendingPathComponent(name, isDirectory: false), to: target)
            } catch {
                throw SQLStoreError.operation(
                    "Can't copy the store \(source.path) to \(destination.path): the file \(target.path) can't be written "
                        + "(\(error.localizedDescription))", path: destination.path)
            }
        }
        return existing.subtracting(names).filter { UUID(uuidString: $0) != nil }.sorted()
            .map { to.appendingPathComponent($0, isDirectory: false) }
    }

    /// The database alone, through SQLite's online backup API.
    private static func copyDatabase(from source: URL, to destination: URL) throws {
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
