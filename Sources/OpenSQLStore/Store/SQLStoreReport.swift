/// What `coredata stores` shows of a store in Apple's layout, read straight from its tables
/// without a model: the metadata, `Z_PRIMARYKEY`, and each entity's own row count. Each SQL store
/// reads it its own way (`SQLStoreReport.sqliteFile(at:)`, `SQLStoreReport.postgreSQLStore(at:)`);
/// the tool shows both alike.
package struct SQLStoreReport {
    /// `Z_METADATA`.
    package let metadata: AppleSQLMetadata
    /// `Z_PRIMARYKEY`, by entity number.
    package let entities: [AppleSQLPrimaryKeyRow]
    /// Rows per entity number (the entity's own rows, not its sub-entities'); nil where its table
    /// is missing.
    package let rowCounts: [Int: Int]
    /// The journal mode (SQLite's `PRAGMA journal_mode`); nil for a store that has none.
    package let journalMode: String?

    /// A report of these parts.
    package init(metadata: AppleSQLMetadata, entities: [AppleSQLPrimaryKeyRow], rowCounts: [Int: Int], journalMode: String?) {
        self.metadata = metadata
        self.entities = entities
        self.rowCounts = rowCounts
        self.journalMode = journalMode
    }
}
