import Foundation
import OpenStoreCore

/// Persistent history's statements on any SQL store (`SQLSession`): the SQLite store's, and
/// the PostgreSQL store's, in the same layout (`AppleSQLHistoryTables`).
package struct SQLHistory<Session: SQLSession> {
    package let session: Session
    package let layout: AppleSQLLayout
    package let tables: AppleSQLHistoryTables

    package init(session: Session, layout: AppleSQLLayout, tables: AppleSQLHistoryTables) {
        self.session = session
        self.layout = layout
        self.tables = tables
    }

    /// Writes `draft` as the next transaction, inside the save's transaction. The transaction
    /// number's `Z_PRIMARYKEY` row stays locked until the save ends, so numbers are committed in
    /// the order they are handed out.
    package func write(_ draft: HistoryTransactionDraft) throws {
        let schema = layout.schema
        var stringIDs: [String: Int64] = [:]
        func stringID(_ text: String?) throws -> StoreValue {
            guard let text else { return .null }
            if let id = stringIDs[text] { return .integer(id) }
            var found: Int64?
            try session.query(HistorySQL.findString, [.string(text)]) { found = found ?? $0.int64(at: 0) }
            let id: Int64
            if let found {
                id = found
            } else {
                guard
                    let reserved = try AppleSQLPrimaryKeys.reserve(1, forRoot: AppleSQLHistoryTables.stringEntity, in: session)
                        .first
                else { return .null }
                id = reserved
                try session.run(
                    HistorySQL.insertString,
                    [.integer(id), .integer(Int64(AppleSQLHistoryTables.stringEntity)), .null, .string(text)])
            }
            stringIDs[text] = id
            return .integer(id)
        }
        guard
            let number = try AppleSQLPrimaryKeys.reserve(1, forRoot: AppleSQLHistoryTables.transactionEntity, in: session).first
        else { return }
        try session.run(
            HistorySQL.insertTransaction,
            [
                .integer(number), .integer(Int64(AppleSQLHistoryTables.transactionEntity)), .null,
                try stringID(draft.author), try stringID(draft.bundleID), try stringID(draft.contextName),
                try stringID(draft.processID), .double(draft.timestamp.timeIntervalSinceReferenceDate),
                .null, .null, .null, .null, .null,
            ])
        let changeIDs = try AppleSQLPrimaryKeys.reserve(
            draft.changes.count, forRoot: AppleSQLHistoryTables.changeEntity, in: session)
        var orders: [Int: HistoryColumnBitmap.Order] = [:]
        var tombstoneSlots: [Int: [Int]] = [:]
        for (change, id) in zip(draft.changes, changeIDs) {
            guard layout.entities.indices.contains(change.key.entityID - 1) else { continue }
            let entity = schema.entity(change.key.entityID)
            var values: [StoreValue] = [
                .integer(id), .integer(Int64(AppleSQLHistoryTables.changeEntity)), .null, .integer(Int64(change.kind.rawValue)),
                .integer(Int64(layout.entityNumber(of: change.key.entityID))), .integer(change.key.primaryKey),
                .integer(number),
            ]
            if change.kind == .update, let slots = change.updatedSlots {
                let order = orders[entity.id] ?? HistoryColumnBitmap.Order(entity: entity)
                orders[entity.id] = order
                values.append(HistoryColumnBitmap.encode(slots, order: order).map(StoreValue.data) ?? .null)
            } else {
                values.append(.null)
            }
            var sql = HistorySQL.insertChange(tombstones: 0)
            if change.kind == .delete, !change.tombstone.isEmpty {
                let slots = tombstoneSlots[entity.id] ?? entity.tombstoneSlots
                tombstoneSlots[entity.id] = slots
                guard slots.count <= tables.tombstoneColumns else {
                    throw session.operationError(
                        "Can't record the tombstone of \(change.key): ACHANGE has \(tables.tombstoneColumns) ZTOMBSTONE "
                            + "columns, \(slots.count) are needed")
                }
                sql = HistorySQL.insertChange(tombstones: slots.count)
                values += slots.map { change.tombstone[$0] ?? .null }
            }
            try session.run(sql, values)
        }
    }

    /// The transactions after `transactionNumber` (all when nil), oldest first, at most `limit`,
    /// with their changes.
    package func records(after transactionNumber: Int64?, limit: Int?) throws -> [HistoryTransactionRecord] {
        if let limit, limit <= 0 { return [] }
        let schema = layout.schema
        var strings: [Int64: String] = [:]
        try session.query(HistorySQL.allStrings, []) { strings[$0.int64(at: 0)] = $0.string(at: 1) }
        let after = transactionNumber ?? Int64.min
        var records: [HistoryTransactionRecord] = []
        try session.query(
            limit == nil ? HistorySQL.transactions : HistorySQL.transactionsLimited,
            limit.map { [.integer(after), .integer(Int64($0))] } ?? [.integer(after)]
        ) { row in
            func text(_ idColumn: Int32, _ textColumn: Int32) -> String? {
                row.isNull(at: idColumn) ? row.string(at: textColumn) : strings[row.int64(at: idColumn)]
            }
            records.append(
                HistoryTransactionRecord(
                    number: row.int64(at: 0), author: text(2, 6), contextName: text(4, 8), bundleID: text(3, 7),
                    processID: text(5, 9), timestamp: Date(timeIntervalSinceReferenceDate: row.double(at: 1)),
                    changes: []))
        }
        guard let first = records.first, let last = records.last else { return [] }
        var indexByNumber: [Int64: Int] = [:]
        for (index, record) in records.enumerated() { indexByNumber[record.number] = index }
        try session.query(
            HistorySQL.changes(tombstones: tables.tombstoneColumns), [.integer(first.number - 1), .integer(last.number)]
        ) { row in
            guard let index = indexByNumber[row.int64(at: 4)],
                let kind = HistoryChange.Kind(rawValue: Int(row.int64(at: 1))),
                let entityID = layout.entityID(forNumber: Int(row.int64(at: 2)))
            else { return }
            let entity = schema.entity(entityID)
            var change = HistoryChange(
                changeID: row.int64(at: 0), key: ObjectKey(entityID: entityID, primaryKey: row.int64(at: 3)), kind: kind)
            if kind == .update {
                change.updatedSlots = row.data(at: 5).flatMap { HistoryColumnBitmap.decode($0, entity: entity) }
            }
            if kind == .delete {
                for (column, slot) in entity.tombstoneSlots.prefix(tables.tombstoneColumns).enumerated() {
                    guard case .attribute(let kind) = entity.properties[slot].kind else { continue }
                    let value = row.value(at: Int32(6 + column), kind: kind)
                    if value != .null { change.tombstone[slot] = value }
                }
            }
            records[index].changes.append(change)
        }
        return records
    }

    /// Deletes the transactions numbered below `transactionNumber` and their changes; run it in
    /// a transaction.
    package func delete(before transactionNumber: Int64) throws {
        try session.run(HistorySQL.deleteChanges, [.integer(transactionNumber)])
        try session.run(HistorySQL.deleteTransactions, [.integer(transactionNumber)])
    }

    /// The highest transaction number handed out (`Z_PRIMARYKEY.Z_MAX` of `TRANSACTION`), which
    /// stays when the transactions are deleted; nil when none was.
    package func lastTransactionNumber() throws -> Int64? {
        var number: Int64 = 0
        try session.query(HistorySQL.lastTransaction, [.integer(Int64(AppleSQLHistoryTables.transactionEntity))]) {
            number = $0.int64(at: 0)
        }
        return number > 0 ? number : nil
    }
}
