import OpenPredicate
import OpenStoreCore

/// A compiled dictionary fetch: the statement and how each result column is read from its rows.
package struct SQLDictionaryQuery: Equatable {
    package let query: SQLQuery
    package let columns: [SQLDictionaryColumn]
    /// Whether a column is read from Apple's external data files: computed once, so that rows
    /// of the usual queries skip looking for them.
    package let hasExternalData: Bool

    package init(query: SQLQuery, columns: [SQLDictionaryColumn]) {
        self.query = query
        self.columns = columns
        hasExternalData = columns.contains {
            if case .externalData = $0.reader { return true }
            return false
        }
    }
}

/// One column of the result dictionaries, as the store reads it from a statement row.
package struct SQLDictionaryColumn: Equatable {
    /// Where the value is in the row.
    package enum Reader: Equatable {
        /// A value stored as an attribute of `kind` (`SQLiteStatement.value(at:kind:)`).
        case value(Int32, AttributeKind)
        /// A binary value in Apple's external data layout (`AppleExternalData`) of the attribute
        /// `attribute` of `entity` (named in the error when its file is missing).
        case externalData(Int32, entity: String, attribute: String)
        /// An object: its primary key at the first index, its `Z_ENT` at `entityColumn` (nil when
        /// the reference can hold one entity only, `entityID`).
        case object(Int32, entityColumn: Int32?, entityID: Int)
    }

    /// The key in the result dictionaries.
    package let name: String
    package let reader: Reader
    /// The kind the read value is converted to (`StoreValue.converted(to:)`); nil keeps it.
    package let resultKind: AttributeKind?
}

extension SQLCompiler {
    /// What compiling a dictionary fetch gives.
    package enum DictionaryResult: Equatable {
        case compiled(SQLDictionaryQuery)
        /// The part of the plan that is not compiled yet, and why (the store runs it in memory).
        case notCompilable(String)
        /// A part Apple's SQL store cannot run either (a block predicate, a comparator sort…).
        case unsupported(String)
    }

    /// Compiles a plan whose output is `.dictionaries(shape)` to one `SELECT` giving exactly the
    /// dictionaries the in-memory store gives (`DictionaryFetch`): same keys, same `StoreValue`
    /// cases after the result kind conversion, same order, no entry for NULL.
    ///
    /// What compiles:
    /// - columns that are key paths of to-one steps ending in an attribute, a to-one relationship
    ///   (its destination's key) or `self` (the evaluated object);
    /// - the aggregates `sum:`, `average:`, `min:`, `max:`, `count:` of such a key path (`count:`
    ///   also of a to-one or `self`). Sums and averages of decimals run in `ocd_decimal_sum` /
    ///   `ocd_decimal_average` (registered functions adding `Decimal`s exactly, as memory does);
    ///   of integers, SQL's integer `SUM` and real `AVG`;
    /// - `GROUP BY` the group-by columns, the groups in the order of their first row
    ///   (`MIN(t0.Z_PK)`) after the sort descriptors, which name result columns;
    /// - aggregates without grouping: one row, even over no rows (`count:` 0, others absent);
    /// - `having` over the result columns (through the compiler's predicate rules, with the
    ///   columns' SQL in place of key paths): in `WHERE` for per-row dictionaries, in `HAVING`
    ///   for groups;
    /// - `distinct` per-row dictionaries: grouped by every column, in the order of each one's
    ///   first row after sorting (`ROW_NUMBER() OVER (ORDER BY …)`);
    /// - limit and offset, as `LIMIT ? OFFSET ?`.
    ///
    /// Parts Apple's SQL store cannot run either give `.unsupported`, as `compile(_:)` does.
    /// Refused (the reason names the part; the store runs the plan in memory): expressions other
    /// than key paths and those aggregates (`salary * 2`, `median:`), to-many key paths, columns
    /// in a grouped fetch that are neither grouped nor aggregates (Apple refuses them too),
    /// `distinct` with grouping, `having` or sorts naming what is not a result column, and a
    /// result kind that changes how values compare (a double read as an integer) on a column
    /// used for grouping, `distinct`, `having` or sorting.
    ///
    /// **Differences from the in-memory engine:** floating-point sums and averages may differ
    /// in the last bits (SQLite adds in its own order); a sum of integers past `Int64` is an
    /// SQLite error instead of a double.
    package func compile(_ plan: FetchPlan, shape: DictionaryShape) -> DictionaryResult {
        var state = CompilerState(layout: layout, entityID: plan.entityID, dialect: dialect)
        do {
            return .compiled(try state.dictionaryQuery(plan, shape))
        } catch {
            return error.isUnsupported ? .unsupported(error.reason) : .notCompilable(error.reason)
        }
    }
}

/// The statement forms of a dictionary fetch.
enum DictionaryForm {
    /// One dictionary per row.
    case rows
    /// Per-row dictionaries, duplicates removed.
    case distinctRows
    /// Aggregates without group-by: one dictionary.
    case oneGroup
    /// One dictionary per group.
    case groups
    /// Per-group dictionaries, duplicates removed.
    case distinctGroups
}

/// A dictionary column resolved to SQL.
struct ResultColumn {
    enum Value {
        /// A value of `kind`; `castForComparison` when its SQL is a decimal as text, compared
        /// as a number.
        case scalar(sql: String, kind: AttributeKind, castForComparison: Bool)
        case object(primaryKey: String, entityColumn: String?, family: Set<Int>, entityID: Int)
    }

    let name: String
    let value: Value
    let resultKind: AttributeKind?

    /// The SQL expressions selected for the column: one, or an object's key and entity.
    var terms: [String] {
        switch value {
        case .scalar(let sql, _, _): [sql]
        case .object(let primaryKey, let entityColumn, _, _): [primaryKey] + (entityColumn.map { [$0] } ?? [])
        }
    }

    /// The column with another name.
    func named(_ name: String) -> ResultColumn { ResultColumn(name: name, value: value, resultKind: resultKind) }

    /// The column as a predicate operand, its SQL replaced by `aliases` (one per term) if given.
    func operand(aliases: [String]? = nil, dialect: SQLDialect) -> Operand {
        switch value {
        case .scalar(let sql, let kind, let cast):
            let base = aliases?.first ?? sql
            return .column(cast ? "CAST(\(base) AS \(dialect.double))" : base, Self.comparedKind(kind, resultKind))
        case .object(let primaryKey, let entityColumn, let family, _):
            return .object(
                primaryKey: aliases?.first ?? primaryKey, entityColumn: entityColumn.map { aliases?.last ?? $0 }, family: family)
        }
    }

    /// True when converting to the result kind keeps which values are equal and their order, so
    /// that SQL may group, compare and sort the stored value in place of the converted one.
    var keepsOrder: Bool {
        guard case .scalar(_, let kind, _) = value, let target = resultKind, let width = Self.numericWidth(kind) else {
            return true
        }
        switch target {
        case .double, .float, .decimal, .date: return true
        case .boolean: return kind == .boolean
        case .integer16, .integer32, .integer64:
            return width <= (Self.numericWidth(target) ?? 0)
        default: return true
        }
    }

    /// The kind of the converted value (numbers convert; other values stay as they are).
    static func comparedKind(_ kind: AttributeKind, _ target: AttributeKind?) -> AttributeKind {
        guard let target, numericWidth(kind) != nil else { return kind }
        switch target {
        case .integer16, .integer32, .integer64, .decimal, .double, .float, .boolean, .date: return target
        default: return kind
        }
    }

    /// Bits of an integer kind (a Boolean 1); `Int.max` for fractional numbers; nil otherwise.
    static func numericWidth(_ kind: AttributeKind) -> Int? {
        switch kind {
        case .boolean: 1
        case .integer16: 16
        case .integer32: 32
        case .integer64: 64
        case .double, .float, .decimal: Int.max
        default: nil
        }
    }
}

extension CompilerState {
    // MARK: - The statement

    mutating func dictionaryQuery(_ plan: FetchPlan, _ shape: DictionaryShape) throws(NotCompilable) -> SQLDictionaryQuery {
        let conditions = try filter(plan)
        let aggregates = shape.columns.map(Self.aggregateParts)
        let grouped = !shape.groupBy.isEmpty || aggregates.contains { $0 != nil }
        var columns: [ResultColumn] = []
        var groupTerms: [String] = []
        if grouped {
            var groupColumns: [ResultColumn] = []
            for column in shape.groupBy {
                let resolved = try resultColumn(column)
                guard resolved.keepsOrder else {
                    throw NotCompilable("the group-by column \(column.name): its result type changes which values are equal")
                }
                groupColumns.append(resolved)
            }
            groupTerms = groupColumns.flatMap(\.terms)
            for (index, column) in shape.columns.enumerated() {
                if let match = shape.groupBy.firstIndex(where: {
                    $0.name == column.name || $0.expression.isEqual(column.expression)
                }) {
                    columns.append(groupColumns[match].named(column.name))
                } else if let (function, argument) = aggregates[index] {
                    columns.append(try aggregateColumn(column, function: function, argument: argument))
                } else {
                    throw NotCompilable(
                        "the column \(column.name) (\(column.expression)) is neither grouped by nor an aggregate")
                }
            }
        } else {
            for column in shape.columns { columns.append(try resultColumn(column)) }
        }

        if grouped || shape.distinct || shape.having != nil, let column = columns.first(where: isExternalData) {
            throw NotCompilable(
                "the column \(column.name): values in Apple's external data layout are grouped, compared and kept "
                    + "distinct in memory")
        }
        if shape.distinct, let column = columns.first(where: { !$0.keepsOrder }) {
            throw NotCompilable(
                "distinct results with the column \(column.name): its result type changes which values are equal")
        }
        // Each column's aliases (`c0`, …; an object's key and entity take two), for the forms
        // that select from a sub-select.
        var columnAliases: [[String]] = []
        var aliasCount = 0
        for column in columns {
            columnAliases.append(column.terms.indices.map { "c\(aliasCount + $0)" })
            aliasCount += column.terms.count
        }
        let form: DictionaryForm
        if !grouped {
            form = shape.distinct ? .distinctRows : .rows
        } else if groupTerms.isEmpty {
            form = .oneGroup  // one dictionary: distinct changes nothing
        } else {
            form = shape.distinct ? .distinctGroups : .groups
        }

        // Conditions on the result columns, and the sorts.
        var having: (sql: String, arguments: SQLArguments)?
        if let predicate = shape.having {
            try Self.checkHaving(predicate)
            resultColumns = operands(columns, aliases: form == .oneGroup ? columnAliases : nil)
            defer { resultColumns = nil }
            let saved = arguments
            arguments = SQLArguments()
            having = (try condition(predicate, exact: false), arguments)
            arguments = saved
        }
        var orderTerms: [String] = []
        switch form {
        case .rows, .distinctRows:
            for descriptor in plan.sortDescriptors { orderTerms.append(try sortTerm(descriptor)) }
        case .groups, .distinctGroups:
            let names = operands(columns, aliases: form == .distinctGroups ? columnAliases : nil)
            resultColumns = names
            defer { resultColumns = nil }
            for descriptor in plan.sortDescriptors {
                guard let key = descriptor.key, names[key] != nil else {
                    throw NotCompilable(
                        "the sort on \(descriptor.key ?? "self"): a grouped fetch sorts by result columns SQL can compare")
                }
                orderTerms.append(try sortTerm(descriptor))
            }
        case .oneGroup:
            break  // one dictionary: nothing to sort
        }

        // Assembly, in statement order (WHERE, HAVING, LIMIT arguments).
        let from = " FROM \(layout.table(of: plan.entityID).name) t0" + joinClauses.map { " " + $0 }.joined()
        var final = SQLArguments()
        var whereParts = conditions.map(\.sql)
        for condition in conditions { _ = final.bind(condition.arguments.values) }
        if !grouped, let having {
            whereParts.append(having.sql)
            _ = final.bind(having.arguments.values)
        }
        let whereClause = whereParts.isEmpty ? "" : " WHERE " + whereParts.joined(separator: " AND ")
        let terms = columns.flatMap(\.terms).joined(separator: ", ")
        let aliases = columnAliases.flatMap { $0 }.joined(separator: ", ")
        let aliased = zip(columns.flatMap(\.terms), columnAliases.flatMap { $0 }).map { "\($0) AS \($1)" }
            .joined(separator: ", ")
        var sql: String
        switch form {
        case .rows:
            sql = "SELECT " + terms + from + whereClause + " ORDER BY " + (orderTerms + ["t0.Z_PK"]).joined(separator: ", ")
        case .distinctRows:
            // Each distinct dictionary where its first row comes in the sorted rows.
            let position =
                orderTerms.isEmpty
                ? "t0.Z_PK" : "ROW_NUMBER() OVER (ORDER BY " + (orderTerms + ["t0.Z_PK"]).joined(separator: ", ") + ")"
            sql =
                "SELECT " + aliases + " FROM (SELECT " + aliased + ", " + position + " AS ocd_position" + from + whereClause
                + ")" + dialect.subqueryName + " GROUP BY " + aliases + " ORDER BY MIN(ocd_position)"
        case .oneGroup:
            sql = "SELECT " + terms + from + whereClause
            if let having {
                // One row even over no rows: filtered outside (HAVING would need a GROUP BY).
                sql =
                    "SELECT " + aliases + " FROM (SELECT " + aliased + from + whereClause + ")" + dialect.subqueryName + " WHERE "
                    + having.sql
                _ = final.bind(having.arguments.values)
            }
        case .groups, .distinctGroups:
            let distinct = form == .distinctGroups
            sql =
                "SELECT " + (distinct ? aliased + ", MIN(t0.Z_PK) AS ocd_position" : terms) + from + whereClause
                + " GROUP BY " + groupTerms.joined(separator: ", ")
            if let having {
                sql += " HAVING " + having.sql
                _ = final.bind(having.arguments.values)
            }
            if distinct {
                // Equal groups kept once, where the first of them comes; then sorted.
                sql =
                    "SELECT " + aliases + " FROM (" + sql + ")" + dialect.subqueryName + " GROUP BY " + aliases + " ORDER BY "
                    + (orderTerms + ["MIN(ocd_position)"]).joined(separator: ", ")
            } else {
                sql += " ORDER BY " + (orderTerms + ["MIN(t0.Z_PK)"]).joined(separator: ", ")
            }
        }
        return finish(sql, &final, plan, columns)
    }

    /// The result columns by name as operands of `having` and sorts (on their SQL, or on their
    /// `aliases` in a sub-select); only those whose result kind keeps comparisons.
    private func operands(_ columns: [ResultColumn], aliases: [[String]]?) -> [String: Operand] {
        var names: [String: Operand] = [:]
        for (index, column) in columns.enumerated() where column.keepsOrder && names[column.name] == nil {
            names[column.name] = column.operand(aliases: aliases?[index], dialect: dialect)
        }
        return names
    }

    /// Appends the window and makes the readers.
    private func finish(_ sql: String, _ final: inout SQLArguments, _ plan: FetchPlan, _ columns: [ResultColumn])
        -> SQLDictionaryQuery
    {
        var sql = sql
        let limit = max(plan.limit, 0)
        let offset = max(plan.offset, 0)
        if limit > 0 || offset > 0 {
            sql +=
                " LIMIT \(final.bind(limit > 0 ? .integer(Int64(limit)) : dialect.noLimit))"
                + " OFFSET \(final.bind(.integer(Int64(offset))))"
        }
        var readers: [SQLDictionaryColumn] = []
        var index: Int32 = 0
        for column in columns {
            switch column.value {
            case .scalar(let sql, let kind, _):
                let reader: SQLDictionaryColumn.Reader =
                    externalColumns[sql].map { .externalData(index, entity: $0.entity, attribute: $0.attribute) }
                    ?? .value(index, kind)
                readers.append(SQLDictionaryColumn(name: column.name, reader: reader, resultKind: column.resultKind))
                index += 1
            case .object(_, let entityColumn, _, let entityID):
                let reader = SQLDictionaryColumn.Reader.object(
                    index, entityColumn: entityColumn == nil ? nil : index + 1, entityID: entityID)
                readers.append(SQLDictionaryColumn(name: column.name, reader: reader, resultKind: column.resultKind))
                index += entityColumn == nil ? 1 : 2
            }
        }
        return SQLDictionaryQuery(query: SQLQuery(sql: sql, arguments: final.values), columns: readers)
    }

    // MARK: - Columns

    /// Whether the column reads an attribute in Apple's external data layout, whose column holds
    /// a marker (and a file's name) rather than the value.
    private func isExternalData(_ column: ResultColumn) -> Bool {
        guard case .scalar(let sql, _, _) = column.value else { return false }
        return externalColumns[sql] != nil
    }

    /// A key path column (attribute, to-one, `self`) or the evaluated object.
    private mutating func resultColumn(_ column: DictionaryShape.Column) throws(NotCompilable) -> ResultColumn {
        ResultColumn(name: column.name, value: try columnValue(column.expression, in: column), resultKind: column.resultKind)
    }

    private mutating func columnValue(_ expression: NSExpression, in column: DictionaryShape.Column) throws(NotCompilable)
        -> ResultColumn.Value
    {
        let operand: Operand
        switch expression.expressionType {
        case .keyPath where expression.operand.expressionType == .evaluatedObject:
            // A column may read values in Apple's external data layout (`isExternalData`).
            allowsExternalData = true
            defer { allowsExternalData = false }
            operand = try keyPath(expression.keyPath)
        case .evaluatedObject:
            operand = .object(primaryKey: "t0.Z_PK", entityColumn: "t0.Z_ENT", family: schema.entity(entityID).familyIDs)
        default:
            throw NotCompilable("the column \(column.name): the expression \(expression) is computed in memory only")
        }
        switch operand {
        case .column(let sql, let kind):
            return .scalar(sql: sql, kind: kind, castForComparison: false)
        case .object(let primaryKey, let entityColumn, let family):
            // Without a Z_ENT column the reference holds the family's root only.
            let root = family.first { id in schema.entity(id).superID.map { !family.contains($0) } ?? true }
            guard let root else { throw NotCompilable("the column \(column.name): its entity is not known") }
            return .object(primaryKey: primaryKey, entityColumn: entityColumn, family: family, entityID: root)
        case .constant:
            throw NotCompilable("the column \(column.name): a constant is computed in memory only")
        }
    }

    /// `function(argument)` as SQL, with the kind of its value before the result conversion
    /// (the kinds memory's `Aggregates` give: integer sums stay integers, averages are doubles
    /// unless of decimals, `min:`/`max:` keep the argument's kind).
    private mutating func aggregateColumn(_ column: DictionaryShape.Column, function: String, argument: NSExpression)
        throws(NotCompilable) -> ResultColumn
    {
        let value = try columnValue(argument, in: column)
        func result(_ sql: String, _ kind: AttributeKind, cast: Bool = false) -> ResultColumn {
            ResultColumn(
                name: column.name, value: .scalar(sql: sql, kind: kind, castForComparison: cast), resultKind: column.resultKind)
        }
        let refused = NotCompilable("the column \(column.name): \(function) of \(argument) is computed in memory only")
        if function == "count:" {
            switch value {
            case .scalar(let sql, _, _): return result("COUNT(\(sql))", .integer64)
            case .object(let primaryKey, _, _, _): return result("COUNT(\(primaryKey))", .integer64)
            }
        }
        guard case .scalar(let sql, let kind, _) = value, let width = ResultColumn.numericWidth(kind) ?? domainWidth(kind)
        else { throw refused }
        let isNumber = ResultColumn.numericWidth(kind) != nil
        switch function {
        case "sum:" where kind == .decimal && dialect == .postgreSQL:
            // `numeric` sums exactly, as `Decimal` does.
            return result("SUM(\(sql))", .decimal)
        case "sum:" where kind == .decimal: return result("ocd_decimal_sum(\(sql))", .decimal, cast: true)
        case "sum:" where isNumber && width == Int.max: return result("SUM(\(sql))", .double)
        case "sum:" where isNumber: return result("SUM(\(sql))", .integer64)
        case "average:" where kind == .decimal:
            try dialect.requireRegisteredFunctions("the column \(column.name): the average of decimals")
            return result("ocd_decimal_average(\(sql))", .decimal, cast: true)
        case "average:" where isNumber: return result("AVG(\(sql))", .double)
        case "min:": return result("MIN(\(sql))", kind)
        case "max:": return result("MAX(\(sql))", kind)
        default: throw refused
        }
    }

    /// Kinds `min:`/`max:` order as memory does (strings, dates); 0 as a marker.
    private func domainWidth(_ kind: AttributeKind) -> Int? {
        kind == .string || kind == .date ? 0 : nil
    }

    /// The function and argument of an aggregate column (`sum:(salary)`), as `DictionaryFetch`
    /// recognizes them; nil for other columns.
    static func aggregateParts(_ column: DictionaryShape.Column) -> (String, NSExpression)? {
        let expression = column.expression
        guard expression.expressionType == .function,
            ["sum:", "count:", "min:", "max:", "average:", "median:", "mode:", "stddev:"].contains(expression.function),
            let arguments = expression.arguments, arguments.count == 1
        else { return nil }
        return (expression.function, arguments[0])
    }

    /// Refuses `having` parts that do not read result columns by name: quantifiers, functions,
    /// `SELF`, variables.
    static func checkHaving(_ predicate: NSPredicate) throws(NotCompilable) {
        if let compound = predicate as? NSCompoundPredicate {
            for subpredicate in compound.predicates { try checkHaving(subpredicate) }
            return
        }
        guard let comparison = predicate as? NSComparisonPredicate else { return }
        guard comparison.comparisonPredicateModifier == .direct else {
            throw NotCompilable("the having predicate \(predicate): ANY/ALL/NONE over result columns run in memory")
        }
        for expression in [comparison.leftExpression, comparison.rightExpression] {
            switch expression.expressionType {
            case .constantValue, .aggregate: continue
            case .keyPath where expression.operand.expressionType == .evaluatedObject: continue
            default:
                throw NotCompilable("the having predicate \(predicate): \(expression) is not a result column or a constant")
            }
        }
    }
}

extension CompilerState {
    /// A result column named by a `having` predicate or a group sort.
    func resultColumn(_ name: String, in columns: [String: Operand]) throws(NotCompilable) -> Operand {
        guard let operand = columns[name] else {
            throw NotCompilable(
                "\(name) is not a result column SQL can compare (unknown, or its result type changes how values compare)")
        }
        return operand
    }
}
