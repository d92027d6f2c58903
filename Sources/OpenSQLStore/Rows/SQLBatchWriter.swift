import OpenPredicate
import OpenStoreCore

/// Runs a batch write (`BatchWrite`) as set-based SQL in Apple's layout, in the transaction the
/// caller has open; the same writer serves SQLite and PostgreSQL (`SQLSession`).
///
/// An update is one `UPDATE … AS t0 SET … , Z_OPT = Z_OPT + 1 WHERE …`; a delete removes the
/// join-table rows of the rows' many-to-many relationships (`DELETE FROM Z_1TAGS WHERE Z_1ITEMS
/// IN (SELECT t0.Z_PK FROM … WHERE …)`), then the rows. Keys, when asked for, come back from
/// the statement itself (`RETURNING Z_PK, Z_ENT`). A target given by keys is written entity by
/// entity, the keys bound as one JSON array.
package struct SQLBatchWriter<Session: SQLSession> {
    package let session: Session
    package let layout: AppleSQLLayout

    package init(session: Session, layout: AppleSQLLayout) {
        self.session = session
        self.layout = layout
    }

    /// Runs `batch`, whose plan (if any) `statement` compiled; `statement` is the compiled head
    /// with the plan's condition, or (for a target by keys) the head alone.
    package func run(_ batch: BatchWrite, statement: SQLBatchStatement) throws -> BatchWriteOutcome {
        let returning = batch.returnsKeys || batch.history != nil
        var outcome = BatchWriteOutcome(count: 0, keys: returning ? [] : nil)
        switch batch.target {
        case .plan:
            try write(statement, action: batch.action, returning: returning, into: &outcome)
        case .keys(_, let keys):
            var byEntity: [Int: [Int64]] = [:]
            for key in keys where layout.entities.indices.contains(key.entityID - 1) {
                byEntity[key.entityID, default: []].append(key.primaryKey)
            }
            for (entityID, primaryKeys) in byEntity.sorted(by: { $0.key < $1.key }) {
                let list = "[" + primaryKeys.map(String.init).joined(separator: ",") + "]"
                let condition =
                    "t0.Z_ENT = ? AND " + session.dialect.inKeyList("t0.Z_PK", "?")
                let number = StoreValue.integer(Int64(layout.entities[entityID - 1].entityNumber))
                try write(
                    statement.choosing(condition, [number, .string(list)]), action: batch.action, returning: returning,
                    into: &outcome)
            }
        }
        return outcome
    }

    private func write(
        _ statement: SQLBatchStatement, action: BatchWrite.Action, returning: Bool, into outcome: inout BatchWriteOutcome
    ) throws {
        if case .delete = action { try deleteJoinRows(of: statement) }
        try noteReplacedExternalData(of: statement, action: action)
        let query = statement.query
        guard returning else {
            outcome.count += try session.run(query.sql, query.arguments)
            return
        }
        try session.query(query.sql + " RETURNING Z_PK, Z_ENT", query.arguments) { row in
            outcome.count += 1
            guard let entityID = layout.entityID(forNumber: Int(row.int64(at: 1))) else { return }
            outcome.keys?.append(ObjectKey(entityID: entityID, primaryKey: row.int64(at: 0)))
        }
    }

    /// Notes the files of values in Apple's external data layout that the rows `statement`
    /// writes point to now, in the columns it deletes or sets (a batch update sets such a value
    /// in the row, never in a file): removed once the transaction commits
    /// (`AppleExternalDataFolder`). Nothing without an external data folder.
    private func noteReplacedExternalData(of statement: SQLBatchStatement, action: BatchWrite.Action) throws {
        guard let folder = layout.externalData,
            let table = layout.tables.first(where: { $0.name == statement.table })
        else { return }
        var assigned: Set<String>?
        if case .update(let assignments) = action { assigned = Set(assignments.map(\.property)) }
        var columns: [String] = []
        for entityID in table.entityIDs {
            for slot in layout.externalDataSlots(of: entityID) {
                guard assigned?.contains(layout.schema.entity(entityID).properties[slot].name) ?? true,
                    case .attribute(let column, _) = layout.entities[entityID - 1].slots[slot], !columns.contains(column)
                else { continue }
                columns.append(column)
            }
        }
        guard !columns.isEmpty else { return }
        let sql =
            "SELECT \(columns.map { "t0." + $0 }.joined(separator: ", ")) FROM \(table.name) AS t0"
            + (statement.condition.map { " WHERE " + $0 } ?? "")
        try session.query(sql, statement.conditionArguments) { row in
            for index in columns.indices {
                if let column = row.data(at: Int32(index)) { folder.noteUnreferenced(column: column) }
            }
        }
    }

    /// Deletes the join-table rows of the rows `statement` deletes: those of the many-to-many
    /// relationships of every entity of its table.
    private func deleteJoinRows(of statement: SQLBatchStatement) throws {
        guard let table = layout.tables.first(where: { $0.name == statement.table }) else { return }
        var done = Set<String>()
        for entityID in table.entityIDs {
            for case .toManyByJoin(let joinIndex, let ownColumn, _, _, _) in layout.entities[entityID - 1].slots {
                let join = layout.joinTables[joinIndex].name
                guard done.insert("\(join).\(ownColumn)").inserted else { continue }
                let rows = "SELECT t0.Z_PK FROM \(table.name) AS t0" + (statement.condition.map { " WHERE " + $0 } ?? "")
                try session.run("DELETE FROM \(join) WHERE \(ownColumn) IN (\(rows))", statement.conditionArguments)
            }
        }
    }
}
