import Foundation
import OpenInMemoryStore
import OpenStoreCore

/// A row store whose rows are in Apple's layout in a SQL database: the SQLite store and the
/// PostgreSQL store. Each gives its layout, its dialect and a way to run statements
/// (`withSession(_:)`); the fetches are written once, here:
///
/// 1. **Compile**: `SQLCompiler(layout:dialect:)` turns the plan into one statement (a dictionary
///    plan into one `SELECT` read straight into its results).
/// 2. **Run**: the statement runs on a session; rows decode by column index through
///    `SQLRowDecoder`, to-many slots not loaded (`.null`).
/// 3. **Fall back**: a plan with a part the dialect has no exact counterpart for
///    (`.notCompilable`) runs on an `InMemoryRowStore` holding the rows SQL narrows it to
///    (`SQLCompiler.compileCandidates(_:)`), or every row of the store, so its answers are the
///    in-memory store's by construction. A part no SQL store runs (`.unsupported`: a block
///    predicate, a comparator sort, a custom `FUNCTION()`) throws the store's
///    `NSPersistentStoreUnsupportedRequestTypeError`.
///
/// ```swift
/// extension SQLiteRowStore: SQLFetchStore { … }   // layout, dialect, withSession, errors
/// let output = try store.execute(plan)             // compiled, run, or run in memory
/// ```
package protocol SQLFetchStore: RowStore {
    /// What the store's statements run on.
    associatedtype Session: SQLSession
    /// The store's tables and columns.
    var layout: AppleSQLLayout { get }
    /// The SQL its database speaks.
    var dialect: SQLDialect { get }
    /// Runs `body`, which only reads, with a session to the database (SQLite: one of its
    /// read-only connections, or its connection under the store's lock; PostgreSQL: a pooled
    /// connection). Database errors come out as the store's `NSError`s.
    func withSession<T>(_ body: (Session) throws -> T) throws -> T
    /// The store's `NSPersistentStoreUnsupportedRequestTypeError` for a plan with a part no SQL
    /// store runs; `reason` names the part.
    func unsupportedFetchError(_ reason: String) -> Error
    /// The statement as the database gets it and the database's plan for it, one line per row
    /// (SQLite's `EXPLAIN QUERY PLAN`, PostgreSQL's `EXPLAIN`).
    func queryPlan(_ query: SQLQuery) throws -> (statement: SQLQuery, lines: [String])
    /// Runs a compiled plan's one statement: the count, the keys, or the rows (read by column
    /// index through `SQLRowDecoder`; to-many slots not loaded, `.null`). The default reads the
    /// rows through `withSession(_:)`; a store may read its statements directly instead (the
    /// SQLite store does: called generically across modules, the default costs about 200
    /// instructions a row more, measured with callgrind).
    func run(_ query: SQLQuery, plan: FetchPlan) throws -> FetchOutput
    /// Runs a compiled dictionary fetch into `sink` (see
    /// `SQLDictionaryQuery.read(_:layout:conversions:into:)`); the default runs it through
    /// `withSession(_:)`, a store may read its statements directly (as `run(_:plan:)`).
    func runDictionaries(_ compiled: SQLDictionaryQuery, into sink: inout some DictionaryRowSink) throws
}

extension SQLFetchStore {
    private var compiler: SQLCompiler { SQLCompiler(layout: layout, dialect: dialect) }

    /// Runs a fetch plan: compiled to one statement, or in memory (see `SQLFetchStore`).
    package func execute(_ plan: FetchPlan) throws -> FetchOutput {
        if case .dictionaries(let shape) = plan.output {
            switch compiler.compile(plan, shape: shape) {
            case .compiled(let query):
                var rows = DictionaryRows(columns: query.columns.map(\.name))
                try runDictionaries(query, into: &rows)
                return .dictionaries(rows)
            case .unsupported(let reason): throw unsupportedFetchError(reason)
            case .notCompilable: return try runInMemory(plan)
            }
        }
        switch compiler.compile(plan) {
        case .compiled(let query): return try run(query, plan: plan)
        case .unsupported(let reason): throw unsupportedFetchError(reason)
        case .notCompilable: return try runInMemory(plan)
        }
    }

    /// A batch write's statement (`SQLCompiler.compileBatch`), and the write to run: `batch`, or
    /// when the dialect can't compute its predicate, `batch` retargeted to the keys the plan
    /// matches (found as a fetch finds them, before the write's transaction begins).
    /// - Throws: `BatchWriteRefusedError` when the write can't run in a SQL store,
    ///   `BatchWriteNeedsRowsError` when its values need the in-memory engine.
    package func compileBatch(_ batch: BatchWrite) throws -> (SQLBatchStatement, BatchWrite) {
        let plan: FetchPlan
        switch batch.target {
        case .plan(let target): plan = target
        case .keys(let entityID, _): plan = FetchPlan(entityID: entityID, entityIDs: [entityID], output: .keys)
        }
        switch compiler.compileBatch(batch.action, plan: plan) {
        case .compiled(let statement):
            return (statement, batch)
        case .refused(let reason):
            throw BatchWriteRefusedError(reason)
        case .valuesNotCompilable(let reason):
            throw BatchWriteNeedsRowsError(reason)
        case .conditionNotCompilable(let statement, _):
            var keysPlan = plan
            keysPlan.output = .keys
            guard case .keys(let keys) = try runInMemory(keysPlan) else { return (statement, batch) }
            var retargeted = batch
            retargeted.target = .keys(entityID: plan.entityID, keys)
            return (statement, retargeted)
        }
    }

    /// Runs a dictionary fetch straight into `NSDictionary` results when it compiles to SQL (no
    /// `DictionaryRows` in between); otherwise as `execute(_:)` does, the plan compiled once.
    package func dictionaryResults(_ plan: FetchPlan, objectID: @escaping (ObjectKey) -> AnyObject) throws -> [NSDictionary] {
        guard case .dictionaries(let shape) = plan.output else { return [] }
        switch compiler.compile(plan, shape: shape) {
        case .compiled(let query):
            var builder = DictionaryResultBuilder(columns: query.columns.map(\.name), objectID: objectID)
            try runDictionaries(query, into: &builder)
            return builder.results
        case .unsupported(let reason):
            throw unsupportedFetchError(reason)
        case .notCompilable:
            guard case .dictionaries(let rows) = try runInMemory(plan) else { return [] }
            return rows.foundationResults(objectID: objectID)
        }
    }

    /// One page of a paged fetch as one `SELECT` (`SQLCompiler.compilePage(_:after:)`): keyset
    /// pagination, so no statement or transaction stays open between pages (saves and other
    /// fetches may come between them, and SQLite's WAL checkpoints are not held up). A plan that
    /// does not compile runs each page in memory over the rows SQL narrows it to, as
    /// `execute(_:)` does: the same answers, at the cost of reading those rows once per page.
    package func page(of plan: FetchPlan, after position: FetchPosition?) throws -> FetchPage {
        var plan = plan
        plan.output = .rows
        switch compiler.compilePage(plan, after: position) {
        case .compiled(let query): return try runPage(query, plan: plan)
        case .unsupported(let reason): throw unsupportedFetchError(reason)
        case .notCompilable:
            let (store, rest) = try inMemory(narrowing: plan)
            return try store.page(of: rest, after: position)
        }
    }

    /// How `execute(_:)` runs `plan`, without running it: the compiled statement (the
    /// dictionary statement for a dictionary plan) with its bound values and the database's
    /// plan for it, or the reason it runs in memory.
    ///
    /// ```swift
    /// if case .sql(let query, let queryPlan) = try store.explain(plan) {
    ///     print(query.sql, query.arguments, queryPlan)   // …, [.integer(30)], ["SCAN t0", …]
    /// }
    /// ```
    ///
    /// - Throws: the error `execute(_:)` throws for a plan Apple's store refuses
    ///   (`NSPersistentStoreUnsupportedRequestTypeError` 134091), or the database's if it
    ///   refuses to plan the statement.
    package func explain(_ plan: FetchPlan) throws -> FetchExplanation {
        let query: SQLQuery
        if case .dictionaries(let shape) = plan.output {
            switch compiler.compile(plan, shape: shape) {
            case .compiled(let compiled): query = compiled.query
            case .notCompilable(let reason): return .inMemory(reason: reason)
            case .unsupported(let reason): throw unsupportedFetchError(reason)
            }
        } else {
            switch compiler.compile(plan) {
            case .compiled(let compiled): query = compiled
            case .notCompilable(let reason):
                guard case .compiled(let candidates) = compiler.compileCandidates(plan) else {
                    return .inMemory(reason: reason)
                }
                let (statement, lines) = try queryPlan(candidates.query)
                return .narrowed(statement, queryPlan: lines, reason: reason)
            case .unsupported(let reason): throw unsupportedFetchError(reason)
            }
        }
        let (statement, lines) = try queryPlan(query)
        return .sql(statement, queryPlan: lines)
    }

    /// The row of `key`, to-many slots not loaded (`.null`); nil when there is none.
    package func row(for key: ObjectKey) throws -> RowSnapshot? {
        try rows(for: [key]).first
    }

    /// Every row asked for, one query per table; to-many slots are not loaded (`.null`).
    package func rows(for keys: [ObjectKey]) throws -> [RowSnapshot] {
        guard !keys.isEmpty else { return [] }
        return try withSession { try SQLRowReader(session: $0, layout: layout).rows(for: keys, readingToMany: false) }
    }

    /// The members of a to-many relationship for many owners (see `SQLRowReader.members(of:slot:)`).
    package func members(of owners: [ObjectKey], slot: Int) throws -> [ObjectKey: [ObjectKey]] {
        try withSession { try SQLRowReader(session: $0, layout: layout).members(of: owners, slot: slot) }
    }

    /// See `RowStore.changeStamp(entityIDs:)`.
    package func changeStamp(entityIDs: Set<Int>) throws -> [Int64]? {
        try withSession { try SQLRowReader(session: $0, layout: layout).changeStamp(entityIDs: entityIDs) }
    }

    /// Runs a plan that does not compile to SQL on the in-memory store: over the rows SQL
    /// narrows it to, or over every row (`inMemory(narrowing:)`).
    package func runInMemory(_ plan: FetchPlan) throws -> FetchOutput {
        let (store, rest) = try inMemory(narrowing: plan)
        return try store.execute(rest)
    }

    /// For a plan that does not compile: an in-memory store holding the rows that can match it,
    /// and the plan to run there. The rows are the candidates SQL selects
    /// (`SQLCompiler.compileCandidates(_:)`: the compiling `AND` terms of the predicate), or
    /// every row of the store when what SQL cannot decide reads more than the entity's attributes.
    package func inMemory(narrowing plan: FetchPlan) throws -> (store: InMemoryRowStore, plan: FetchPlan) {
        let store = InMemoryRowStore(schema: layout.schema)
        switch compiler.compileCandidates(plan) {
        case .compiled(let candidates):
            var rowsPlan = plan
            rowsPlan.output = .rows
            if case .rows(let rows) = try run(candidates.query, plan: rowsPlan) {
                try store.apply(inserted: rows, updated: [], deleted: [])
            }
            return (store, candidates.plan)
        case .unsupported(let reason):
            throw unsupportedFetchError(reason)
        case .notCompilable:
            let entityIDs = Set(layout.schema.entities.map(\.id))
            let rows = try withSession { try SQLRowReader(session: $0, layout: layout).rows(entityIDs: entityIDs) }
            try store.apply(inserted: rows, updated: [], deleted: [])
            return (store, plan)
        }
    }

    /// Runs a compiled plan in its one statement (see `SQLFetchStore.run(_:plan:)`).
    package func run(_ query: SQLQuery, plan: FetchPlan) throws -> FetchOutput {
        let layout = layout
        return try withSession { session in
            switch plan.output {
            case .count:
                var count = 0
                try session.query(query.sql, query.arguments) { count = Int($0.int64(at: 0)) }
                return .count(count)
            case .rows:
                var decoder = SQLRowDecoder(layout: layout, entity: plan.entityID, dialect: dialect)
                var rows: [RowSnapshot] = []
                var counter = FetchRowCounter()
                let watched = counter.isWatching
                try session.query(query.sql, query.arguments) { row in
                    if watched { try counter.count() }
                    if let snapshot = try decoder.decode(row) { rows.append(snapshot) }
                }
                try counter.finish()
                return .rows(rows)
            default:
                var keys: [ObjectKey] = []
                try Self.readKeys(query, plan: plan, on: session, layout: layout) { keys.append($0) }
                return .keys(keys)
            }
        }
    }

    /// Runs a plan whose output is `.keys`, handing each key to `body` as it is read (see
    /// `RowStore.forEachKey(_:_:)`); false when the plan does not compile to one statement.
    package func forEachKey(_ plan: FetchPlan, _ body: (ObjectKey) -> Void) throws -> Bool {
        guard case .keys = plan.output, case .compiled(let query) = compiler.compile(plan) else { return false }
        let layout = layout
        try withSession { session in try Self.readKeys(query, plan: plan, on: session, layout: layout, body) }
        return true
    }

    /// Hands each row's key of a key fetch's statement to `body`, as it is read.
    private static func readKeys(
        _ query: SQLQuery, plan: FetchPlan, on session: Session, layout: AppleSQLLayout, _ body: (ObjectKey) -> Void
    ) throws {
        var reader = SQLKeyReader(layout: layout, entity: plan.entityID)
        var counter = FetchRowCounter()
        let watched = counter.isWatching
        try session.query(query.sql, query.arguments) { row in
            if watched { try counter.count() }
            if let key = reader.key(of: row) { body(key) }
        }
        try counter.finish()
    }

    /// Runs a compiled dictionary fetch into `sink` (see `SQLFetchStore.runDictionaries(_:into:)`).
    package func runDictionaries(_ compiled: SQLDictionaryQuery, into sink: inout some DictionaryRowSink) throws {
        let conversions = compiled.conversions
        let layout = layout
        try withSession { session in
            var counter = FetchRowCounter()
            let watched = counter.isWatching
            try session.query(compiled.query.sql, compiled.query.arguments) { row in
                if watched { try counter.count() }
                try compiled.read(row, layout: layout, conversions: conversions, into: &sink)
            }
            try counter.finish()
        }
    }

    /// Runs a compiled page: its rows, and when the page is full, the position of its last row
    /// (read from the sort key columns after the row's own).
    private func runPage(_ query: SQLQuery, plan: FetchPlan) throws -> FetchPage {
        var decoder = SQLRowDecoder(layout: layout, entity: plan.entityID, dialect: dialect)
        let limit = max(plan.limit, 1)
        let sortCount = Int32(plan.sortDescriptors.count)
        var rows: [RowSnapshot] = []
        rows.reserveCapacity(limit)
        var read = 0
        var end: FetchPosition?
        try withSession { session in
            try session.query(query.sql, query.arguments) { row in
                read += 1
                if let snapshot = try decoder.decode(row) { rows.append(snapshot) }
                if read == limit {
                    // Only a full page has a next one.
                    let first = row.columnCount - sortCount
                    end = FetchPosition(
                        sortValues: (0..<sortCount).map { row.storedValue(at: first + $0) }, primaryKey: row.int64(at: 0))
                }
            }
        }
        return FetchPage(rows: rows, end: end)
    }
}

/// How an SQL store runs a fetch plan, for `coredata explain` and for people reading why a
/// fetch is slow.
package enum FetchExplanation: Equatable {
    /// The plan runs in SQL: the statement (`sql` with its dialect's placeholders), the values
    /// bound to them in order, and the database's plan for it with those values, one line per
    /// row of the plan (SQLite: `detail`, indented two spaces per level). A `.rows` plan also
    /// runs one query per to-many relationship of the entity for the rows selected (not shown).
    case sql(SQLQuery, queryPlan: [String])
    /// The plan runs in memory, over every row of the store read into an in-memory store: the
    /// part of the plan that SQL cannot run, and why.
    case inMemory(reason: String)
    /// The plan runs in memory over the rows a statement selects (the rows that can match:
    /// `SQLCompiler.compileCandidates(_:)`), with that statement and its query plan as in
    /// `.sql`, and why SQL does not decide it all.
    case narrowed(SQLQuery, queryPlan: [String], reason: String)
}
