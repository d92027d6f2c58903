import OpenInMemoryStore
import OpenPredicate
import OpenSQLStore
import OpenSQLiteStore
import OpenStoreCore

extension NSPersistentStore {
    /// Test hook: how many times the store's back end was asked for rows, by entry point, as
    /// `(fetches, rowLoads, rowBatches)`; zeros for a store that does not count.
    package var testingStoreCalls: (fetches: Int, rowLoads: Int, rowBatches: Int) {
        guard let rows = (self as? RowBackedPersistentStore)?.rows as? InMemoryRowStore else { return (0, 0, 0) }
        let counts = rows.callCounts
        return (counts.fetches, counts.rowLoads, counts.rowBatches)
    }

    /// Test hook: sets the store's call counters back to zero.
    package func resetTestingStoreCalls() {
        ((self as? RowBackedPersistentStore)?.rows as? InMemoryRowStore)?.callCounts = .init()
    }
}

extension NSPersistentStore {
    /// Test hook: for an SQLite store, makes every save run its `COMMIT` and then fail as if
    /// `COMMIT` had returned this SQLite result code (see `SQLiteRowStore.testingCommitResult`);
    /// nil for other stores and by default.
    package var testingCommitResult: Int32? {
        get { ((self as? RowBackedPersistentStore)?.rows as? SQLiteRowStore)?.testingCommitResult }
        set { ((self as? RowBackedPersistentStore)?.rows as? SQLiteRowStore)?.testingCommitResult = newValue }
    }
}
