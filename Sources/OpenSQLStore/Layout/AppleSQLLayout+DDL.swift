import OpenPredicate
import OpenStoreCore

extension AppleSQLLayout {
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
        statements.append(AppleSQLPrimaryKeys.tableDDL)
        statements.append(AppleSQLMetadata.tableDDL)
        return statements
    }

    /// Apple's index of each fetch index (`NSFetchIndexDescription`), named after the entity
    /// that declares it, e.g.
    /// `CREATE INDEX Z_Car_byMakerAndNumberPlate ON ZCAR (ZMAKER COLLATE BINARY ASC, ZNUMBERPLATE COLLATE BINARY ASC)`,
    /// with ` WHERE <condition>` for a partial index (`indexCondition(_:entity:)`; an index whose
    /// condition cannot be written is left out). An R-tree index is Apple's virtual table and
    /// the three triggers that keep it (`rTreeStatements(for:entity:)`).
    package var fetchIndexStatements: [String] {
        schema.entities.flatMap { entity in
            entity.fetchIndexes.flatMap { index -> [String] in
                if index.kind == .rTree { return rTreeStatements(for: index, entity: entity.id) }
                guard
                    let statement = indexStatement(
                        "CREATE INDEX Z_\(entity.name)_\(index.name)", entity: entity.id,
                        elements: index.elements.map { ($0.slot, $0.ascending) })
                else { return [] }
                guard let condition = index.condition else { return [statement] }
                return indexCondition(condition, entity: entity.id).map { ["\(statement) WHERE \($0)"] } ?? []
            }
        }
    }

    /// An R-tree fetch index as Apple's store builds it: a virtual table `Z_<Entity>_<name>`
    /// holding each row's key and, per element, `<COLUMN>_MIN` and `<COLUMN>_MAX` (both the
    /// value: a point), kept by triggers on the entity's table after each insert, update and
    /// delete. Empty when an element has no column.
    ///
    /// ```sql
    /// CREATE VIRTUAL TABLE IF NOT EXISTS Z_Place_byLocation USING RTREE (Z_PK INTEGER PRIMARY KEY, ZLATITUDE_MIN, ZLATITUDE_MAX, …)
    /// CREATE TRIGGER IF NOT EXISTS Z_Place_byLocation_INSERT AFTER INSERT ON ZPLACE FOR EACH ROW BEGIN INSERT OR REPLACE INTO …
    /// ```
    ///
    /// **Differences from Apple:** fetches do not read the R-tree (they give the same answers
    /// without it); it is kept for Apple's Core Data, which does.
    package func rTreeStatements(for index: FetchIndexSchema, entity entityID: Int) -> [String] {
        let layout = entities[entityID - 1]
        var columns: [String] = []
        for element in index.elements where layout.slots.indices.contains(element.slot) {
            guard case .attribute(let column, _) = layout.slots[element.slot] else { return [] }
            columns.append(column)
        }
        guard !columns.isEmpty, columns.count == index.elements.count else { return [] }
        let name = "Z_\(schema.entity(entityID).name)_\(index.name)"
        let table = tables[layout.table].name
        let bounds = columns.map { "\($0)_MIN, \($0)_MAX" }.joined(separator: ", ")
        let values = columns.map { "NEW.\($0), NEW.\($0)" }.joined(separator: ", ")
        return [
            "CREATE VIRTUAL TABLE IF NOT EXISTS \(name) USING RTREE (Z_PK INTEGER PRIMARY KEY, \(bounds))",
            "CREATE TRIGGER IF NOT EXISTS \(name)_INSERT AFTER INSERT ON \(table) FOR EACH ROW BEGIN "
                + "INSERT OR REPLACE INTO \(name) (Z_PK, \(bounds)) VALUES (NEW.Z_PK, \(values)) ; END",
            "CREATE TRIGGER IF NOT EXISTS \(name)_UPDATE AFTER UPDATE ON \(table) FOR EACH ROW BEGIN "
                + "DELETE FROM \(name) WHERE Z_PK = NEW.Z_PK ; INSERT INTO \(name) (Z_PK, \(bounds)) VALUES (NEW.Z_PK, \(values)) ; END",
            "CREATE TRIGGER IF NOT EXISTS \(name)_DELETE AFTER DELETE ON \(table) FOR EACH ROW BEGIN "
                + "DELETE FROM \(name) WHERE Z_PK = OLD.Z_PK ; END",
        ]
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
        guard let columns = indexColumns(entity: entityID, elements: elements) else { return nil }
        let terms = columns.map { "\($0.column) COLLATE BINARY \($0.ascending ? "ASC" : "DESC")" }
        return "\(start) ON \(table(of: entityID).name) (\(terms.joined(separator: ", ")))"
    }

    /// The columns of an index over an entity's slots, in order; nil when a slot has no column of
    /// its own (then the index cannot be built as Apple builds it).
    package func indexColumns(entity entityID: Int, elements: [(slot: Int, ascending: Bool)])
        -> [(column: String, ascending: Bool)]?
    {
        let layout = entities[entityID - 1]
        var columns: [(column: String, ascending: Bool)] = []
        for element in elements where layout.slots.indices.contains(element.slot) {
            switch layout.slots[element.slot] {
            case .attribute(let column, _), .toOne(let column, _, _): columns.append((column, element.ascending))
            default: continue
            }
        }
        guard !columns.isEmpty, columns.count == elements.count else { return nil }
        return columns
    }

    /// The rows of `Z_PRIMARYKEY` for a new store: every entity with its number, name, super's
    /// number (0 for a root) and `Z_MAX` 0.
    package var primaryKeyRows: [AppleSQLPrimaryKeyRow] {
        entities.map { entity in
            let schemaEntity = schema.entity(entity.entityID)
            return AppleSQLPrimaryKeyRow(
                entityNumber: entity.entityNumber, name: schemaEntity.name,
                superNumber: schemaEntity.superID.map(entityNumber) ?? 0, max: 0)
        }
    }

}
