import Foundation
import OpenPredicate
import OpenStoreCore

/// Writes new rows in Apple's layout: the table row, the `Z<n>_` entity columns of to-ones into
/// hierarchies, `Z_FOK_` positions of ordered to-manys, join-table rows of many-to-manys, and
/// `Z_PRIMARYKEY.Z_MAX`. Run it inside a transaction (`SQLiteConnection.transaction`, or the
/// PostgreSQL store's); the same writer serves both databases (`SQLSession`).
///
/// ```swift
/// try connection.transaction { try SQLRowWriter(session: connection, layout: layout).insert(rows) }
/// ```
///
/// Both sides of a relationship are expected to agree (the coordinator keeps them so): a
/// one-to-many is written from the to-one side's column, a many-to-many from either side (a pair
/// is stored once), an ordered one-to-many's positions from the to-many side.
///
/// Updates rewrite every stored column of the row, `Z_OPT` (the row's new version), the
/// positions of its ordered one-to-manys and its join-table rows (deleted and written again from
/// the row's members); deletes remove the row and its join-table rows. Rows that pointed at a
/// deleted row are expected among the updates (the context nullifies or cascades first).
package struct SQLRowWriter<Session: SQLSession> {
    package let session: Session
    package let layout: AppleSQLLayout
    /// Columns the file's triggers keep (`TABLE.COLUMN`), left out of updates.
    package let triggerKeptColumns: Set<String>
    /// Whether inserts raise `Z_PRIMARYKEY.Z_MAX` to the highest key written. **Default:** true.
    /// A store that hands out every key through `Z_MAX` first (the PostgreSQL store) turns it
    /// off, so that saves do not all lock the same `Z_PRIMARYKEY` row until they commit.
    package var notesUsedKeys = true
    /// Where the insert and update statements of each entity are kept between saves (a store's
    /// own); nil: made once per call. **Default:** nil.
    package var kept: SQLWriteStatements?

    package init(session: Session, layout: AppleSQLLayout, triggerKeptColumns: Set<String> = []) {
        self.session = session
        self.layout = layout
        self.triggerKeptColumns = triggerKeptColumns
    }

    /// The gap between the `Z_FOK_` keys of neighbouring members.
    static var orderStep: Int64 { 1024 }

    /// Inserts `rows` (each with a primary key already reserved or chosen). The rows of an entity
    /// go many to a statement (`INSERT … VALUES (…), (…), …`, `SQLColumnStatement.batchSize` at
    /// most): on PostgreSQL each statement is a round trip to the server, and SQLite runs one
    /// statement of 256 rows in about two thirds of the time of 256 statements of one row.
    ///
    /// Values of attributes in Apple's external data layout are written as their columns, a
    /// large one in a new file first (`encodingExternalData(_:previous:)`).
    ///
    /// `progress` is told how many rows are written as it goes (a store copied into another,
    /// `SQLStoreTransfer`): a row counts half once its table row is written, and whole once its
    /// to-many members are too, so the count rises to `rows.count`, statement by statement.
    /// - Throws: `NSPersistentStoreOperationError` for a row of an unknown entity or with the
    ///   wrong number of values; the database's error when it refuses (a duplicate `Z_PK`);
    ///   `NSPersistentStoreSaveError` when a value's file can't be written.
    package func insert(_ rows: [RowSnapshot], progress: (Int) -> Void = { _ in }) throws {
        try insert(InsertedRows(rows), progress: progress)
    }

    /// `insert(_:progress:)` for rows read one at a time: each row is made as its statement
    /// binds it (a context's inserted objects), and read again only for its to-many members.
    package func insert(_ rows: InsertedRows, progress: (Int) -> Void = { _ in }) throws {
        // Table rows written, then rows whose to-many members are written too (`progress`).
        var written = 0
        var linked = 0
        func report(_ rowsWritten: Int) {
            written += rowsWritten
            progress((written + linked) / 2)
        }
        // The rows of the entity being read now, and those of entities read before, waiting.
        var current: InsertBatch?
        var waiting: [Int: InsertBatch] = [:]
        var done: [InsertBatch] = []
        for index in 0..<rows.count {
            let key = rows.key(at: index)
            if current?.entityID != key.entityID {
                if let current { waiting[current.entityID] = current }
                current = try waiting.removeValue(forKey: key.entityID) ?? batch(for: key, of: rows.count)
            }
            guard let batch = current else { continue }
            batch.rows.append(index)
            batch.highestKey = max(batch.highestKey, key.primaryKey)
            if batch.rows.count == batch.statement.batchSize {
                let sql = batch.fullSQL ?? batch.statement.sql(rows: batch.rows.count)
                batch.fullSQL = sql
                try run(sql, batch, rows, from: 0, count: batch.rows.count)
                report(batch.rows.count)
                batch.rows.removeAll(keepingCapacity: true)
            }
        }
        if let current { waiting[current.entityID] = current }
        for (_, rest) in waiting.sorted(by: { $0.key < $1.key }) {
            // The rest in pieces of a power of two rows: few statement texts to prepare and keep.
            var start = 0
            var left = rest.rows.count
            while left > 0 {
                let count = 1 << (Int.bitWidth - 1 - left.leadingZeroBitCount)
                try run(rest.statement.sql(rows: count), rest, rows, from: start, count: count)
                report(count)
                start += count
                left -= count
            }
            done.append(rest)
        }
        // Only rows of entities with to-manys stored apart from the row have members to write.
        let linking = done.filter(\.writesToManys).map(\.entityID)
        let count = rows.count
        for index in 0..<count {
            if !linking.isEmpty, linking.contains(rows.key(at: index).entityID) { try writeToManys(of: rows.row(at: index)) }
            linked += 1
            // Every 256 rows: a call per row would cost more than most rows' to-manys.
            if linked & 255 == 0 || linked == count { progress((written + linked) / 2) }
        }
        guard notesUsedKeys else { return }
        var maxKeys: [Int: Int64] = [:]
        for batch in done { maxKeys[batch.root] = max(maxKeys[batch.root] ?? 0, batch.highestKey) }
        for (root, key) in maxKeys.sorted(by: { $0.key < $1.key }) {
            try AppleSQLPrimaryKeys.noteUsed(key, forRoot: root, in: session)
        }
    }

    /// Runs `sql`, an insert of `count` rows of `batch` from its row `first`, the values bound
    /// by the session straight from the rows (`SQLInsertRows`), each row checked and its large
    /// external values written to their files as it is read.
    private func run(_ sql: String, _ batch: InsertBatch, _ rows: InsertedRows, from first: Int, count: Int) throws {
        let finishes = batch.hasUnsupportedSlots || !batch.externalDataSlots.isEmpty
        let insert = SQLInsertRows(
            rows: rows, positions: batch.rows[first..<(first + count)], entityNumber: Int64(batch.entity.entityNumber),
            columns: batch.statement.bindings, layout: layout, valueCount: batch.entity.slots.count,
            wrongValueCount: { row in valueCountError(row, batch.entity) },
            finish: !finishes
                ? nil
                : { row in
                    if batch.hasUnsupportedSlots { try checkSupported(row, batch.entity) }
                    return try encodingExternalData(row, slots: batch.externalDataSlots)
                })
        try session.runInsert(sql, insert)
    }

    /// The rows of one entity an insert writes, `statement.batchSize` to a statement (a class:
    /// its list grows in place, and a row's turn copies nothing).
    private final class InsertBatch {
        let entityID: Int
        let entity: AppleSQLEntityLayout
        let statement: SQLColumnStatement
        /// The statement's text for a full batch, once one was written.
        var fullSQL: String?
        /// `Z_ENT` of the root of the entity's table.
        let root: Int
        /// Whether a slot of the entity has no column (`AppleSQLSlot.unsupported`).
        let hasUnsupportedSlots: Bool
        /// The slots of attributes in Apple's external data layout (none without its folder).
        let externalDataSlots: [Int]
        /// Whether the entity has to-manys whose members `writeToManys(of:replacing:)` writes: an
        /// ordered one-to-many (`Z_FOK_` positions) or a many-to-many (join-table rows).
        let writesToManys: Bool
        // Used by one insert call on one thread: no dynamic exclusivity checks, on every row.
        /// The indexes (in the rows inserted) of the rows waiting for a statement.
        @exclusivity(unchecked) var rows: [Int] = []
        @exclusivity(unchecked) var highestKey: Int64 = 0

        init(
            entityID: Int, entity: AppleSQLEntityLayout, statement: SQLColumnStatement, root: Int, hasUnsupportedSlots: Bool,
            externalDataSlots: [Int], capacity: Int
        ) {
            self.entityID = entityID
            self.entity = entity
            self.statement = statement
            self.root = root
            self.hasUnsupportedSlots = hasUnsupportedSlots
            self.externalDataSlots = externalDataSlots
            writesToManys = entity.slots.contains { slot in
                switch slot {
                case .toManyByInverse(_, _, .some, _), .toManyByJoin: true
                default: false
                }
            }
            rows.reserveCapacity(capacity)
        }
    }

    /// A new batch for the entity of `key`, one of `count` rows to insert.
    private func batch(for key: ObjectKey, of count: Int) throws -> InsertBatch {
        let entity = try entityLayout(of: key)
        let table = layout.tables[entity.table]
        let statement = keptStatement(key.entityID * 4) { insertStatement(for: entity, table: table) }
        return InsertBatch(
            entityID: key.entityID, entity: entity, statement: statement, root: layout.entityNumber(of: table.rootID),
            hasUnsupportedSlots: entity.slots.contains { if case .unsupported = $0 { true } else { false } },
            externalDataSlots: layout.externalData == nil ? [] : layout.externalDataSlots(of: key.entityID),
            capacity: min(count, statement.batchSize))
    }

    /// Rewrites existing rows: their columns, `Z_OPT` (set to `row.version`), ordered positions
    /// and join-table rows.
    ///
    /// Values of attributes in Apple's external data layout are written as their columns (a
    /// value kept in a file holding the same bytes keeps its file); the files the rows pointed
    /// to before and no longer do are noted, to be removed after the `COMMIT`.
    ///
    /// A row with an entry in `expectedVersions` is rewritten only if its `Z_OPT` is that
    /// version (`WHERE … AND Z_OPT = ?`); otherwise (or when it is gone) its key is returned
    /// and the caller rolls the transaction back.
    /// - Returns: The keys whose version was not the expected one.
    /// - Throws: `NSPersistentStoreOperationError` for a row of an unknown entity, with the wrong
    ///   number of values, or that is not in the file (without an expected version).
    @discardableResult
    package func update(_ newRows: [RowSnapshot], expectedVersions: [ObjectKey: Int64] = [:]) throws -> [ObjectKey] {
        let previous = try externalDataColumns(of: newRows.map(\.key))
        let rows = try encodingExternalData(newRows, previous: previous)
        var conflicts: [ObjectKey] = []
        var statements: [Int: SQLColumnStatement] = [:]
        for row in rows {
            let entity = try entityLayout(of: row.key)
            try checkValues(of: row, against: entity)
            let table = layout.tables[entity.table]
            let expected = expectedVersions[row.key]
            // One statement per entity, and per whether the row's version is checked.
            let variant = row.key.entityID * 4 + 2 + (expected == nil ? 0 : 1)
            let statement =
                statements[variant]
                ?? keptStatement(variant) { updateStatement(for: entity, table: table, checksVersion: expected != nil) }
            statements[variant] = statement
            var values: [StoreValue] = [.integer(row.version)]
            values.reserveCapacity(4 + statement.bindings.count)
            append(statement.bindings, of: row, to: &values)
            values += [.integer(row.key.primaryKey), .integer(Int64(entity.entityNumber))]
            if let expected { values.append(.integer(expected)) }
            let changed = try session.runExpectingChanges(statement.sql, values, rows: 1)
            if !changed, expected != nil {
                conflicts.append(row.key)
                continue
            }
            guard changed else {
                throw session.operationError(
                    "Can't update \(row.key) (\(layout.schema.entity(row.key.entityID).name)): no such row in \(table.name)")
            }
        }
        for row in rows { try writeToManys(of: row, replacing: true) }
        let refused = Set(conflicts)
        noteReplacedExternalData(previous.filter { !refused.contains($0.key) }, by: rows)
        return conflicts
    }

    /// Deletes rows and their join-table rows. The files of their values in Apple's external
    /// data layout are noted, to be removed after the `COMMIT`.
    ///
    /// A key with an entry in `expectedVersions` is deleted only if its row's `Z_OPT` is that
    /// version; otherwise (or when it is gone) it is returned.
    /// - Returns: The keys whose version was not the expected one.
    /// - Throws: `NSPersistentStoreOperationError` for a key of an unknown entity or whose row is
    ///   not in the file (without an expected version).
    @discardableResult
    package func delete(_ keys: [ObjectKey], expectedVersions: [ObjectKey: Int64] = [:]) throws -> [ObjectKey] {
        let previous = try externalDataColumns(of: keys)
        var conflicts: [ObjectKey] = []
        // Keys without an expected version, by entity: deleted many to a statement.
        var unchecked: [Int: [ObjectKey]] = [:]
        for key in keys {
            guard layout.entities.indices.contains(key.entityID - 1) else {
                throw session.operationError("No entity numbered \(key.entityID) in the store's schema")
            }
            guard let expected = expectedVersions[key] else {
                unchecked[key.entityID, default: []].append(key)
                continue
            }
            let entity = layout.entities[key.entityID - 1]
            let table = layout.tables[entity.table]
            let changed = try session.runExpectingChanges(
                "DELETE FROM \(table.name) WHERE Z_PK = ? AND Z_ENT = ? AND Z_OPT = ?",
                [.integer(key.primaryKey), .integer(Int64(entity.entityNumber)), .integer(expected)], rows: 1)
            guard changed else {
                conflicts.append(key)
                continue
            }
            try deleteJoinRows(of: [key])
        }
        for (entityID, keys) in unchecked.sorted(by: { $0.key < $1.key }) {
            let entity = layout.entities[entityID - 1]
            let table = layout.tables[entity.table]
            var start = 0
            while start < keys.count {
                let part = keys[start..<min(start + Self.keysPerStatement, keys.count)]
                start = part.endIndex
                let placeholders = Array(repeating: "?", count: part.count).joined(separator: ", ")
                let changed = try session.runExpectingChanges(
                    "DELETE FROM \(table.name) WHERE Z_PK IN (\(placeholders)) AND Z_ENT = ?",
                    part.map { .integer($0.primaryKey) } + [.integer(Int64(entity.entityNumber))], rows: part.count)
                guard changed else {
                    throw session.operationError(
                        "Can't delete \(part.count) row(s) of \(layout.schema.entity(entityID).name): some are not in \(table.name)"
                    )
                }
                try deleteJoinRows(of: Array(part))
            }
        }
        let refused = Set(conflicts)
        noteReplacedExternalData(previous.filter { !refused.contains($0.key) })
        return conflicts
    }

    /// The most keys one `DELETE` names.
    static var keysPerStatement: Int { 500 }

    /// The keys of the rows of an entity and its sub-entities whose columns for `slots` hold
    /// `values` (uniqueness constraints; a unique index answers it).
    /// - Throws: `NSPersistentStoreOperationError` when a slot has no column.
    package func keys(of entityID: Int, slots: [Int], values: [StoreValue]) throws -> [ObjectKey] {
        var keys: [ObjectKey] = []
        try session.query(try keysQuery(of: entityID, slots: slots), values) { row in
            guard let id = layout.entityID(forNumber: Int(row.int64(at: 1))) else { return }
            keys.append(ObjectKey(entityID: id, primaryKey: row.int64(at: 0)))
        }
        return keys
    }

    /// The query of `keys(of:slots:values:)`, with a `?` for each slot's value.
    package func keysQuery(of entityID: Int, slots: [Int]) throws -> String {
        let entity = layout.entities[entityID - 1]
        var conditions: [String] = []
        for slot in slots {
            switch entity.slots[slot] {
            case .attribute(let column, _), .toOne(let column, _, _):
                conditions.append("\(column) = ?")
            default:
                throw session.operationError(
                    "A uniqueness constraint of \(layout.schema.entity(entityID).name) names a property without a column")
            }
        }
        return "SELECT Z_PK, Z_ENT FROM \(layout.tables[entity.table].name) WHERE \(conditions.joined(separator: " AND "))"
    }

    /// Removes the join-table rows of the many-to-many relationships of objects of one entity.
    private func deleteJoinRows(of keys: [ObjectKey]) throws {
        guard let first = keys.first else { return }
        for storage in layout.entities[first.entityID - 1].slots {
            guard case .toManyByJoin(let joinIndex, let ownColumn, _, _, _) = storage else { continue }
            let placeholders = Array(repeating: "?", count: keys.count).joined(separator: ", ")
            try session.run(
                "DELETE FROM \(layout.joinTables[joinIndex].name) WHERE \(ownColumn) IN (\(placeholders))",
                keys.map { .integer($0.primaryKey) })
        }
    }

    // MARK: - Statements by entity

    /// The statement kept under `key` in `kept` (an entity's insert at `entityID * 4`, its
    /// updates at `+ 2` and, checking the version, `+ 3`), made by `make` the first time;
    /// `make`'s when nothing is kept.
    private func keptStatement(_ key: Int, _ make: () -> SQLColumnStatement) -> SQLColumnStatement {
        guard let kept else { return make() }
        return kept.statement(key, make)
    }

    /// The stored columns of an entity's rows and what each binds; in updates, without the
    /// columns the file's own triggers keep (see `SQLiteAppleFunctions`).
    private func columns(of entity: AppleSQLEntityLayout, table: AppleSQLTable, update: Bool) -> [(String, SQLColumnBinding)] {
        var columns: [(String, SQLColumnBinding)] = []
        for (slot, storage) in entity.slots.enumerated() {
            switch storage {
            case .attribute(let column, _):
                if update && triggerKeptColumns.contains("\(table.name).\(column)") { continue }
                columns.append((column, .value(slot: slot)))
            case .toOne(let column, let entityColumn, _):
                columns.append((column, .destinationKey(slot: slot)))
                if let entityColumn { columns.append((entityColumn, .destinationEntity(slot: slot))) }
            default:
                continue
            }
        }
        return columns
    }

    /// `INSERT INTO <table> (Z_PK, Z_ENT, Z_OPT, <columns>) VALUES (?, …)`.
    private func insertStatement(for entity: AppleSQLEntityLayout, table: AppleSQLTable) -> SQLColumnStatement {
        let columns = columns(of: entity, table: table, update: false)
        let names = (["Z_PK", "Z_ENT", "Z_OPT"] + columns.map(\.0)).joined(separator: ", ")
        let placeholders = Array(repeating: "?", count: columns.count + 3).joined(separator: ", ")
        let sql = "INSERT INTO \(table.name) (\(names)) VALUES (\(placeholders))"
        return SQLColumnStatement(sql: sql, bindings: columns.map(\.1))
    }

    /// `UPDATE <table> SET Z_OPT = ?, <column> = ?, … WHERE Z_PK = ? AND Z_ENT = ?`, and
    /// `AND Z_OPT = ?` when it `checksVersion`.
    private func updateStatement(for entity: AppleSQLEntityLayout, table: AppleSQLTable, checksVersion: Bool)
        -> SQLColumnStatement
    {
        let columns = columns(of: entity, table: table, update: true)
        let assignments = (["Z_OPT"] + columns.map(\.0)).map { "\($0) = ?" }.joined(separator: ", ")
        let sql =
            "UPDATE \(table.name) SET \(assignments) WHERE Z_PK = ? AND Z_ENT = ?" + (checksVersion ? " AND Z_OPT = ?" : "")
        return SQLColumnStatement(sql: sql, bindings: columns.map(\.1))
    }

    /// Appends the values a row binds to `values`.
    private func append(_ bindings: [SQLColumnBinding], of row: RowSnapshot, to values: inout [StoreValue]) {
        for binding in bindings { values.append(binding.value(of: row, layout: layout)) }
    }

    private func entityLayout(of key: ObjectKey) throws -> AppleSQLEntityLayout {
        guard layout.entities.indices.contains(key.entityID - 1) else {
            throw session.operationError("No entity numbered \(key.entityID) in the store's schema")
        }
        return layout.entities[key.entityID - 1]
    }

    /// Refuses a row with the wrong number of values, or with a value this store has no place
    /// for (rather than dropping it: nothing is lost).
    private func checkValues(of row: RowSnapshot, against entity: AppleSQLEntityLayout) throws {
        guard row.values.count == entity.slots.count else { throw valueCountError(row, entity) }
        try checkSupported(row, entity)
    }

    /// The second test of `checkValues(of:against:)`, for a row whose number of values is
    /// checked already (`SQLInsertRows.row(at:)`).
    private func checkSupported(_ row: RowSnapshot, _ entity: AppleSQLEntityLayout) throws {
        for (slot, storage) in entity.slots.enumerated() {
            guard case .unsupported(let reason) = storage else { continue }
            switch row.values[slot] {
            case .null, .objects([]): continue
            default: throw session.operationError("Cannot save \(row.key): \(reason)")
            }
        }
    }

    /// The error for a row whose number of values is not its entity's number of slots.
    private func valueCountError(_ row: RowSnapshot, _ entity: AppleSQLEntityLayout) -> Error {
        let name = layout.schema.entity(row.key.entityID).name
        return session.operationError("A row of \(name) needs \(entity.slots.count) values, not \(row.values.count) (\(row.key))")
    }

    /// Order keys of ordered one-to-manys, join rows of many-to-manys. When `replacing` (a row
    /// that was in the file), the join rows of members the row no longer has go first; the others
    /// stay, so that a position written in this save from the other, ordered side of the
    /// relationship is kept (the members an update does not hold, `.null`, are left alone).
    private func writeToManys(of row: RowSnapshot, replacing: Bool = false) throws {
        let entity = layout.entities[row.key.entityID - 1]
        for (slot, storage) in entity.slots.enumerated() {
            guard case .objects(let members) = row.values[slot] else { continue }
            if replacing, case .toManyByJoin(let joinIndex, let ownColumn, let memberColumn, _, _) = storage {
                let kept = "[" + members.map { String($0.primaryKey) }.joined(separator: ",") + "]"
                let keptMember = session.dialect.inKeyList(memberColumn, "?")
                try session.run(
                    "DELETE FROM \(layout.joinTables[joinIndex].name) WHERE \(ownColumn) = ? AND NOT (\(keptMember))",
                    [.integer(row.key.primaryKey), .string(kept)])
            }
            switch storage {
            case .toManyByInverse(let tableIndex, _, let orderColumn?, _):
                let table = layout.tables[tableIndex].name
                for (position, member) in members.enumerated() {
                    try session.run(
                        "UPDATE \(table) SET \(orderColumn) = ? WHERE Z_PK = ?",
                        [.integer(Int64(position + 1) * SQLRowWriter.orderStep), .integer(member.primaryKey)])
                }
            case .toManyByJoin(let joinIndex, let ownColumn, let memberColumn, let orderColumn, _):
                let join = layout.joinTables[joinIndex].name
                for (position, member) in members.enumerated() {
                    if let orderColumn {
                        try session.run(
                            """
                            INSERT INTO \(join) (\(ownColumn), \(memberColumn), \(orderColumn)) VALUES (?, ?, ?) \
                            ON CONFLICT (\(ownColumn), \(memberColumn)) DO UPDATE SET \(orderColumn) = excluded.\(orderColumn)
                            """,
                            [
                                .integer(row.key.primaryKey), .integer(member.primaryKey),
                                .integer(Int64(position + 1) * SQLRowWriter.orderStep),
                            ])
                    } else {
                        let insert =
                            session.dialect == .sqlite
                            ? "INSERT OR IGNORE INTO \(join) (\(ownColumn), \(memberColumn)) VALUES (?, ?)"
                            : "INSERT INTO \(join) (\(ownColumn), \(memberColumn)) VALUES (?, ?) ON CONFLICT DO NOTHING"
                        try session.run(insert, [.integer(row.key.primaryKey), .integer(member.primaryKey)])
                    }
                }
            default:
                continue
            }
        }
    }
}

/// The statement that writes an entity's rows and what its placeholders bind: the columns depend
/// on the entity alone.
struct SQLColumnStatement {
    let sql: String
    /// What each column placeholder binds, in order (after the leading fixed placeholders).
    let bindings: [SQLColumnBinding]

    /// The most rows one insert statement writes: 256, fewer for wide rows (PostgreSQL binds
    /// at most 65,535 values to a statement, SQLite 32,766).
    var batchSize: Int { max(1, min(256, 32_000 / (3 + bindings.count))) }

    /// An insert statement's text for `rows` rows: its `VALUES` group repeated.
    func sql(rows: Int) -> String {
        guard rows > 1, let open = sql.range(of: " VALUES ", options: .backwards) else { return sql }
        let group = sql[open.upperBound...]
        return sql[..<open.upperBound] + Array(repeating: group, count: rows).joined(separator: ", ")
    }
}

/// The insert and update statements of a layout's entities, made once and kept for the saves of
/// one store (they depend on the entity, the layout and the columns the file's triggers keep,
/// none of which change while a store is open).
package final class SQLWriteStatements: @unchecked Sendable {
    // @unchecked Sendable: `statements` is behind `lock`.

    private let lock = NSLock()
    private var statements: [Int: SQLColumnStatement] = [:]

    package init() {}

    func statement(_ key: Int, _ make: () -> SQLColumnStatement) -> SQLColumnStatement {
        lock.lock()
        defer { lock.unlock() }
        if let kept = statements[key] { return kept }
        let made = make()
        statements[key] = made
        return made
    }
}
