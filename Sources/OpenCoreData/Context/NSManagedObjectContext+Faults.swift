import OpenPredicate

/// What happens when a fault cannot be loaded. Two causes, two answers, and neither stops the
/// process:
///
/// - **The row is gone** (another context, process or server deleted it; a damaged store's key
///   names no row, or a row of another entity): an *inaccessible fault*. As Apple's Core Data
///   does by default (`shouldDeleteInaccessibleFaults`), the object becomes a deleted object
///   whose values are nil, and the context goes on. With `false`, the failure is reported like
///   a store error below, with `NSManagedObjectReferentialIntegrityError`.
/// - **The store failed** (a lost PostgreSQL connection, a locked or unreadable SQLite file):
///   the object stays a fault, so the next read tries again; meanwhile its values read as nil.
///   The error is kept, and the next `save()` that has changes throws it before writing
///   anything, so that values worked out from a read that failed are not saved unseen: the
///   first failure's code when it is a Cocoa error (else `NSPersistentStoreOperationError`),
///   the store's error under `NSUnderlyingErrorKey`, every failure under `NSDetailedErrorsKey`
///   and the objects under `NSAffectedObjectsErrorKey`. It is thrown once; a save of an object
///   that still cannot be loaded fails every time, so a value set on it is never saved over the
///   row's real values with the others missing. `existingObject(with:)` throws the store's
///   error at once.
///
/// **Differences from Apple:** Apple's Core Data raises `NSObjectInaccessibleException` when
/// `shouldDeleteInaccessibleFaults` is false or the store fails.
extension NSManagedObjectContext {
    /// The most fault failures a context keeps until its next save (the count is still exact).
    static let keptFaultFailures = 100

    /// A fault's row is gone: the object becomes a deleted object with no values, or, when
    /// `shouldHandleInaccessibleFault` says no, stays a fault and the failure is reported.
    func handleInaccessibleFault(_ object: NSManagedObject) {
        if shouldHandleInaccessibleFault(object, for: object.objectID, triggeredByProperty: nil) {
            object.fetchedRow = nil
            object.valuesArePending = false
            object.batchMember = nil
            object.dropValues(keeping: object.extras?.keepingOnlyStore())
            object.inaccessible = true
            object.deleted = true
        } else {
            object.faulted = true
            recordFaultFailure(Self.inaccessibleFaultError(object), for: object)
        }
    }

    /// Keeps a fault's failure for the next `save()` to report.
    func recordFaultFailure(_ error: Error, for object: NSManagedObject) {
        guard faultFailures.count < Self.keptFaultFailures else {
            faultFailureOverflow += 1
            return
        }
        faultFailures.append((error as NSError, object))
    }

    /// The error for a fault whose row is gone.
    static func inaccessibleFaultError(_ object: NSManagedObject) -> NSError {
        CoreDataError.make(
            code: NSManagedObjectReferentialIntegrityError,
            reason: "CoreData could not fulfill a fault for '\(object.objectID)': its row is gone from the store",
            userInfo: [NSAffectedObjectsErrorKey: [object], "objectID": object.objectID])
    }

    /// Before a save writes anything: throws the fault failures kept since the last save (once),
    /// then fails for any object the save would write whose values still cannot be loaded.
    func checkFaultFailures(updated: [NSManagedObject]) throws {
        if !faultFailures.isEmpty {
            let failures = faultFailures
            let total = failures.count + faultFailureOverflow
            faultFailures = []
            faultFailureOverflow = 0
            let first = failures[0]
            throw CoreDataError.make(
                code: first.error.domain == NSCocoaErrorDomain ? first.error.code : NSPersistentStoreOperationError,
                reason: "Not saved: \(total) fault\(total == 1 ? "" : "s") could not be fulfilled since the last save "
                    + "(the first, '\(first.object.objectID)': \(first.error.localizedDescription)); values read from "
                    + "them were nil. Save again to save the changes anyway.",
                userInfo: [
                    NSUnderlyingErrorKey: first.error, NSDetailedErrorsKey: failures.map(\.error),
                    NSAffectedObjectsErrorKey: failures.map(\.object),
                ])
        }
        for object in updated where object.faulted {
            object.fireFault()
            guard object.faulted else { continue }
            let failure = faultFailures.popLast()
            throw CoreDataError.make(
                code: NSPersistentStoreSaveError,
                reason: "Can't save \(object.objectID): its values could not be read from the store"
                    + (failure.map { ": \($0.error.localizedDescription)" } ?? ""),
                userInfo: [NSAffectedObjectsErrorKey: [object]].merging(
                    failure.map { [NSUnderlyingErrorKey: $0.error] } ?? [:], uniquingKeysWith: { $1 }))
        }
    }
}
