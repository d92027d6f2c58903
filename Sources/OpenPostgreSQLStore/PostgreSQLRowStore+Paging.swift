#if PostgreSQL
    import OpenInMemoryStore
    import OpenSQLiteStore
    import OpenStoreCore

    extension PostgreSQLRowStore: PagingRowStore {
        /// One page of a paged fetch as one `SELECT` (`SQLCompiler.compilePage(_:after:)` in
        /// PostgreSQL's dialect): keyset pagination, as the SQLite store pages, so no statement or
        /// transaction stays open between pages. A plan that does not compile runs each page in
        /// memory, over the rows SQL narrows it to, as `execute(_:)` does.
        package func page(of plan: FetchPlan, after position: FetchPosition?) throws -> FetchPage {
            var plan = plan
            plan.output = .rows
            switch SQLCompiler(layout: layout, dialect: .postgreSQL).compilePage(plan, after: position) {
            case .compiled(let query): return try runPage(query, plan: plan)
            case .unsupported(let reason): throw PostgreSQLStoreError.unsupportedFetch(reason, store: storeName)
            case .notCompilable:
                let (store, rest) = try inMemory(narrowing: plan)
                return try store.page(of: rest, after: position)
            }
        }

        /// Runs a compiled page: its rows, and when the page is full, the position of its last row
        /// (the sort key columns after the row's own, as the server returns them).
        private func runPage(_ query: SQLQuery, plan: FetchPlan) throws -> FetchPage {
            let tableIndex = layout.entities[plan.entityID - 1].table
            var decoder = SQLRowDecoder(layout: layout, table: tableIndex, entities: layout.tables[tableIndex].entityIDs)
            decoder.readsToMany = false
            let limit = max(plan.limit, 1)
            let sortCount = plan.sortDescriptors.count
            var rows: [RowSnapshot] = []
            rows.reserveCapacity(limit)
            var read = 0
            var end: FetchPosition?
            try withSession { session in
                try session.query(query.sql, query.arguments) { row in
                    read += 1
                    if let snapshot = decoder.decode(row) { rows.append(snapshot) }
                    if read == limit {
                        // Only a full page has a next one.
                        let first = row.count - sortCount
                        end = FetchPosition(
                            sortValues: (0..<sortCount).map { row.value(first + $0) }, primaryKey: row.int64(at: 0))
                    }
                }
            }
            return FetchPage(rows: rows, end: end)
        }
    }
#endif
