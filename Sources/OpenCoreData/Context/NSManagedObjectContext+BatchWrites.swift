import OpenStoreCore

/// What the three batch requests share: running a store's set-based write, and writing rows
/// read first, each with Apple's errors.
extension NSManagedObjectContext {
    /// Writes the rows of a batch request that reads before it writes (a delete whose rules reach
    /// other rows, an insert, an update computed row by row) as one save of rows; a save that changed the same rows meanwhile
    /// refuses it with `NSPersistentStoreSaveConflictsError`, nothing written.
    func applyBatchChanges(_ changes: SaveChanges, in store: RowBackedPersistentStore, named request: String) throws {
        guard !changes.isEmpty else { return }
        do {
            try store.rows.apply(changes)
        } catch is SaveConflictError {
            throw CoreDataError.make(
                code: NSPersistentStoreSaveConflictsError,
                reason: "\(request) conflicted with a save that changed the same rows meanwhile; nothing was written")
        }
    }

    /// Runs a batch write in one store, its refusals as Apple's errors: a store that runs none
    /// (the in-memory store) or a write it can't run in SQL gives
    /// `NSPersistentStoreUnsupportedRequestTypeError`.
    func runBatch(_ write: BatchWrite, in store: RowBackedPersistentStore, named request: String) throws -> BatchWriteOutcome {
        do {
            return try store.rows.execute(write)
        } catch is BatchWriteUnsupportedError {
            throw CoreDataError.make(
                code: NSPersistentStoreUnsupportedRequestTypeError,
                reason: "\(request) is not supported by the \(store.type) store (as with Apple's Core Data: batch requests "
                    + "run in SQL stores); fetch the objects and change them instead")
        } catch let refused as BatchWriteRefusedError {
            throw CoreDataError.make(
                code: NSPersistentStoreUnsupportedRequestTypeError, reason: "\(request) can't run in the store: \(refused.reason)"
            )
        }
    }
}
