import OpenPredicate

/// One save for one store: the rows to insert, the rows to rewrite, the keys to delete, and for
/// rewritten and deleted rows the version (`Z_OPT`) the saver last saw.
///
/// ```swift
/// var changes = SaveChanges(updated: [row])            // row.version is the new version
/// changes.expectedVersions[row.key] = row.version - 1  // refused if the store has another
/// try store.apply(changes)
/// ```
///
/// A store applies all of it or nothing. It refuses the whole save with `SaveConflictError`
/// when a row it should rewrite or delete has another version than expected (or is gone), or
/// when the save would leave two rows with the same values for a uniqueness constraint.
package struct SaveChanges: Sendable {
    /// New rows, each with its primary key reserved.
    package var inserted: InsertedRows
    /// Changed rows; `version` is the version the row has after the save.
    package var updated: [RowSnapshot]
    /// Rows to delete.
    package var deleted: [ObjectKey]
    /// The version the saver last saw of updated and deleted rows (optimistic locking); a key
    /// without an entry is written whatever its version.
    package var expectedVersions: [ObjectKey: Int64]
    /// The persistent-history transaction to record with the save; nil when the store was added
    /// without `NSPersistentHistoryTrackingKey` (then no history is written). A store writes it
    /// in the save's own transaction, all or nothing with the rows, as the next transaction
    /// number. **Default:** nil.
    package var history: HistoryTransactionDraft?

    package init(
        inserted: [RowSnapshot] = [], updated: [RowSnapshot] = [], deleted: [ObjectKey] = [],
        expectedVersions: [ObjectKey: Int64] = [:], history: HistoryTransactionDraft? = nil
    ) {
        self.inserted = InsertedRows(inserted)
        self.updated = updated
        self.deleted = deleted
        self.expectedVersions = expectedVersions
        self.history = history
    }

    /// Whether there is nothing to write.
    package var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }
}

/// A save a store refused because of conflicts; nothing was written. The context turns it into
/// `NSMergeConflict`s (`NSManagedObjectMergeError`) or `NSConstraintConflict`s
/// (`NSManagedObjectConstraintMergeError`) and resolves them with its merge policy.
///
/// Constraint conflicts are checked first: a save that has both reports only those.
package struct SaveConflictError: Error, Sendable {
    /// Rows changed or deleted by someone else since the saver saw them.
    package var versionConflicts: [VersionConflict]
    /// Uniqueness constraints the save would break.
    package var constraintConflicts: [ConstraintViolation]

    package init(versionConflicts: [VersionConflict] = [], constraintConflicts: [ConstraintViolation] = []) {
        self.versionConflicts = versionConflicts
        self.constraintConflicts = constraintConflicts
    }
}

/// A row whose version is not the one the saver expected.
package struct VersionConflict: Sendable {
    /// The row the save would rewrite or delete.
    package let key: ObjectKey
    /// The version the saver last saw.
    package let expectedVersion: Int64
    /// The row as the store has it now; nil when it was deleted.
    package let current: RowSnapshot?

    package init(key: ObjectKey, expectedVersion: Int64, current: RowSnapshot?) {
        self.key = key
        self.expectedVersion = expectedVersion
        self.current = current
    }
}

/// Rows that would share the values of a uniqueness constraint after a save.
package struct ConstraintViolation: Sendable {
    /// The entity that declares the constraint.
    package let entityID: Int
    /// The constraint's properties, as slots of `entityID` (and of its sub-entities).
    package let slots: [Int]
    /// The values the rows share, in `slots` order.
    package let values: [StoreValue]
    /// Rows of the save (inserted or updated) that have the values, in save order.
    package let keys: [ObjectKey]
    /// The store's row that has the values already and is not part of the save; nil when only
    /// rows of the save collide.
    package let existing: RowSnapshot?

    package init(entityID: Int, slots: [Int], values: [StoreValue], keys: [ObjectKey], existing: RowSnapshot?) {
        self.entityID = entityID
        self.slots = slots
        self.values = values
        self.keys = keys
        self.existing = existing
    }
}
