#if PostgreSQL
    import Foundation
    import OpenSQLStore

    /// The `NSError`s the PostgreSQL store throws: `NSCocoaErrorDomain`, Core Data's code (the
    /// SQLite store's for the same situations), and a message naming the store by its URL without
    /// the password, which is also in `userInfo["NSPersistentStoreURL"]`. An error of the server
    /// or the connection is under `NSUnderlyingErrorKey`, its SQLSTATE under `"SQLSTATE"`.
    enum PostgreSQLStoreError {
        /// The `userInfo` key of the store's URL, password removed.
        static let storeKey = "NSPersistentStoreURL"
        /// The `userInfo` key, set to `true`, of a save whose outcome is unknown (as the SQLite
        /// store's `NSPersistentStoreSaveOutcomeUnknown`).
        static let outcomeUnknownKey = "NSPersistentStoreSaveOutcomeUnknown"

        /// `NSPersistentStoreOpenError` (134080): the server cannot be reached or refused the
        /// connection, or the URL is malformed.
        static func open(_ reason: String, store: String, underlying: Error? = nil) -> NSError {
            make(code: 134_080, reason: reason, store: store, underlying: underlying)
        }

        /// `NSPersistentStoreInvalidTypeError` (134000): the schema holds something that is not a
        /// Core Data store of this type.
        static func invalidType(_ reason: String, store: String) -> NSError {
            make(code: 134_000, reason: reason, store: store)
        }

        /// `NSPersistentStoreIncompatibleSchemaError` (134020): tables or columns the model needs
        /// are missing.
        static func incompatibleSchema(_ reason: String, store: String) -> NSError {
            make(code: 134_020, reason: reason, store: store)
        }

        /// `NSPersistentStoreOperationError` (134070): an operation the store cannot carry out.
        static func operation(_ reason: String, store: String, underlying: Error? = nil) -> NSError {
            make(code: 134_070, reason: reason, store: store, underlying: underlying)
        }

        /// `NSPersistentStoreSaveError` (134030): a save the server refused, or keys used up.
        static func save(_ reason: String, store: String, underlying: Error? = nil) -> NSError {
            make(code: 134_030, reason: reason, store: store, underlying: underlying)
        }

        /// `NSPersistentStoreSaveError` (134030) with `outcomeUnknownKey`: the connection was lost
        /// while the save's `COMMIT` was on its way, so the database may or may not hold the save.
        /// The `COMMIT` is never sent again.
        static func outcomeUnknown(store: String, underlying: Error) -> NSError {
            make(
                code: 134_030,
                reason: "The outcome of the save to \(store) is unknown: the connection was lost while committing, so the "
                    + "database may or may not hold the save. Fetch again before saving these changes anew",
                store: store, underlying: underlying, extra: [outcomeUnknownKey: true])
        }

        /// `NSPersistentStoreUnsupportedRequestTypeError` (134091): a fetch with a part a SQL store
        /// cannot run (the same reasons as the SQLite store's).
        static func unsupportedFetch(_ reason: String, store: String) -> NSError {
            make(code: 134_091, reason: "The PostgreSQL store can't run this fetch: \(reason)", store: store)
        }

        private static func make(
            code: Int, reason: String, store: String, underlying: Error? = nil, extra: [String: Any] = [:]
        ) -> NSError {
            var info: [String: Any] = [
                NSLocalizedDescriptionKey: reason, NSLocalizedFailureReasonErrorKey: reason, storeKey: store,
            ]
            if let underlying {
                info[NSUnderlyingErrorKey] = underlying as NSError
                if let error = underlying as? PostgreSQLServerError, let state = error.sqlState { info["SQLSTATE"] = state }
            }
            for (key, value) in extra { info[key] = value }
            return NSError(domain: NSCocoaErrorDomain, code: code, userInfo: info)
        }
    }
#endif
