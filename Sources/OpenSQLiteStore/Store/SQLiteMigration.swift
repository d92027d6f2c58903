import OpenPredicate
import OpenSQLStore
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
        let destination = try AppleSQLLayout(schema: migration.destination)
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
        _ plan: SQLMigrationPlan, in connection: SQLiteConnection, metadata: AppleSQLMetadata, progress: (Double) throws -> Void
    ) throws {
        let oldKeys = try AppleSQLPrimaryKeys.read(from: connection)
        let statements = plan.destination.createStatements.filter {
            $0 != AppleSQLPrimaryKeys.tableDDL && $0 != AppleSQLMetadata.tableDDL
        }
        let rTree = Set(plan.destination.fetchIndexStatements.filter { !$0.hasPrefix("CREATE INDEX") })
        try connection.transaction {
            try clearAway(plan, in: connection)
            try plan.run(
                on: connection, path: connection.url.path, oldKeys: oldKeys,
                tables: statements.filter { $0.hasPrefix("CREATE TABLE ") || rTree.contains($0) },
                indexes: statements.filter { !$0.hasPrefix("CREATE TABLE ") && !rTree.contains($0) },
                execute: connection.execute, progress: progress)
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
}
