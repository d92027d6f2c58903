import Foundation

/// The `NSError`s both SQL stores throw about Apple's layout, whatever the database:
/// `NSCocoaErrorDomain`, Core Data's code, and a message naming the culprit. The store is named
/// in `userInfo` under `NSFilePathErrorKey` (a SQLite file's path, or a PostgreSQL store's URL
/// without its password), entity names under `entities`. Each store adds its own errors
/// (`SQLiteStoreError`, `PostgreSQLStoreError`).
package enum SQLStoreError {
    /// `NSPersistentStoreInvalidTypeError`: the file is not a store of this type.
    package static let invalidTypeCode = 134_000
    /// `NSPersistentStoreIncompatibleVersionHashError`: the store's model is not this model.
    package static let incompatibleVersionHashCode = 134_100
    /// `NSPersistentStoreOpenError`: the store cannot be opened.
    package static let openCode = 134_080
    /// `NSPersistentStoreIncompatibleSchemaError`: the tables do not match the model.
    package static let incompatibleSchemaCode = 134_020
    /// `NSPersistentStoreOperationError`: an operation the store cannot carry out.
    package static let operationCode = 134_070
    /// `NSPersistentStoreUnsupportedRequestTypeError`: a request the store does not support.
    package static let unsupportedRequestCode = 134_091
    /// `NSPersistentStoreSaveError`: a save that failed, or whose outcome is unknown.
    package static let saveCode = 134_030
    /// The `userInfo` key, set to `true`, of a save error whose outcome is unknown.
    package static let outcomeUnknownKey = "NSPersistentStoreSaveOutcomeUnknown"
    /// `NSMigrationError`: a migration that could not be carried out.
    package static let migrationCode = 134_110
    /// `NSMigrationConstraintViolationError`: migrated rows break a uniqueness constraint.
    package static let migrationConstraintCode = 134_111
    /// The `userInfo` key, set to `true`, of an error about damaged store metadata.
    package static let damagedMetadataKey = "NSStoreMetadataDamaged"

    /// A database that is not a Core Data store of this type (no `Z_METADATA`, bad metadata).
    /// `damagedMetadata` marks metadata that is there but cannot be read
    /// (`userInfo["NSStoreMetadataDamaged"] = true`).
    package static func invalidType(_ reason: String, path: String?, damagedMetadata: Bool = false) -> NSError {
        make(code: invalidTypeCode, reason: reason, path: path, extra: damagedMetadata ? [damagedMetadataKey: true] : [:])
    }

    /// A store written for another model: the entities whose hashes differ.
    package static func incompatibleVersionHashes(_ reason: String, entities: [String], path: String?) -> NSError {
        make(code: incompatibleVersionHashCode, reason: reason, path: path, extra: ["entities": entities])
    }

    /// Tables or columns the model needs and the store lacks.
    package static func incompatibleSchema(_ reason: String, path: String?) -> NSError {
        make(code: incompatibleSchemaCode, reason: reason, path: path, extra: [:])
    }

    /// A save that needs primary keys `Z_PRIMARYKEY.Z_MAX` cannot give (it would pass
    /// `Int64.max`): `NSPersistentStoreSaveError`, nothing written.
    package static func keysExhausted(_ reason: String, path: String) -> NSError {
        make(code: saveCode, reason: reason, path: path, extra: [:])
    }

    /// A request the store cannot carry out (unknown entity, bad value for a column).
    package static func operation(_ reason: String, path: String? = nil) -> NSError {
        make(code: operationCode, reason: reason, path: path, extra: [:])
    }

    /// A migration that failed; nothing of it was kept. `entity` and `property`, when given, are
    /// in `userInfo` (`"entity"`, `"property"`).
    package static func migration(
        _ reason: String, path: String?, code: Int = migrationCode, entity: String? = nil, property: String? = nil,
        underlying: NSError? = nil
    ) -> NSError {
        var extra: [String: Any] = [:]
        if let entity { extra["entity"] = entity }
        if let property { extra["property"] = property }
        if let underlying { extra[NSUnderlyingErrorKey] = underlying }
        return make(code: code, reason: reason, path: path, extra: extra)
    }

    /// An error of `code` with `reason` as its description and failure reason, `path` under
    /// `NSFilePathErrorKey`, and `extra` in its `userInfo`.
    package static func make(code: Int, reason: String, path: String?, extra: [String: Any]) -> NSError {
        var info: [String: Any] = [NSLocalizedDescriptionKey: reason, NSLocalizedFailureReasonErrorKey: reason]
        if let path { info[NSFilePathErrorKey] = path }
        for (key, value) in extra { info[key] = value }
        return NSError(domain: NSCocoaErrorDomain, code: code, userInfo: info)
    }
}
