import CSQLite
import OpenPredicate
import OpenStoreCore

extension SQLiteRowStore {
    /// Writes one save in one `BEGIN IMMEDIATE` transaction; the caller holds the lock.
    ///
    /// 1. Uniqueness constraints (`UniquenessCheck`, each value looked up through the unique
    ///    index): a violation refuses the save before anything is written.
    /// 2. Deletes, inserts, updates (`SQLiteRowWriter`); a row with an expected version is
    ///    written only if its `Z_OPT` still has it. Rows that had another version (or were gone)
    ///    roll the transaction back and are reported, as the file has them after the rollback,
    ///    in a `SaveConflictError`.
    /// 3. `COMMIT`. When it fails with an I/O error (`SQLITE_IOERR…`), SQLite may or may not
    ///    have made the transaction durable: the error says the outcome is unknown
    ///    (`SQLiteStoreError.outcomeUnknown`) rather than that the save failed. Other failures
    ///    (`SQLITE_BUSY`, `SQLITE_FULL`, …) roll back and are plain errors.
    func save(_ changes: SaveChanges) throws {
        let connection = file.connection
        let writer = SQLiteRowWriter(connection: connection, layout: file.layout)
        guard connection.isAutocommit else {
            throw SQLiteStoreError.operation("A transaction is already open on \(connection.url.path)", path: connection.url.path)
        }
        try connection.execute("BEGIN IMMEDIATE")
        var stale: [ObjectKey] = []
        do {
            let violations = try UniquenessCheck(schema: schema).violations(in: changes) { entityID, slots, values in
                let keys = try writer.keys(of: entityID, slots: slots, values: values)
                return keys.isEmpty ? [] : try SQLiteRowReader(connection: connection, layout: file.layout).rows(for: keys)
            }
            guard violations.isEmpty else { throw SaveConflictError(constraintConflicts: violations) }
            stale += try writer.delete(changes.deleted, expectedVersions: changes.expectedVersions)
            try writer.insert(changes.inserted)
            stale += try writer.update(changes.updated, expectedVersions: changes.expectedVersions)
        } catch {
            rollBack(connection)
            throw error
        }
        guard stale.isEmpty else {
            rollBack(connection)
            let current = try SQLiteRowReader(connection: connection, layout: file.layout).rows(for: stale)
            let byKey = Dictionary(current.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
            throw SaveConflictError(
                versionConflicts: stale.map { key in
                    VersionConflict(key: key, expectedVersion: changes.expectedVersions[key] ?? 0, current: byKey[key])
                })
        }
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
    private func rollBack(_ connection: SQLiteConnection) {
        connection.resetCachedStatements()
        if !connection.isAutocommit { try? connection.execute("ROLLBACK") }
    }
}
