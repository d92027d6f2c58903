/// The statements a store runs for one operation (a fetch, a count, a save), collected for the
/// operation's tracing span (its `db.query.text`): SQL with placeholders, never values.
///
/// ```swift
/// let log = StoreStatementLog()
/// try StoreStatementLog.$current.withValue(log) { try store.execute(plan) }
/// log.statements   // ["SELECT t0.Z_PK, … WHERE t0.ZAGE > ?"]
/// ```
///
/// The SQL stores record each statement as it starts running (`record(_:)` on `current`); with
/// no log bound, that is one task-local read per statement.
package final class StoreStatementLog: @unchecked Sendable {
    // @unchecked Sendable: bound for the length of one synchronous store call and written only
    // while that call runs, on its thread or on the thread of the caller holding the store's lock
    // (`CombiningLock` carries the log there, and the caller waits); read after the call.

    /// The log statements go to now, if an operation is being traced.
    @TaskLocal package static var current: StoreStatementLog?

    /// The statements run, in order, each once.
    package private(set) var statements: [String] = []

    /// The most statements kept (a save of many entities runs one per entity and kind).
    package static let limit = 32

    package init() {}

    /// Records a statement (again only if it differs from every one kept).
    package func record(_ sql: String) {
        guard statements.count < Self.limit, !statements.contains(sql) else { return }
        statements.append(sql)
    }
}
