import OpenPredicate
import OpenStoreCore

/// One run of a plan over a graph: the matching rows, their order, the window, and the output.
///
/// The predicate is compiled once per run and evaluated against a `RowView` of each candidate
/// row; a view is three words, so rows, keys and counts allocate nothing per row beyond the
/// result. Without sort descriptors the scan stops as soon as `offset + limit` rows matched.
struct RowFetch {
    let graph: RowGraph
    let plan: FetchPlan
    let usesNativeSort: Bool
    /// Whether the plan takes rows of an entity, by entity number minus one.
    private let wanted: [Bool]
    /// The tables holding those rows, in entity-number order of their roots.
    private let tables: [Int]
    /// The fetched entity's name, for messages.
    let entityName: String
    let offset: Int
    /// 0 for no limit.
    let limit: Int

    init(graph: RowGraph, plan: FetchPlan, usesNativeSort: Bool) {
        self.graph = graph
        self.plan = plan
        self.usesNativeSort = usesNativeSort
        var wanted = Array(repeating: false, count: graph.layouts.count)
        var tables = Set<Int>()
        for id in plan.entityIDs where wanted.indices.contains(id - 1) && !graph.layouts[id - 1].isAbstract {
            wanted[id - 1] = true
            tables.insert(graph.layouts[id - 1].table)
        }
        self.wanted = wanted
        self.tables = tables.sorted()
        entityName =
            graph.layouts.indices.contains(plan.entityID - 1) ? graph.layouts[plan.entityID - 1].name : "entity \(plan.entityID)"
        offset = max(plan.offset, 0)
        limit = max(plan.limit, 0)
    }

    func run() throws -> FetchOutput {
        switch plan.output {
        case .count:
            return .count(try count())
        case .keys:
            return .keys(try windowedRows().compactMap(\.key))
        case .rows:
            return .rows(try windowedRows().compactMap(\.row))
        case .dictionaries(let shape):
            return .dictionaries(try DictionaryFetch(fetch: self, shape: shape).run())
        }
    }

    // MARK: - Steps

    /// The number of results: matches after the offset, at most the limit (as Apple's
    /// `count(for:)`, which honours both).
    func count() throws -> Int {
        let matched = try matchingRows(stoppingAfter: limit > 0 ? offset + limit : nil).count
        return windowCount(matched)
    }

    /// The matching rows, sorted, after the offset and limit.
    func windowedRows() throws -> ArraySlice<RowView> {
        let stop = plan.sortDescriptors.isEmpty && limit > 0 ? offset + limit : nil
        return window(try sorted(try matchingRows(stoppingAfter: stop)))
    }

    /// The rows of the plan's entities the predicate matches, in insertion order; at most
    /// `stop` of them when given.
    func matchingRows(stoppingAfter stop: Int? = nil) throws -> [RowView] {
        let stop = stop ?? Int.max
        var result: [RowView] = []
        guard stop > 0 else { return result }
        guard let predicate = plan.predicate else {
            scan { view in
                result.append(view)
                return result.count < stop
            }
            return result
        }
        var evaluator = PredicateEvaluator(predicate)
        try scan { view in
            let matched: Bool
            do {
                matched = try evaluator.matches(view)
            } catch {
                throw InMemoryStoreError.evaluation(error, entity: entityName, what: "predicate \(predicate)")
            }
            try checkKeys()
            if matched { result.append(view) }
            return result.count < stop
        }
        return result
    }

    /// Visits the views of the plan's rows in insertion order until `visit` answers false.
    private func scan(_ visit: (RowView) throws -> Bool) rethrows {
        for table in tables {
            let rows = graph.tables[table].rows
            for position in rows.indices {
                guard let entityID = rows[position]?.key.entityID, wanted[entityID - 1] else { continue }
                guard try visit(RowView(graph: graph, table: table, position: position)) else { return }
            }
        }
    }

    /// Rows in the order of the plan's sort descriptors.
    func sorted(_ views: [RowView]) throws -> [RowView] {
        let result = RowSorter(graph: graph, entityID: plan.entityID, usesNativeSort: usesNativeSort)
            .sorted(views, by: plan.sortDescriptors)
        try checkKeys()
        return result
    }

    /// Skips `offset` elements, then keeps at most `limit` (0: all).
    func window<Element>(_ elements: [Element]) -> ArraySlice<Element> {
        let start = min(offset, elements.count)
        let end = limit > 0 ? min(elements.count, start + limit) : elements.count
        return elements[start..<end]
    }

    func windowCount(_ count: Int) -> Int {
        let afterOffset = max(count - offset, 0)
        return limit > 0 ? min(afterOffset, limit) : afterOffset
    }

    /// Throws for the first key a view was asked for that its entity lacks (the plan builder
    /// checks keys; this keeps a key it missed from passing silently as nil).
    func checkKeys() throws {
        guard let unknown = graph.unknownKey else { return }
        throw InMemoryStoreError.operation(
            "keypath \(unknown.key) not found in entity \(unknown.entity)", entity: unknown.entity, keyPath: unknown.key)
    }
}
