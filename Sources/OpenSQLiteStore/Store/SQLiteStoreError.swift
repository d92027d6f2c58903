import OpenPredicate
import OpenSQLStore
import OpenStoreCore

/// The `NSError`s only the SQLite store throws (the others are `SQLStoreError`'s):
/// `NSCocoaErrorDomain`, Core Data's code, and a message naming the culprit. The culprit is also in `userInfo`: the store file under
/// `NSFilePathErrorKey`, SQLite's result code under `NSSQLiteErrorDomain` (as Apple does), the SQL
/// text under `SQL`, entity names under `entities`.
///
/// ```swift
/// do { try connection.execute("SELEC 1") } catch let error as NSError {
///     error.code                           // 134180 (NSSQLiteError)
///     error.userInfo["SQL"]                // "SELEC 1"
///     error.userInfo["NSSQLiteErrorDomain"] // 1 (SQLITE_ERROR)
/// }
/// ```
enum SQLiteStoreError {
    /// `NSSQLiteError`: SQLite refused a statement.
    static let sqliteCode = 134_180

    /// A failed SQLite call: SQLite's message, result code and, when there was one, the SQL.
    static func sqlite(_ message: String, resultCode: Int32, sql: String?, path: String?) -> NSError {
        var reason = "SQLite error \(resultCode): \(message)"
        if let sql { reason += " (SQL: \(sql))" }
        var info: [String: Any] = ["NSSQLiteErrorDomain": Int(resultCode)]
        if let sql { info["SQL"] = sql }
        return SQLStoreError.make(code: sqliteCode, reason: reason, path: path, extra: info)
    }

    /// A store file that cannot be opened (missing, not a database, unreadable).
    static func open(_ reason: String, path: String?, resultCode: Int32? = nil) -> NSError {
        var info: [String: Any] = [:]
        if let resultCode { info["NSSQLiteErrorDomain"] = Int(resultCode) }
        return SQLStoreError.make(code: SQLStoreError.openCode, reason: reason, path: path, extra: info)
    }

    /// A save that failed after its commit point (an I/O error reported by `COMMIT`): the file
    /// may or may not hold it. `NSPersistentStoreSaveError` with `outcomeUnknownKey` set, SQLite's
    /// code and the SQLite error under `NSUnderlyingErrorKey`.
    static func outcomeUnknown(resultCode: Int32, underlying: NSError, path: String) -> NSError {
        SQLStoreError.make(
            code: SQLStoreError.saveCode,
            reason: "The outcome of the save to \(path) is unknown: SQLite reported an I/O error (\(resultCode)) when "
                + "committing, so the file may or may not hold the save. Fetch again before saving these changes anew. "
                + "SQLite said: \(underlying.localizedDescription)",
            path: path,
            extra: [
                SQLStoreError.outcomeUnknownKey: true, "NSSQLiteErrorDomain": Int(resultCode), NSUnderlyingErrorKey: underlying,
            ])
    }

    /// A fetch with a part Apple's SQL store cannot run (a block predicate, a comparator sort, a
    /// custom `FUNCTION()`, two to-many steps in a key path): the reason names the part and why.
    ///
    /// **Differences from Apple:** Apple's SQL store raises `NSInvalidArgumentException`
    /// ("unsupported predicate", "to-many key not allowed here"); here the fetch throws an
    /// `NSError` with `NSPersistentStoreUnsupportedRequestTypeError` (134091), the code Apple
    /// uses for requests a store does not support.
    static func unsupportedFetch(_ reason: String, path: String?) -> NSError {
        SQLStoreError.make(
            code: SQLStoreError.unsupportedRequestCode, reason: "The SQLite store can't run this fetch: \(reason)",
            path: path, extra: [:])
    }
}
