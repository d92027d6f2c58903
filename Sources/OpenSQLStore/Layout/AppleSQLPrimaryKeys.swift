import OpenPredicate
import OpenStoreCore

/// One row of `Z_PRIMARYKEY`: an entity's number (`Z_ENT`, the value of the `Z_ENT` column of its
/// rows), name, super-entity's number (0 for a root) and the highest primary key handed out.
///
/// Observed in every real store: each entity has a row; only a hierarchy root's `Z_MAX` counts
/// (primary keys are unique per table, so sub-entities keep 0); `Z_MAX` can exceed the row count
/// (deleted rows' keys are never reused). Persistent-history entities appear with numbers from
/// 16001 (`CHANGE`, `TRANSACTION`, `TRANSACTIONSTRING`).
package struct AppleSQLPrimaryKeyRow: Equatable, Sendable {
    package var entityNumber: Int
    package var name: String
    package var superNumber: Int
    package var max: Int64

    package init(entityNumber: Int, name: String, superNumber: Int, max: Int64) {
        self.entityNumber = entityNumber
        self.name = name
        self.superNumber = superNumber
        self.max = max
    }
}

/// Reading and updating `Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER
/// INTEGER, Z_MAX INTEGER)`.
///
/// ```swift
/// let rows = try AppleSQLPrimaryKeys.read(from: connection)   // [(1, "Car", 0, 125), …]
/// let keys = try AppleSQLPrimaryKeys.reserve(3, forRoot: 1, in: connection)  // 126...128
/// ```
package enum AppleSQLPrimaryKeys {
    /// The table each entity's rows live in, by entity number, as Apple names tables: `Z` + its
    /// hierarchy root's name in capitals (read from `Z_SUPER`, without a model).
    package static func tableNames(of rows: [AppleSQLPrimaryKeyRow]) -> [Int: String] {
        let byNumber = Dictionary(rows.map { ($0.entityNumber, $0) }) { first, _ in first }
        var names: [Int: String] = [:]
        for entity in rows {
            var root = entity
            var steps = 0
            while root.superNumber != 0, let parent = byNumber[root.superNumber], steps < rows.count {
                root = parent
                steps += 1
            }
            names[entity.entityNumber] = "Z" + root.name.uppercased()
        }
        return names
    }

    /// The DDL of the table, as Apple writes it.
    package static let tableDDL =
        "CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)"

    /// Reserves `count` keys of the hierarchy whose root has `rootNumber`: raises its `Z_MAX` and
    /// returns the keys after the old one. Run it inside the save's transaction (which then
    /// holds the row until it ends: in PostgreSQL the read locks it, `FOR UPDATE`).
    /// - Throws: `NSPersistentStoreSaveError` naming the store when the
    ///   keys would pass `Int64.max` (a damaged or exhausted `Z_PRIMARYKEY`), instead of trapping.
    package static func reserve(_ count: Int, forRoot rootNumber: Int, in session: some SQLSession) throws -> [Int64] {
        guard count > 0 else { return [] }
        var old: Int64?
        let lock = session.dialect == .postgreSQL ? " FOR UPDATE" : ""
        try session.query("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?" + lock, [.integer(Int64(rootNumber))]) {
            old = old ?? $0.int64(at: 0)
        }
        guard let old else { throw session.operationError("No entity numbered \(rootNumber) in Z_PRIMARYKEY") }
        let (new, overflow) = old.addingReportingOverflow(Int64(count))
        guard !overflow else {
            throw session.keysExhaustedError(
                "\(count) new primary key(s) are needed for entity number \(rootNumber), but its Z_PRIMARYKEY.Z_MAX is "
                    + "\(old), so they would pass \(Int64.max) (the largest key the store holds); its Z_PRIMARYKEY is "
                    + "damaged or its keys are used up. Nothing was saved")
        }
        try session.run("UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?", [.integer(new), .integer(Int64(rootNumber))])
        return Array((old + 1)...new)
    }

    /// Raises the root's `Z_MAX` to at least `primaryKey` (after inserting rows with given keys).
    package static func noteUsed(_ primaryKey: Int64, forRoot rootNumber: Int, in session: some SQLSession) throws {
        try session.run(
            "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ? AND Z_MAX < ?",
            [.integer(primaryKey), .integer(Int64(rootNumber)), .integer(primaryKey)])
    }
}
