import OpenPredicate
import OpenStoreCore

extension SQLCompiler {
    /// Compiles one page of a paged fetch (`PagingRowStore`): the plan's rows that sort after
    /// `position`, in the order of its sort descriptors then `Z_PK`, its offset and limit
    /// applied after that condition; the select list ends with one column per sort key (the
    /// position of a row).
    ///
    /// ```swift
    /// // sorted by salary descending, after (salary 70000, Z_PK 12), 1000 rows:
    /// // SELECT t0.Z_PK, t0.Z_ENT, t0.Z_OPT, …, t0.ZSALARY FROM ZEMPLOYEE t0
    /// //   WHERE (t0.ZSALARY <= ? OR t0.ZSALARY IS NULL)
    /// //     AND ((t0.ZSALARY < ? OR t0.ZSALARY IS NULL) OR (t0.ZSALARY = ? AND t0.Z_PK > ?))
    /// //   ORDER BY t0.ZSALARY DESC, t0.Z_PK LIMIT ? OFFSET ?
    /// ```
    ///
    /// The condition follows the order `ORDER BY` gives: NULL first ascending and last
    /// descending, each key compared with its collation (or case fold), ties by `Z_PK`. Without
    /// sort descriptors it is `t0.Z_PK > ?`, which SQLite answers from the table's B-tree, so a
    /// page costs its own rows only. With them, the first key's bound is also stated alone, so
    /// that an index on that key starts at the position; without such an index SQLite scans the
    /// matching rows once per page (a sorted stream then costs rows × pages).
    package func compilePage(_ plan: FetchPlan, after position: FetchPosition?) -> Result {
        var state = CompilerState(layout: layout, entityID: plan.entityID, dialect: dialect)
        do {
            return .compiled(try state.pageQuery(plan, after: position))
        } catch {
            return error.isUnsupported ? .unsupported(error.reason) : .notCompilable(error.reason)
        }
    }
}

extension CompilerState {
    mutating func pageQuery(_ plan: FetchPlan, after position: FetchPosition?) throws(NotCompilable) -> SQLQuery {
        var conditions = try filter(plan)
        var keys: [(sql: String, ascending: Bool)] = []
        for descriptor in plan.sortDescriptors { keys.append(try sortKey(descriptor)) }
        if let position {
            guard position.sortValues.count == keys.count else {
                throw NotCompilable("a page position with \(position.sortValues.count) values for \(keys.count) sort keys")
            }
            var arguments = SQLArguments()
            var sql = ""
            if let first = keys.first, let value = position.sortValues.first, value != .null {
                // Implied by the condition below; stated alone, an index on the first sort key
                // can start the scan at the position instead of at the first row.
                sql =
                    first.ascending
                    ? "\(first.sql) >= \(arguments.bind(value)) AND "
                    : "(\(first.sql) <= \(arguments.bind(value)) OR \(first.sql) IS NULL) AND "
            }
            sql += after(0, keys: keys, position: position, arguments: &arguments)
            conditions.append((sql, arguments))
        }
        let table = layout.table(of: plan.entityID)
        var final = SQLArguments()
        var sql = "SELECT " + selectList(for: .rows, table: table)
        for key in keys { sql += ", " + key.sql }
        sql += " FROM \(table.name) t0" + joinClauses.map { " " + $0 }.joined()
        if !conditions.isEmpty {
            sql += " WHERE " + conditions.map(\.sql).joined(separator: " AND ")
            for condition in conditions { _ = final.bind(condition.arguments.values) }
        }
        let order = keys.map { dialect.order($0.sql, ascending: $0.ascending) } + ["t0.Z_PK"]
        sql += " ORDER BY " + order.joined(separator: ", ")
        sql += " LIMIT " + final.bind(.integer(Int64(max(plan.limit, 1))))
        sql += " OFFSET " + final.bind(.integer(Int64(max(plan.offset, 0))))
        return SQLQuery(sql: sql, arguments: final.values)
    }

    /// Rows after the position from sort key `index` on: later by that key, or equal by it and
    /// after by the following keys (`Z_PK` last). Arguments are bound in text order.
    private func after(
        _ index: Int, keys: [(sql: String, ascending: Bool)], position: FetchPosition, arguments: inout SQLArguments
    ) -> String {
        guard index < keys.count else { return "t0.Z_PK > " + arguments.bind(.integer(position.primaryKey)) }
        let key = keys[index].sql
        let value = position.sortValues[index]
        let later: String
        let equal: String
        if case .null = value {
            // NULL sorts first ascending (every value is later), last descending (none is).
            later = keys[index].ascending ? "\(key) IS NOT NULL" : dialect.never
            equal = "\(key) IS NULL"
        } else {
            later =
                keys[index].ascending
                ? "\(key) > \(arguments.bind(value))" : "(\(key) < \(arguments.bind(value)) OR \(key) IS NULL)"
            equal = "\(key) = \(arguments.bind(value))"
        }
        let rest = after(index + 1, keys: keys, position: position, arguments: &arguments)
        return "(\(later) OR (\(equal) AND \(rest)))"
    }
}
