import OpenPredicate
import OpenStoreCore

extension InMemoryRowStore: PagingRowStore {
    /// One page of a paged fetch: the plan run on the store as it is now, keeping the rows that
    /// sort after `position` (by the plan's sort descriptors with the fetch's rules, then by
    /// primary key), then the plan's offset and limit.
    ///
    /// Each page scans the store's matching rows again (the store holds every row in memory
    /// already; a page holds only its views and rows). Sorting for a page is by attributes
    /// only (a key path of to-one steps ending in an attribute): a position keeps their values.
    ///
    /// - Throws: `NSPersistentStoreOperationError` for a sort by something else (`self`, a
    ///   relationship), or what the plan's predicate throws.
    package func page(of plan: FetchPlan, after position: FetchPosition?) throws -> FetchPage {
        try withFetchSnapshot { graph, native in
            try page(of: plan, after: position, graph: graph, usesNativeSort: native)
        }
    }

    private func page(of plan: FetchPlan, after position: FetchPosition?, graph: RowGraph, usesNativeSort native: Bool)
        throws -> FetchPage
    {
        var whole = plan
        whole.limit = 0
        whole.offset = 0
        whole.output = .rows
        let fetch = RowFetch(graph: graph, plan: whole, usesNativeSort: native)
        let keys = try plan.sortDescriptors.map { descriptor in
            guard let key = descriptor.key,
                let path = SlotPath(key, entityID: plan.entityID, layouts: graph.layouts, allowsToOneEnd: false),
                case .attribute(let kind) = path.end
            else {
                throw InMemoryStoreError.operation(
                    "A paged fetch sorts by attributes only, not by \(descriptor.key ?? "self")", entity: fetch.entityName,
                    keyPath: descriptor.key)
            }
            return (descriptor: descriptor, path: path, kind: kind, components: key.split(separator: "."))
        }
        var views = try fetch.matchingRows()
        if let position {
            guard position.sortValues.count == keys.count else {
                throw InMemoryStoreError.operation("A page position that does not match the fetch's sort descriptors")
            }
            let marks = zip(keys, position.sortValues).map { key, value in
                PositionMark(components: key.components[...], value: value.swiftValue(kind: key.kind))
            }
            views = views.filter { view in
                for (key, mark) in zip(keys, marks) {
                    switch key.descriptor.compare(view, to: mark) {
                    case .orderedDescending: return true
                    case .orderedAscending: return false
                    case .orderedSame: continue
                    }
                }
                return (view.key?.primaryKey ?? 0) > position.primaryKey
            }
        }
        // Ties by primary key (the sort is stable): the SQLite store's order.
        views.sort { ($0.key?.primaryKey ?? 0) < ($1.key?.primaryKey ?? 0) }
        let limit = max(plan.limit, 1)
        let window = try fetch.sorted(views).dropFirst(max(plan.offset, 0)).prefix(limit)
        let rows = window.compactMap(\.row)
        var end: FetchPosition?
        if window.count == limit, let last = window.last, let key = last.key {
            end = FetchPosition(sortValues: keys.map { $0.path.value(of: last, in: graph) }, primaryKey: key.primaryKey)
        }
        return FetchPage(rows: rows, end: end)
    }
}

/// The position's value of one sort key, seen through key-value coding as the rows are, so the
/// sort descriptor compares a row with it by its own rules: each step of the key path leads to
/// the next, the last to the value.
private struct PositionMark: KeyValueCodable {
    let components: ArraySlice<Substring>
    let value: Any?

    func value(forKey key: String) -> Any? {
        guard components.count > 1 else { return value }
        return PositionMark(components: components.dropFirst(), value: value)
    }
}
