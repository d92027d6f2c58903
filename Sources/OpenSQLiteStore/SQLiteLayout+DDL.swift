import OpenPredicate
import OpenStoreCore

extension SQLiteLayout {
    /// The statements that create a new store's tables and indexes, spelled as Apple's Core
    /// Data spells them (spacing included), followed by `Z_PRIMARYKEY` and `Z_METADATA`.
    ///
    /// ```swift
    /// layout.createStatements.first
    /// // "CREATE TABLE ZBOOK ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZTITLE VARCHAR )"
    /// ```
    ///
    /// Indexes: `<TABLE>_<COLUMN>_INDEX` on each to-one key column, `<TABLE>_Z_ENT_INDEX` on a
    /// table with sub-entities, `<JOIN>_<SECOND COLUMN>_INDEX (<SECOND>, <FIRST>)` on each join
    /// table, each fetch index as `Z_<Entity>_<name>` (see `fetchIndexStatements`), and for each
    /// uniqueness constraint `CREATE UNIQUE INDEX Z_<Entity>_UNIQUE_<a>_<b> ON <TABLE>
    /// (<A> COLLATE BINARY ASC, <B> COLLATE BINARY ASC)`, named after the entity that declares it.
    package var createStatements: [String] {
        var statements: [String] = []
        for table in tables {
            let columns =
                ["Z_PK INTEGER PRIMARY KEY", "Z_ENT INTEGER", "Z_OPT INTEGER"]
                + table.columns.map { "\($0.name) \($0.type.rawValue)" }
            statements.append("CREATE TABLE \(table.name) ( \(columns.joined(separator: ", ")) )")
        }
        for join in joinTables {
            let columns =
                [join.firstColumn, join.secondColumn].map { "\($0) INTEGER" } + join.orderColumns.map { "\($0) INTEGER" }
                + ["PRIMARY KEY (\(join.firstColumn), \(join.secondColumn))"]
            statements.append("CREATE TABLE \(join.name) ( \(columns.joined(separator: ", ")) )")
        }
        for table in tables {
            for column in table.columns where column.isForeignKey {
                statements.append("CREATE INDEX \(table.name)_\(column.name)_INDEX ON \(table.name) (\(column.name))")
            }
            if table.hasSubentities {
                statements.append("CREATE INDEX \(table.name)_Z_ENT_INDEX ON \(table.name) (Z_ENT)")
            }
        }
        for join in joinTables {
            let columns = "\(join.secondColumn), \(join.firstColumn)"
            statements.append("CREATE INDEX \(join.name)_\(join.secondColumn)_INDEX ON \(join.name) (\(columns))")
        }
        statements += fetchIndexStatements
        statements += uniqueIndexStatements
        statements.append(SQLitePrimaryKeys.tableDDL)
        statements.append(SQLiteMetadata.tableDDL)
        return statements
    }

    /// Apple's index of each fetch index (`NSFetchIndexDescription`), named after the entity
    /// that declares it, e.g.
    /// `CREATE INDEX Z_Car_byMakerAndNumberPlate ON ZCAR (ZMAKER COLLATE BINARY ASC, ZNUMBERPLATE COLLATE BINARY ASC)`.
    package var fetchIndexStatements: [String] {
        schema.entities.flatMap { entity in
            entity.fetchIndexes.compactMap { index in
                indexStatement(
                    "CREATE INDEX Z_\(entity.name)_\(index.name)", entity: entity.id,
                    elements: index.elements.map { ($0.slot, $0.ascending) })
            }
        }
    }

    /// Apple's unique index of each uniqueness constraint, e.g.
    /// `CREATE UNIQUE INDEX Z_Person_UNIQUE_firstName_lastName ON ZPERSON (ZFIRSTNAME COLLATE BINARY ASC, ZLASTNAME COLLATE BINARY ASC)`.
    package var uniqueIndexStatements: [String] {
        schema.entities.flatMap { entity in
            entity.uniquenessConstraints.compactMap { constraint in
                let names = constraint.map { entity.properties[$0].name }.joined(separator: "_")
                return indexStatement(
                    "CREATE UNIQUE INDEX Z_\(entity.name)_UNIQUE_\(names)", entity: entity.id,
                    elements: constraint.map { ($0, true) })
            }
        }
    }

    /// `<start> ON <TABLE> (<COLUMN> COLLATE BINARY ASC, …)` over an entity's slots; nil when a
    /// slot has no column of its own (then the index cannot be built as Apple builds it).
    private func indexStatement(_ start: String, entity entityID: Int, elements: [(slot: Int, ascending: Bool)]) -> String? {
        let layout = entities[entityID - 1]
        var columns: [String] = []
        for element in elements where layout.slots.indices.contains(element.slot) {
            switch layout.slots[element.slot] {
            case .attribute(let column, _), .toOne(let column, _, _):
                columns.append("\(column) COLLATE BINARY \(element.ascending ? "ASC" : "DESC")")
            default: continue
            }
        }
        guard !columns.isEmpty, columns.count == elements.count else { return nil }
        return "\(start) ON \(tables[layout.table].name) (\(columns.joined(separator: ", ")))"
    }

    /// The rows of `Z_PRIMARYKEY` for a new store: every entity with its number, name, super's
    /// number (0 for a root) and `Z_MAX` 0.
    package var primaryKeyRows: [SQLitePrimaryKeyRow] {
        entities.map { entity in
            let schemaEntity = schema.entity(entity.entityID)
            return SQLitePrimaryKeyRow(
                entityNumber: entity.entityNumber, name: schemaEntity.name,
                superNumber: schemaEntity.superID.map(entityNumber) ?? 0, max: 0)
        }
    }

    /// The tables and columns this layout needs that the database lacks, as `TABLE.COLUMN` (or
    /// `TABLE` for a whole table); empty when the file matches.
    package func missingColumns(in connection: SQLiteConnection) throws -> [String] {
        var missing: [String] = []
        func check(_ table: String, _ needed: [String]) throws {
            let present = Set(try connection.columnNames(of: table))
            if present.isEmpty {
                missing.append(table)
                return
            }
            missing += needed.filter { !present.contains($0) }.map { "\(table).\($0)" }
        }
        for table in tables { try check(table.name, ["Z_PK", "Z_ENT", "Z_OPT"] + table.columns.map(\.name)) }
        for join in joinTables { try check(join.name, [join.firstColumn, join.secondColumn] + join.orderColumns) }
        return missing
    }
}
