/// Where a paged fetch stopped: the sort values and primary key of the last row delivered, so
/// that the next page starts right after it (keyset pagination).
///
/// The values are the store's own (the SQLite store keeps what its `ORDER BY` terms gave, case
/// folded where the sort folds case): hand a position back only to the store that made it, for
/// the same plan.
package struct FetchPosition: Equatable {
    /// One value per sort descriptor of the plan, in order.
    package var sortValues: [StoreValue]
    /// The row's primary key: the last sort key, so that the order is total (`Z_PK` order among
    /// rows the sort descriptors consider equal).
    package var primaryKey: Int64

    package init(sortValues: [StoreValue], primaryKey: Int64) {
        self.sortValues = sortValues
        self.primaryKey = primaryKey
    }
}

/// One page of a paged fetch: rows, and the position of the last one.
package struct FetchPage {
    /// The rows, in the plan's order (to-many slots may be `.null`: not loaded, see `RowStore`).
    package var rows: [RowSnapshot]
    /// The position after the last row when the page is full (as many rows as the plan's
    /// limit); nil when it is not: there are no more rows.
    package var end: FetchPosition?

    package init(rows: [RowSnapshot], end: FetchPosition?) {
        self.rows = rows
        self.end = end
    }
}

/// A store that fetches a plan a page at a time without holding every matching row or key
/// (streaming fetches): each page is one run of the plan restricted to rows that sort after a
/// position, in the order of the plan's sort descriptors and then the primary key.
///
/// No statement or snapshot is kept between pages, so saves may come between them: a page sees
/// the store as it is when it runs. A row saved (inserted, or changed so that it sorts later)
/// after the position appears in a later page; a row deleted before its page is not returned;
/// a row whose sort values change from after the position to before it is skipped.
package protocol PagingRowStore: RowStore {
    /// The next page of `plan`'s rows: those after `position` (all of them when nil), then the
    /// plan's offset skipped and at most its limit kept (`plan.limit` must be positive).
    /// `plan.output` is ignored (rows are returned).
    func page(of plan: FetchPlan, after position: FetchPosition?) throws -> FetchPage
}
