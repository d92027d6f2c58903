import OpenPredicate
import OpenStoreCore

/// Lightweight migration of a SQLite store file in place, in one transaction: either the whole
/// migration is in the file when it returns, or nothing of it is (an error, a crash or a killed
/// process leaves the old store as it was: SQLite's journal rolls the transaction back).
///
/// ```swift
/// try SQLiteMigration.migrate(
///     at: url, migration: migration, sourceVersionHashes: old.entityVersionHashesByName,
///     destinationVersionHashes: new.entityVersionHashesByName, versionIdentifiers: [""])
/// ```
///
/// The result is the file a store created for the destination model would be, holding the
/// same rows: Apple's layout for the destination schema (tables, columns, indexes, entity
/// numbers in `Z_PRIMARYKEY` as a new store numbers them), every row keeping its primary key,
/// each hierarchy's `Z_MAX` at least the largest key it held, and metadata with the
/// destination's version hashes and identifiers (the UUID and the user's keys kept). Apple's
/// own extras that describe the old model go: `Z_MODELCACHE`, triggers of derived attributes,
/// `NSStoreModelVersionHashesDigest` and `NSStoreModelVersionChecksumKey`. Persistent history
/// stays, its entity numbers renumbered.
package enum SQLiteMigration {
    /// Migrates the store at `url`, which must be a store of `migration.source` with
    /// `sourceVersionHashes`.
    ///
    /// - Parameter progress: called after each step with the fraction done (0…1); what it throws
    ///   stops the migration (rolled back) and is rethrown.
    /// - Throws: the errors of `SQLiteStoreFile.open` for the source; `NSMigrationError` (134110)
    ///   naming the entity and property when migrated rows break a rule of the destination model
    ///   (a required attribute without a value); `NSMigrationConstraintViolationError` (134111)
    ///   when they break a new uniqueness constraint; `NSSQLiteError` when SQLite fails.
    package static func migrate(
        at url: URL, migration: StoreMigration, sourceVersionHashes: [String: Data],
        destinationVersionHashes: [String: Data], versionIdentifiers: [String], progress: (Double) throws -> Void = { _ in }
    ) throws {
        let file = try SQLiteStoreFile.open(
            at: url, schema: migration.source, mode: .readWrite, modelVersionHashes: sourceVersionHashes)
        let destination = try SQLiteLayout(schema: migration.destination)
        let plan = try SQLMigrationPlan(source: file.layout, destination: destination, migration: migration)
        var metadata = file.metadata
        metadata.versionHashes = destinationVersionHashes
        metadata.versionIdentifiers = versionIdentifiers
        metadata.dictionary["NSStoreModelVersionHashesDigest"] = nil
        metadata.dictionary["NSStoreModelVersionChecksumKey"] = nil
        try run(plan, in: file.connection, metadata: metadata, progress: progress)
    }

    /// Runs a plan in one transaction.
    static func run(
        _ plan: SQLMigrationPlan, in connection: SQLiteConnection, metadata: SQLiteMetadata, progress: (Double) throws -> Void
    ) throws {
        let path = connection.url.path
        let oldKeys = try SQLitePrimaryKeys.read(from: connection)
        let destination = plan.destination
        let statements = destination.createStatements.filter {
            $0 != SQLitePrimaryKeys.tableDDL && $0 != SQLiteMetadata.tableDDL
        }
        let rTree = Set(destination.fetchIndexStatements.filter { !$0.hasPrefix("CREATE INDEX") })
        let tables = statements.filter { $0.hasPrefix("CREATE TABLE ") || rTree.contains($0) }
        let indexes = statements.filter { !$0.hasPrefix("CREATE TABLE ") && !rTree.contains($0) }
        let steps = Double(plan.copyStatements.count + 2)
        try connection.transaction {
            try clearAway(plan, in: connection)
            for (from, to) in plan.renames { try connection.execute("ALTER TABLE \(from) RENAME TO \(to)") }
            for statement in tables { try connection.execute(statement) }
            for (done, statement) in plan.copyStatements.enumerated() {
                try connection.run(statement.sql, statement.arguments)
                try progress(Double(done + 1) / steps)
            }
            for check in plan.checks {
                var count: Int64 = 0
                try connection.query(check.sql, []) { count = $0.int64(at: 0) }
                guard count == 0 else {
                    throw SQLiteStoreError.migration(
                        "Can't migrate the store \(path): \(check.entity).\(check.property) \(check.reason); "
                            + "\(count) rows have none. The store was left as it was",
                        path: path, entity: check.entity, property: check.property)
                }
            }
            for statement in plan.fixStatements { try connection.execute(statement) }
            for (_, old) in plan.renames { try connection.execute("DROP TABLE \(old)") }
            try progress((steps - 1) / steps)
            for statement in indexes {
                do {
                    try connection.execute(statement)
                } catch let error as NSError where statement.hasPrefix("CREATE UNIQUE INDEX") {
                    throw SQLiteStoreError.migration(
                        "Can't migrate the store \(path): its rows break the new uniqueness constraint "
                            + "\(statement.split(separator: " ")[3]) (two rows have the same values). The store was left as it was",
                        path: path, code: SQLiteStoreError.migrationConstraintCode, underlying: error)
                }
            }
            try writeKeys(plan, oldKeys: oldKeys, in: connection)
            try renumberHistory(plan, in: connection)
            try metadata.write(to: connection)
        }
        try progress(1)
    }

    /// Drops what describes the old schema and would stand in the way of the new one: triggers
    /// and indexes of the old tables, R-tree tables, Apple's model cache.
    private static func clearAway(_ plan: SQLMigrationPlan, in connection: SQLiteConnection) throws {
        let oldTables = Set(plan.renames.map(\.from))
        var drops: [String] = []
        try connection.query("SELECT type, name, tbl_name, sql FROM sqlite_master", []) { row in
            let type = row.string(at: 0) ?? ""
            let name = row.string(at: 1) ?? ""
            let table = row.string(at: 2) ?? ""
            let sql = row.string(at: 3) ?? ""
            switch type {
            case "trigger" where oldTables.contains(table): drops.append("DROP TRIGGER IF EXISTS \(name)")
            case "index" where oldTables.contains(table) && !sql.isEmpty: drops.append("DROP INDEX IF EXISTS \(name)")
            case "table" where sql.hasPrefix("CREATE VIRTUAL TABLE") && name.hasPrefix("Z_"):
                drops.append("DROP TABLE IF EXISTS \(name)")
            default: break
            }
        }
        if try connection.tableExists("Z_MODELCACHE") { drops.append("DROP TABLE Z_MODELCACHE") }
        for drop in drops { try connection.execute(drop) }
    }

    /// Replaces the model's `Z_PRIMARYKEY` rows (history's, from 16001, stay): the destination's
    /// entity numbers, each root's `Z_MAX` the largest of its rows' keys and of the old `Z_MAX`
    /// of every hierarchy its rows came from.
    private static func writeKeys(_ plan: SQLMigrationPlan, oldKeys: [SQLitePrimaryKeyRow], in connection: SQLiteConnection)
        throws
    {
        let oldMax = Dictionary(oldKeys.map { ($0.entityNumber, $0.max) }) { first, _ in first }
        let destination = plan.destination
        var rows = destination.primaryKeyRows
        for (index, row) in rows.enumerated() {
            let entity = destination.schema.entity(destination.entities[index].entityID)
            guard entity.superID == nil else { continue }
            var maximum: Int64 = 0
            for member in entity.familyIDs {
                guard let sourceID = plan.migration.entities[member - 1].sourceID else { continue }
                let sourceRoot = plan.source.table(of: sourceID).rootID
                maximum = max(maximum, oldMax[plan.source.entityNumber(of: sourceRoot)] ?? 0)
            }
            try connection.query("SELECT MAX(Z_PK) FROM \(destination.table(of: entity.id).name)", []) {
                maximum = max(maximum, $0.int64(at: 0))
            }
            rows[index] = SQLitePrimaryKeyRow(
                entityNumber: row.entityNumber, name: row.name, superNumber: row.superNumber, max: maximum)
        }
        try connection.run("DELETE FROM Z_PRIMARYKEY WHERE Z_ENT < 16000")
        try SQLitePrimaryKeys.insert(rows, into: connection)
    }

    /// Persistent history names entities by number: the changes of migrated entities take their
    /// new numbers, those of removed entities 0.
    private static func renumberHistory(_ plan: SQLMigrationPlan, in connection: SQLiteConnection) throws {
        guard try connection.tableExists("ACHANGE") else { return }
        var cases: [String] = []
        for entity in plan.source.schema.entities {
            let number = plan.migration.destinationID(ofSource: entity.id).map(plan.destination.entityNumber(of:)) ?? 0
            cases.append("WHEN \(plan.source.entityNumber(of: entity.id)) THEN \(number)")
        }
        guard !cases.isEmpty else { return }
        try connection.execute("UPDATE ACHANGE SET ZENTITY = CASE ZENTITY \(cases.joined(separator: " ")) ELSE 0 END")
    }
}
