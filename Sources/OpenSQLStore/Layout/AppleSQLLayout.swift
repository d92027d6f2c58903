import OpenPredicate
import OpenStoreCore

/// Where a `StoreSchema` lives in a SQLite file, by Apple's rules: tables, columns, join tables
/// and, for every slot of every entity, how to read and write it.
///
/// ```swift
/// let layout = try AppleSQLLayout(schema: schema, entityNumbers: ["Book": 1, "GraphicNovel": 2, "Page": 4])
/// layout.table(of: pageID).name                   // "ZPAGE"
/// layout.entities[pageID - 1].slots[bookSlot]     // .toOne(column: "ZBOOK", entityColumn: "Z1_BOOK", …)
/// ```
///
/// ## Apple's layout, as read from the real stores in `shared/realworld/stores` (and DDL quoted
/// from public code that reads Apple's stores: Photos, Shortcuts, Music and other apps)
///
/// - **One table per inheritance root**, `Z` + the root's name uppercased (`ZCAR` holds `Car`,
///   `SportCar`, `ExpensiveSportCar`). It starts with `Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER,
///   Z_OPT INTEGER`: the primary key (unique in the table), the row's entity number and its
///   optimistic-locking version.
/// - **Entity numbers** are `Z_PRIMARYKEY.Z_ENT`. An existing store's numbers are taken by entity
///   name from its `Z_PRIMARYKEY` (`entityNumbers`), never recomputed; a new store uses the
///   schema's numbers (Apple's order: roots by name, each followed by its sub-entities).
/// - **Columns** hold the attributes and to-one relationships of the root and of every
///   sub-entity, `Z` + the property name uppercased (`numberPlate` → `ZNUMBERPLATE`). A
///   property inherited by a sub-entity is the same column. Two sub-entities declaring the same
///   name get `ZNAME` and `ZNAME1` (Apple's stores show such suffixes, e.g. `ZTITLE1`; which
///   sub-entity gets the plain name is inferred: the first in entity order).
/// - **A to-one relationship** is an `INTEGER` column with the destination's `Z_PK`, on both
///   sides of a one-to-one (`ZIMAGE.ZRECIPE` and `ZRECIPE.ZIMAGE`). When the destination entity
///   has sub-entities, a second column `Z<n>_<NAME>` holds the destination row's `Z_ENT`
///   (`ZPAGE.Z1_BOOK` next to `ZPAGE.ZBOOK`). `n` is the destination entity's number (Book is 1
///   there; with one sample, a per-table counter would fit as well — inferred).
/// - **A to-many relationship with a to-one inverse** has no column of its own: it is the
///   inverse's column in the destination table. When it is **ordered**, the destination table
///   also has `Z_FOK_<INVERSE>` (`ZTRANSACTIONSPLIT.Z_FOK_TRANSACTION`), the member's position
///   key. Apple spaces the keys apart; this store writes (position + 1) × 1024 and reads in
///   ascending order.
/// - **A many-to-many relationship** is a join table. Its two columns are named
///   `Z_<n><NAME>`: the number of the entity whose primary keys the column holds and the name of
///   the relationship pointing to that entity (`Z_1SONGS (Z_1COLLECTIONS, Z_4SONGS)` for
///   Collection(1).songs ↔ Song(4).collections). The columns are ordered by (number, name); the
///   table is named `Z_` + the first column's number + the second column's name (`Z_1SONGS`,
///   `Z_12CATEGORIES (Z_12RECIPES, Z_13CATEGORIES)`, and reflexively in EasyLife
///   `Z_2BLOCKING (Z_2BLOCKEDBY, Z_2BLOCKING)`). An ordered side adds `Z_FOK_` + the column of
///   its members without `Z_` (`Z_26ASSETS.Z_FOK_34ASSETS`). When both columns would have the
///   same name (a relationship that is its own inverse), the first gets the suffix `1`
///   (inferred; Apple's stores show `Z_4PARENTS1`).
/// - **A to-many relationship without an inverse** (Apple warns against them, but keeps them) is
///   a many-to-many whose other side is a relationship of Apple's own, `<NAME>INVERSE`, pointing
///   back to the declaring entity: Kik's store has `Z_6ADMINSINVERSE (Z_6ADMINS,
///   Z_6ADMINSINVERSE)` for a reflexive `admins`. The same rules name and order the columns.
///   (The same store also has `Z_6MEMBERS (Z_6MEMBERSINVERSE, Z_6MEMBERS)`, the other order for
///   a reflexive pair; which tie-break gives that is not known, and here the name decides.)
/// - **Column order** in `CREATE TABLE` (observed in every store since 2013): the entities of the
///   table in entity order, each contributing its own attributes by name, then its own to-ones by
///   name (each followed by its `Z<n>_` and `Z_FOK_` columns), then stably sorted by SQL type:
///   `INTEGER` (integers, Booleans, keys) < `TIMESTAMP` < `DECIMAL` < `FLOAT` < `VARCHAR` (strings,
///   URIs) < `BLOB` (UUIDs first, then data and transformables). Where `FLOAT` falls relative to `TIMESTAMP` and
///   `DECIMAL` is inferred (no store has both). The 2010 store predates the name order.
/// - **Indexes**: `<TABLE>_<COLUMN>_INDEX` on every to-one key column (`ZCAR_ZOWNER_INDEX`),
///   `<TABLE>_Z_ENT_INDEX` on a table with sub-entities, `<JOIN>_<SECOND COLUMN>_INDEX` on a join
///   table over (second, first) column (its primary key covers (first, second); EasyLife 1.5.0).
/// - **Fetch indexes**: `Z_<Entity>_<name>` over the elements' columns (`COLLATE BINARY ASC`
///   or `DESC`), with a `WHERE` clause for a partial index; an R-tree index is a virtual table
///   of that name kept by three triggers (`AppleSQLLayout+DDL`).
///
/// Persistent history (`ACHANGE`, `ATRANSACTION`, `ATRANSACTIONSTRING`, entity numbers from
/// 16001) is not part of the model's layout: `AppleSQLHistoryTables` keeps it.
///
/// **Not covered yet:** `objectID` and `undefined` attributes have no column; `Z_MODELCACHE` (Apple's
/// compiled copy of the model, which stores written before 2013 lack too) is not written.
@usableFromInline package struct AppleSQLLayout: Sendable {
    package let schema: StoreSchema
    /// One table per hierarchy root, in root order.
    package let tables: [AppleSQLTable]
    /// The many-to-many join tables.
    package let joinTables: [AppleSQLJoinTable]
    /// One per schema entity, at `id - 1`.
    package let entities: [AppleSQLEntityLayout]
    private let schemaIDsByNumber: [Int: Int]
    /// Where the file's values of attributes that allow external storage are
    /// (`AppleExternalData`): set by the SQLite store for a file whose schema has such
    /// attributes; nil otherwise, and always for PostgreSQL, where they are plain bytes like
    /// any binary value. Readers and writers made from the layout follow it. **Default:** nil.
    package var externalData: AppleExternalDataFolder?

    /// The layout of `schema`.
    ///
    /// - Parameters:
    ///   - schema: the lowered model.
    ///   - entityNumbers: an existing store's `Z_PRIMARYKEY` numbers by entity name; nil for a
    ///     new store (the schema's numbers). An entity missing under its name is looked up under
    ///     its `renamingIdentifier`, as Apple's lightweight migration leaves `Z_NAME` unchanged.
    /// - Throws: `NSPersistentStoreIncompatibleSchemaError` (134020) naming the entities missing
    ///   from `entityNumbers`.
    /// Refuses a model whose entity or stored property names could not be SQL identifiers
    /// (`Z` + the name in upper case, unquoted, as Apple writes them): a space, a quote or other
    /// punctuation would break the statements or change their meaning. Model files never hold
    /// such names (their loader refuses them); a model built in code can.
    /// - Throws: `NSPersistentStoreIncompatibleSchemaError` naming the entity and property.
    static func checkNames(of schema: StoreSchema) throws {
        func isIdentifier(_ name: String) -> Bool {
            !name.isEmpty
                && name.unicodeScalars.allSatisfy { scalar in
                    scalar.isASCII
                        ? scalar == "_" || ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
                            || ("0"..."9").contains(scalar)
                        : scalar.properties.isAlphabetic || scalar.properties.numericType != nil
                }
        }
        let rule = "a name used in SQL may hold only letters, digits and underscores"
        for entity in schema.entities {
            guard isIdentifier(entity.name) else {
                throw SQLStoreError.incompatibleSchema(
                    "The entity name '\(entity.name)' can't name an SQLite table: \(rule)", path: nil)
            }
            for property in entity.properties where !property.isTransient && !isIdentifier(property.name) {
                throw SQLStoreError.incompatibleSchema(
                    "The property '\(property.name)' of entity '\(entity.name)' can't name an SQLite column: \(rule)", path: nil)
            }
        }
    }

    package init(schema: StoreSchema, entityNumbers: [String: Int]? = nil) throws {
        try Self.checkNames(of: schema)
        var numbers: [Int] = []
        var missing: [String] = []
        for entity in schema.entities {
            if let entityNumbers {
                // A store migrated after an entity was renamed keeps the old name in Z_PRIMARYKEY
                // (SampleModel_V2 lists ExpensiveSportCar for the entity its model calls LuxuryCar).
                if let number = entityNumbers[entity.name] ?? entity.renamingIdentifier.flatMap({ entityNumbers[$0] }) {
                    numbers.append(number)
                } else {
                    missing.append(entity.name)
                }
            } else {
                numbers.append(entity.id)
            }
        }
        guard missing.isEmpty else {
            throw SQLStoreError.incompatibleSchema(
                "The store has no entity numbers (Z_PRIMARYKEY) for \(missing.joined(separator: ", "))", path: nil)
        }
        var builder = LayoutBuilder(schema: schema, numbers: numbers)
        builder.build()
        self.schema = schema
        tables = builder.tables
        joinTables = builder.joinTables
        entities = builder.entityLayouts
        var byNumber: [Int: Int] = [:]
        for (index, number) in numbers.enumerated() { byNumber[number] = index + 1 }
        schemaIDsByNumber = byNumber
    }

    /// The table holding an entity's rows.
    package func table(of entityID: Int) -> AppleSQLTable { tables[entities[entityID - 1].table] }

    /// The store's number (`Z_ENT`) of a schema entity.
    package func entityNumber(of entityID: Int) -> Int { entities[entityID - 1].entityNumber }

    /// The schema entity with the store's number `Z_ENT`, if the schema has it.
    @usableFromInline package func entityID(forNumber number: Int) -> Int? { schemaIDsByNumber[number] }
}

/// Apple's SQL column types, in the order Apple sorts columns by.
package enum AppleSQLColumnType: String, Sendable, Comparable {
    case integer = "INTEGER"
    case timestamp = "TIMESTAMP"
    case decimal = "DECIMAL"
    case float = "FLOAT"
    case varchar = "VARCHAR"
    case blob = "BLOB"

    private var rank: Int {
        switch self {
        case .integer: 0
        case .timestamp: 1
        case .decimal: 2
        case .float: 3
        case .varchar: 4
        case .blob: 5
        }
    }

    package static func < (lhs: AppleSQLColumnType, rhs: AppleSQLColumnType) -> Bool { lhs.rank < rhs.rank }

    /// The column type of an attribute kind; nil for kinds kept in no column.
    package init?(_ kind: AttributeKind) {
        switch kind {
        case .integer16, .integer32, .integer64, .boolean: self = .integer
        case .date: self = .timestamp
        case .decimal: self = .decimal
        case .double, .float: self = .float
        case .string, .uri: self = .varchar
        case .binary, .uuid, .transformable: self = .blob
        case .objectID, .undefined: return nil
        }
    }
}

/// One column after `Z_PK, Z_ENT, Z_OPT`.
package struct AppleSQLColumn: Sendable, Equatable {
    package let name: String
    package let type: AppleSQLColumnType
    /// True for a to-one's key column (it gets an index).
    package let isForeignKey: Bool
}

/// The table of one inheritance hierarchy.
package struct AppleSQLTable: Sendable {
    /// `Z` + the root's name uppercased.
    package let name: String
    /// The root entity (schema number).
    package let rootID: Int
    /// Every entity whose rows live here (schema numbers), root first.
    package let entityIDs: [Int]
    /// The columns after `Z_PK, Z_ENT, Z_OPT`, in Apple's order.
    package let columns: [AppleSQLColumn]

    /// True when the table holds more than one entity (it then has a `Z_ENT` index).
    package var hasSubentities: Bool { entityIDs.count > 1 }
    /// The one entity of a table without sub-entities (nil when it holds several): fetches
    /// select its number in place of `Z_ENT`, as Apple's do, and readers take it without
    /// reading the column.
    package var soleEntityID: Int? { hasSubentities ? nil : rootID }
}

/// A many-to-many join table.
package struct AppleSQLJoinTable: Sendable {
    package let name: String
    package let firstColumn: String
    package let secondColumn: String
    /// The `Z_FOK_` columns of ordered sides.
    package let orderColumns: [String]
}

/// How one slot of an entity is stored.
package enum AppleSQLSlot: Sendable, Equatable {
    /// Not stored (transient): reads as `.null`.
    case transient
    /// An attribute in a column of the entity's table.
    case attribute(column: String, kind: AttributeKind)
    /// A to-one: the destination's `Z_PK` in `column`; its `Z_ENT` in `entityColumn` when the
    /// destination has sub-entities.
    case toOne(column: String, entityColumn: String?, destination: Int)
    /// A to-many stored as its to-one inverse's column in the destination's table, ordered by
    /// `orderColumn` when the relationship is ordered.
    case toManyByInverse(table: Int, column: String, orderColumn: String?, destination: Int)
    /// A many-to-many: rows of a join table, this object's key in `ownColumn`, the members' in
    /// `memberColumn`, ordered by `orderColumn` when the relationship is ordered.
    case toManyByJoin(joinTable: Int, ownColumn: String, memberColumn: String, orderColumn: String?, destination: Int)
    /// A property this store cannot keep (the reason says which and why); reads as `.null`.
    case unsupported(String)
}

/// One entity's place in the layout.
package struct AppleSQLEntityLayout: Sendable {
    package let entityID: Int
    /// `Z_ENT` in the store.
    package let entityNumber: Int
    /// The index of its table in `AppleSQLLayout.tables`.
    package let table: Int
    /// One per slot of the entity (`EntitySchema.properties`).
    package let slots: [AppleSQLSlot]
}

// MARK: - Building

/// Builds the layout in three passes: tables and columns, join tables, then slots.
private struct LayoutBuilder {
    let schema: StoreSchema
    let numbers: [Int]
    var tables: [AppleSQLTable] = []
    var joinTables: [AppleSQLJoinTable] = []
    var entityLayouts: [AppleSQLEntityLayout] = []
    /// Column name by entity (schema number - 1) and property name, inherited ones included.
    var columnNames: [[String: String]]
    var tableOfEntity: [Int]
    /// Join table index and column roles by (entity, relationship).
    var joins: [JoinKey: (table: Int, own: String, member: String, order: String?)] = [:]

    struct JoinKey: Hashable {
        let entity: Int
        let property: String
    }

    init(schema: StoreSchema, numbers: [Int]) {
        self.schema = schema
        self.numbers = numbers
        columnNames = Array(repeating: [:], count: schema.entities.count)
        tableOfEntity = Array(repeating: 0, count: schema.entities.count)
    }

    func number(_ entityID: Int) -> Int { numbers[entityID - 1] }

    /// The properties an entity declares itself (not inherited), in slot order.
    func ownProperties(of entity: EntitySchema) -> [PropertySchema] {
        guard let superID = entity.superID else { return entity.properties }
        let inherited = schema.entity(superID).slotsByName
        return entity.properties.filter { inherited[$0.name] == nil }
    }

    func hasSubentities(_ entityID: Int) -> Bool { schema.entity(entityID).familyIDs.count > 1 }

    mutating func build() {
        for root in schema.entities where root.superID == nil { buildTable(root: root) }
        buildJoinTables()
        entityLayouts = schema.entities.map(slots)
    }

    private mutating func buildTable(root: EntitySchema) {
        let members = root.familyIDs.sorted()
        let tableIndex = tables.count
        var columns: [AppleSQLColumn] = []
        var taken: Set<String> = ["Z_PK", "Z_ENT", "Z_OPT"]
        func claim(_ base: String) -> String {
            var name = base
            var suffix = 1
            while taken.contains(name) {
                name = base + String(suffix)
                suffix += 1
            }
            taken.insert(name)
            return name
        }
        for id in members {
            let entity = schema.entity(id)
            tableOfEntity[id - 1] = tableIndex
            if let superID = entity.superID { columnNames[id - 1] = columnNames[superID - 1] }
            let own = ownProperties(of: entity).filter { !$0.isTransient }
            let attributes = own.filter { if case .attribute = $0.kind { true } else { false } }.sorted { $0.name < $1.name }
            let toOnes = own.filter { if case .toOne = $0.kind { true } else { false } }.sorted { $0.name < $1.name }
            for attribute in attributes {
                guard case .attribute(let kind) = attribute.kind, let type = AppleSQLColumnType(kind) else { continue }
                let name = claim("Z" + attribute.name.uppercased())
                columnNames[id - 1][attribute.name] = name
                columns.append(AppleSQLColumn(name: name, type: type, isForeignKey: false))
            }
            for relationship in toOnes {
                guard case .toOne(let destination, let inverse) = relationship.kind else { continue }
                let name = claim("Z" + relationship.name.uppercased())
                columnNames[id - 1][relationship.name] = name
                columns.append(AppleSQLColumn(name: name, type: .integer, isForeignKey: true))
                if hasSubentities(destination) {
                    let entityColumn = claim("Z\(number(destination))_" + relationship.name.uppercased())
                    columnNames[id - 1]["\(relationship.name)\u{0}entity"] = entityColumn
                    columns.append(AppleSQLColumn(name: entityColumn, type: .integer, isForeignKey: false))
                }
                if let inverse, case .toMany(_, _, true)? = schema.entity(destination).property(named: inverse)?.kind {
                    let orderColumn = claim("Z_FOK_" + relationship.name.uppercased())
                    columnNames[id - 1]["\(relationship.name)\u{0}order"] = orderColumn
                    columns.append(AppleSQLColumn(name: orderColumn, type: .integer, isForeignKey: false))
                }
            }
        }
        // Stable sort by type (enumerated offsets break ties); among BLOBs a UUID comes before
        // data and transformables (ZBOOK: ZUNIQUEID BLOB, ZCOVER BLOB — inferred from one store).
        let uuidColumns = Set(
            members.flatMap { id in
                schema.entity(id).properties.compactMap { property in
                    property.kind == .attribute(.uuid) ? columnNames[id - 1][property.name] : nil
                }
            })
        let sorted = columns.enumerated().sorted { lhs, rhs in
            let left = (lhs.element.type, uuidColumns.contains(lhs.element.name) ? 0 : 1, lhs.offset)
            let right = (rhs.element.type, uuidColumns.contains(rhs.element.name) ? 0 : 1, rhs.offset)
            return left < right
        }
        .map(\.element)
        tables.append(
            AppleSQLTable(name: "Z" + root.name.uppercased(), rootID: root.id, entityIDs: members, columns: sorted))
    }

    private mutating func buildJoinTables() {
        for entity in schema.entities {
            for property in ownProperties(of: entity) where !property.isTransient {
                guard case .toMany(let destination, let inverse, let ordered) = property.kind,
                    joins[JoinKey(entity: entity.id, property: property.name)] == nil
                else { continue }
                // Many-to-many, or a to-many without an inverse, which Apple keeps as a
                // many-to-many with an inverse of its own named `<NAME>INVERSE`.
                let ownSide: (number: Int, name: String)
                var inverseOrdered = false
                if let inverse {
                    guard let inverseProperty = schema.entity(destination).property(named: inverse),
                        case .toMany(let inverseDestination, _, let isOrdered) = inverseProperty.kind
                    else { continue }
                    ownSide = (number(inverseDestination), inverse.uppercased())
                    inverseOrdered = isOrdered
                } else {
                    ownSide = (number(entity.id), property.name.uppercased() + "INVERSE")
                }
                // The column of this relationship's members, and the column of the inverse's
                // members (this entity's rows): Z_<number of the entity held><relationship name>.
                let memberSide = (number: number(destination), name: property.name.uppercased())
                let memberFirst = (memberSide.number, memberSide.name) < (ownSide.number, ownSide.name)
                let first = memberFirst ? memberSide : ownSide
                let second = memberFirst ? ownSide : memberSide
                var firstColumn = "Z_\(first.number)\(first.name)"
                let secondColumn = "Z_\(second.number)\(second.name)"
                if firstColumn == secondColumn { firstColumn += "1" }
                let memberColumn = memberFirst ? firstColumn : secondColumn
                let ownColumn = memberFirst ? secondColumn : firstColumn
                let memberOrder = ordered ? "Z_FOK_" + memberColumn.dropFirst(2) : nil
                let ownOrder = inverseOrdered ? "Z_FOK_" + ownColumn.dropFirst(2) : nil
                let tableName = "Z_\(first.number)\(second.name)"
                let index = joinTables.count
                joinTables.append(
                    AppleSQLJoinTable(
                        name: tableName, firstColumn: firstColumn, secondColumn: secondColumn,
                        orderColumns: [memberOrder, ownOrder].compactMap { $0 }))
                joins[JoinKey(entity: entity.id, property: property.name)] = (index, ownColumn, memberColumn, memberOrder)
                // The inverse, declared on the destination, sees the table from the other side.
                if let inverse {
                    joins[JoinKey(entity: destination, property: inverse)] = (index, memberColumn, ownColumn, ownOrder)
                }
            }
        }
    }

    /// The join table of a relationship, looked up on the entity or the ancestor declaring it.
    private func join(_ entity: EntitySchema, _ property: String) -> (table: Int, own: String, member: String, order: String?)? {
        var current: EntitySchema? = entity
        while let candidate = current {
            if let join = joins[JoinKey(entity: candidate.id, property: property)] { return join }
            current = candidate.superID.map(schema.entity)
        }
        return nil
    }

    private func slots(_ entity: EntitySchema) -> AppleSQLEntityLayout {
        let names = columnNames[entity.id - 1]
        let slots = entity.properties.map { property -> AppleSQLSlot in
            if property.isTransient { return .transient }
            switch property.kind {
            case .attribute(let kind):
                guard let column = names[property.name] else {
                    return .unsupported("\(entity.name).\(property.name): \(kind) attributes have no column in the SQLite store")
                }
                return .attribute(column: column, kind: kind)
            case .toOne(let destination, _):
                guard let column = names[property.name] else { return .unsupported("\(entity.name).\(property.name): no column") }
                return .toOne(column: column, entityColumn: names["\(property.name)\u{0}entity"], destination: destination)
            case .toMany(let destination, let inverse, _):
                if let join = join(entity, property.name) {
                    return .toManyByJoin(
                        joinTable: join.table, ownColumn: join.own, memberColumn: join.member, orderColumn: join.order,
                        destination: destination)
                }
                guard let inverse, let inverseColumn = columnNames[destination - 1][inverse] else {
                    return .unsupported("\(entity.name).\(property.name): the inverse of this to-many relationship has no column")
                }
                return .toManyByInverse(
                    table: tableOfEntity[destination - 1], column: inverseColumn,
                    orderColumn: columnNames[destination - 1]["\(inverse)\u{0}order"], destination: destination)
            }
        }
        return AppleSQLEntityLayout(
            entityID: entity.id, entityNumber: number(entity.id), table: tableOfEntity[entity.id - 1], slots: slots)
    }
}
