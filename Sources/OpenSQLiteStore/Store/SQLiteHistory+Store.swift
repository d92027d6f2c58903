import OpenPredicate
import OpenSQLStore
import OpenStoreCore

/// Persistent history of the SQLite store (`AppleSQLHistoryTables` describes the layout).
///
/// A save that carries a `HistoryTransactionDraft` writes it inside the save's `BEGIN
/// IMMEDIATE` transaction (`write(_:changes:)`, called by `SQLiteRowStore.write(_:)`), so the
/// rows and their history are committed or rolled back together. The store must have been
/// opened with `tracksHistory` (which creates the tables); a file opened without it keeps no
/// history of the saves made through it, and a later reader of its history will miss them
/// (Apple warns the same way: tracking must stay on once it was turned on).
extension SQLiteRowStore {
    /// Writes `draft` as the next transaction; the caller holds the lock, inside the save's
    /// transaction.
    func writeHistory(_ draft: HistoryTransactionDraft) throws {
        let connection = file.connection
        guard let tables = historyTables else {
            throw SQLStoreError.operation(
                "Can't record persistent history in \(connection.url.path): the store was opened without history tracking",
                path: connection.url.path)
        }
        try SQLHistory(session: connection, layout: file.layout, tables: tables).write(draft)
    }

    /// The file's history tables; the caller holds the lock.
    /// - Throws: `HistoryUnavailableError` when the file has none.
    private func requireHistoryTables() throws -> AppleSQLHistoryTables {
        if let historyTables { return historyTables }
        if let tables = try AppleSQLHistoryTables.read(from: file.connection) { return tables }
        throw HistoryUnavailableError("The store \(file.connection.url.path) has no persistent history tables")
    }

    package func history(after transactionNumber: Int64?, limit: Int?) throws -> [HistoryTransactionRecord] {
        try withLock {
            try SQLHistory(session: file.connection, layout: file.layout, tables: try requireHistoryTables())
                .records(after: transactionNumber, limit: limit)
        }
    }

    package func deleteHistory(before transactionNumber: Int64) throws {
        try refuseIfReadOnly("delete persistent history")
        try withLock {
            let connection = file.connection
            let tables = try requireHistoryTables()
            try connection.transaction {
                try SQLHistory(session: connection, layout: file.layout, tables: tables).delete(before: transactionNumber)
            }
        }
    }

    /// The highest transaction number handed out (`Z_PRIMARYKEY.Z_MAX` of `TRANSACTION`), which
    /// stays when the transactions are deleted; nil when none was.
    package func lastHistoryTransactionNumber() throws -> Int64? {
        try withLock {
            let connection = file.connection
            return try SQLHistory(session: connection, layout: file.layout, tables: try requireHistoryTables())
                .lastTransactionNumber()
        }
    }
}
