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
/// Values decode through `SQLiteRowDecoder`: by column index, to-many relationships with one
/// query per relationship for the rows read (not per row). Rows whose `Z_ENT` is not in the
/// schema are left out.
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
    /// than the key says is left out. Without `readingToMany`, to-many slots are `.null` (not
    /// loaded).
    package func rows(for keys: [ObjectKey], readingToMany: Bool = true) throws -> [RowSnapshot] {
        var keysByTable: [Int: [Int64]] = [:]
        for key in keys where layout.entities.indices.contains(key.entityID - 1) {
            keysByTable[layout.entities[key.entityID - 1].table, default: []].append(key.primaryKey)
        }
        let tables = keysByTable.sorted(by: { $0.key < $1.key })
        // The common case, a window of one table's rows in `Z_PK` order (as a fetch without sort
        // descriptors gives them): the rows come back in the order asked, no lookup needed.
        if tables.count == 1, let primaryKeys = tables.first?.value, zip(primaryKeys, primaryKeys.dropFirst()).allSatisfy(<) {
            var rows: [RowSnapshot] = []
            rows.reserveCapacity(primaryKeys.count)
            try readTable(
                tables[0].key, entities: layout.tables[tables[0].key].entityIDs, primaryKeys: primaryKeys,
                readingToMany: readingToMany, into: &rows)
            var next = 0
            return rows.filter { row in
                // A row whose entity is not the key's is left out.
                while next < keys.count && keys[next].primaryKey < row.key.primaryKey { next += 1 }
                return next < keys.count && keys[next] == row.key
            }
        }
        var found: [ObjectKey: RowSnapshot] = Dictionary(minimumCapacity: keys.count)
        for index in tables.indices {
            var rows: [RowSnapshot] = []
            try readTable(
                tables[index].key, entities: layout.tables[tables[index].key].entityIDs, primaryKeys: tables[index].value,
                readingToMany: readingToMany, into: &rows)
            for row in rows { found[row.key] = row }
        }
        return keys.compactMap { found[$0] }
    }

    private func readTable(
        _ tableIndex: Int, entities: [Int], primaryKeys: [Int64]? = nil, readingToMany: Bool = true,
        into result: inout [RowSnapshot]
    ) throws {
        let table = layout.tables[tableIndex]
        var decoder = SQLiteRowDecoder(layout: layout, table: tableIndex, entities: entities)
        decoder.readsToMany = readingToMany
        let numbers = entities.map { layout.entityNumber(of: $0) }
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
        let columns = SQLiteRowDecoder.columns(of: table, alias: nil)
        let statement = try connection.statement("SELECT \(columns) FROM \(table.name)\(filter) ORDER BY Z_PK")
        defer { statement.reset() }
        if !arguments.isEmpty { try statement.bind(arguments) }
        let offset = result.count
        while try statement.step() {
            if let row = decoder.decode(statement) { result.append(row) }
        }
        statement.reset()
        let owners: SQLiteRowDecoder.Owners = primaryKeys == nil && conditions.isEmpty ? .wholeTable : .selected
        try decoder.fillToMany(&result, from: offset, connection: connection, owners: owners)
    }
}
