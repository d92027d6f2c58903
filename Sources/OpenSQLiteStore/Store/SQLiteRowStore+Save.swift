import CSQLite
import OpenPredicate
import OpenSQLStore
import OpenStoreCore

extension SQLiteRowStore {
    /// Writes one save in one `BEGIN IMMEDIATE` transaction; the caller holds the lock.
    ///
    /// 1. Uniqueness constraints (`UniquenessCheck`, each value looked up through the unique
    ///    index): a violation refuses the save before anything is written.
    /// 2. Deletes, inserts, updates (`SQLRowWriter`); a row with an expected version is
    ///    written only if its `Z_OPT` still has it. Rows that had another version (or were gone)
    ///    roll the transaction back and are reported, as the file has them after the rollback,
    ///    in a `SaveConflictError`.
    /// 3. `COMMIT`. When it fails with an I/O error (`SQLITE_IOERR…`), SQLite may or may not
    ///    have made the transaction durable: the error says the outcome is unknown
    ///    (`SQLiteStoreError.outcomeUnknown`) rather than that the save failed. Other failures
    ///    (`SQLITE_BUSY`, `SQLITE_FULL`, …) roll back and are plain errors.
    func save(_ changes: SaveChanges) throws {
        try write(changes)
        try commitWritten()
    }

    /// Writes a save in an open `BEGIN IMMEDIATE` transaction (steps 1 and 2 of `save(_:)`),
    /// rolling back and throwing when it is refused; the caller holds the lock.
    func write(_ changes: SaveChanges) throws {
        let connection = file.connection
        let writer = SQLRowWriter(session: connection, layout: file.layout, triggerKeptColumns: file.triggerKeptColumns)
        guard connection.isAutocommit else {
            throw SQLStoreError.operation("A transaction is already open on \(connection.url.path)", path: connection.url.path)
        }
        try connection.execute("BEGIN IMMEDIATE")
        var stale: [ObjectKey] = []
        do {
            let violations = try UniquenessCheck(schema: schema).violations(in: changes) { entityID, slots, values in
                let keys = try writer.keys(of: entityID, slots: slots, values: values)
                return keys.isEmpty ? [] : try SQLRowReader(session: connection, layout: file.layout).rows(for: keys)
            }
            guard violations.isEmpty else { throw SaveConflictError(constraintConflicts: violations) }
            stale += try writer.delete(changes.deleted, expectedVersions: changes.expectedVersions)
            try writer.insert(changes.inserted)
            stale += try writer.update(changes.updated, expectedVersions: changes.expectedVersions)
            if let history = changes.history, stale.isEmpty { try writeHistory(history) }
        } catch {
            rollBack(connection)
            throw error
        }
        guard stale.isEmpty else {
            rollBack(connection)
            let current = try SQLRowReader(session: connection, layout: file.layout).rows(for: stale)
            let byKey = Dictionary(current.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
            throw SaveConflictError(
                versionConflicts: stale.map { key in
                    VersionConflict(key: key, expectedVersion: changes.expectedVersions[key] ?? 0, current: byKey[key])
                })
        }
    }

    /// Commits the transaction `write(_:)` left open (step 3 of `save(_:)`); the caller holds
    /// the lock.
    func commitWritten() throws {
        let connection = file.connection
        connection.resetCachedStatements()
        do {
            try connection.execute("COMMIT")
            if let injected = injectedCommitResult {
                throw SQLiteStoreError.sqlite(
                    "injected COMMIT failure", resultCode: injected, sql: "COMMIT", path: connection.url.path)
            }
        } catch let error as NSError {
            let resultCode = (error.userInfo["NSSQLiteErrorDomain"] as? Int).map(Int32.init) ?? SQLITE_ERROR
            rollBack(connection)
            if resultCode & 0xFF == SQLITE_IOERR {
                throw SQLiteStoreError.outcomeUnknown(resultCode: resultCode, underlying: error, path: connection.url.path)
            }
            throw error
        }
    }

    /// Ends an open transaction, ignoring errors (the transaction may already be gone).
    /// Writes a save and keeps its transaction open (and the store locked) until the prepared
    /// save is committed or rolled back.
    package func prepare(_ changes: SaveChanges) throws -> PreparedSave {
        try refuseIfReadOnly("save changes")
        lock.lock()
        do {
            try write(changes)
        } catch {
            lock.unlock()
            throw error
        }
        return PreparedSQLiteSave(store: self)
    }

    func rollBack(_ connection: SQLiteConnection) {
        connection.resetCachedStatements()
        if !connection.isAutocommit { try? connection.execute("ROLLBACK") }
    }
}

/// A save written in an open transaction, waiting for its `COMMIT`; the store's lock is held
/// until it ends.
private final class PreparedSQLiteSave: PreparedSave {
    private var store: SQLiteRowStore?

    init(store: SQLiteRowStore) {
        self.store = store
    }

    func commit() throws {
        guard let store else { return }
        self.store = nil
        defer { store.lock.unlock() }
        try store.commitWritten()
    }

    func rollBack() {
        guard let store else { return }
        self.store = nil
        store.rollBack(store.file.connection)
        store.lock.unlock()
    }

    deinit { rollBack() }
}
