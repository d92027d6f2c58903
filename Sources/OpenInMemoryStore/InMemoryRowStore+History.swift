import OpenPredicate
import OpenStoreCore

/// Persistent history kept in memory: an array of transaction records, appended by the save
/// that carries a `HistoryTransactionDraft` (under the store's lock, with the rows, so a refused
/// save records nothing), numbered from 1 as Apple's `ATRANSACTION.Z_PK` is.
extension InMemoryRowStore {
    /// Records a save's transaction; the caller holds the lock and has written the rows.
    func appendHistory(_ draft: HistoryTransactionDraft) {
        let number = lastHistoryNumbers.transaction + 1
        let record = HistoryTransactionRecord(number: number, draft: draft, firstChangeID: lastHistoryNumbers.change + 1)
        lastHistoryNumbers = (number, lastHistoryNumbers.change + Int64(draft.changes.count))
        historyLog.append(record)
    }

    package func history(after transactionNumber: Int64?, limit: Int?) throws -> [HistoryTransactionRecord] {
        withLock {
            let after = transactionNumber ?? Int64.min
            // Numbers increase along the log: the first one after `after` starts the answer.
            let start = historyLog.firstIndex { $0.number > after } ?? historyLog.endIndex
            let found = historyLog[start...]
            return Array(limit.map { found.prefix(max(0, $0)) } ?? found)
        }
    }

    package func deleteHistory(before transactionNumber: Int64) throws {
        withLock { historyLog.removeAll { $0.number < transactionNumber } }
    }

    package func lastHistoryTransactionNumber() throws -> Int64? {
        withLock { lastHistoryNumbers.transaction > 0 ? lastHistoryNumbers.transaction : nil }
    }
}
