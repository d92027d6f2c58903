import OpenPredicate
import OpenStoreCore

/// Reads whole rows of entities into `RowSnapshot`s, in the schema's slot order: the simplest
/// correct read path (every row of the entities asked for, in `Z_PK` order). Compiled fetches
/// select keys with SQL and read their rows here (`rows(for:)`).
///
/// ```swift
/// let reader = SQLiteRowReader(connection: connection, layout: layout)
/// let cars = try reader.rows(entityIDs: schema.entity(carID).familyIDs)  // Car, SportCar, …
/// ```
///
/// Attributes decode by column index straight into `StoreValue`s (`SQLiteStatement.value(at:kind:)`).
/// A to-one is `.object(key)` (the key's entity from the `Z<n>_` column when the destination has
/// sub-entities); a to-many is `.objects(keys)` from the inverse's column or the join table (one
/// query per relationship, not per row), in order for an ordered one and by `Z_PK` otherwise;
/// transient and unsupported slots are `.null`. Rows whose `Z_ENT` is not in the schema are left
/// out.
package struct SQLiteRowReader {
    package let connection: SQLiteConnection
    package let layout: SQLiteLayout

    package init(connection: SQLiteConnection, layout: SQLiteLayout) {
        self.connection = connection
        self.layout = layout
    }

    /// Every row whose entity is in `entityIDs` (schema numbers), table by table, each table in
    /// `Z_PK` order.
    package func rows(entityIDs: Set<Int>) throws -> [RowSnapshot] {
        var result: [RowSnapshot] = []
        for (index, table) in layout.tables.enumerated() {
            let wanted = table.entityIDs.filter(entityIDs.contains)
            guard !wanted.isEmpty else { continue }
            try readTable(index, entities: wanted, into: &result)
        }
        return result
    }

    /// The rows of `keys` that exist, in the order of `keys` (one query per table, the primary
    /// keys bound as one JSON array read through `json_each`). A key whose row has another entity
    /// than the key says is left out.
    package func rows(for keys: [ObjectKey]) throws -> [RowSnapshot] {
        var keysByTable: [Int: [Int64]] = [:]
        for key in keys where layout.entities.indices.contains(key.entityID - 1) {
            keysByTable[layout.entities[key.entityID - 1].table, default: []].append(key.primaryKey)
        }
        var found: [ObjectKey: RowSnapshot] = [:]
        for (tableIndex, primaryKeys) in keysByTable.sorted(by: { $0.key < $1.key }) {
            var rows: [RowSnapshot] = []
            try readTable(tableIndex, entities: layout.tables[tableIndex].entityIDs, primaryKeys: primaryKeys, into: &rows)
            for row in rows { found[row.key] = row }
        }
        return keys.compactMap { found[$0] }
    }

    /// How one slot is read from the current row.
    private enum SlotReader {
        case null
        case attribute(Int32, AttributeKind)
        case toOne(Int32, entityColumn: Int32?, destination: Int)
        /// Members by owner primary key, from `memberships[index]`.
        case toMany(Int)
    }

    private func readTable(
        _ tableIndex: Int, entities: [Int], primaryKeys: [Int64]? = nil, into result: inout [RowSnapshot]
    ) throws {
        let table = layout.tables[tableIndex]
        var columnIndexes: [String: Int32] = [:]
        for (offset, column) in table.columns.enumerated() { columnIndexes[column.name] = Int32(offset + 3) }
        var memberships: [[Int64: [ObjectKey]]] = []
        var readers: [Int: [SlotReader]] = [:]
        for id in entities {
            readers[id] = try layout.entities[id - 1].slots.map { slot -> SlotReader in
                switch slot {
                case .transient, .unsupported: return .null
                case .attribute(let column, let kind):
                    return columnIndexes[column].map { .attribute($0, kind) } ?? .null
                case .toOne(let column, let entityColumn, let destination):
                    guard let index = columnIndexes[column] else { return .null }
                    return .toOne(index, entityColumn: entityColumn.flatMap { columnIndexes[$0] }, destination: destination)
                case .toManyByInverse, .toManyByJoin:
                    memberships.append(try members(of: slot))
                    return .toMany(memberships.count - 1)
                }
            }
        }
        let numbers = entities.map { layout.entityNumber(of: $0) }
        let columns = (["Z_PK", "Z_ENT", "Z_OPT"] + table.columns.map(\.name)).joined(separator: ", ")
        var conditions: [String] = []
        var arguments: [StoreValue] = []
        if numbers.count != table.entityIDs.count {
            conditions.append("Z_ENT IN (\(numbers.map { _ in "?" }.joined(separator: ", ")))")
            arguments += numbers.map { .integer(Int64($0)) }
        }
        if let primaryKeys {
            conditions.append("Z_PK IN (SELECT value FROM json_each(?))")
            arguments.append(.string("[" + primaryKeys.map(String.init).joined(separator: ",") + "]"))
        }
        let filter = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        let statement = try connection.statement("SELECT \(columns) FROM \(table.name)\(filter) ORDER BY Z_PK")
        if !arguments.isEmpty { try statement.bind(arguments) }
        while try statement.step() {
            let primaryKey = statement.int64(at: 0)
            guard let entityID = layout.entityID(forNumber: Int(statement.int64(at: 1))), let slotReaders = readers[entityID]
            else {
                continue
            }
            var values: [StoreValue] = []
            values.reserveCapacity(slotReaders.count)
            for reader in slotReaders {
                switch reader {
                case .null:
                    values.append(.null)
                case .attribute(let index, let kind):
                    values.append(statement.value(at: index, kind: kind))
                case .toOne(let index, let entityColumn, let destination):
                    if statement.isNull(at: index) {
                        values.append(.null)
                    } else {
                        let entity =
                            entityColumn.flatMap { layout.entityID(forNumber: Int(statement.int64(at: $0))) } ?? destination
                        values.append(.object(ObjectKey(entityID: entity, primaryKey: statement.int64(at: index))))
                    }
                case .toMany(let index):
                    values.append(.objects(memberships[index][primaryKey] ?? []))
                }
            }
            result.append(
                RowSnapshot(
                    key: ObjectKey(entityID: entityID, primaryKey: primaryKey), version: statement.int64(at: 2), values: values))
        }
    }

    /// The members of a to-many relationship for every owner, with one query.
    private func members(of slot: SQLiteSlot) throws -> [Int64: [ObjectKey]] {
        let sql: String
        switch slot {
        case .toManyByInverse(let tableIndex, let column, let orderColumn, _):
            let table = layout.tables[tableIndex].name
            let order = orderColumn.map { "\($0), " } ?? ""
            sql = "SELECT \(column), Z_PK, Z_ENT FROM \(table) WHERE \(column) IS NOT NULL ORDER BY \(column), \(order)Z_PK"
        case .toManyByJoin(let joinIndex, let ownColumn, let memberColumn, let orderColumn, let destination):
            let join = layout.joinTables[joinIndex].name
            let table = layout.table(of: destination).name
            let order = orderColumn.map { "j.\($0), " } ?? ""
            sql = """
                SELECT j.\(ownColumn), d.Z_PK, d.Z_ENT FROM \(join) j JOIN \(table) d ON d.Z_PK = j.\(memberColumn) \
                ORDER BY j.\(ownColumn), \(order)d.Z_PK
                """
        default:
            return [:]
        }
        let statement = try connection.statement(sql)
        var members: [Int64: [ObjectKey]] = [:]
        while try statement.step() {
            guard let entity = layout.entityID(forNumber: Int(statement.int64(at: 2))) else { continue }
            members[statement.int64(at: 0), default: []].append(ObjectKey(entityID: entity, primaryKey: statement.int64(at: 1)))
        }
        return members
    }
}
