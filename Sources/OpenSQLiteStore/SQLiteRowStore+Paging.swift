import OpenInMemoryStore
import OpenStoreCore

extension SQLiteRowStore: PagingRowStore {
    /// One page of a paged fetch as one `SELECT` (`SQLCompiler.compilePage(_:after:)`): keyset
    /// pagination, so no statement stays open and no read transaction spans pages (saves and
    /// other fetches on the connection may come between pages, and WAL checkpoints are not
    /// held up). A plan the compiler does not compile yet runs each page in memory over the rows
    /// SQL narrows it to (or every row of the file), as `execute(_:)` does: the same answers, at
    /// the cost of reading those rows once per page.
    package func page(of plan: FetchPlan, after position: FetchPosition?) throws -> FetchPage {
        var plan = plan
        plan.output = .rows
        switch SQLCompiler(layout: file.layout).compilePage(plan, after: position) {
        case .compiled(let query): return try withLock { try runPage(query, plan: plan) }
        case .unsupported(let reason): throw SQLiteStoreError.unsupportedFetch(reason, path: file.connection.url.path)
        case .notCompilable: break
        }
        let (store, rest) = try inMemory(narrowing: plan)
        return try store.page(of: rest, after: position)
    }

    /// Runs a compiled page: its rows, and when the page is full, the position of its last row
    /// (read from the sort key columns after the row's own).
    private func runPage(_ query: SQLQuery, plan: FetchPlan) throws -> FetchPage {
        let statement = try file.connection.statement(query.sql)
        defer { statement.reset() }
        try statement.bind(query.arguments)
        let tableIndex = file.layout.entities[plan.entityID - 1].table
        var decoder = SQLRowDecoder(
            layout: file.layout, table: tableIndex, entities: file.layout.tables[tableIndex].entityIDs)
        decoder.readsToMany = false
        let limit = max(plan.limit, 1)
        let sortCount = Int32(plan.sortDescriptors.count)
        var rows: [RowSnapshot] = []
        rows.reserveCapacity(limit)
        var stepped = 0
        var end: FetchPosition?
        while try statement.step() {
            stepped += 1
            if let row = decoder.decode(statement) { rows.append(row) }
            if stepped == limit {
                // Only a full page has a next one.
                let first = statement.columnCount - sortCount
                end = FetchPosition(
                    sortValues: (0..<sortCount).map { statement.storedValue(at: first + $0) },
                    primaryKey: statement.int64(at: 0))
            }
        }
        return FetchPage(rows: rows, end: end)
    }
}
