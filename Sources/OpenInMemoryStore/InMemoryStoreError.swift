import OpenPredicate
import OpenStoreCore

/// The `NSError`s the in-memory store throws: `NSCocoaErrorDomain`, Core Data's code, and a
/// message naming the culprit (also under `entity`, `objectKey` and `keyPath` in `userInfo`).
enum InMemoryStoreError {
    /// `NSPersistentStoreSaveError`: a save the store refused.
    static let saveCode = 134_030
    /// `NSPersistentStoreOperationError`: a fetch or key request the store could not run.
    static let operationCode = 134_070

    static func save(_ reason: String, key: ObjectKey? = nil, entity: String? = nil) -> NSError {
        make(code: saveCode, reason: reason, key: key, entity: entity, keyPath: nil)
    }

    static func operation(_ reason: String, entity: String? = nil, keyPath: String? = nil) -> NSError {
        make(code: operationCode, reason: reason, key: nil, entity: entity, keyPath: keyPath)
    }

    /// An evaluation error (from a throwing twin) re-thrown as a fetch error that keeps it as
    /// the underlying error.
    static func evaluation(_ error: Error, entity: String, what: String) -> NSError {
        let underlying = error as NSError
        let error = make(
            code: operationCode, reason: "Can't evaluate \(what) on \(entity): \(underlying.localizedDescription)",
            key: nil, entity: entity, keyPath: nil)
        var info = error.userInfo
        info[NSUnderlyingErrorKey] = underlying
        return NSError(domain: error.domain, code: error.code, userInfo: info)
    }

    private static func make(code: Int, reason: String, key: ObjectKey?, entity: String?, keyPath: String?) -> NSError {
        var info: [String: Any] = [NSLocalizedDescriptionKey: reason, NSLocalizedFailureReasonErrorKey: reason]
        if let key { info["objectKey"] = key.description }
        if let entity { info["entity"] = entity }
        if let keyPath { info["keyPath"] = keyPath }
        return NSError(domain: NSCocoaErrorDomain, code: code, userInfo: info)
    }
}
