import OpenPredicate
import OpenStoreCore

/// The SQL that carries a store in Apple's layout from one schema to another
/// (`StoreMigration`) inside the database, as Apple's lightweight migration does "in situ":
/// the old tables are renamed aside, the new ones created, each destination entity's rows
/// copied with one `INSERT … SELECT` from its source entity's rows (keys kept, attributes
/// converted, relationships read from whichever form the source kept them in), and the old
/// tables dropped. No row passes through memory, so time is about that of copying the rows and
/// memory does not grow with them.
///
/// ```swift
/// let plan = try SQLMigrationPlan(source: oldLayout, destination: newLayout, migration: migration)
/// plan.copyStatements.first?.sql
/// // "INSERT INTO ZBOOK (Z_PK, Z_ENT, Z_OPT, ZNAME, ZPAGES) SELECT s.Z_PK, 1, s.Z_OPT, s.ZTITLE, s.ZPAGES FROM Z_OLD_0 AS s WHERE s.Z_ENT = 1"
/// ```
///
/// `run(on:path:oldKeys:tables:indexes:execute:progress:)` carries it out inside the caller's
/// transaction (`SQLiteMigration`, `PostgreSQLRowStore.migrate`), which also writes the metadata.
package struct SQLMigrationPlan {
    /// A statement and its arguments.
    package struct Statement {
        package let sql: String
        package let arguments: [StoreValue]
    }

    /// A query that finds rows breaking a rule of the destination model, and what to say when
    /// it finds one.
    package struct Check {
        /// Counts the offending rows.
        package let sql: String
        package let entity: String
        package let property: String
        package let reason: String
    }

    package let source: AppleSQLLayout
    package let destination: AppleSQLLayout
    package let migration: StoreMigration
    /// The SQL the statements are written in (type names and conversions differ).
    package let dialect: SQLDialect
    /// `ALTER TABLE … RENAME TO Z_OLD_<n>` for each source table (entity tables, then join tables).
    package private(set) var renames: [(from: String, to: String)] = []
    /// The `INSERT … SELECT`s that fill the destination tables.
    package private(set) var copyStatements: [Statement] = []
    /// Updates run after the copies: entity columns of to-ones, order keys, references to rows
    /// that did not survive.
    package private(set) var fixStatements: [String] = []
    /// Rules the copied rows must keep (required attributes and to-ones).
    package private(set) var checks: [Check] = []

    private var oldNames: [String: String] = [:]

    /// Plans the migration.
    /// - Throws: `NSMigrationError` when a value cannot be converted in SQL (the lowering only
    ///   hands over conversions this plan supports).
    package init(
        source: AppleSQLLayout, destination: AppleSQLLayout, migration: StoreMigration, dialect: SQLDialect = .sqlite
    ) throws {
        self.source = source
        self.destination = destination
        self.migration = migration
        self.dialect = dialect
        for (index, table) in source.tables.enumerated() {
            renames.append((table.name, "Z_OLD_\(index)"))
            oldNames[table.name] = "Z_OLD_\(index)"
        }
        for (index, join) in source.joinTables.enumerated() {
            renames.append((join.name, "Z_OLDJ_\(index)"))
            oldNames[join.name] = "Z_OLDJ_\(index)"
        }
        for entity in destination.schema.entities {
            try planRows(of: entity)
        }
        planJoinTables()
        planFixes()
    }

    // MARK: - Names and numbers

    private func oldTable(of sourceEntityID: Int) -> String {
        oldNames[source.table(of: sourceEntityID).name] ?? source.table(of: sourceEntityID).name
    }

    private func oldJoinTable(_ index: Int) -> String {
        oldNames[source.joinTables[index].name] ?? source.joinTables[index].name
    }

    /// The `Z_ENT` numbers of an entity and its sub-entities, in the source file.
    private func sourceNumbers(_ family: Set<Int>) -> String {
        family.map(source.entityNumber(of:)).sorted().map(String.init).joined(separator: ", ")
    }

    private func destinationNumbers(_ family: Set<Int>) -> String {
        family.map(destination.entityNumber(of:)).sorted().map(String.init).joined(separator: ", ")
    }

    /// True when every source row of `sourceFamily` becomes a row of `destinationFamily`, so
    /// that a reference copied from the source needs no check.
    private func keepsEveryRow(of sourceFamily: Set<Int>, within destinationFamily: Set<Int>) -> Bool {
        sourceFamily.allSatisfy { id in migration.destinationID(ofSource: id).map(destinationFamily.contains) ?? false }
    }

    // MARK: - Rows

    private mutating func planRows(of entity: EntitySchema) throws {
        guard let sourceID = migration.entities[entity.id - 1].sourceID else { return }
        let mapping = migration.entities[entity.id - 1]
        let layout = destination.entities[entity.id - 1]
        var columns = ["Z_PK", "Z_ENT", "Z_OPT"]
        var values = ["s.Z_PK", String(layout.entityNumber), "s.Z_OPT"]
        var arguments: [StoreValue] = []
        var seen: Set<String> = []
        for (slot, stored) in layout.slots.enumerated() {
            let value = mapping.values[slot]
            switch stored {
            case .attribute(let column, let kind):
                guard seen.insert(column).inserted else { continue }
                guard let plain = try attributeExpression(value, to: kind, sourceID: sourceID, arguments: &arguments)
                else { continue }
                let expression = externalDataExpression(
                    plain, entity: entity, slot: slot, column: column, value: value, sourceID: sourceID)
                columns.append(column)
                values.append(expression)
                checkRequired(entity, slot: slot, column: column, value: value, sourceID: sourceID, what: "attribute")
            case .toOne(let column, _, _):
                guard seen.insert(column).inserted else { continue }
                checkRequired(entity, slot: slot, column: column, value: value, sourceID: sourceID, what: "relationship")
                guard let expression = toOneExpression(entity: entity, slot: slot, sourceID: sourceID) else { continue }
                columns.append(column)
                values.append(expression.value)
                if let order = expression.order, let orderColumn = orderColumn(ofToOne: entity, slot: slot) {
                    columns.append(orderColumn)
                    values.append(order)
                }
            case .transient, .toManyByInverse, .toManyByJoin, .unsupported:
                continue
            }
        }
        let table = destination.table(of: entity.id).name
        let sourceNumber = source.entityNumber(of: sourceID)
        copyStatements.append(
            Statement(
                sql: "INSERT INTO \(table) (\(columns.joined(separator: ", "))) SELECT \(values.joined(separator: ", ")) "
                    + "FROM \(oldTable(of: sourceID)) AS s WHERE s.Z_ENT = \(sourceNumber)",
                arguments: arguments))
    }

    /// Plans the check of a required attribute or to-one that can come out empty: Apple's
    /// lightweight migration refuses rows without a value ("missing attribute values on
    /// mandatory destination attribute").
    private mutating func checkRequired(
        _ entity: EntitySchema, slot: Int, column: String, value: StoreMigration.Value, sourceID: Int, what: String
    ) {
        let property = entity.properties[slot]
        guard !property.isOptional, !property.isDerived else { return }
        let canBeEmpty =
            switch value {
            case .none: true
            case .constant(let constant): constant == .null
            case .attribute(let slot, _, let fallback):
                fallback == nil && migration.source.entity(sourceID).properties[slot].isOptional
            case .relationship(let slot): migration.source.entity(sourceID).properties[slot].isOptional
            }
        guard canBeEmpty else { return }
        let table = destination.table(of: entity.id).name
        let number = destination.entityNumber(of: entity.id)
        checks.append(
            Check(
                sql: "SELECT COUNT(*) FROM \(table) WHERE Z_ENT = \(number) AND \(column) IS NULL",
                entity: entity.name, property: property.name,
                reason: "is a mandatory destination \(what), and rows have no value for it (Apple's message: missing attribute "
                    + "values on mandatory destination \(what))"))
    }

    /// Whether a property keeps its values in Apple's external data layout in a SQLite file (a
    /// binary or transformable attribute that allows external storage).
    private func keepsExternalData(_ property: PropertySchema) -> Bool {
        guard dialect == .sqlite, property.allowsExternalBinaryDataStorage, case .attribute(let kind) = property.kind else {
            return false
        }
        return kind == .binary || kind == .transformable
    }

    /// `expression`, the SQL of a destination attribute's value, in the form the destination
    /// column keeps (SQLite only; see `AppleExternalData`): an attribute that gains external
    /// storage gets its values marked as kept in the row (`0x01` and the bytes); one that loses
    /// it gets the bytes after `0x01`, and a check refuses the migration when a value is in a
    /// file (not carried back into rows yet). An attribute that keeps it keeps its column and
    /// files (the store file, so its support folder, stays where it is). (An expression with a
    /// bound value, a source value's fallback, is used once, as it is.)
    private mutating func externalDataExpression(
        _ expression: String, entity: EntitySchema, slot: Int, column: String, value: StoreMigration.Value, sourceID: Int
    ) -> String {
        let destinationKeeps = keepsExternalData(entity.properties[slot])
        var sourceKeeps = false
        if case .attribute(let sourceSlot, _, _) = value {
            sourceKeeps = keepsExternalData(migration.source.entity(sourceID).properties[sourceSlot])
        }
        switch (sourceKeeps, destinationKeeps) {
        case (false, true):
            // NULL stays NULL: `||` with NULL is NULL.
            return "CAST(X'01' || (\(expression)) AS BLOB)"
        case (true, false) where !expression.contains("?"):
            let table = destination.table(of: entity.id).name
            let number = destination.entityNumber(of: entity.id)
            checks.append(
                Check(
                    sql: "SELECT COUNT(*) FROM \(table) WHERE Z_ENT = \(number) AND substr(\(column), 1, 1) = X'02'",
                    entity: entity.name, property: entity.properties[slot].name,
                    reason: "no longer allows external storage, and values of it are kept in files beside the store "
                        + "(carrying them back into the rows is not supported yet)"))
            return "CASE WHEN substr(\(expression), 1, 1) = X'01' THEN substr(\(expression), 2) ELSE \(expression) END"
        default:
            return expression
        }
    }

    /// The SQL reading a destination attribute from the source row `s`; nil for an empty value
    /// (the column is left out of the insert).
    private func attributeExpression(
        _ value: StoreMigration.Value, to kind: AttributeKind, sourceID: Int, arguments: inout [StoreValue]
    ) throws -> String? {
        switch value {
        case .none, .relationship:
            return nil
        case .constant(let constant):
            guard constant != .null else { return nil }
            arguments.append(constant.converted(to: kind))
            return "?"
        case .attribute(let slot, let sourceKind, let fallback):
            guard case .attribute(let column, _) = source.entities[sourceID - 1].slots[slot] else { return nil }
            guard let converted = Self.conversion(of: "s.\(column)", from: sourceKind, to: kind, dialect: dialect) else {
                throw SQLStoreError.migration(
                    "Can't convert \(migration.source.entity(sourceID).name).\(migration.source.entity(sourceID).properties[slot].name) "
                        + "from \(sourceKind) to \(kind) in SQL", path: nil)
            }
            guard let fallback, fallback != .null else { return converted }
            arguments.append(fallback.converted(to: kind))
            return "COALESCE(\(converted), ?)"
        }
    }

    /// A source value of `from` as a value of `to`, in SQL; nil for kinds with no conversion.
    /// Numbers convert among themselves (integers truncate toward zero), to and from Booleans
    /// (non-zero is true) and to and from strings (a string's leading number, else 0, as SQLite's
    /// `CAST` and `NSString.integerValue` read it); dates and numbers share their stored value
    /// (seconds since 2001); URIs and strings their text.
    package static func conversion(
        of column: String, from: AttributeKind, to: AttributeKind, dialect: SQLDialect = .sqlite
    ) -> String? {
        if from == to { return column }
        let integers: Set<AttributeKind> = [.integer16, .integer32, .integer64]
        let reals: Set<AttributeKind> = [.double, .float, .decimal]
        let sqlite = dialect == .sqlite
        let toReal = sqlite ? "CAST(\(column) AS REAL)" : "CAST(\(column) AS double precision)"
        let toInteger = sqlite ? "CAST(\(column) AS INTEGER)" : "CAST(trunc(\(column)) AS bigint)"
        func fromText(_ pattern: String, _ type: String) -> String {
            sqlite
                ? "CAST(\(column) AS \(type == "bigint" ? "INTEGER" : "REAL"))"
                : "CASE WHEN \(column) IS NULL THEN NULL ELSE COALESCE(CAST(substring(\(column) from '\(pattern)') AS \(type)), 0) END"
        }
        switch (from, to) {
        case _ where integers.contains(from) && integers.contains(to): return column
        case _ where reals.contains(from) && reals.contains(to): return column
        case _ where integers.contains(from) && reals.contains(to): return toReal
        case _ where reals.contains(from) && integers.contains(to): return toInteger
        case (.boolean, _) where integers.contains(to): return column
        case (.boolean, _) where reals.contains(to): return toReal
        case (_, .boolean) where integers.contains(from) || reals.contains(from):
            return "CASE WHEN \(column) IS NULL THEN NULL WHEN \(column) <> 0 THEN 1 ELSE 0 END"
        case (_, .string) where integers.contains(from) || from == .boolean:
            return sqlite ? "CAST(\(column) AS TEXT)" : "CAST(\(column) AS text)"
        case (.string, _) where integers.contains(to): return fromText("^\\s*([-+]?[0-9]+)", "bigint")
        case (.string, _) where reals.contains(to):
            return fromText("^\\s*([-+]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][-+]?[0-9]+)?)", "double precision")
        case (.date, _) where reals.contains(to), (_, .date) where reals.contains(from): return column
        case (.uri, .string), (.string, .uri): return column
        default: return nil
        }
    }

    // MARK: - Relationships

    /// The pairs of a source relationship as a query with columns `o` (the owner's key), `m`
    /// (the member's key) and `k` (the member's order key, or NULL), and the source families of
    /// owners and members.
    private func pairs(sourceID: Int, slot: Int) -> (sql: String, owners: Set<Int>, members: Set<Int>)? {
        let entity = migration.source.entity(sourceID)
        let owners = entity.familyIDs
        switch source.entities[sourceID - 1].slots[slot] {
        case .toOne(let column, _, let target):
            let sql =
                "SELECT Z_PK AS o, \(column) AS m, NULL AS k FROM \(oldTable(of: sourceID)) "
                + "WHERE \(column) IS NOT NULL AND Z_ENT IN (\(sourceNumbers(owners)))"
            return (sql, owners, migration.source.entity(target).familyIDs)
        case .toManyByInverse(_, let column, let order, let target):
            let members = migration.source.entity(target).familyIDs
            let sql =
                "SELECT \(column) AS o, Z_PK AS m, \(order ?? "NULL") AS k FROM \(oldTable(of: target)) "
                + "WHERE \(column) IS NOT NULL AND Z_ENT IN (\(sourceNumbers(members)))"
            return (sql, owners, members)
        case .toManyByJoin(let joinTable, let own, let member, let order, let target):
            let sql = "SELECT \(own) AS o, \(member) AS m, \(order ?? "NULL") AS k FROM \(oldJoinTable(joinTable))"
            return (sql, owners, migration.source.entity(target).familyIDs)
        case .transient, .attribute, .unsupported:
            return nil
        }
    }

    /// Where a destination relationship's pairs come from: its own source relationship, or
    /// else its inverse's (then `flipped`: owners and members swap).
    private func relationshipSource(entity: EntitySchema, slot: Int) -> (
        sql: String, owners: Set<Int>, members: Set<Int>, flipped: Bool
    )? {
        let property = entity.properties[slot]
        if let sourceID = migration.entities[entity.id - 1].sourceID,
            case .relationship(let sourceSlot) = migration.entities[entity.id - 1].values[slot],
            let pairs = pairs(sourceID: sourceID, slot: sourceSlot)
        {
            return (pairs.sql, pairs.owners, pairs.members, false)
        }
        let (target, inverse): (Int, String?) =
            switch property.kind {
            case .toOne(let destination, let inverse): (destination, inverse)
            case .toMany(let destination, let inverse, _): (destination, inverse)
            case .attribute: (0, nil)
            }
        guard let inverse, let inverseSlot = destination.schema.entity(target).slotsByName[inverse],
            let inverseSourceID = migration.entities[target - 1].sourceID,
            case .relationship(let sourceSlot) = migration.entities[target - 1].values[inverseSlot],
            let pairs = pairs(sourceID: inverseSourceID, slot: sourceSlot)
        else { return nil }
        return (pairs.sql, pairs.members, pairs.owners, true)
    }

    /// The value (and order key) of a destination to-one for the source row `s`.
    private func toOneExpression(entity: EntitySchema, slot: Int, sourceID: Int) -> (value: String, order: String?)? {
        let mapping = migration.entities[entity.id - 1]
        if case .relationship(let sourceSlot) = mapping.values[slot],
            case .toOne(let column, _, _) = source.entities[sourceID - 1].slots[sourceSlot]
        {
            let order = sourceOrderColumn(ofToOne: sourceID, slot: sourceSlot).map { "s.\($0)" }
            return ("s.\(column)", order)
        }
        guard let pairs = relationshipSource(entity: entity, slot: slot) else { return nil }
        let (own, other) = pairs.flipped ? ("m", "o") : ("o", "m")
        return ("(SELECT MIN(p.\(other)) FROM (\(pairs.sql)) AS p WHERE p.\(own) = s.Z_PK)", nil)
    }

    private func sourceOrderColumn(ofToOne sourceID: Int, slot: Int) -> String? {
        let property = migration.source.entity(sourceID).properties[slot]
        guard case .toOne(let target, let inverse?) = property.kind,
            let inverseSlot = migration.source.entity(target).slotsByName[inverse],
            case .toManyByInverse(_, _, let order?, _) = source.entities[target - 1].slots[inverseSlot]
        else { return nil }
        return order
    }

    /// The `Z_FOK_` column next to a destination to-one whose inverse is ordered.
    private func orderColumn(ofToOne entity: EntitySchema, slot: Int) -> String? {
        guard case .toOne(let target, let inverse?) = entity.properties[slot].kind,
            let inverseSlot = destination.schema.entity(target).slotsByName[inverse],
            case .toManyByInverse(_, _, let order?, _) = destination.entities[target - 1].slots[inverseSlot]
        else { return nil }
        return order
    }

    /// One `INSERT … SELECT` per destination join table, from the relationship of either side
    /// that has a source.
    private mutating func planJoinTables() {
        var done: Set<Int> = []
        for entity in destination.schema.entities {
            for (slot, stored) in destination.entities[entity.id - 1].slots.enumerated() {
                guard case .toManyByJoin(let joinTable, let own, let member, let order, _) = stored,
                    !done.contains(joinTable), let pairs = relationshipSource(entity: entity, slot: slot)
                else { continue }
                done.insert(joinTable)
                let join = destination.joinTables[joinTable]
                let (o, m) = pairs.flipped ? ("m", "o") : ("o", "m")
                var columns = [own, member]
                var values = ["p.\(o)", "p.\(m)"]
                if let order {
                    columns.append(order)
                    values.append("ROW_NUMBER() OVER (PARTITION BY p.\(o) ORDER BY p.k, p.\(m)) * 1024")
                }
                if let inverseOrder = join.orderColumns.first(where: { $0 != order }) {
                    columns.append(inverseOrder)
                    values.append("ROW_NUMBER() OVER (PARTITION BY p.\(m) ORDER BY p.\(o)) * 1024")
                }
                copyStatements.append(
                    Statement(
                        sql: "INSERT INTO \(join.name) (\(columns.joined(separator: ", "))) SELECT DISTINCT "
                            + "\(values.joined(separator: ", ")) FROM (\(pairs.sql)) AS p", arguments: []))
                // Pairs whose rows did not survive, or became rows of other entities, are dropped.
                let ownerFamily = entity.familyIDs
                guard case .toMany(let target, _, _) = entity.properties[slot].kind else { continue }
                let memberFamily = destination.schema.entity(target).familyIDs
                if !keepsEveryRow(of: pairs.owners, within: ownerFamily) {
                    fixStatements.append(
                        "DELETE FROM \(join.name) WHERE \(own) NOT IN (SELECT Z_PK FROM \(destination.table(of: entity.id).name) "
                            + "WHERE Z_ENT IN (\(destinationNumbers(ownerFamily))))")
                }
                if !keepsEveryRow(of: pairs.members, within: memberFamily) {
                    fixStatements.append(
                        "DELETE FROM \(join.name) WHERE \(member) NOT IN (SELECT Z_PK FROM \(destination.table(of: target).name) "
                            + "WHERE Z_ENT IN (\(destinationNumbers(memberFamily))))")
                }
            }
        }
    }

    /// Updates after the copies: each to-one's entity column (from the row it points to), new
    /// order keys, and references to rows that are not rows of the destination entity.
    private mutating func planFixes() {
        for entity in destination.schema.entities {
            let table = destination.table(of: entity.id).name
            for (slot, stored) in destination.entities[entity.id - 1].slots.enumerated() {
                guard case .toOne(let column, let entityColumn, let target) = stored,
                    isDeclared(slot, by: entity)
                else { continue }
                let targetTable = destination.table(of: target).name
                let targetFamily = destination.schema.entity(target).familyIDs
                if let pairs = relationshipSource(entity: entity, slot: slot),
                    !keepsEveryRow(of: pairs.members, within: targetFamily)
                {
                    fixStatements.append(
                        "UPDATE \(table) SET \(column) = NULL WHERE \(column) IS NOT NULL AND \(column) NOT IN "
                            + "(SELECT Z_PK FROM \(targetTable) WHERE Z_ENT IN (\(destinationNumbers(targetFamily))))")
                }
                if let entityColumn {
                    fixStatements.append(
                        "UPDATE \(table) SET \(entityColumn) = (SELECT t.Z_ENT FROM \(targetTable) AS t WHERE t.Z_PK = "
                            + "\(table).\(column)) WHERE \(column) IS NOT NULL")
                }
                if let order = orderColumn(ofToOne: entity, slot: slot), !ordersCopied(entity: entity, slot: slot) {
                    fixStatements.append(
                        "UPDATE \(table) SET \(order) = x.r FROM (SELECT Z_PK AS pk, ROW_NUMBER() OVER (PARTITION BY \(column) "
                            + "ORDER BY Z_PK) * 1024 AS r FROM \(table) WHERE \(column) IS NOT NULL) AS x WHERE \(table).Z_PK = x.pk"
                    )
                }
            }
        }
    }

    /// True when `entity` declares the property in `slot` (it is not inherited), so that the
    /// fixes run once per column.
    private func isDeclared(_ slot: Int, by entity: EntitySchema) -> Bool {
        guard let superID = entity.superID else { return true }
        return destination.schema.entity(superID).slotsByName[entity.properties[slot].name] == nil
    }

    /// True when every row of the to-one's entity family copied its order key from the source.
    private func ordersCopied(entity: EntitySchema, slot: Int) -> Bool {
        entity.familyIDs.allSatisfy { id in
            guard let sourceID = migration.entities[id - 1].sourceID else { return true }
            let name = entity.properties[slot].name
            guard let destinationSlot = destination.schema.entity(id).slotsByName[name],
                case .relationship(let sourceSlot) = migration.entities[id - 1].values[destinationSlot]
            else { return false }
            return sourceOrderColumn(ofToOne: sourceID, slot: sourceSlot) != nil
        }
    }
}

// MARK: - Running

extension SQLMigrationPlan {
    /// Runs the plan on `session`, inside the caller's transaction, after the caller has
    /// cleared away what names the old schema's indexes and triggers: renames the old tables,
    /// creates `tables`, copies, checks, fixes, drops the old tables, creates `indexes`, then
    /// writes `Z_PRIMARYKEY` and renumbers persistent history. `execute` runs DDL as it is.
    /// `progress` is told the fraction done after each copy, by rows copied out of the old
    /// tables' rows (up to 0.9), and 0.95 once the old tables are gone.
    package func run(
        on session: some SQLSession, path: String, oldKeys: [AppleSQLPrimaryKeyRow], tables: [String], indexes: [String],
        execute: (String) throws -> Void, progress: (Double) throws -> Void
    ) throws {
        var rows: Int64 = 0
        for (from, to) in renames {
            try session.run("ALTER TABLE \(from) RENAME TO \(to)", [])
            try session.query("SELECT COUNT(*) FROM \(to)", []) { rows += $0.int64(at: 0) }
        }
        for statement in tables { try execute(statement) }
        var copied = 0
        for (done, statement) in copyStatements.enumerated() {
            copied += try session.run(statement.sql, statement.arguments)
            // By statements where the old tables are empty.
            let fraction =
                rows > 0 ? min(Double(copied) / Double(rows), 1) : Double(done + 1) / Double(copyStatements.count)
            try progress(0.9 * fraction)
        }
        for check in checks {
            var count: Int64 = 0
            try session.query(check.sql, []) { count = $0.int64(at: 0) }
            guard count == 0 else {
                throw SQLStoreError.migration(
                    "Can't migrate the store \(path): \(check.entity).\(check.property) \(check.reason); "
                        + "\(count) rows have none. The store was left as it was",
                    path: path, entity: check.entity, property: check.property)
            }
        }
        for statement in fixStatements { try session.run(statement, []) }
        for (_, old) in renames { try session.run("DROP TABLE \(old)", []) }
        try progress(0.95)
        for statement in indexes {
            do {
                try execute(statement)
            } catch let error as NSError where statement.hasPrefix("CREATE UNIQUE INDEX") {
                throw SQLStoreError.migration(
                    "Can't migrate the store \(path): its rows break the new uniqueness constraint "
                        + "\(statement.split(separator: " ")[3]) (two rows have the same values). The store was left as it was",
                    path: path, code: SQLStoreError.migrationConstraintCode, underlying: error)
            }
        }
        try writeKeys(oldKeys: oldKeys, on: session)
        try renumberHistory(on: session)
    }

    /// Replaces the model's `Z_PRIMARYKEY` rows (history's, from 16001, stay): the destination's
    /// entity numbers, each root's `Z_MAX` the largest of its rows' keys and of the old `Z_MAX`
    /// of every hierarchy its rows came from.
    private func writeKeys(oldKeys: [AppleSQLPrimaryKeyRow], on session: some SQLSession) throws {
        let oldMax = Dictionary(oldKeys.map { ($0.entityNumber, $0.max) }) { first, _ in first }
        try session.run("DELETE FROM Z_PRIMARYKEY WHERE Z_ENT < 16000", [])
        for (index, row) in destination.primaryKeyRows.enumerated() {
            let entity = destination.schema.entity(destination.entities[index].entityID)
            var maximum: Int64 = 0
            if entity.superID == nil {
                for member in entity.familyIDs {
                    guard let sourceID = migration.entities[member - 1].sourceID else { continue }
                    maximum = max(maximum, oldMax[source.entityNumber(of: source.table(of: sourceID).rootID)] ?? 0)
                }
                try session.query("SELECT MAX(Z_PK) FROM \(destination.table(of: entity.id).name)", []) {
                    maximum = max(maximum, $0.int64(at: 0))
                }
            }
            try session.run(
                "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, ?)",
                [.integer(Int64(row.entityNumber)), .string(row.name), .integer(Int64(row.superNumber)), .integer(maximum)])
        }
    }

    /// Persistent history names entities by number: the changes of migrated entities take their
    /// new numbers, those of removed entities 0.
    private func renumberHistory(on session: some SQLSession) throws {
        var exists = false
        try session.query(
            session.dialect == .sqlite
                ? "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?"
                : "SELECT 1 FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = ?",
            [.string("ACHANGE")]
        ) { _ in exists = true }
        guard exists, !source.schema.entities.isEmpty else { return }
        let cases = source.schema.entities.map { entity in
            let number = migration.destinationID(ofSource: entity.id).map(destination.entityNumber(of:)) ?? 0
            return "WHEN \(source.entityNumber(of: entity.id)) THEN \(number)"
        }
        try session.run("UPDATE ACHANGE SET ZENTITY = CASE ZENTITY \(cases.joined(separator: " ")) ELSE 0 END", [])
    }
}
