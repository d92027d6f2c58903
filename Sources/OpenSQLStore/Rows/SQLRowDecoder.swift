import Foundation
import OpenPredicate
import OpenStoreCore

/// Turns the rows of one table, as a statement returns them (SQLite's or PostgreSQL's: any
/// `SQLRow`), into `RowSnapshot`s in the schema's slot order, reading every value by column
/// index (no dictionary and no `Any` per row).
///
/// ```swift
/// var decoder = SQLRowDecoder(layout: layout, table: tableIndex, entities: [carID, sportCarID])
/// let columns = SQLRowDecoder.columns(of: layout.tables[tableIndex], layout: layout, alias: nil, dialect: .sqlite)
/// let statement = try connection.statement("SELECT " + columns + " FROM ZCAR")
/// var rows: [RowSnapshot] = []
/// while try statement.step() { if let row = try decoder.decode(statement) { rows.append(row) } }
/// try decoder.fillToMany(&rows, session: connection, owners: .selected)
/// ```
///
/// The statement's columns are `Z_PK, Z_ENT, Z_OPT` and then every column of the table in table
/// order (`columns(of:layout:alias:)`), which is what `SQLCompiler` selects for `.rows`. A to-one is
/// `.object(key)` (the key's entity from the `Z<n>_` column when the destination has
/// sub-entities); transient and unsupported slots are `.null`. To-many slots are left empty by
/// `decode` and filled afterwards by `fillToMany`, set-based: one query per to-many relationship
/// for all the rows read (restricted to their primary keys, bound as one JSON array), in order for
/// an ordered relationship and by `Z_PK` otherwise. Rows whose `Z_ENT` is not one of `entities`
/// are skipped; a table of one entity selects that entity's number in place of `Z_ENT`, as
/// Apple's fetches do, so each of its rows reads as that entity's.
///
/// A binary attribute whose file keeps it in Apple's external data layout
/// (`AppleSQLLayout.keepsExternalData(entity:slot:)`) reads as the value's bytes: after the
/// `0x01` marker, or from the file the `0x02` marker names (read when the row is decoded; a
/// missing or unreadable file makes `decode` throw, naming the entity, attribute and file).
///
/// Public, with `SQLRow` and the store values it reads (this module is no product: nothing
/// outside the package sees them), for the two `decode` methods alone: the compiler keeps the
/// body of a public inlinable function for other modules, so each store's fetch loop is
/// specialized for its own rows, with no generic call per column (not so for a package
/// function).
public struct SQLRowDecoder {
    /// How one slot is read from the current row.
    @usableFromInline enum SlotReader {
        case null
        case attribute(Int32, AttributeKind)
        /// A binary value in Apple's external data layout (`AppleExternalData`), of the slot
        /// `slot` of the entity `entity`.
        case externalData(Int32, entity: Int, slot: Int)
        case toOne(Int32, entityColumn: Int32?, destination: Int)
        /// Filled by `fillToMany` from the relationship at `toManySlots[index]`.
        case toMany(Int)
    }

    /// Which owners' members `fillToMany` reads.
    package enum Owners {
        /// Only the owners among the rows decoded (one JSON array of their primary keys).
        case selected
        /// Every row of the table (the rows decoded are the whole table).
        case wholeTable
    }

    @usableFromInline let layout: AppleSQLLayout
    let table: AppleSQLTable
    /// The slot readers of every entity read, one entity's after another's (see `spans`): one
    /// array of trivial values, read per row without a reference taken to it.
    @usableFromInline var readers: [SlotReader] = []
    /// By file entity number (`Z_ENT`): the schema entity ID (0 for numbers that are not read)
    /// and where its slot readers are in `readers`.
    @usableFromInline var spans: [ReaderSpan] = []
    /// The span of every row of a table of one entity, whose select list holds its number in
    /// place of `Z_ENT` (`entityColumn(of:layout:alias:)`): no column read per row.
    @usableFromInline var soleSpan: ReaderSpan?

    /// An entity's schema ID and its slot readers' place in `readers`.
    @usableFromInline struct ReaderSpan {
        @usableFromInline var entityID = 0
        @usableFromInline var start = 0
        @usableFromInline var count = 0
    }
    /// The distinct to-many relationships of the entities read.
    private var toManySlots: [AppleSQLSlot] = []
    /// For each row decoded that has to-many slots: its index in the result, and its slots to
    /// fill (slot index, relationship index).
    @usableFromInline var pending: [(row: Int, primaryKey: Int64, slots: [(slot: Int, relationship: Int)])] = []
    @usableFromInline var decodedCount = 0
    /// Whether a slot read is in Apple's external data layout (`SlotReader.externalData`).
    @usableFromInline let hasExternalData: Bool
    /// Whether to-many slots are read at all: when false, `decode` leaves them `.null` (members
    /// not loaded, see `RowStore.members(of:slot:)`) and `fillToMany` has nothing to do.
    @usableFromInline package var readsToMany = true

    /// A decoder for the rows a fetch of `entityID` selects (its table's entities) in
    /// `dialect`'s select list (`columns(of:layout:alias:dialect:)`), to-many slots not read
    /// (`readsToMany` false).
    package init(layout: AppleSQLLayout, entity entityID: Int, dialect: SQLDialect) {
        let tableIndex = layout.entities[entityID - 1].table
        self.init(layout: layout, table: tableIndex, entities: layout.tables[tableIndex].entityIDs, dialect: dialect)
        readsToMany = false
    }

    /// A decoder for rows of `entities` (schema IDs, all in the table at `tableIndex`) in
    /// `dialect`'s select list (`columns(of:layout:alias:dialect:)`).
    package init(layout: AppleSQLLayout, table tableIndex: Int, entities: [Int], dialect: SQLDialect) {
        self.layout = layout
        self.table = layout.tables[tableIndex]
        var columnIndexes: [String: Int32] = [:]
        for (offset, column) in Self.selectedColumns(of: table, dialect: dialect).enumerated() {
            columnIndexes[column.name] = Int32(offset + 3)
        }
        var toMany: [AppleSQLSlot] = []
        for id in entities where layout.entities.indices.contains(id - 1) {
            let number = layout.entityNumber(of: id)
            if number >= spans.count { spans += Array(repeating: ReaderSpan(), count: number + 1 - spans.count) }
            let entityReaders = layout.entities[id - 1].slots.enumerated().map { slot, storage -> SlotReader in
                switch storage {
                case .transient, .unsupported: return .null
                case .attribute(let column, let kind):
                    guard let index = columnIndexes[column] else { return .null }
                    return layout.keepsExternalData(entity: id, slot: slot)
                        ? .externalData(index, entity: id, slot: slot) : .attribute(index, kind)
                case .toOne(let column, let entityColumn, let destination):
                    guard let index = columnIndexes[column] else { return .null }
                    return .toOne(index, entityColumn: entityColumn.flatMap { columnIndexes[$0] }, destination: destination)
                case .toManyByInverse, .toManyByJoin:
                    if let index = toMany.firstIndex(of: storage) { return .toMany(index) }
                    toMany.append(storage)
                    return .toMany(toMany.count - 1)
                }
            }
            spans[number] = ReaderSpan(entityID: id, start: readers.count, count: entityReaders.count)
            readers += entityReaders
        }
        toManySlots = toMany
        if let entityID = table.soleEntityID, entities.contains(entityID) {
            soleSpan = spans[layout.entityNumber(of: entityID)]
        }
        hasExternalData = readers.contains { if case .externalData = $0 { true } else { false } }
    }

    /// The select list the decoder reads: `Z_PK, Z_ENT, Z_OPT` and every column of the table
    /// (in `selectedColumns(of:dialect:)`'s order), qualified with `alias` when given. On
    /// SQLite, `Z_ENT` is `entityColumn(of:layout:alias:)` (for a table of one entity, its
    /// number). PostgreSQL gets the column itself and the columns in table order: a select list
    /// of the table's columns in their order is one its scans return rows as they are, where a
    /// number in it makes every scanned row projected anew (a filter, sort and limit over 10^5
    /// rows took 25% longer on the server so); the readers skip the column all the same.
    package static func columns(of table: AppleSQLTable, layout: AppleSQLLayout, alias: String?, dialect: SQLDialect)
        -> String
    {
        let prefix = alias.map { $0 + "." } ?? ""
        let entity = dialect == .sqlite ? entityColumn(of: table, layout: layout, alias: alias) : prefix + "Z_ENT"
        let columns = selectedColumns(of: table, dialect: dialect).map { prefix + $0.name }
        return ([prefix + "Z_PK", entity, prefix + "Z_OPT"] + columns).joined(separator: ", ")
    }

    /// The table's columns in the order `dialect`'s select list reads them: on SQLite the last
    /// first. SQLite decodes a row's record header as far as the column a statement reads; read
    /// in table order, the columns decode it one column at a time, and read from the last, in
    /// one pass (a fetch of 10^4 employees of nine columns: about 200 instructions a row fewer
    /// in SQLite, callgrind). PostgreSQL's are in table order (see
    /// `columns(of:layout:alias:dialect:)`).
    static func selectedColumns(of table: AppleSQLTable, dialect: SQLDialect) -> [AppleSQLColumn] {
        dialect == .sqlite ? table.columns.reversed() : table.columns
    }

    /// What a select list reads for `Z_ENT`: the column, or for a table of one entity its number,
    /// as Apple's fetches select (every row of the table is that entity's; the database then
    /// need not decode the column, and readers do not read it: see `soleSpan`).
    package static func entityColumn(of table: AppleSQLTable, layout: AppleSQLLayout, alias: String?) -> String {
        guard let entityID = table.soleEntityID else { return alias.map { $0 + ".Z_ENT" } ?? "Z_ENT" }
        return String(layout.entityNumber(of: entityID))
    }

    /// The current row of `statement` as a snapshot (to-many slots still empty), or nil when its
    /// entity is not one of the decoder's.
    /// - Throws: the error of `AppleExternalDataFolder.value(ofColumn:entity:attribute:)` for a
    ///   value kept in a file that is missing or unreadable.
    @inlinable
    public mutating func decode<Row: SQLRow>(_ statement: Row) throws -> RowSnapshot? {
        guard let span = span(of: statement) else { return nil }
        let primaryKey = statement.int64(at: 0)
        var values: [StoreValue] = []
        values.reserveCapacity(span.count)
        var toMany: [(slot: Int, relationship: Int)] = []
        let readers = self.readers  // as in `decode(_:into:)`
        for slot in 0..<span.count {
            let reader = readers[span.start + slot]
            if readsToMany, case .toMany(let relationship) = reader {
                toMany.append((slot, relationship))
                values.append(.objects([]))
            } else {
                values.append(try value(of: statement, reader))
            }
        }
        if !toMany.isEmpty { pending.append((decodedCount, primaryKey, toMany)) }
        decodedCount += 1
        return RowSnapshot(
            key: ObjectKey(entityID: span.entityID, primaryKey: primaryKey), version: statement.int64(at: 2), values: values)
    }

    /// Adds the current row of `statement` to the block `block` gives for its width (its
    /// entity's slot count; a block with room for a row); false when its entity is not one of
    /// the decoder's. To-many slots stay `.null` (members not loaded), whatever `readsToMany`.
    /// - Throws: as `decode(_:)`; the block is left without the row.
    @inlinable
    public mutating func decode<Row: SQLRow>(
        _ statement: Row, into block: (_ width: Int) -> Unmanaged<RowBlock>
    ) throws -> Bool {
        guard let span = span(of: statement) else { return false }
        // Read from a local: reading `self.readers` between calls of `value(of:_:)` made the
        // compiler copy the whole decoder for each call.
        let readers = self.readers
        // The values first: a value that can't be read leaves no half-initialized row behind.
        var values: [StoreValue]?
        if hasExternalData {
            values = try (0..<span.count).map { try value(of: statement, readers[span.start + $0]) }
        }
        // The block is borrowed for each use (the caller holds it), in closures that capture no
        // more than they need: one capturing the decoder would copy it.
        let block = block(span.count)
        let row = block._withUnsafeGuaranteedRef { $0.nextRow }
        if let values {
            for (slot, value) in values.enumerated() { (row + slot).initialize(to: value) }
        } else {
            for slot in 0..<span.count {
                (row + slot).initialize(to: try value(of: statement, readers[span.start + slot]))
            }
        }
        let key = ObjectKey(entityID: span.entityID, primaryKey: statement.int64(at: 0))
        let version = statement.int64(at: 2)
        block._withUnsafeGuaranteedRef { $0.endRow(key: key, version: version) }
        decodedCount += 1
        return true
    }

    /// Where the slot readers of the current row's entity are, with its schema ID; nil for an
    /// entity not read.
    @inlinable
    func span<Row: SQLRow>(of statement: Row) -> ReaderSpan? {
        if let soleSpan { return soleSpan }
        let number = Int(statement.int64(at: 1))
        guard number >= 0, number < spans.count, spans[number].entityID > 0 else { return nil }
        return spans[number]
    }

    /// The value of one slot of the current row; `.null` for a to-many slot (filled by
    /// `fillToMany` when the decoder reads them).
    @inlinable
    func value<Row: SQLRow>(of statement: Row, _ reader: SlotReader) throws -> StoreValue {
        switch reader {
        case .null, .toMany:
            return .null
        case .attribute(let index, let kind):
            return statement.value(at: index, kind: kind)
        case .externalData(let index, let entity, let slot):
            guard let column = statement.data(at: index) else { return .null }
            return .data(try externalValue(column, entity: entity, slot: slot))
        case .toOne(let index, let entityColumn, let destination):
            if statement.isNull(at: index) { return .null }
            let entity = entityColumn.flatMap { layout.entityID(forNumber: Int(statement.int64(at: $0))) } ?? destination
            return .object(ObjectKey(entityID: entity, primaryKey: statement.int64(at: index)))
        }
    }

    /// The value a column in Apple's external data layout stands for (see `AppleExternalData`).
    @usableFromInline
    func externalValue(_ column: Data, entity: Int, slot: Int) throws -> Data {
        guard let folder = layout.externalData else { return column }
        let schema = layout.schema.entity(entity)
        return try folder.value(ofColumn: column, entity: schema.name, attribute: schema.properties[slot].name)
    }

    /// Fills the to-many slots of the rows decoded so far, which must be `rows[offset...]` in
    /// decoding order: one query per relationship.
    package mutating func fillToMany(
        _ rows: inout [RowSnapshot], from offset: Int = 0, session: some SQLSession, owners: Owners
    ) throws {
        guard !pending.isEmpty else { return }
        var ownerList: String?
        if case .selected = owners {
            var seen = Set<Int64>()
            var keys: [String] = []
            for entry in pending where seen.insert(entry.primaryKey).inserted { keys.append(String(entry.primaryKey)) }
            ownerList = "[" + keys.joined(separator: ",") + "]"
        }
        var members: [[Int64: [ObjectKey]]] = []
        for slot in toManySlots { members.append(try self.members(of: slot, owners: ownerList, session: session)) }
        for entry in pending {
            for (slot, relationship) in entry.slots {
                rows[offset + entry.row].values[slot] = .objects(members[relationship][entry.primaryKey] ?? [])
            }
        }
        pending.removeAll()
    }

    /// The members of a to-many relationship by owner primary key, with one query; only for
    /// `owners` (a JSON array of primary keys) when given.
    package func members(of slot: AppleSQLSlot, owners: String?, session: some SQLSession) throws -> [Int64: [ObjectKey]] {
        let sql: String
        let dialect = session.dialect
        switch slot {
        case .toManyByInverse(let tableIndex, let column, let orderColumn, _):
            let table = layout.tables[tableIndex].name
            let order = orderColumn.map { "\($0), " } ?? ""
            let filter = owners == nil ? "\(column) IS NOT NULL" : dialect.inKeyList(column, "?")
            sql = "SELECT \(column), Z_PK, Z_ENT FROM \(table) WHERE \(filter) ORDER BY \(column), \(order)Z_PK"
        case .toManyByJoin(let joinIndex, let ownColumn, let memberColumn, let orderColumn, let destination):
            let join = layout.joinTables[joinIndex].name
            let table = layout.table(of: destination).name
            let order = orderColumn.map { "j.\($0), " } ?? ""
            let filter = owners == nil ? "" : " WHERE " + dialect.inKeyList("j.\(ownColumn)", "?")
            sql = """
                SELECT j.\(ownColumn), d.Z_PK, d.Z_ENT FROM \(join) j JOIN \(table) d ON d.Z_PK = j.\(memberColumn)\(filter) \
                ORDER BY j.\(ownColumn), \(order)d.Z_PK
                """
        default:
            return [:]
        }
        var members: [Int64: [ObjectKey]] = [:]
        try session.query(sql, owners.map { [.string($0)] } ?? []) { row in
            guard let entity = layout.entityID(forNumber: Int(row.int64(at: 2))) else { return }
            members[row.int64(at: 0), default: []].append(ObjectKey(entityID: entity, primaryKey: row.int64(at: 1)))
        }
        return members
    }
}
