import OpenPredicate
import OpenStoreCore

/// Compiles a `FetchPlan` to one `SELECT` with bound parameters only, or says which part of the
/// plan is not compiled yet and why (the store then runs that plan in memory), or which part
/// Apple's SQL store cannot run either (`.unsupported`: the store refuses the fetch).
///
/// ```swift
/// let plan = FetchPlan(entityID: bookID, entityIDs: [bookID, novelID],
///                      predicate: NSPredicate(format: "title BEGINSWITH[cd] %@", "crepes"), output: .keys)
/// switch SQLCompiler(layout: layout).compile(plan) {
/// case .compiled(let query):   // SELECT t0.Z_PK, t0.Z_ENT FROM ZBOOK t0 WHERE ocd_begins_with(t0.ZTITLE, ?, 3) …
///                              // (`.rows` selects every column: `selectList(for:table:)`)
/// case .notCompilable(let reason): …
/// }
/// ```
///
/// What compiles: comparisons `== != < <= > >=` of a key path and a constant (either side),
/// `BETWEEN`, `IN` a collection (one JSON parameter read through `json_each`), `AND`/`OR`/`NOT`,
/// `TRUEPREDICATE`/`FALSEPREDICATE`, `nil` comparisons, `BEGINSWITH`/`ENDSWITH`/`CONTAINS`/
/// `LIKE`/`MATCHES` with `[c]`/`[d]` (through the functions of `SQLiteFunctions`), key paths of
/// to-one steps ending in an attribute or a to-one (`LEFT JOIN`s), objects and keys compared to
/// to-ones and `self`; to-many key paths (`ANY`/`ALL`/`NONE`, `@count`, `@sum`/`@avg`/`@min`/
/// `@max`, `SUBQUERY(…).@count`, `IN`/`CONTAINS`) as correlated sub-selects
/// (`SQLCompiler+ToMany.swift`); comparisons of two key paths, arithmetic, string `length`,
/// `uppercase:`, `lowercase:` (`SQLCompiler+Expressions.swift`, `SQLiteValueFunctions`);
/// sorts with the five selectors of Apple's SQL store (`compare:`, `caseInsensitiveCompare:`,
/// and the localized three through the collations of `SQLiteCollations`); limit and offset; counts. Refused as
/// Apple's SQL store refuses them: block predicates, comparator sorts, custom `FUNCTION()`s,
/// custom selectors, transient keys and key paths with two to-many steps. The rules are the
/// in-memory engine's (`ValueSemantics`):
/// - a number and a string (any two kinds with no common order) are never equal and never
///   ordered, so the comparison compiles to a constant;
/// - ordering with nil is false, `x != c` is true for a NULL `x`. Conditions under `NOT` are
///   made two-valued (`IS`, `IS NOT`, `COALESCE(…, 0)`) so that NULL rows answer as in memory;
/// - sorts put NULL first ascending and last descending, ties in `Z_PK` order.
///
/// **Differences from the in-memory engine:** strings compare by UTF-8 bytes, which is Swift's
/// order for strings in one normalization form (NFC, as Foundation stores typed text), not
/// across forms.
package struct SQLCompiler {
    /// What a compilation gives.
    package enum Result: Equatable {
        case compiled(SQLQuery)
        /// The part of the plan that is not compiled to SQL yet, and why (the store runs the plan
        /// in memory instead).
        case notCompilable(String)
        /// The part of the plan Apple's SQL store cannot run either (block predicates, comparator
        /// sorts, custom `FUNCTION()`s, key paths with two to-many steps), and why: the store
        /// refuses the fetch with this reason (`SQLiteStoreError.unsupportedFetch`).
        case unsupported(String)
    }

    package let layout: AppleSQLLayout
    /// The SQL written: SQLite's, or PostgreSQL's. **Default:** `.sqlite`.
    package let dialect: SQLDialect

    package init(layout: AppleSQLLayout, dialect: SQLDialect = .sqlite) {
        self.layout = layout
        self.dialect = dialect
    }

    package func compile(_ plan: FetchPlan) -> Result {
        var state = CompilerState(layout: layout, entityID: plan.entityID, dialect: dialect)
        do {
            return .compiled(try state.query(plan))
        } catch {
            return error.isUnsupported ? .unsupported(error.reason) : .notCompilable(error.reason)
        }
    }
}

/// Why a part of a plan does not compile: not compiled yet (the store falls back to running the
/// plan in memory), or `isUnsupported`, one of Apple's documented SQL-store limits (the fetch fails).
struct NotCompilable: Error {
    let reason: String
    let isUnsupported: Bool
    init(_ reason: String) {
        self.reason = reason
        isUnsupported = false
    }
    init(unsupported reason: String) {
        self.reason = reason
        isUnsupported = true
    }
}

/// What a key path reads: a column holding an attribute, or a reference to an object.
enum Operand {
    case column(String, AttributeKind)
    /// An object: the column of its primary key, and how its entity is known (a column holding
    /// `Z_ENT`, or the one entity the reference can hold).
    case object(primaryKey: String, entityColumn: String?, family: Set<Int>)
    case constant(Constant)
}

/// A constant of a predicate, sorted by what it can be compared with.
enum Constant {
    case null
    case number(StoreValue)
    case string(String)
    case date(Date)
    case uuid(UUID)
    case data(Data)
    case key(ObjectKey)
    case collection([Any?])
}

/// What values a column holds, for the rule that values of different domains never match.
enum Domain: Equatable {
    case number, string, date, uuid, data, object
}

struct CompilerState {
    let layout: AppleSQLLayout
    let entityID: Int
    let dialect: SQLDialect
    var arguments = SQLArguments()
    /// `LEFT JOIN`s by key path prefix (`department`, `department.manager`); those of a
    /// sub-select's member rows are keyed `<member alias>/<prefix>`.
    var joins: [String: (alias: String, entityID: Int)] = [:]
    /// The `LEFT JOIN`s of the statement's `FROM`.
    var joinClauses: [String] = []
    /// While compiling a dictionary fetch's `having` or group sorts: key paths name result columns.
    var resultColumns: [String: Operand]?
    /// The `LEFT JOIN`s of each sub-select, by the alias of its member rows.
    var memberJoinClauses: [String: [String]] = [:]
    /// Sub-selects made so far (their member rows are `m1`, `m2`, …).
    var memberCount = 0
    /// The rows `SUBQUERY` variables stand for, by name.
    var variables: [String: Scope] = [:]
    /// Whether key paths may end in an attribute whose column holds Apple's external data
    /// layout (`AppleSQLLayout.keepsExternalData(entity:slot:)`): while compiling a comparison
    /// with nil (the column is NULL exactly when the value is nil) or a dictionary fetch's
    /// column (read through `externalColumns`). Any other test or sort of such values runs in
    /// memory, where they are bytes: the column holds a marker and, for a value in a file, its
    /// name.
    var allowsExternalData = false
    /// The columns (their SQL) of attributes in Apple's external data layout that key paths
    /// ended in, with their entity and attribute names.
    var externalColumns: [String: (entity: String, attribute: String)] = [:]

    init(layout: AppleSQLLayout, entityID: Int, dialect: SQLDialect) {
        self.layout = layout
        self.entityID = entityID
        self.dialect = dialect
    }

    var schema: StoreSchema { layout.schema }

    // MARK: - The statement

    mutating func query(_ plan: FetchPlan) throws(NotCompilable) -> SQLQuery {
        if case .dictionaries = plan.output { throw NotCompilable("dictionary results compile with compile(_:shape:)") }
        // The WHERE clause and the sorts add joins and arguments as they compile; the parts are
        // assembled in statement order at the end, so their arguments are bound in that order.
        let conditions = try filter(plan)
        let table = layout.table(of: plan.entityID)
        var orderTerms: [String] = []
        for descriptor in plan.sortDescriptors { orderTerms.append(try sortTerm(descriptor)) }
        orderTerms.append("t0.Z_PK")

        var final = SQLArguments()
        var sql = ""
        var untied: String?
        let from = " FROM \(table.name) t0" + joinClauses.map { " " + $0 }.joined()
        var whereClause = ""
        if !conditions.isEmpty {
            whereClause = " WHERE " + conditions.map(\.sql).joined(separator: " AND ")
            for condition in conditions { _ = final.bind(condition.arguments.values) }
        }
        let limit = max(plan.limit, 0)
        let offset = max(plan.offset, 0)
        var window = ""
        var windowArguments = SQLArguments()
        if limit > 0 || offset > 0 {
            window =
                " LIMIT \(windowArguments.bind(limit > 0 ? .integer(Int64(limit)) : dialect.noLimit))"
                + " OFFSET \(windowArguments.bind(.integer(Int64(offset))))"
        }
        switch plan.output {
        case .count where window.isEmpty:
            sql = "SELECT COUNT(*)" + from + whereClause
        case .count:
            sql = "SELECT COUNT(*) FROM (SELECT 1" + from + whereClause + window + ")" + dialect.subqueryName
        default:
            let head = "SELECT " + selectList(for: plan.output, table: table) + from + whereClause + " ORDER BY "
            sql = head + orderTerms.joined(separator: ", ") + window
            if dialect == .sqlite, limit > 0, orderTerms.count > 1 {
                untied = head + orderTerms.dropLast().joined(separator: ", ") + window
            }
        }
        _ = final.bind(windowArguments.values)
        return SQLQuery(sql: sql, arguments: final.values, sqlWithoutTieBreak: untied)
    }

    /// The `WHERE` conditions of a plan, each with its own arguments: the entity restriction
    /// (`Z_ENT IN (…)` when the plan wants part of its table) and the predicate.
    mutating func filter(_ plan: FetchPlan) throws(NotCompilable) -> [(sql: String, arguments: SQLArguments)] {
        guard schema.entities.indices.contains(plan.entityID - 1) else {
            throw NotCompilable("entity \(plan.entityID) is not in the schema")
        }
        let table = layout.table(of: plan.entityID)
        let wanted = plan.entityIDs.filter { schema.entities.indices.contains($0 - 1) && !schema.entity($0).isAbstract }
        guard wanted.allSatisfy({ table.entityIDs.contains($0) }) else {
            throw NotCompilable("the plan's entities live in more than one table")
        }
        var conditions: [(sql: String, arguments: SQLArguments)] = []
        if Set(table.entityIDs) != Set(wanted) {
            var restriction = SQLArguments()
            let numbers = wanted.sorted().map { StoreValue.integer(Int64(layout.entityNumber(of: $0))) }
            conditions.append((numbers.isEmpty ? dialect.never : "t0.Z_ENT IN (\(restriction.bind(numbers)))", restriction))
        }
        if let predicate = plan.predicate {
            let sql = try condition(predicate, exact: false)
            conditions.append((sql, arguments))
            arguments = SQLArguments()
        }
        return conditions
    }

    // MARK: - Sorts

    mutating func sortTerm(_ descriptor: NSSortDescriptor) throws(NotCompilable) -> String {
        let sortKey = try sortKey(descriptor)
        return dialect.order(sortKey.sql, ascending: sortKey.ascending)
    }

    /// The expression a sort descriptor orders by (with its collation, if any), and its
    /// direction: `sortTerm(_:)` without `DESC`, for comparisons with it (`SQLCompiler+Paging`).
    mutating func sortKey(_ descriptor: NSSortDescriptor) throws(NotCompilable) -> (sql: String, ascending: Bool) {
        guard let key = descriptor.key else { throw NotCompilable("a sort descriptor without a key (sorting by self)") }
        guard let selector = descriptor.selector else {
            throw NotCompilable(
                unsupported: "the sort on \(key) uses a comparator block; a SQL store sorts with selectors only")
        }
        let ascending = descriptor.ascending
        let operand = try keyPath(key)
        guard case .column(let column, let kind) = operand else {
            throw NotCompilable("the sort on \(key): only attributes are sorted in SQL")
        }
        switch selector {
        case "compare:":
            return (column, ascending)
        case "caseInsensitiveCompare:" where domain(kind) == .string:
            try dialect.requireRegisteredFunctions("the sort on \(key) with caseInsensitiveCompare:")
            return ("ocd_fold(\(column), 1)", ascending)
        case _ where domain(kind) == .string:
            guard let collation = SQLDialect.collation(for: selector) else { break }
            try dialect.requireRegisteredFunctions("the sort on \(key) with \(selector)")
            return ("\(column) COLLATE \(collation)", ascending)
        case "caseInsensitiveCompare:", "localizedCompare:", "localizedCaseInsensitiveCompare:", "localizedStandardCompare:":
            // Values that are not strings sort with compare: (as in memory).
            return (column, ascending)
        default:
            break
        }
        throw NotCompilable(
            unsupported: "the sort on \(key) uses the selector \(selector); a SQL store sorts with compare:, "
                + "caseInsensitiveCompare:, localizedCompare:, localizedCaseInsensitiveCompare: and localizedStandardCompare: only"
        )
    }

    // MARK: - Predicates

    /// The SQL of a predicate. `exact` asks for a condition that is never NULL (under `NOT`);
    /// elsewhere NULL rejects a row as false does.
    mutating func condition(_ predicate: NSPredicate, exact: Bool) throws(NotCompilable) -> String {
        if let comparison = predicate as? NSComparisonPredicate {
            return try self.comparison(comparison, exact: exact)
        }
        if let compound = predicate as? NSCompoundPredicate {
            var parts: [String] = []
            for subpredicate in compound.predicates {
                parts.append(try condition(subpredicate, exact: exact || compound.compoundPredicateType == .not))
            }
            switch compound.compoundPredicateType {
            case .and: return parts.isEmpty ? dialect.always : "(" + parts.joined(separator: " AND ") + ")"
            case .or: return parts.isEmpty ? dialect.never : "(" + parts.joined(separator: " OR ") + ")"
            case .not: return parts.first.map { "NOT (" + $0 + ")" } ?? dialect.always
            @unknown default: throw NotCompilable("the compound predicate \(predicate)")
            }
        }
        if predicate.isEqual(Self.truePredicate) { return dialect.always }
        if predicate.isEqual(Self.falsePredicate) { return dialect.never }
        throw NotCompilable(
            unsupported: "the predicate \(predicate) is a block or custom predicate; a SQL store can't evaluate it")
    }

    // Immutable after initialization and only compared against: safe to share between threads.
    nonisolated(unsafe) static let truePredicate = NSPredicate(value: true)
    nonisolated(unsafe) static let falsePredicate = NSPredicate(value: false)

    mutating func comparison(_ predicate: NSComparisonPredicate, exact: Bool) throws(NotCompilable) -> String {
        let mark = arguments.values.count
        let sql = try comparisonSQL(predicate, exact: exact)
        // A sub-select's values are bound as it compiles: a comparison decided without its text
        // (a count compared with a string is false) would leave them unplaced.
        guard sql.utf8.count(where: { $0 == UInt8(ascii: "?") }) == arguments.values.count - mark else {
            throw NotCompilable("\(predicate): a computed value that the comparison does not need is compared in memory")
        }
        return sql
    }

    mutating func comparisonSQL(_ predicate: NSComparisonPredicate, exact: Bool) throws(NotCompilable) -> String {
        if predicate.predicateOperatorType == .customSelector {
            throw NotCompilable(
                unsupported: "\(predicate): the custom selector \(predicate.customSelector.map { "\($0)" } ?? "?") "
                    + "can't run in SQL")
        }
        // A comparison with nil may name an attribute in Apple's external data layout.
        let allowedExternalData = allowsExternalData
        allowsExternalData = Self.isNilTest(predicate)
        defer { allowsExternalData = allowedExternalData }
        let left = try side(predicate.leftExpression, in: predicate)
        // The right side's sub-selects bind their values apart, and join the statement's values
        // where its text joins the statement's (after the left side's).
        let saved = arguments
        arguments = SQLArguments()
        let right = try side(predicate.rightExpression, in: predicate)
        let pending = arguments.values
        arguments = saved
        if predicate.comparisonPredicateModifier != .direct {
            guard pending.isEmpty else {
                throw NotCompilable("\(predicate): ANY/ALL with a computed right side is not compiled yet")
            }
            return try quantified(predicate, left: left, right: right, exact: exact)
        }
        guard case .operand(let leftOperand) = left, case .operand(let rightOperand) = right else {
            guard pending.isEmpty else {
                throw NotCompilable("\(predicate): a to-many compared with a computed value is not compiled yet")
            }
            return try toManyComparison(predicate, left: left, right: right, exact: exact)
        }
        return try compare(
            leftOperand, rightOperand, operatorType: predicate.predicateOperatorType, options: predicate.options,
            pending: pending, in: predicate, exact: exact)
    }

    /// Whether `predicate` is `keyPath == nil` or `keyPath != nil` (either way round), without
    /// modifier or options.
    static func isNilTest(_ predicate: NSComparisonPredicate) -> Bool {
        guard predicate.comparisonPredicateModifier == .direct,
            [.equalTo, .notEqualTo].contains(predicate.predicateOperatorType)
        else { return false }
        func isNil(_ expression: NSExpression) -> Bool {
            guard expression.expressionType == .constantValue else { return false }
            guard let value = expression.constantValue, let unwrapped = ValueSemantics.unwrapOptional(value) else {
                return true
            }
            return unwrapped is NSNull
        }
        return isNil(predicate.leftExpression) != isNil(predicate.rightExpression)
    }

    /// A comparison of two operands, without modifier. `pending` are the values of the right
    /// operand's text, bound where that text goes.
    mutating func compare(
        _ left: Operand, _ right: Operand, operatorType: NSComparisonPredicate.Operator,
        options: NSComparisonPredicate.Options, pending: [StoreValue], in predicate: NSComparisonPredicate, exact: Bool
    ) throws(NotCompilable) -> String {
        var operatorType = operatorType
        let flags = options.intersection([.caseInsensitive, .diacriticInsensitive]).rawValue
        switch (left, right) {
        case (.constant, .constant):
            guard operatorType == predicate.predicateOperatorType, predicate.comparisonPredicateModifier == .direct else {
                throw NotCompilable("\(predicate): constants compared under a modifier are compared in memory")
            }
            return predicate.evaluate(with: nil) ? dialect.always : dialect.never
        case (.column, .column), (.object, .object), (.column, .object), (.object, .column):
            if Self.stringOperators.contains(operatorType) {
                return try stringTest(
                    operatorType, left: left, right: right, flags: flags, pending: pending, exact: exact, in: predicate)
            }
            return try compareKeyPaths(left, operatorType, right, options: options, pending: pending, exact: exact, in: predicate)
        case (.constant(let constant), _) where Self.stringOperators.contains(operatorType):
            return try stringTest(
                operatorType, left: .constant(constant), right: right, flags: flags, pending: pending, exact: exact,
                in: predicate)
        case (.constant(let constant), _):
            guard let flipped = Self.flipped[operatorType] else {
                throw NotCompilable("\(predicate): a constant on the left of \(operatorType) is not compiled")
            }
            operatorType = flipped
            _ = arguments.bind(pending)
            return try compare(right, operatorType, constant, options: options, exact: exact, in: predicate)
        case (_, .constant(let constant)):
            if Self.stringOperators.contains(operatorType) {
                return try stringTest(
                    operatorType, left: left, right: right, flags: flags, pending: [], exact: exact, in: predicate)
            }
            return try compare(left, operatorType, constant, options: options, exact: exact, in: predicate)
        }
    }

    static let stringOperators: Set<NSComparisonPredicate.Operator> = [.beginsWith, .endsWith, .contains, .like, .matches]
    static let flipped: [NSComparisonPredicate.Operator: NSComparisonPredicate.Operator] = [
        .equalTo: .equalTo, .notEqualTo: .notEqualTo, .lessThan: .greaterThan, .greaterThan: .lessThan,
        .lessThanOrEqualTo: .greaterThanOrEqualTo, .greaterThanOrEqualTo: .lessThanOrEqualTo,
    ]
    static let symbols: [NSComparisonPredicate.Operator: String] = [
        .lessThan: "<", .lessThanOrEqualTo: "<=", .greaterThan: ">", .greaterThanOrEqualTo: ">=",
    ]
    static let functions: [NSComparisonPredicate.Operator: String] = [
        .beginsWith: "ocd_begins_with", .endsWith: "ocd_ends_with", .contains: "ocd_contains", .like: "ocd_like",
        .matches: "ocd_matches",
    ]

    /// `column op constant` (or an object compared to keys).
    mutating func compare(
        _ operand: Operand, _ operatorType: NSComparisonPredicate.Operator, _ constant: Constant,
        options: NSComparisonPredicate.Options, exact: Bool, in predicate: NSComparisonPredicate
    ) throws(NotCompilable) -> String {
        if case .object(let primaryKey, let entityColumn, let family) = operand {
            return try compareObject(primaryKey, entityColumn, family, operatorType, constant, in: predicate)
        }
        guard case .column(let column, let kind) = operand else { throw NotCompilable("\(predicate)") }
        let columnDomain = domain(kind)
        let folds = columnDomain == .string && !options.intersection([.caseInsensitive, .diacriticInsensitive]).isEmpty
        let flags = options.intersection([.caseInsensitive, .diacriticInsensitive]).rawValue
        if folds { try dialect.requireRegisteredFunctions("\(predicate)") }
        let subject = folds ? "ocd_fold(\(column), \(flags))" : column
        func value(_ constant: Constant) -> StoreValue? {
            guard constantDomain(constant) == columnDomain, var value = storeValue(constant) else { return nil }
            if folds, case .string(let string) = value { value = .string(fold(string, flags)) }
            return value
        }
        switch operatorType {
        case .equalTo, .notEqualTo:
            let equal = operatorType == .equalTo
            if case .null = constant { return "\(column) \(equal ? "IS NULL" : "IS NOT NULL")" }
            guard let bound = value(constant) else { return equal ? dialect.never : dialect.always }
            if equal {
                let placeholder = arguments.bind(bound)
                return exact ? dialect.same(subject, placeholder) : "\(subject) = \(placeholder)"
            }
            return dialect.different(subject, arguments.bind(bound))
        case .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo:
            guard let bound = value(constant), let symbol = Self.symbols[operatorType] else { return dialect.never }
            return twoValued("\(subject) \(symbol) \(arguments.bind(bound))", exact: exact)
        case .between:
            guard case .collection(let bounds) = constant, bounds.count == 2 else { return dialect.never }
            guard let low = try value(classify(bounds[0], in: predicate)),
                let high = try value(classify(bounds[1], in: predicate))
            else { return dialect.never }
            return twoValued("\(subject) BETWEEN \(arguments.bind(low)) AND \(arguments.bind(high))", exact: exact)
        case .in:
            guard case .collection(let elements) = constant else {
                throw NotCompilable("\(predicate): IN compiles with a collection constant only")
            }
            var members: [StoreValue] = []
            var hasNil = false
            for element in elements {
                let constant = try classify(element, in: predicate)
                if case .null = constant { hasNil = true } else if let member = value(constant) { members.append(member) }
            }
            guard [.number, .string, .date].contains(columnDomain) else {
                throw NotCompilable("\(predicate): IN with \(kind) values is not compiled (JSON has no such values)")
            }
            var parts: [String] = []
            if !members.isEmpty {
                let list = try json(members, in: predicate)
                let placeholder = arguments.bind(.string(list))
                parts.append(
                    twoValued(
                        dialect.inJSONList(subject, placeholder, numbers: columnDomain != .string), exact: exact))
            }
            if hasNil { parts.append("\(column) IS NULL") }
            return parts.isEmpty ? dialect.never : parts.count == 1 ? parts[0] : "(" + parts.joined(separator: " OR ") + ")"
        default:
            throw NotCompilable("\(predicate): the operator is not compiled (custom selector)")
        }
    }

    /// A relationship's destination or `self` compared with nil, keys or objects.
    mutating func compareObject(
        _ primaryKey: String, _ entityColumn: String?, _ family: Set<Int>, _ operatorType: NSComparisonPredicate.Operator,
        _ constant: Constant, in predicate: NSComparisonPredicate
    ) throws(NotCompilable) -> String {
        func keys(_ constant: Constant) throws(NotCompilable) -> [ObjectKey] {
            switch constant {
            case .key(let key): return [key]
            case .collection(let elements):
                var keys: [ObjectKey] = []
                for element in elements {
                    guard case .key(let key) = try classify(element, in: predicate) else {
                        throw NotCompilable("\(predicate): only objects and object IDs are compared with objects in SQL")
                    }
                    keys.append(key)
                }
                return keys
            default:
                throw NotCompilable("\(predicate): only objects and object IDs are compared with objects in SQL")
            }
        }
        let matching: (ObjectKey) -> Bool = {
            family.contains($0.entityID) && self.layout.schema.entities.indices.contains($0.entityID - 1)
        }
        switch operatorType {
        case .equalTo, .notEqualTo:
            let equal = operatorType == .equalTo
            if case .null = constant { return "\(primaryKey) \(equal ? "IS NULL" : "IS NOT NULL")" }
            // An object is never equal to a collection (`isEqual:`).
            if case .collection = constant { return equal ? dialect.never : dialect.always }
            let candidates = try keys(constant).filter(matching)
            guard let key = candidates.first else { return equal ? dialect.never : dialect.always }
            var test = dialect.same(primaryKey, arguments.bind(.integer(key.primaryKey)))
            if let entityColumn {
                let number = arguments.bind(.integer(Int64(layout.entityNumber(of: key.entityID))))
                test = "(\(test) AND \(dialect.same(entityColumn, number)))"
            }
            return equal ? test : "NOT (" + test + ")"
        case .in:
            guard case .collection = constant else {
                throw NotCompilable("\(predicate): IN compiles with a collection constant only")
            }
            let candidates = try keys(constant).filter(matching)
            guard !candidates.isEmpty else { return dialect.never }
            if let entityColumn {
                let pairs = candidates.map { "[\($0.primaryKey),\(layout.entityNumber(of: $0.entityID))]" }
                let list = arguments.bind(.string("[" + pairs.joined(separator: ",") + "]"))
                return dialect.orFalse(dialect.inJSONPairs(primaryKey, entityColumn, list))
            }
            let list = arguments.bind(.string("[" + candidates.map { String($0.primaryKey) }.joined(separator: ",") + "]"))
            return dialect.orFalse(dialect.inKeyList(primaryKey, list))
        default:
            throw NotCompilable("\(predicate): objects are compared with ==, != and IN only")
        }
    }

    /// A string operator: natively where SQLite's answers are the engine's (`nativeStringTest`),
    /// otherwise through the registered functions; false unless both sides are strings.
    mutating func stringTest(
        _ operatorType: NSComparisonPredicate.Operator, left: Operand, right: Operand, flags: UInt, pending: [StoreValue],
        exact: Bool, in predicate: NSComparisonPredicate
    ) throws(NotCompilable) -> String {
        guard let function = Self.functions[operatorType] else { throw NotCompilable("\(predicate)") }
        if case .column(let column, let kind) = left, domain(kind) == .string, case .constant(.string(let constant)) = right,
            pending.isEmpty
        {
            if constant.isEmpty && operatorType != .like && operatorType != .matches { return dialect.never }
            if dialect == .sqlite,
                let native = nativeStringTest(operatorType, column: column, constant: constant, flags: flags, exact: exact)
            {
                return native
            }
        }
        func sql(of operand: Operand) throws(NotCompilable) -> String? {
            switch operand {
            case .column(let column, let kind): return domain(kind) == .string ? column : nil
            case .constant(.string(let string)): return arguments.bind(.string(string))
            case .constant(.null), .constant(.number), .constant(.date), .constant(.uuid), .constant(.data),
                .constant(.key):
                return nil
            case .constant(.collection):
                throw NotCompilable("\(predicate): a collection with a string operator is not compiled")
            case .object:
                return nil
            }
        }
        guard let leftSQL = try sql(of: left) else { return dialect.never }
        _ = arguments.bind(pending)
        guard let rightSQL = try sql(of: right) else { return dialect.never }
        try dialect.requireRegisteredFunctions("\(predicate)")
        return "\(function)(\(leftSQL), \(rightSQL), \(flags))"
    }

    /// Makes a condition that may be NULL two-valued when asked.
    func twoValued(_ sql: String, exact: Bool) -> String {
        exact ? dialect.orFalse(sql) : sql
    }

    func fold(_ string: String, _ flags: UInt) -> String {
        PredicateStringRules.fold(string, caseInsensitive: flags & 1 != 0, diacriticInsensitive: flags & 2 != 0)
    }

    // MARK: - Operands

    mutating func operand(_ expression: NSExpression, in predicate: NSComparisonPredicate) throws(NotCompilable) -> Operand {
        switch expression.expressionType {
        case .constantValue:
            return .constant(try classify(expression.constantValue, in: predicate))
        case .aggregate:
            guard let elements = expression.collection as? [NSExpression],
                elements.allSatisfy({ $0.expressionType == .constantValue })
            else { throw NotCompilable("\(predicate): the collection \(expression) holds more than constants") }
            return .constant(.collection(elements.map(\.constantValue)))
        case .keyPath where expression.operand.expressionType == .evaluatedObject:
            return try keyPath(expression.keyPath)
        case .evaluatedObject:
            let family = schema.entity(entityID).familyIDs
            return .object(primaryKey: "t0.Z_PK", entityColumn: "t0.Z_ENT", family: family)
        case .function where Self.isConstant(expression):
            // The same value for every row, so computed once, here, and compared as a constant:
            // an NSFetchRequestExpression whose request and context are constants, or a function
            // of constants only (`CAST(0, 'NSDate')`, `abs:(-7)`).
            let value: Any?
            do {
                value = try expression.expressionValue(validating: nil, context: nil)
            } catch {
                throw NotCompilable("\(predicate): \(expression) failed: \(error.localizedDescription)")
            }
            return .constant(try classify(value, in: predicate))
        case .function where expression.function == "FETCH":
            throw NotCompilable("\(predicate): a FETCH() whose request or context is not a constant runs in memory")
        case .function where !Self.builtinFunctions.contains(expression.function):
            throw NotCompilable(
                unsupported: "\(predicate): FUNCTION(…, '\(expression.function)') calls a method; a SQL store can't")
        case .block:
            throw NotCompilable(unsupported: "\(predicate): the block expression \(expression) can't run in a SQL store")
        default:
            throw NotCompilable("\(predicate): the expression \(expression) is computed in memory only")
        }
    }

    /// Apple's predefined `NSExpression` functions; any other function is a `FUNCTION()` call.
    static let builtinFunctions: Set<String> = [
        "sum:", "count:", "min:", "max:", "average:", "median:", "mode:", "stddev:", "add:to:", "from:subtract:",
        "multiply:by:", "divide:by:", "modulus:by:", "raise:toPower:", "bitwiseAnd:with:", "bitwiseOr:with:",
        "bitwiseXor:with:", "leftshift:by:", "rightshift:by:", "castObject:toType:", "objectFrom:withIndex:",
        "valueForKeyPath:", "distanceToLocation:fromLocation:", "sqrt:", "log:", "ln:", "exp:", "ceiling:", "abs:", "trunc:",
        "floor:", "uppercase:", "lowercase:", "canonical:", "onesComplement:", "noindex:", "length:", "random:", "now",
        "random",
    ]

    /// Whether an expression has one value for every row: a constant, a collection of them, a
    /// `FETCH()` of constants, or a predefined function of constants other than `now()` and
    /// `random()` (which memory evaluates row by row, so they stay there and both stores agree).
    static func isConstant(_ expression: NSExpression) -> Bool {
        switch expression.expressionType {
        case .constantValue:
            return true
        case .aggregate:
            return (expression.collection as? [NSExpression])?.allSatisfy(isConstant) ?? false
        case .function where expression.function == "FETCH":
            return (expression.arguments ?? []).allSatisfy { $0.expressionType == .constantValue }
        case .function:
            return builtinFunctions.contains(expression.function) && !["now", "random", "random:"].contains(expression.function)
                && (expression.arguments ?? []).allSatisfy(isConstant)
        default:
            return false
        }
    }

    /// A key path of to-one steps ending in an attribute or a to-one, joining the steps.
    mutating func keyPath(_ path: String) throws(NotCompilable) -> Operand {
        switch try resolve(path, from: root) {
        case .operand(let operand): return operand
        case .toMany:
            throw NotCompilable("the key path \(path): a to-many relationship is not a value here")
        }
    }

    /// The fetched row, where key paths start.
    var root: Scope { Scope(alias: "t0", entityID: entityID) }

    /// A key path from a row: to-one steps (joined, `LEFT JOIN`), ending in an attribute, a
    /// to-one or `self` (an operand), or reaching a to-many (the rest of the path is then the
    /// members' business).
    mutating func resolve(_ path: String, from scope: Scope) throws(NotCompilable) -> PathTarget {
        // A dictionary fetch's `having` and group sorts name its result columns, not properties.
        if let resultColumns, scope.alias == root.alias { return .operand(try resultColumn(path, in: resultColumns)) }
        let components = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        var alias = scope.alias
        var current = scope.entityID
        var prefix = ""
        for (index, name) in components.enumerated() {
            let isLast = index == components.count - 1
            let entity = schema.entity(current)
            if isLast, name == "self" {
                return .operand(
                    .object(primaryKey: "\(alias).Z_PK", entityColumn: "\(alias).Z_ENT", family: entity.familyIDs))
            }
            guard let slot = entity.slotsByName[name] else {
                throw NotCompilable("the key path \(path): \(name) is not a property of \(entity.name)")
            }
            switch layout.entities[current - 1].slots[slot] {
            case .attribute(let column, let kind) where isLast:
                if layout.keepsExternalData(entity: current, slot: slot) {
                    guard allowsExternalData else {
                        throw NotCompilable(
                            "the key path \(path): \(name) keeps values in Apple's external data layout; "
                                + "they are compared in memory (only comparisons with nil run in SQL)")
                    }
                    externalColumns["\(alias).\(column)"] = (entity.name, name)
                    return .operand(.column("\(alias).\(column)", kind))
                }
                guard domain(kind) != nil else {
                    throw NotCompilable("the key path \(path): \(kind) attributes are compared in memory only")
                }
                return .operand(.column("\(alias).\(column)", kind))
            case .toOne(let column, let entityColumn, let destination):
                let family = schema.entity(destination).familyIDs
                if isLast {
                    return .operand(
                        .object(
                            primaryKey: "\(alias).\(column)", entityColumn: entityColumn.map { "\(alias).\($0)" },
                            family: family))
                }
                prefix += (prefix.isEmpty ? "" : ".") + name
                alias = join(destination, on: "\(alias).\(column)", prefix: prefix, in: scope)
                current = destination
            case .attribute(let column, .string) where index == components.count - 2 && components[index + 1] == "length":
                // NSString's length: UTF-16 code units.
                try dialect.requireRegisteredFunctions("the key path \(path)")
                return .operand(.column("ocd_length(\(alias).\(column))", .integer64))
            case .attribute:
                throw NotCompilable("the key path \(path): \(name) is an attribute, not a to-one relationship")
            case .toManyByInverse, .toManyByJoin:
                let slotLayout = layout.entities[current - 1].slots[slot]
                return .toMany(
                    ToManyPath(
                        path: path, owner: "\(alias).Z_PK", ownerMayBeNull: alias != scope.alias,
                        storage: slotLayout, destination: destination(of: slotLayout) ?? current,
                        rest: Array(components[(index + 1)...])))
            case .transient:
                throw NotCompilable(
                    unsupported: "the key path \(path): \(name) is transient; the store does not keep its values")
            case .unsupported(let reason):
                throw NotCompilable("the key path \(path): \(reason)")
            }
        }
        throw NotCompilable("the key path \(path) is empty")
    }

    // MARK: - Values

    func domain(_ kind: AttributeKind) -> Domain? {
        switch kind {
        case .integer16, .integer32, .integer64, .boolean, .double, .float, .decimal: .number
        case .string: .string
        case .date: .date
        case .uuid: .uuid
        case .binary: .data
        case .uri, .transformable, .objectID, .undefined: nil
        }
    }

    func constantDomain(_ constant: Constant) -> Domain? {
        switch constant {
        case .null, .collection: nil
        case .number: .number
        case .string: .string
        case .date: .date
        case .uuid: .uuid
        case .data: .data
        case .key: .object
        }
    }

    func storeValue(_ constant: Constant) -> StoreValue? {
        switch constant {
        case .null, .collection, .key: nil
        case .number(let value): value
        case .string(let value): .string(value)
        case .date(let value): .date(value)
        case .uuid(let value): .uuid(value)
        case .data(let value): .data(value)
        }
    }

    /// An `NSNumber` constant: an integer when it holds one exactly, else a double.
    private static func number(_ number: NSNumber) -> Constant {
        let double = number.doubleValue
        let integer = number.int64Value
        return Double(integer) == double && double.magnitude < 9.2e18 ? .number(.integer(integer)) : .number(.double(double))
    }

    func classify(_ value: Any?, in predicate: NSComparisonPredicate) throws(NotCompilable) -> Constant {
        guard let value else { return .null }
        guard let value = ValueSemantics.unwrapOptional(value) else { return .null }
        // The common constants first, by exact type: on Linux every failed cast of a class
        // instance to a Swift value type below looks for a bridging witness (a `%@` NSNumber
        // passed through twenty of them, most of a count's fixed cost).
        if type(of: value) == NSNumber.self, let number = value as? NSNumber { return Self.number(number) }
        if let string = value as? String { return .string(string) }
        switch value {
        case is NSNull: return .null
        case let key as ObjectKey: return .key(key)
        case let identity as PredicateIdentity:
            guard let key = identity.predicateIdentity.base as? ObjectKey else {
                throw NotCompilable("\(predicate): an object that is not saved yet is compared in memory")
            }
            return .key(key)
        case let string as String: return .string(string)
        case let string as NSString: return .string(string._bridgeToSwift())
        case let decimal as NSDecimalNumber: return .number(.decimal(decimal.decimalValue))
        case let decimal as Decimal: return .number(.decimal(decimal))
        case let bool as Bool: return .number(.integer(bool ? 1 : 0))
        case let integer as Int: return .number(.integer(Int64(integer)))
        case let integer as Int64: return .number(.integer(integer))
        case let integer as Int32: return .number(.integer(Int64(integer)))
        case let integer as Int16: return .number(.integer(Int64(integer)))
        case let integer as Int8: return .number(.integer(Int64(integer)))
        case let integer as UInt32: return .number(.integer(Int64(integer)))
        case let integer as UInt16: return .number(.integer(Int64(integer)))
        case let integer as UInt8: return .number(.integer(Int64(integer)))
        case let double as Double: return .number(.double(double))
        case let float as Float: return .number(.double(Double(float)))
        case let number as NSNumber: return Self.number(number)
        case let date as Date: return .date(date)
        case let uuid as UUID: return .uuid(uuid)
        case let data as Data: return .data(data)
        case let array as [Any?]: return .collection(array)
        case let array as NSArray: return .collection(array.map { $0 })
        case let set as Set<AnyHashable>: return .collection(Array(set))
        case let set as NSSet: return .collection(set.allObjects)
        default:
            throw NotCompilable("\(predicate): constants of type \(type(of: value)) are compared in memory only")
        }
    }

    /// A JSON array of numbers and strings for `json_each`.
    func json(_ values: [StoreValue], in predicate: NSComparisonPredicate) throws(NotCompilable) -> String {
        var parts: [String] = []
        parts.reserveCapacity(values.count)
        for value in values {
            switch value {
            case .integer(let integer): parts.append(String(integer))
            case .bool(let bool): parts.append(bool ? "1" : "0")
            case .double(let double) where double.isFinite: parts.append("\(double)")
            case .decimal(let decimal): parts.append("\(decimal.nearestDouble)")
            case .date(let date): parts.append("\(date.timeIntervalSinceReferenceDate)")
            case .string(let string): parts.append(jsonString(string))
            default: throw NotCompilable("\(predicate): the value \(value) can't be listed for IN")
            }
        }
        return "[" + parts.joined(separator: ",") + "]"
    }

    func jsonString(_ string: String) -> String {
        var result = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case _ where scalar.value < 0x20: result += String(format: "\\u%04x", scalar.value)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
