import CSQLite
import OpenPredicate
import OpenSQLStore
import OpenStoreCore

extension SQLiteRowStore {
    /// Writes one save; the caller holds the lock.
    ///
    /// 1. Uniqueness constraints (`UniquenessCheck`, each value looked up through the unique
    ///    index): a violation refuses the save before anything is written.
    /// 2. Deletes, inserts, updates (`SQLRowWriter`); a row with an expected version is
    ///    written only if its `Z_OPT` still has it. Rows that had another version (or were gone)
    ///    undo the save's writes and are reported, as the file has them afterwards, in a
    ///    `SaveConflictError`.
    /// 3. `COMMIT` (`commitWritten()`). When it fails with an I/O error (`SQLITE_IOERR…`), SQLite
    ///    may or may not have made the transaction durable: the error says the outcome is unknown
    ///    (`SQLiteStoreError.outcomeUnknown`) rather than that the save failed. Other failures
    ///    (`SQLITE_BUSY`, `SQLITE_FULL`, …) roll back and are plain errors.
    ///
    /// Values of attributes in Apple's external data layout (`AppleExternalDataFolder`): the
    /// files of large values are written in step 2, before their rows; the files the save stops
    /// pointing to are removed after step 3 succeeded; a refused save (its savepoint undone) or
    /// a rolled-back transaction removes the files it wrote; an unknown outcome keeps them all.
    ///
    /// `apply(_:)` runs steps 1 and 2 in a savepoint of the transaction that the saves queued
    /// with it share, and step 3 once for all of them (`commitGroup()`); `prepare(_:)` runs
    /// them in a transaction of the save's own, and step 3 when the prepared save commits.
    ///
    /// - Parameter inSavepoint: writes in a savepoint, beginning the transaction if none is open;
    ///   a refused save undoes its own writes only. Otherwise the save begins its own
    ///   `BEGIN IMMEDIATE` transaction (none may be open) and a refusal rolls it back.
    func write(_ changes: SaveChanges, inSavepoint: Bool = false) throws {
        let connection = file.connection
        do {
            if inSavepoint {
                try inGroupSavepoint { try writeRows(changes) }
                groupHasSaves = true
            } else {
                guard connection.isAutocommit else {
                    throw SQLStoreError.operation(
                        "A transaction is already open on \(connection.url.path)", path: connection.url.path)
                }
                try connection.execute("BEGIN IMMEDIATE")
                do {
                    try writeRows(changes)
                } catch {
                    rollBack(connection)
                    throw error
                }
            }
        } catch let stale as StaleRows {
            // Undone: the rows as the file has them now.
            let current = try SQLRowReader(session: connection, layout: file.layout).rows(for: stale.keys)
            let byKey = Dictionary(current.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
            throw SaveConflictError(
                versionConflicts: stale.keys.map { key in
                    VersionConflict(key: key, expectedVersion: changes.expectedVersions[key] ?? 0, current: byKey[key])
                })
        }
    }

    /// Steps 1 and 2 of `write(_:inSavepoint:)`, in the transaction or savepoint open; throws
    /// `StaleRows` for rows whose version was not the one expected.
    private func writeRows(_ changes: SaveChanges) throws {
        let connection = file.connection
        var writer = SQLRowWriter(session: connection, layout: file.layout, triggerKeptColumns: file.triggerKeptColumns)
        writer.kept = file.writeStatements
        let violations = try UniquenessCheck(schema: schema).violations(in: changes) { entityID, slots, values in
            let keys = try writer.keys(of: entityID, slots: slots, values: values)
            return keys.isEmpty ? [] : try SQLRowReader(session: connection, layout: file.layout).rows(for: keys)
        }
        guard violations.isEmpty else { throw SaveConflictError(constraintConflicts: violations) }
        var stale = try writer.delete(changes.deleted, expectedVersions: changes.expectedVersions)
        try writer.insert(changes.inserted)
        stale += try writer.update(changes.updated, expectedVersions: changes.expectedVersions)
        guard stale.isEmpty else { throw StaleRows(keys: stale) }
        if let history = changes.history { try writeHistory(history) }
    }

    /// Runs a batch request's write (`RowStore.execute(_:)`) in a transaction of its own:
    /// set-based SQL (`SQLBatchWriter`), then its persistent history, then `COMMIT`
    /// (`commitWritten()`). Not in a savepoint of the saves' group: over many rows, SQLite's
    /// savepoint journal costs a third of the statement.
    package func execute(_ batch: BatchWrite) throws -> BatchWriteOutcome {
        try refuseIfReadOnly("run a batch request")
        let (statement, write) = try compileBatch(batch)
        return try withLock {
            let connection = file.connection
            try connection.execute("BEGIN IMMEDIATE")
            let outcome: BatchWriteOutcome
            do {
                outcome = try SQLBatchWriter(session: connection, layout: file.layout).run(write, statement: statement)
                if let history = write.history(of: outcome.keys ?? [], schema: schema) { try writeHistory(history) }
            } catch {
                rollBack(connection)
                throw error
            }
            try commitWritten()
            return outcome
        }
    }

    /// Rows a save expected at another version, or gone.
    private struct StaleRows: Error {
        var keys: [ObjectKey]
    }

    /// Runs `body` in a savepoint of the transaction the calls of one group share (see
    /// `apply(_:)`), beginning it if none is open; when `body` throws, its writes are undone and
    /// the transaction stays open for the rest of the group. The caller holds the lock.
    func inGroupSavepoint<T>(_ body: () throws -> T) throws -> T {
        let connection = file.connection
        // An error may have made SQLite roll the shared transaction back, with the writes of the
        // calls before this one: they are lost, and so is this one.
        if groupTransactionOpen && connection.isAutocommit { throw groupRolledBack() }
        if connection.isAutocommit {
            try connection.execute("BEGIN IMMEDIATE")
            groupTransactionOpen = true
        }
        try connection.execute("SAVEPOINT save")
        let mark = file.layout.externalData?.mark()
        do {
            let value = try body()
            try connection.execute("RELEASE save")
            return value
        } catch {
            connection.resetCachedStatements()
            try? connection.execute("ROLLBACK TO save")
            try? connection.execute("RELEASE save")
            if let mark { file.layout.externalData?.rollBack(to: mark) }
            throw error
        }
    }

    /// Commits the transaction the calls of one group share (see `apply(_:)`), if one is open:
    /// every call of the group may have been refused before writing, and a refused `BEGIN` opens
    /// none.
    func commitGroup() throws {
        defer { (groupTransactionOpen, groupHasSaves) = (false, false) }
        guard groupTransactionOpen else { return }
        guard !file.connection.isAutocommit else {
            file.layout.externalData?.transactionRolledBack()
            throw groupRolledBack()
        }
        try commitWritten(injectingFailure: groupHasSaves)
    }

    /// The shared transaction of a group of saves is gone: SQLite rolled it back after an error.
    private func groupRolledBack() -> Error {
        let path = file.connection.url.path
        return SQLStoreError.operation(
            "SQLite rolled back the save's transaction after an error in \(path); nothing was saved", path: path)
    }

    /// Commits the transaction `write(_:inSavepoint:)` left open (its step 3); the caller holds
    /// the lock. `injectingFailure`: false spares this `COMMIT` the test hook `testingCommitResult` (a
    /// group of key reservations only).
    func commitWritten(injectingFailure: Bool = true) throws {
        let connection = file.connection
        connection.resetCachedStatements()
        do {
            try connection.execute("COMMIT")
            if injectingFailure, let injected = injectedCommitResult {
                throw SQLiteStoreError.sqlite(
                    "injected COMMIT failure", resultCode: injected, sql: "COMMIT", path: connection.url.path)
            }
            file.layout.externalData?.transactionCommitted()
        } catch let error as NSError {
            let resultCode = (error.userInfo["NSSQLiteErrorDomain"] as? Int).map(Int32.init) ?? SQLITE_ERROR
            // Whether the rows point to the files written is not known: keep them all.
            if resultCode & 0xFF == SQLITE_IOERR { file.layout.externalData?.transactionOutcomeUnknown() }
            rollBack(connection)
            if resultCode & 0xFF == SQLITE_IOERR {
                throw SQLiteStoreError.outcomeUnknown(resultCode: resultCode, underlying: error, path: connection.url.path)
            }
            throw error
        }
    }

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

    /// Ends an open transaction, ignoring errors (the transaction may already be gone), and
    /// removes the files of external values it wrote.
    func rollBack(_ connection: SQLiteConnection) {
        connection.resetCachedStatements()
        if !connection.isAutocommit { try? connection.execute("ROLLBACK") }
        file.layout.externalData?.transactionRolledBack()
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
