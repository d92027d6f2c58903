import OpenPredicate
import OpenStoreCore

/// The `NSError`s the SQLite store throws: `NSCocoaErrorDomain`, Core Data's code, and a message
/// naming the culprit. The culprit is also in `userInfo`: the store file under
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
    /// `NSPersistentStoreInvalidTypeError`: the file is not a store of this type.
    static let invalidTypeCode = 134_000
    /// `NSPersistentStoreIncompatibleVersionHashError`: the store's model is not this model.
    static let incompatibleVersionHashCode = 134_100
    /// `NSPersistentStoreOpenError`: the store cannot be opened.
    static let openCode = 134_080
    /// `NSPersistentStoreIncompatibleSchemaError`: the tables do not match the model.
    static let incompatibleSchemaCode = 134_020
    /// `NSPersistentStoreOperationError`: an operation the store cannot carry out.
    static let operationCode = 134_070
    /// `NSPersistentStoreUnsupportedRequestTypeError`: a request the store does not support.
    static let unsupportedRequestCode = 134_091

    /// A failed SQLite call: SQLite's message, result code and, when there was one, the SQL.
    static func sqlite(_ message: String, resultCode: Int32, sql: String?, path: String?) -> NSError {
        var reason = "SQLite error \(resultCode): \(message)"
        if let sql { reason += " (SQL: \(sql))" }
        var info: [String: Any] = ["NSSQLiteErrorDomain": Int(resultCode)]
        if let sql { info["SQL"] = sql }
        return make(code: sqliteCode, reason: reason, path: path, extra: info)
    }

    /// A store file that cannot be opened (missing, not a database, unreadable).
    static func open(_ reason: String, path: String?, resultCode: Int32? = nil) -> NSError {
        var info: [String: Any] = [:]
        if let resultCode { info["NSSQLiteErrorDomain"] = Int(resultCode) }
        return make(code: openCode, reason: reason, path: path, extra: info)
    }

    /// A database that is SQLite but not a Core Data store (no `Z_METADATA`, bad metadata).
    /// `damagedMetadata` marks metadata that is there but cannot be read
    /// (`userInfo["NSStoreMetadataDamaged"] = true`).
    static func invalidType(_ reason: String, path: String?, damagedMetadata: Bool = false) -> NSError {
        make(code: invalidTypeCode, reason: reason, path: path, extra: damagedMetadata ? [damagedMetadataKey: true] : [:])
    }

    /// The `userInfo` key, set to `true`, of an error about damaged store metadata.
    static let damagedMetadataKey = "NSStoreMetadataDamaged"

    /// A store written for another model: the entities whose hashes differ.
    static func incompatibleVersionHashes(_ reason: String, entities: [String], path: String?) -> NSError {
        make(code: incompatibleVersionHashCode, reason: reason, path: path, extra: ["entities": entities])
    }

    /// Tables or columns the model needs and the file lacks.
    static func incompatibleSchema(_ reason: String, path: String?) -> NSError {
        make(code: incompatibleSchemaCode, reason: reason, path: path, extra: [:])
    }

    /// `NSPersistentStoreSaveError`: a save whose outcome is unknown.
    static let saveCode = 134_030
    /// The `userInfo` key, set to `true`, of a save error whose outcome is unknown.
    static let outcomeUnknownKey = "NSPersistentStoreSaveOutcomeUnknown"

    /// A save that failed after its commit point (an I/O error reported by `COMMIT`): the file
    /// may or may not hold it. `NSPersistentStoreSaveError` with `outcomeUnknownKey` set, SQLite's
    /// code and the SQLite error under `NSUnderlyingErrorKey`.
    static func outcomeUnknown(resultCode: Int32, underlying: NSError, path: String) -> NSError {
        make(
            code: saveCode,
            reason: "The outcome of the save to \(path) is unknown: SQLite reported an I/O error (\(resultCode)) when "
                + "committing, so the file may or may not hold the save. Fetch again before saving these changes anew. "
                + "SQLite said: \(underlying.localizedDescription)",
            path: path,
            extra: [outcomeUnknownKey: true, "NSSQLiteErrorDomain": Int(resultCode), NSUnderlyingErrorKey: underlying])
    }

    /// A save that needs primary keys `Z_PRIMARYKEY.Z_MAX` cannot give (it would pass
    /// `Int64.max`): `NSPersistentStoreSaveError`, nothing written.
    static func keysExhausted(_ reason: String, path: String) -> NSError {
        make(code: saveCode, reason: reason, path: path, extra: [:])
    }

    /// A request the store cannot carry out (unknown entity, bad value for a column).
    static func operation(_ reason: String, path: String? = nil) -> NSError {
        make(code: operationCode, reason: reason, path: path, extra: [:])
    }

    /// A fetch with a part Apple's SQL store cannot run (a block predicate, a comparator sort, a
    /// custom `FUNCTION()`, two to-many steps in a key path): the reason names the part and why.
    ///
    /// **Differences from Apple:** Apple's SQL store raises `NSInvalidArgumentException`
    /// ("unsupported predicate", "to-many key not allowed here"); here the fetch throws an
    /// `NSError` with `NSPersistentStoreUnsupportedRequestTypeError` (134091), the code Apple
    /// uses for requests a store does not support.
    static func unsupportedFetch(_ reason: String, path: String?) -> NSError {
        make(
            code: unsupportedRequestCode, reason: "The SQLite store can't run this fetch: \(reason)", path: path,
            extra: [:])
    }

    /// `NSMigrationError`: a migration that could not be carried out.
    static let migrationCode = 134_110
    /// `NSMigrationConstraintViolationError`: migrated rows break a uniqueness constraint.
    static let migrationConstraintCode = 134_111

    /// A migration that failed; nothing of it was kept. `entity` and `property`, when given, are
    /// in `userInfo` (`"entity"`, `"property"`).
    static func migration(
        _ reason: String, path: String?, code: Int = migrationCode, entity: String? = nil, property: String? = nil,
        underlying: NSError? = nil
    ) -> NSError {
        var extra: [String: Any] = [:]
        if let entity { extra["entity"] = entity }
        if let property { extra["property"] = property }
        if let underlying { extra[NSUnderlyingErrorKey] = underlying }
        return make(code: code, reason: reason, path: path, extra: extra)
    }

    private static func make(code: Int, reason: String, path: String?, extra: [String: Any]) -> NSError {
        var info: [String: Any] = [NSLocalizedDescriptionKey: reason, NSLocalizedFailureReasonErrorKey: reason]
        if let path { info[NSFilePathErrorKey] = path }
        for (key, value) in extra { info[key] = value }
        return NSError(domain: NSCocoaErrorDomain, code: code, userInfo: info)
    }
}
