import OpenPredicate
import OpenStoreCore

/// Dictionary results (`FetchPlan.Output.dictionaries`): one dictionary per row, or per group.
///
/// - **Per row** (no group-by, no aggregate column): each matching row, in the plan's order,
///   gives a dictionary of its columns, each expression evaluated against the row (a key path
///   may go through to-one relationships; a to-one relationship gives `.object(key)`).
///   `distinct` keeps the first of equal dictionaries; then the offset and limit apply.
/// - **Grouped** (`groupBy` columns, or no group-by but an aggregate column — one group of all
///   matching rows, as SQL's `SELECT sum(salary) FROM …` gives one row): rows with equal
///   group-by values form a group, in the order of their first row. A column named like a
///   group-by column (or with an equal expression) gives the group's value; an aggregate
///   function of one argument (`sum:`, `count:`, `min:`, `max:`, `average:`, `median:`,
///   `mode:`, `stddev:`) is evaluated over the argument's values in the group's rows, nil
///   values left out (as SQL does; `count:` counts the non-nil ones, an array value counts
///   its elements); any other column is evaluated against the group's first row. Then
///   `having` (against each dictionary, keys = column names, `a.b` reads the column `a.b`),
///   `distinct`, the sort descriptors (by column name), offset and limit.
///
/// Values convert to the column's `resultKind` when it has one (`average:` of integers as
/// `.double`, `min:` of dates stays `.date`, `sum:` into `.decimal`). A nil value has no entry,
/// as in Apple's result dictionaries. An aggregate of no values is nil, except `count:` (0).
///
/// **Differences from Apple:** Apple's SQLite store returns groups in the order its `GROUP BY`
/// happens to give (usually by group value); here groups keep the order of their first row
/// unless sort descriptors say otherwise.
struct DictionaryFetch {
    let fetch: RowFetch
    let shape: DictionaryShape

    /// The aggregate functions, in Apple's selector spelling.
    static let aggregateFunctions: Set<String> = ["sum:", "count:", "min:", "max:", "average:", "median:", "mode:", "stddev:"]

    /// How one output column is computed.
    private enum Role {
        /// The value of the group-by column at this index.
        case groupValue(Int)
        /// An aggregate function over the argument's values in the group.
        case aggregate(function: String, argument: Int)
        /// An expression evaluated against the row (or the group's first row).
        case value(Int)
    }

    func run() throws -> DictionaryRows {
        let columns = shape.columns
        let aggregates = columns.map(Self.aggregateParts)
        let grouped = !shape.groupBy.isEmpty || aggregates.contains { $0 != nil }
        if !grouped {
            return try rowDictionaries()
        }
        var evaluators = Evaluators(fetch: fetch)
        let groupBy = shape.groupBy.map { evaluators.add($0.expression) }
        let roles: [Role] = columns.enumerated().map { index, column in
            let match = shape.groupBy.firstIndex { $0.name == column.name || $0.expression.isEqual(column.expression) }
            if let match { return .groupValue(match) }
            if let (function, argument) = aggregates[index] {
                return .aggregate(function: function, argument: evaluators.add(argument))
            }
            return .value(evaluators.add(column.expression))
        }

        // Group the matching rows by their group-by values.
        var groups: [(values: [StoreValue], rows: [RowView])] = []
        var groupIndexes: [[StoreValue]: Int] = [:]
        if shape.groupBy.isEmpty { groups.append(([], [])) }
        for view in try fetch.matchingRows() {
            if shape.groupBy.isEmpty {
                groups[0].rows.append(view)
                continue
            }
            var values: [StoreValue] = []
            for (index, column) in shape.groupBy.enumerated() {
                values.append(try evaluators.storeValue(groupBy[index], for: view, column: column))
            }
            if let index = groupIndexes[values] {
                groups[index].rows.append(view)
            } else {
                groupIndexes[values] = groups.count
                groups.append((values, [view]))
            }
        }

        var results: [[String: StoreValue]] = []
        for group in groups {
            var dictionary: [String: StoreValue] = [:]
            for (index, column) in columns.enumerated() {
                let value: StoreValue
                switch roles[index] {
                case .groupValue(let groupIndex):
                    value = group.values[groupIndex]
                case .aggregate(let function, let argument):
                    var values: [Any] = []
                    for view in group.rows {
                        Self.collect(try evaluators.value(argument, for: view), into: &values)
                    }
                    value = try evaluators.convert(Self.aggregate(function, values), column: column)
                case .value(let evaluator):
                    guard let first = group.rows.first else { continue }
                    value = try evaluators.storeValue(evaluator, for: first, column: column)
                }
                if value != .null { dictionary[column.name] = value }
            }
            results.append(dictionary)
        }
        results = try filteredByHaving(results)
        if shape.distinct { results = Self.distinct(results) }
        if !fetch.plan.sortDescriptors.isEmpty, results.count > 1 {
            results = results.map(ResultView.init).sorted(using: fetch.plan.sortDescriptors).map(\.values)
        }
        return DictionaryRows(columns: columns.map(\.name), dictionaries: Array(fetch.window(results)))
    }

    /// One dictionary per matching row: made by column straight away when the window applies to
    /// rows; as dictionaries first when `having` or `distinct` read them.
    private func rowDictionaries() throws -> DictionaryRows {
        var evaluators = Evaluators(fetch: fetch)
        let indexes = shape.columns.map { evaluators.add($0.expression) }
        // Without `distinct` or `having` the window applies to rows, before any is projected.
        let windowsRows = !shape.distinct && shape.having == nil
        let stop = windowsRows && fetch.plan.sortDescriptors.isEmpty && fetch.limit > 0 ? fetch.offset + fetch.limit : nil
        let sorted = try fetch.sorted(try fetch.matchingRows(stoppingAfter: stop))
        let names = shape.columns.map(\.name)
        if windowsRows {
            let rows = fetch.window(sorted)
            var results = DictionaryRows(columns: names)
            results.reserveCapacity(rows.count)
            for view in rows {
                results.appendRow()
                for (index, column) in shape.columns.enumerated() {
                    results.set(try evaluators.storeValue(indexes[index], for: view, column: column), column: index)
                }
            }
            return results
        }
        var results: [[String: StoreValue]] = []
        results.reserveCapacity(sorted.count)
        for view in sorted {
            var dictionary: [String: StoreValue] = [:]
            for (index, column) in shape.columns.enumerated() {
                let value = try evaluators.storeValue(indexes[index], for: view, column: column)
                if value != .null { dictionary[column.name] = value }
            }
            results.append(dictionary)
        }
        results = try filteredByHaving(results)
        if shape.distinct { results = Self.distinct(results) }
        return DictionaryRows(columns: names, dictionaries: Array(fetch.window(results)))
    }

    // MARK: - Parts

    private func filteredByHaving(_ results: [[String: StoreValue]]) throws -> [[String: StoreValue]] {
        guard let having = shape.having else { return results }
        var evaluator = PredicateEvaluator(having)
        return try results.filter { dictionary in
            do {
                return try evaluator.matches(ResultView(dictionary))
            } catch {
                throw InMemoryStoreError.evaluation(error, entity: fetch.entityName, what: "having predicate \(having)")
            }
        }
    }

    /// Equal dictionaries removed, the first kept.
    private static func distinct(_ results: [[String: StoreValue]]) -> [[String: StoreValue]] {
        var seen = Set<[String: StoreValue]>()
        return results.filter { seen.insert($0).inserted }
    }

    /// The function and argument of an aggregate column (`sum:(salary)`), or nil.
    private static func aggregateParts(_ column: DictionaryShape.Column) -> (String, NSExpression)? {
        let expression = column.expression
        guard expression.expressionType == .function, aggregateFunctions.contains(expression.function),
            let arguments = expression.arguments, arguments.count == 1
        else { return nil }
        return (expression.function, arguments[0])
    }

    /// Adds a row's value of an aggregate's argument: nil left out, an array's elements each.
    private static func collect(_ value: Any?, into values: inout [Any]) {
        guard let value, !ValueSemantics.isNSNull(value) else { return }
        if let elements = value as? [Any] {
            for element in elements { collect(element, into: &values) }
        } else {
            values.append(value)
        }
    }

    /// An aggregate function over values, with OpenPredicate's function table.
    private static func aggregate(_ function: String, _ values: [Any]) -> Any? {
        if values.isEmpty { return function == "count:" ? 0 : nil }
        let expression = NSExpression(forFunction: function, arguments: [NSExpression(forConstantValue: values)])
        return expression.expressionValue(with: nil, context: nil)
    }
}

/// The compiled expressions of a dictionary fetch, each evaluated with error reporting. A key
/// path of to-one steps ending in an attribute or a to-one relationship is read straight from
/// the slots (`SlotPath`); anything else is evaluated against the row view.
private struct Evaluators {
    private enum Compiled {
        case slots(SlotPath)
        case expression(ExpressionEvaluator)
    }

    private let fetch: RowFetch
    private var compiled: [Compiled] = []
    private var expressions: [NSExpression] = []

    init(fetch: RowFetch) {
        self.fetch = fetch
    }

    /// Compiles an expression; returns its index.
    mutating func add(_ expression: NSExpression) -> Int {
        if expression.expressionType == .keyPath,
            let path = SlotPath(
                expression.keyPath, entityID: fetch.plan.entityID, layouts: fetch.graph.layouts, allowsToOneEnd: true)
        {
            compiled.append(.slots(path))
        } else {
            compiled.append(.expression(ExpressionEvaluator(expression)))
        }
        expressions.append(expression)
        return compiled.count - 1
    }

    /// The expression's value for a row, as a Swift value (for aggregate arguments).
    func value(_ index: Int, for view: RowView) throws -> Any? {
        switch compiled[index] {
        case .slots(let path):
            return path.value(of: view, in: fetch.graph).naturalValue
        case .expression(var evaluator):
            // A copy: its evaluation state (variables, the last error) starts clean every time.
            let value: Any?
            do {
                value = try evaluator.value(for: view)
            } catch {
                throw InMemoryStoreError.evaluation(error, entity: fetch.entityName, what: "expression \(expressions[index])")
            }
            try fetch.checkKeys()
            return value
        }
    }

    /// The expression's value for a row, stored and converted to the column's result kind.
    func storeValue(_ index: Int, for view: RowView, column: DictionaryShape.Column) throws -> StoreValue {
        if case .slots(let path) = compiled[index] {
            let value = path.value(of: view, in: fetch.graph)
            return column.resultKind.map { value.converted(to: $0) } ?? value
        }
        return try convert(value(index, for: view), column: column)
    }

    /// The stored form of a column's value, converted to its result kind.
    func convert(_ value: Any?, column: DictionaryShape.Column) throws -> StoreValue {
        let stored: StoreValue
        if let view = value as? RowView {
            stored = view.key.map(StoreValue.object) ?? .null
        } else if let views = value as? [RowView] {
            stored = .objects(views.compactMap(\.key))
        } else if let elements = value as? [Any], !elements.isEmpty, elements.allSatisfy({ $0 is RowView }) {
            stored = .objects(elements.compactMap { ($0 as? RowView)?.key })
        } else if let inferred = StoreValue(inferring: value) {
            stored = inferred
        } else {
            throw InMemoryStoreError.operation(
                "Column \(column.name) (\(column.expression)) of \(fetch.entityName) gives a value of type "
                    + "\(value.map { String(describing: type(of: $0)) } ?? "nil"), which a store can't return",
                entity: fetch.entityName, keyPath: column.name)
        }
        guard let kind = column.resultKind else { return stored }
        return stored.converted(to: kind)
    }
}

/// A result dictionary as `having` predicates and sort descriptors read it: a key is a column
/// name; a dotted key path (`department.name`) reads the column of that name, also when its
/// first part is a column too (a to-one `department` beside `department.name`: see
/// `ResultObject`).
struct ResultView: KeyValueCodable {
    let values: [String: StoreValue]
    private let prefix: String

    init(_ values: [String: StoreValue]) {
        self.init(values, prefix: "")
    }

    private init(_ values: [String: StoreValue], prefix: String) {
        self.values = values
        self.prefix = prefix
    }

    func value(forKey key: String) -> Any? {
        let name = prefix + key
        let nested = name + "."
        if let value = values[name] {
            guard case .object(let object) = value, values.keys.contains(where: { $0.hasPrefix(nested) }) else {
                return value.naturalValue
            }
            return ResultObject(key: object, columns: ResultView(values, prefix: nested))
        }
        if values.keys.contains(where: { $0.hasPrefix(nested) }) { return ResultView(values, prefix: nested) }
        return nil
    }
}

/// A to-one column's object in a result dictionary that also has columns through it
/// (`department` beside `department.name`): it is the object where it is compared, and reads
/// those columns where a key path goes on through it, as the key path would in the store.
struct ResultObject: KeyValueCodable, PredicateIdentity {
    let key: ObjectKey
    let columns: ResultView

    var predicateIdentity: AnyHashable { key }

    func value(forKey key: String) -> Any? { columns.value(forKey: key) }
}
