import OpenPredicate
import OpenStoreCore

/// Writes new rows in Apple's layout: the table row, the `Z<n>_` entity columns of to-ones into
/// hierarchies, `Z_FOK_` positions of ordered to-manys, join-table rows of many-to-manys, and
/// `Z_PRIMARYKEY.Z_MAX`. Run it inside `SQLiteConnection.transaction`.
///
/// ```swift
/// try connection.transaction { try SQLiteRowWriter(connection: connection, layout: layout).insert(rows) }
/// ```
///
/// Both sides of a relationship are expected to agree (the coordinator keeps them so): a
/// one-to-many is written from the to-one side's column, a many-to-many from either side (a pair
/// is stored once), an ordered one-to-many's positions from the to-many side.
///
/// **Not done yet:** updates and deletes (the save path comes with the coordinator wiring).
package struct SQLiteRowWriter {
    package let connection: SQLiteConnection
    package let layout: SQLiteLayout

    package init(connection: SQLiteConnection, layout: SQLiteLayout) {
        self.connection = connection
        self.layout = layout
    }

    /// The gap between the `Z_FOK_` keys of neighbouring members.
    static let orderStep: Int64 = 1024

    /// Inserts `rows` (each with a primary key already reserved or chosen).
    /// - Throws: `NSPersistentStoreOperationError` for a row of an unknown entity or with the
    ///   wrong number of values; `NSSQLiteError` when SQLite refuses (a duplicate `Z_PK`).
    package func insert(_ rows: [RowSnapshot]) throws {
        var maxKeys: [Int: Int64] = [:]
        for row in rows {
            let entity = try entityLayout(of: row)
            let table = layout.tables[entity.table]
            var columns = ["Z_PK", "Z_ENT", "Z_OPT"]
            var values: [StoreValue] = [
                .integer(row.key.primaryKey), .integer(Int64(entity.entityNumber)), .integer(row.version),
            ]
            for (slot, storage) in entity.slots.enumerated() {
                switch storage {
                case .attribute(let column, _):
                    columns.append(column)
                    values.append(row.values[slot])
                case .toOne(let column, let entityColumn, _):
                    columns.append(column)
                    let key: ObjectKey? = if case .object(let key) = row.values[slot] { key } else { nil }
                    values.append(key.map { .integer($0.primaryKey) } ?? .null)
                    if let entityColumn {
                        columns.append(entityColumn)
                        values.append(key.map { .integer(Int64(layout.entityNumber(of: $0.entityID))) } ?? .null)
                    }
                default:
                    continue
                }
            }
            let placeholders = columns.map { _ in "?" }.joined(separator: ", ")
            try connection.run("INSERT INTO \(table.name) (\(columns.joined(separator: ", "))) VALUES (\(placeholders))", values)
            let root = layout.entityNumber(of: table.rootID)
            maxKeys[root] = max(maxKeys[root] ?? 0, row.key.primaryKey)
        }
        for row in rows { try writeToManys(of: row) }
        for (root, key) in maxKeys { try SQLitePrimaryKeys.noteUsed(key, forRoot: root, in: connection) }
    }

    private func entityLayout(of row: RowSnapshot) throws -> SQLiteEntityLayout {
        guard layout.entities.indices.contains(row.key.entityID - 1) else {
            throw SQLiteStoreError.operation(
                "No entity numbered \(row.key.entityID) in the store's schema", path: connection.url.path)
        }
        let entity = layout.entities[row.key.entityID - 1]
        guard row.values.count == entity.slots.count else {
            let name = layout.schema.entity(row.key.entityID).name
            throw SQLiteStoreError.operation(
                "A row of \(name) needs \(entity.slots.count) values, not \(row.values.count) (\(row.key))",
                path: connection.url.path)
        }
        return entity
    }

    /// Order keys of ordered one-to-manys, join rows of many-to-manys.
    private func writeToManys(of row: RowSnapshot) throws {
        let entity = layout.entities[row.key.entityID - 1]
        for (slot, storage) in entity.slots.enumerated() {
            guard case .objects(let members) = row.values[slot] else { continue }
            switch storage {
            case .toManyByInverse(let tableIndex, _, let orderColumn?, _):
                let table = layout.tables[tableIndex].name
                for (position, member) in members.enumerated() {
                    try connection.run(
                        "UPDATE \(table) SET \(orderColumn) = ? WHERE Z_PK = ?",
                        [.integer(Int64(position + 1) * SQLiteRowWriter.orderStep), .integer(member.primaryKey)])
                }
            case .toManyByJoin(let joinIndex, let ownColumn, let memberColumn, let orderColumn, _):
                let join = layout.joinTables[joinIndex].name
                for (position, member) in members.enumerated() {
                    if let orderColumn {
                        try connection.run(
                            """
                            INSERT INTO \(join) (\(ownColumn), \(memberColumn), \(orderColumn)) VALUES (?, ?, ?) \
                            ON CONFLICT (\(ownColumn), \(memberColumn)) DO UPDATE SET \(orderColumn) = excluded.\(orderColumn)
                            """,
                            [
                                .integer(row.key.primaryKey), .integer(member.primaryKey),
                                .integer(Int64(position + 1) * SQLiteRowWriter.orderStep),
                            ])
                    } else {
                        try connection.run(
                            "INSERT OR IGNORE INTO \(join) (\(ownColumn), \(memberColumn)) VALUES (?, ?)",
                            [.integer(row.key.primaryKey), .integer(member.primaryKey)])
                    }
                }
            default:
                continue
            }
        }
    }
}
