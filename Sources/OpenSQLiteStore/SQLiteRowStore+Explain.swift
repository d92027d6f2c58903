import OpenStoreCore

/// How an SQL store runs a fetch plan, for `coredata explain` and for people reading why a
/// fetch is slow.
package enum FetchExplanation: Equatable {
    /// The plan runs in SQL: the statement (`sql` with `?` placeholders), the values bound to
    /// them in order, and SQLite's `EXPLAIN QUERY PLAN` for it with those values, one line per
    /// row of the plan (`detail`, indented two spaces per level). A `.rows` plan also runs one
    /// query per to-many relationship of the entity for the rows selected (not shown).
    case sql(SQLQuery, queryPlan: [String])
    /// The plan runs in memory, over every row of the file read into an in-memory store: the
    /// part of the plan that SQL cannot run, and why.
    case inMemory(reason: String)
    /// The plan runs in memory over the rows a statement selects (the rows that can match:
    /// `SQLCompiler.compileCandidates(_:)`), with that statement and its query plan as in
    /// `.sql`, and why SQL does not decide it all.
    case narrowed(SQLQuery, queryPlan: [String], reason: String)
}

extension SQLiteRowStore {
    /// How `execute(_:)` runs `plan`, without running it: the compiled statement (the
    /// dictionary statement for a dictionary plan) with its bound values and query plan, or the
    /// reason it runs in memory.
    ///
    /// ```swift
    /// if case .sql(let query, let queryPlan) = try store.explain(plan) {
    ///     print(query.sql, query.arguments, queryPlan)   // …, [.integer(30)], ["SCAN t0", …]
    /// }
    /// ```
    ///
    /// - Throws: the error `execute(_:)` throws for a plan Apple's store refuses
    ///   (`NSPersistentStoreUnsupportedRequestTypeError` 134091), or `NSSQLiteError` if SQLite
    ///   refuses to plan the statement.
    package func explain(_ plan: FetchPlan) throws -> FetchExplanation {
        let compiler = SQLCompiler(layout: file.layout)
        let query: SQLQuery
        if case .dictionaries(let shape) = plan.output {
            switch compiler.compile(plan, shape: shape) {
            case .compiled(let compiled): query = compiled.query
            case .notCompilable(let reason): return .inMemory(reason: reason)
            case .unsupported(let reason): throw SQLiteStoreError.unsupportedFetch(reason, path: file.connection.url.path)
            }
        } else {
            switch compiler.compile(plan) {
            case .compiled(let compiled): query = compiled
            case .notCompilable(let reason):
                guard case .compiled(let candidates) = compiler.compileCandidates(plan) else {
                    return .inMemory(reason: reason)
                }
                let lines = try withConnection {
                    try $0.queryPlan(candidates.query.sql, arguments: candidates.query.arguments)
                }
                return .narrowed(candidates.query, queryPlan: lines, reason: reason)
            case .unsupported(let reason): throw SQLiteStoreError.unsupportedFetch(reason, path: file.connection.url.path)
            }
        }
        let lines = try withConnection { try $0.queryPlan(query.sql, arguments: query.arguments) }
        return .sql(query, queryPlan: lines)
    }
}
