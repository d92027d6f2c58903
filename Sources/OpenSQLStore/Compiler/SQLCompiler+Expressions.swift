import OpenPredicate
import OpenStoreCore

/// Comparisons of two key paths (`age == salary`, `department.title ==[c] name`,
/// `department == self`), with the in-memory engine's rules (`ValueSemantics`):
///
/// - values of one domain compare as they do with a constant: `==` is `IS` (two NULLs are
///   equal, NULL and a value are not), ordering with NULL is false, `[c]`/`[d]` fold strings;
/// - values of different domains (a number and a string, an object and a number) are never
///   equal and never ordered, but two nils are equal: `==` is `(a IS NULL AND b IS NULL)`;
/// - objects are equal when they are the same row (primary key and entity), or both nil; they
///   have no order;
/// - `a CONTAINS b` and `b IN a` of two strings test a substring; of other values they are false.
extension CompilerState {
    mutating func compareKeyPaths(
        _ left: Operand, _ operatorType: NSComparisonPredicate.Operator, _ right: Operand,
        options: NSComparisonPredicate.Options, pending: [StoreValue], exact: Bool, in predicate: NSComparisonPredicate
    ) throws(NotCompilable) -> String {
        let flags = options.intersection([.caseInsensitive, .diacriticInsensitive]).rawValue
        let equal = operatorType == .equalTo
        switch (left, right) {
        case (.column(let a, let aKind), .column(let b, let bKind)):
            guard let aDomain = domain(aKind), let bDomain = domain(bKind) else {
                throw NotCompilable("\(predicate): \(aKind) and \(bKind) values are compared in memory only")
            }
            let folds = aDomain == .string && bDomain == .string && flags != 0
            if folds { try dialect.requireRegisteredFunctions("\(predicate)") }
            let l = folds ? "ocd_fold(\(a), \(flags))" : a
            let r = folds ? "ocd_fold(\(b), \(flags))" : b
            switch operatorType {
            case .equalTo, .notEqualTo:
                guard aDomain == bDomain else { return bothNil(a, b, pending: pending, equal: equal) }
                _ = arguments.bind(pending)
                return equal ? dialect.same(l, r) : dialect.different(l, r)
            case .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo:
                guard aDomain == bDomain, let symbol = Self.symbols[operatorType] else { return dialect.never }
                _ = arguments.bind(pending)
                return twoValued("\(l) \(symbol) \(r)", exact: exact)
            case .contains, .in:
                guard aDomain == .string, bDomain == .string, pending.isEmpty else { return dialect.never }
                try dialect.requireRegisteredFunctions("\(predicate)")
                let (container, element) = operatorType == .contains ? (a, b) : (b, a)
                return "ocd_contains(\(container), \(element), \(flags))"
            default:
                throw NotCompilable("\(predicate): this operator between two key paths is compared in memory only")
            }
        case (.object(let a, let aEntity, let aFamily), .object(let b, let bEntity, let bFamily)):
            switch operatorType {
            case .equalTo, .notEqualTo:
                guard !aFamily.isDisjoint(with: bFamily) else { return bothNil(a, b, pending: [], equal: equal) }
                let sameEntity = dialect.same(
                    try entity(aEntity, aFamily, in: predicate), try entity(bEntity, bFamily, in: predicate))
                let test = "(\(dialect.same(a, b)) AND (\(a) IS NULL OR \(sameEntity)))"
                return equal ? test : "NOT " + test
            case .in, .contains, .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo, .between:
                return dialect.never
            default:
                throw NotCompilable("\(predicate): objects are compared with == and != only")
            }
        case (.column(let a, _), .object(let b, _, _)), (.object(let a, _, _), .column(let b, _)):
            switch operatorType {
            case .equalTo, .notEqualTo: return bothNil(a, b, pending: pending, equal: equal)
            case .in, .contains, .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo, .between:
                return dialect.never
            default: throw NotCompilable("\(predicate): this operator between two key paths is compared in memory only")
            }
        default:
            throw NotCompilable("\(predicate): not two key paths")
        }
    }

    /// `a == b` of values that are never equal unless both are nil (or `!=`, its negation).
    mutating func bothNil(_ a: String, _ b: String, pending: [StoreValue], equal: Bool) -> String {
        let first = "\(a) IS \(equal ? "NULL" : "NOT NULL")"
        _ = arguments.bind(pending)
        return equal ? "(\(first) AND \(b) IS NULL)" : "(\(first) OR \(b) IS NOT NULL)"
    }

    /// The `Z_ENT` of an object operand: its column, or the number of its one possible entity.
    mutating func entity(_ column: String?, _ family: Set<Int>, in predicate: NSComparisonPredicate) throws(NotCompilable)
        -> String
    {
        if let column { return column }
        guard family.count == 1, let only = family.first else {
            throw NotCompilable("\(predicate): the entity of a relationship's destination is unknown")
        }
        return arguments.bind(.integer(Int64(layout.entityNumber(of: only))))
    }
}

/// Arithmetic on numbers (`salary * 2 > 100`, `age + ratio < 10`, `age % 7 == 3`), where SQLite
/// computes what the in-memory engine computes (`FunctionCompiler`):
///
/// - `add:to:`, `from:subtract:`, `multiply:by:` of integers stay integers, and become floating
///   point on overflow (SQLite does the same); with a floating-point operand they are doubles;
/// - `divide:by:` is a double division, compiled for a constant divisor other than 0 only (the
///   in-memory engine gives infinities and NaN for 0, which SQLite has not);
/// - `modulus:by:` of integers truncates toward zero as Swift's `%` does, NULL for a divisor of 0
///   (nil in memory); on other numbers (`fmod`) it is computed in memory;
/// - a nil operand makes the result nil (NULL); operands that are not numbers are refused (the
///   in-memory engine gives nil, SQLite would convert them).
///
/// **Differences from the in-memory engine:** `Decimal` operands compute as doubles (the column
/// holds a double, as Apple's stores keep it).
extension CompilerState {
    static let arithmeticOperators: [String: String] = [
        "add:to:": "+", "from:subtract:": "-", "multiply:by:": "*", "divide:by:": "/", "modulus:by:": "%",
    ]

    /// `length:`, `uppercase:` and `lowercase:` of a string, through the functions of
    /// `SQLiteValueFunctions` (nil for values that are not strings, as in memory).
    mutating func stringFunction(_ expression: NSExpression, in predicate: NSComparisonPredicate) throws(NotCompilable)
        -> Operand
    {
        let name = expression.function
        guard let function = Self.stringFunctions[name], let arguments = expression.arguments, arguments.count == 1 else {
            throw NotCompilable("\(predicate): the function \(name) is computed in memory only")
        }
        let kind: AttributeKind = name == "length:" ? .integer64 : .string
        try dialect.requireRegisteredFunctions("\(predicate): \(name)")
        switch try side(arguments[0], in: predicate) {
        case .operand(.column(let column, let argumentKind)) where domain(argumentKind) == .string:
            return .column("\(function)(\(column))", kind)
        case .operand(.constant(.string(let string))):
            return .column("\(function)(\(self.arguments.bind(.string(string))))", kind)
        default:
            throw NotCompilable("\(predicate): \(name) of a value that is not a string is computed in memory only")
        }
    }

    static let stringFunctions: [String: String] = [
        "length:": "ocd_length", "uppercase:": "ocd_uppercase", "lowercase:": "ocd_lowercase",
    ]

    /// An arithmetic function of numbers, as a SQL expression of number kind.
    mutating func arithmetic(_ expression: NSExpression, in predicate: NSComparisonPredicate) throws(NotCompilable) -> Operand {
        let name = expression.function
        guard let symbol = Self.arithmeticOperators[name], let arguments = expression.arguments, arguments.count == 2 else {
            throw NotCompilable("\(predicate): the function \(name) is computed in memory only")
        }
        var parts: [(sql: String, kind: AttributeKind)] = []
        for argument in arguments {
            switch try side(argument, in: predicate) {
            case .operand(.column(let column, let kind)) where domain(kind) == .number:
                parts.append((column, kind))
            case .operand(.constant(.null)):
                parts.append((self.arguments.bind(.null), .integer64))
            case .operand(.constant(.number(let value))):
                if name == "divide:by:" || name == "modulus:by:", parts.count == 1 {
                    guard !value.isZeroNumber else {
                        throw NotCompilable("\(predicate): a division by 0 is computed in memory only")
                    }
                }
                parts.append((self.arguments.bind(value), value.isIntegerNumber ? .integer64 : .double))
            default:
                throw NotCompilable("\(predicate): \(name) of values that are not numbers is computed in memory only")
            }
        }
        let integers = parts.allSatisfy { [.integer16, .integer32, .integer64, .boolean].contains($0.kind) }
        switch name {
        case "divide:by:":
            guard parts[1].sql == "?" else {
                throw NotCompilable("\(predicate): a division by a key path is computed in memory only")
            }
            return .column("(CAST(\(parts[0].sql) AS \(dialect.double)) / \(parts[1].sql))", .double)
        case "modulus:by:":
            guard integers else {
                throw NotCompilable("\(predicate): the modulus of numbers that are not integers is computed in memory only")
            }
            // PostgreSQL stops on a divisor of 0; SQLite (and memory) give NULL.
            let divisor = dialect == .sqlite ? parts[1].sql : "NULLIF(\(parts[1].sql), 0)"
            return .column("(\(parts[0].sql) % \(divisor))", .integer64)
        case _ where integers && dialect == .postgreSQL:
            // PostgreSQL stops on an integer overflow; exact `numeric` arithmetic instead.
            return .column("(CAST(\(parts[0].sql) AS numeric) \(symbol) \(parts[1].sql))", .decimal)
        default:
            let kind: AttributeKind =
                integers ? .integer64 : parts.contains { $0.kind == .decimal } ? .decimal : .double
            return .column("(\(parts[0].sql) \(symbol) \(parts[1].sql))", kind)
        }
    }
}

extension StoreValue {
    /// True for a number equal to 0.
    var isZeroNumber: Bool {
        switch self {
        case .integer(let value): value == 0
        case .double(let value): value == 0
        case .decimal(let value): value == 0
        case .bool(let value): !value
        default: false
        }
    }

    /// True for an integer (or Boolean) value.
    var isIntegerNumber: Bool {
        switch self {
        case .integer, .bool: true
        default: false
        }
    }
}
