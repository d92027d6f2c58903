import OpenPredicate
import OpenStoreCore

/// A store's rows moved between SQL stores in Apple's layout (SQLite ↔ PostgreSQL), keeping
/// every primary key and `Z_MAX`, so that object IDs and the keys handed out next stay the same.
package enum SQLStoreTransfer {
    /// Reads every row of the layout's entities (to-manys included) and `Z_PRIMARYKEY`.
    package static func export(session: some SQLSession, layout: AppleSQLLayout) throws -> StoreContents {
        let rows = try SQLRowReader(session: session, layout: layout).rows(entityIDs: Set(layout.schema.entities.map(\.id)))
        var maxima: [String: Int64] = [:]
        try session.query("SELECT Z_NAME, Z_MAX FROM Z_PRIMARYKEY", []) { row in
            if let name = row.string(at: 0) { maxima[name] = row.int64(at: 1) }
        }
        return StoreContents(rows: rows, keyMaxima: maxima)
    }

    /// Writes `contents` into an empty store, in the caller's transaction: the rows with their
    /// keys, then each entity's `Z_MAX` raised to the source's. `progress` is told how many rows
    /// are written as they are (`SQLRowWriter.insert(_:progress:)`).
    /// - Throws: `NSPersistentStoreOperationError` when the store already holds rows.
    package static func `import`(
        _ contents: StoreContents, session: some SQLSession, layout: AppleSQLLayout, progress: (Int) -> Void
    ) throws {
        for table in layout.tables {
            var count: Int64 = 0
            try session.query("SELECT COUNT(*) FROM \(table.name)", []) { count = $0.int64(at: 0) }
            guard count == 0 else {
                throw session.operationError(
                    "Can't copy a store into one that holds rows already (\(count) in \(table.name)); nothing was copied")
            }
        }
        try SQLRowWriter(session: session, layout: layout).insert(contents.rows, progress: progress)
        for (name, maximum) in contents.keyMaxima.sorted(by: { $0.key < $1.key }) {
            try session.run(
                "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_NAME = ? AND Z_MAX < ?",
                [.integer(maximum), .string(name), .integer(maximum)])
        }
    }
}

/// A row store in Apple's layout in a SQL database, whose contents move to another store.
package protocol SQLRowStore: TransferableRowStore {
    /// The store's UUID (`Z_METADATA.Z_UUID`).
    var storeUUID: String? { get }
    /// How `execute(_:)` runs `plan`, without running it (see `FetchExplanation`).
    func explain(_ plan: FetchPlan) throws -> FetchExplanation
}
