import OpenPredicate

/// Everything a store holds, to move it into another (`migratePersistentStore`): every row with
/// its primary key and to-many members, and the highest key each hierarchy handed out, by
/// entity name (SQL stores: each `Z_PRIMARYKEY` row's `Z_MAX`).
package struct StoreContents: Sendable {
    package var rows: [RowSnapshot]
    package var keyMaxima: [String: Int64]

    package init(rows: [RowSnapshot], keyMaxima: [String: Int64]) {
        self.rows = rows
        self.keyMaxima = keyMaxima
    }
}

/// A row store whose contents move to another store, keys and all.
package protocol TransferableRowStore: RowStore {
    /// Everything the store holds.
    func exportContents() throws -> StoreContents
    /// Writes `contents` into the store, which must be empty, all at once, and takes
    /// `storeUUID` as its own where it keeps one. `progress` is told how many of the rows are
    /// written as they are, from time to time (every few hundred rows), and last
    /// `contents.rows.count`.
    /// - Throws: `NSPersistentStoreOperationError` when the store already holds rows.
    func importContents(_ contents: StoreContents, storeUUID: String?, progress: (Int) -> Void) throws
}
