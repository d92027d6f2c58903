import OpenPredicate
import OpenSQLStore
import OpenStoreCore

extension SQLiteRowStore {
    /// Test hook: when set, every save runs its `COMMIT` (that of its group, see
    /// `withGroupLock(_:)`; not that of key reservations alone) and then fails as if `COMMIT` had
    /// returned this SQLite result code (e.g. `SQLITE_IOERR_FSYNC`, 1034), so tests can see how
    /// an error after the commit point is reported. nil (the default) leaves saves alone.
    package var testingCommitResult: Int32? {
        get { injectedCommitResult }
        set { injectedCommitResult = newValue }
    }

    /// Test hook: how many calls wait for the store's lock now.
    package var testingQueuedCalls: Int { lock.waitingCount }
}

extension SQLiteRowStore {
    /// Test hook: how many readers are open, how many calls wait for one, and the most open at
    /// once; nil when the store reads on its own connection (see `readers`).
    package var testingReaders: (opened: Int, waiting: Int, limit: Int)? {
        readers.map { readers in
            let counts = readers.counts
            return (counts.opened, counts.waiting, readers.limit)
        }
    }
}
