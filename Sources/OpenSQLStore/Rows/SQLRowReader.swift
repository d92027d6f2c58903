import OpenPredicate
import OpenStoreCore

/// Reads whole rows of entities into `RowSnapshot`s, in the schema's slot order: the simplest
/// correct read path (every row of the entities asked for, in `Z_PK` order). Compiled fetches
/// select keys with SQL and read their rows here (`rows(for:)`).
///
/// ```swift
/// let reader = SQLRowReader(session: connection, layout: layout)
/// let cars = try reader.rows(entityIDs: schema.entity(carID).familyIDs)  // Car, SportCar, …
/// ```
///
/// Values decode through `SQLRowDecoder`: by column index, to-many relationships with one
/// query per relationship for the rows read (not per row). Rows whose `Z_ENT` is not in the
/// schema are left out. The same reader serves SQLite and PostgreSQL (`SQLSession`).
package struct SQLRowReader<Session: SQLSession> {
    package let session: Session
    package let layout: AppleSQLLayout

    package init(session: Session, layout: AppleSQLLayout) {
        self.session = session
        self.layout = layout
    }

    /// The row count, the sum of the `Z_OPT` versions and the highest `Z_PK` of each table
    /// holding an entity of `entityIDs`: an insert raises the highest key (keys are never
    /// reused), a delete lowers the count, and every update raises its row's version, by this
    /// library or by Apple's Core Data.
    package func changeStamp(entityIDs: Set<Int>) throws -> [Int64] {
        var stamp: [Int64] = []
        for name in Set(entityIDs.map { layout.table(of: $0).name }).sorted() {
            try session.query("SELECT COUNT(*), CAST(SUM(Z_OPT) AS BIGINT), MAX(Z_PK) FROM \(name)", []) { row in
                stamp += [row.int64(at: 0), row.int64(at: 1), row.int64(at: 2)]
            }
        }
        return stamp
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
    /// keys bound as one JSON array). A key whose row has another entity
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
        var decoder = SQLRowDecoder(layout: layout, table: tableIndex, entities: entities, dialect: session.dialect)
        decoder.readsToMany = readingToMany
        let numbers = entities.map { layout.entityNumber(of: $0) }
        var conditions: [String] = []
        var arguments: [StoreValue] = []
        if numbers.count != table.entityIDs.count {
            conditions.append("Z_ENT IN (\(numbers.map { _ in "?" }.joined(separator: ", ")))")
            arguments += numbers.map { .integer(Int64($0)) }
        }
        if let primaryKeys {
            conditions.append(session.dialect.inKeyList("Z_PK", "?"))
            arguments.append(.string("[" + primaryKeys.map(String.init).joined(separator: ",") + "]"))
        }
        let filter = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        let columns = SQLRowDecoder.columns(of: table, layout: layout, alias: nil, dialect: session.dialect)
        let offset = result.count
        try session.query("SELECT \(columns) FROM \(table.name)\(filter) ORDER BY Z_PK", arguments) { row in
            if let snapshot = try decoder.decode(row) { result.append(snapshot) }
        }
        let owners: SQLRowDecoder.Owners = primaryKeys == nil && conditions.isEmpty ? .wholeTable : .selected
        try decoder.fillToMany(&result, from: offset, session: session, owners: owners)
    }

    /// The members of the to-many relationship at `slot` of each owner's entity, by owner
    /// (`RowStore.members(of:slot:)`): one query per owner entity (the owners' primary keys
    /// bound as one JSON array), through the inverse column or the join table, in order for an
    /// ordered relationship and by `Z_PK` otherwise.
    package func members(of owners: [ObjectKey], slot: Int) throws -> [ObjectKey: [ObjectKey]] {
        var ownersByEntity: [Int: [Int64]] = [:]
        for owner in owners where layout.entities.indices.contains(owner.entityID - 1) {
            ownersByEntity[owner.entityID, default: []].append(owner.primaryKey)
        }
        var result: [ObjectKey: [ObjectKey]] = [:]
        for (entityID, primaryKeys) in ownersByEntity.sorted(by: { $0.key < $1.key }) {
            let entity = layout.entities[entityID - 1]
            guard entity.slots.indices.contains(slot) else { continue }
            let decoder = SQLRowDecoder(layout: layout, table: entity.table, entities: [entityID], dialect: session.dialect)
            let list = "[" + primaryKeys.map(String.init).joined(separator: ",") + "]"
            let members = try decoder.members(of: entity.slots[slot], owners: list, session: session)
            for (owner, keys) in members { result[ObjectKey(entityID: entityID, primaryKey: owner)] = keys }
        }
        return result
    }
}
