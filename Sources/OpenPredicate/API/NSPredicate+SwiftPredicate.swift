import Foundation

extension _FoundationFactory where Self == NSPredicate {
    /// Converts a Swift predicate (`#Predicate`) over an `NSObject` subclass into the
    /// `NSPredicate` that tests the same, as Apple's conversion does; nil when an expression in
    /// it has no `NSPredicate` form.
    ///
    /// ```swift
    /// let adults = #Predicate<Person> { $0.age >= 18 && $0.home?.city == "Leeds" }
    /// request.predicate = NSPredicate(adults)   // age >= 18 AND home.city == "Leeds"
    /// ```
    ///
    /// Converted: `&&`, `||`, `!`; `==`, `!=`, `<`, `<=`, `>`, `>=`; constants, captured values
    /// and `nil`; key paths, through optional chaining and `!` (`$0.home?.city` is
    /// `home.city`); `contains(_:)` of a captured sequence (`IN`); a string's `contains(_:)`
    /// (`CONTAINS`) and `starts(with:)` (`BEGINSWITH`); a to-many relationship's
    /// `contains(where:)` and `allSatisfy(_:)` (`SUBQUERY`) and `count` (`@count`). The result
    /// prints and evaluates as the same format string does, so where the two languages differ the
    /// format string's meaning holds, as with Apple's conversion: `$0.title.contains("")` is true
    /// in Swift, and `title CONTAINS ""` matches nothing.
    ///
    /// **Differences from Apple:** `localizedStandardContains(_:)` and
    /// `caseInsensitiveCompare(_:)` cannot be written in a `#Predicate` with this Foundation;
    /// the other expressions Apple's conversion refuses (arithmetic, `??`, conditionals, custom
    /// functions) give nil here too.
    public init?<Input: NSObject>(_ predicate: Predicate<Input>) {
        self.init(converting: predicate, naming: KeyPathNames.name(of:), values: { $0 })
    }

    /// `init(_:)` for a predicate over any type, its key paths named by `naming` (nil: no name,
    /// and no predicate; "": the object itself) and its captured values passed as `values`
    /// makes them: SwiftData's models, which are not `NSObject`s.
    package init?<Input>(
        converting predicate: Predicate<Input>, naming: @escaping (AnyKeyPath) -> String?, values: @escaping (Any) -> Any
    ) {
        var scope = PredicateConversion(root: predicate.variable.key, naming: naming, values: values)
        guard let converted = scope.predicate(predicate.expression),
            let node = try? PredicateTree.nodeOrThrow(converted.text, arguments: converted.arguments)
        else { return nil }
        self = PredicateTree.predicate(node)
    }
}

/// A Swift predicate's expressions as format-string text with `%K` and `%@` arguments, parsed
/// like any format string.
struct PredicateConversion {
    /// What each variable of the predicate stands for: "" the evaluated object, `$v1`… a
    /// subquery's element, or a key path (the value an optional chain unwraps).
    private var variables: [PredicateExpressions.VariableID: String]
    /// Subquery variables made so far (`$v1`, `$v2`, …).
    private var subqueries = 0
    /// The string form of a key path of one component (nil: none; "": the object itself).
    let naming: (AnyKeyPath) -> String?
    /// A captured value as the format's argument.
    let values: (Any) -> Any

    init(root: PredicateExpressions.VariableID, naming: @escaping (AnyKeyPath) -> String?, values: @escaping (Any) -> Any) {
        variables = [root: ""]
        self.naming = naming
        self.values = values
    }

    /// Format text and its arguments.
    struct Format {
        var text: String
        var arguments: [Any?]
    }

    /// `expression`, a Boolean one, as a predicate; nil when it has no predicate form.
    mutating func predicate(_ expression: Any) -> Format? {
        if let converted = expression as? any ConvertiblePredicateExpression { return converted.predicate(in: &self) }
        // A Boolean key path (`$0.isActive`).
        return self.expression(expression).map { Format(text: $0.text + " == YES", arguments: $0.arguments) }
    }

    /// `expression` as an expression; nil when it has none.
    mutating func expression(_ expression: Any) -> Format? {
        if let path = path(of: expression) {
            guard let first = path.first else { return Format(text: "SELF", arguments: []) }
            if first.hasPrefix("$") {
                // `$v1.#pages`: a key after a variable is written out (`#` lets a reserved word be a key).
                let keys = path.dropFirst().map { $0.hasPrefix("@") ? "." + $0 : ".#" + $0 }
                return Format(text: first + keys.joined(), arguments: [])
            }
            return Format(text: "%K", arguments: [path.joined(separator: ".")])
        }
        return (expression as? any ConvertibleValueExpression)?.expression(in: &self)
    }

    /// The key path an expression reads from a variable: `["home", "city"]` for
    /// `$0.home?.city`, `["$v1", "price"]` in a subquery; nil for anything else.
    func path(of expression: Any) -> [String]? {
        (expression as? any KeyPathReadingExpression)?.path(in: self)
    }

    func path(of variable: PredicateExpressions.VariableID) -> [String]? {
        variables[variable].map { $0.isEmpty ? [] : $0.split(separator: ".").map(String.init) }
    }

    /// Converts `body` with `variable` standing for `meaning` (a key path or `$v…`).
    mutating func with<T>(_ variable: PredicateExpressions.VariableID, as meaning: String, _ body: (inout Self) -> T) -> T {
        let saved = variables[variable]
        variables[variable] = meaning
        defer { variables[variable] = saved }
        return body(&self)
    }

    /// A new subquery variable's name.
    mutating func newSubqueryVariable() -> String {
        subqueries += 1
        return "$v\(subqueries)"
    }

    /// `left op right` for two expressions.
    mutating func comparison(_ left: Any, _ op: String, _ right: Any) -> Format? {
        guard let left = expression(left), let right = expression(right) else { return nil }
        return Format(text: left.text + " " + op + " " + right.text, arguments: left.arguments + right.arguments)
    }
}

/// An expression that converts to a predicate.
protocol ConvertiblePredicateExpression {
    func predicate(in scope: inout PredicateConversion) -> PredicateConversion.Format?
}

/// An expression that converts to an expression (a value).
protocol ConvertibleValueExpression {
    func expression(in scope: inout PredicateConversion) -> PredicateConversion.Format?
}

/// An expression that reads a key path from a variable.
protocol KeyPathReadingExpression {
    func path(in scope: PredicateConversion) -> [String]?
}

extension PredicateExpressions.Variable: KeyPathReadingExpression {
    func path(in scope: PredicateConversion) -> [String]? { scope.path(of: key) }
}

extension PredicateExpressions.KeyPath: KeyPathReadingExpression {
    func path(in scope: PredicateConversion) -> [String]? {
        guard let base = scope.path(of: root) else { return nil }
        if CollectionCount.isCount(keyPath) { return base + ["@count"] }
        guard let name = scope.naming(keyPath) else { return nil }
        return base + name.split(separator: ".").map(String.init)  // "" adds nothing: the object itself
    }
}

extension PredicateExpressions.ForcedUnwrap: KeyPathReadingExpression {
    func path(in scope: PredicateConversion) -> [String]? { scope.path(of: inner) }
}

extension PredicateExpressions.OptionalFlatMap: KeyPathReadingExpression, ConvertiblePredicateExpression {
    /// `$0.home?.city`: the transform's key path, read from the wrapped one.
    func path(in scope: PredicateConversion) -> [String]? {
        guard let base = scope.path(of: wrapped) else { return nil }
        var inner = scope
        return inner.with(variable.key, as: base.joined(separator: ".")) { $0.path(of: transform) }
    }

    /// `$0.home.flatMap { $0.city == "Leeds" }` (`$0.home?.isLarge == true` reads a key path).
    func predicate(in scope: inout PredicateConversion) -> PredicateConversion.Format? {
        guard let base = scope.path(of: wrapped) else { return nil }
        return scope.with(variable.key, as: base.joined(separator: ".")) { $0.predicate(transform) }
    }
}

extension PredicateExpressions.Value: ConvertibleValueExpression {
    func expression(in scope: inout PredicateConversion) -> PredicateConversion.Format? {
        guard let value = ValueSemantics.unwrapOptional(value) else {
            return PredicateConversion.Format(text: "nil", arguments: [])
        }
        return PredicateConversion.Format(text: "%@", arguments: [scope.values(value)])
    }
}

extension PredicateExpressions.NilLiteral: ConvertibleValueExpression {
    func expression(in scope: inout PredicateConversion) -> PredicateConversion.Format? {
        PredicateConversion.Format(text: "nil", arguments: [])
    }
}

extension PredicateExpressions.Conjunction: ConvertiblePredicateExpression {
    func predicate(in scope: inout PredicateConversion) -> PredicateConversion.Format? {
        guard let left = scope.predicate(lhs), let right = scope.predicate(rhs) else { return nil }
        return .init(text: "(" + left.text + ") AND (" + right.text + ")", arguments: left.arguments + right.arguments)
    }
}

extension PredicateExpressions.Disjunction: ConvertiblePredicateExpression {
    func predicate(in scope: inout PredicateConversion) -> PredicateConversion.Format? {
        guard let left = scope.predicate(lhs), let right = scope.predicate(rhs) else { return nil }
        return .init(text: "(" + left.text + ") OR (" + right.text + ")", arguments: left.arguments + right.arguments)
    }
}

extension PredicateExpressions.Negation: ConvertiblePredicateExpression {
    func predicate(in scope: inout PredicateConversion) -> PredicateConversion.Format? {
        scope.predicate(wrapped).map { .init(text: "NOT (" + $0.text + ")", arguments: $0.arguments) }
    }
}

extension PredicateExpressions.Equal: ConvertiblePredicateExpression {
    func predicate(in scope: inout PredicateConversion) -> PredicateConversion.Format? {
        scope.comparison(lhs, "==", rhs)
    }
}

extension PredicateExpressions.NotEqual: ConvertiblePredicateExpression {
    func predicate(in scope: inout PredicateConversion) -> PredicateConversion.Format? {
        scope.comparison(lhs, "!=", rhs)
    }
}

extension PredicateExpressions.Comparison: ConvertiblePredicateExpression {
    func predicate(in scope: inout PredicateConversion) -> PredicateConversion.Format? {
        let symbol =
            switch op {
            case .lessThan: "<"
            case .lessThanOrEqual: "<="
            case .greaterThan: ">"
            case .greaterThanOrEqual: ">="
            }
        return scope.comparison(lhs, symbol, rhs)
    }
}

extension PredicateExpressions.SequenceContains: ConvertiblePredicateExpression {
    /// `[…].contains($0.name)`: `name IN %@`.
    func predicate(in scope: inout PredicateConversion) -> PredicateConversion.Format? {
        scope.comparison(element, "IN", sequence)
    }
}

extension PredicateExpressions.CollectionContainsCollection: ConvertiblePredicateExpression {
    /// `$0.name.contains("an")`: `name CONTAINS "an"`.
    func predicate(in scope: inout PredicateConversion) -> PredicateConversion.Format? {
        scope.comparison(base, "CONTAINS", other)
    }
}

extension PredicateExpressions.SequenceStartsWith: ConvertiblePredicateExpression {
    /// `$0.name.starts(with: "A")`: `name BEGINSWITH "A"`.
    func predicate(in scope: inout PredicateConversion) -> PredicateConversion.Format? {
        scope.comparison(base, "BEGINSWITH", prefix)
    }
}

extension PredicateExpressions.SequenceContainsWhere: ConvertiblePredicateExpression {
    /// `$0.items.contains { $0.weight > 2 }`: `SUBQUERY(items, $v1, $v1.weight > 2).@count != 0`.
    func predicate(in scope: inout PredicateConversion) -> PredicateConversion.Format? {
        subquery(sequence, variable.key, test, negated: false, in: &scope).map {
            .init(text: $0.text + ".@count != 0", arguments: $0.arguments)
        }
    }
}

extension PredicateExpressions.SequenceAllSatisfy: ConvertiblePredicateExpression {
    /// `$0.items.allSatisfy { $0.packed }`: `SUBQUERY(items, $v1, NOT ($v1.packed == YES)).@count == 0`.
    func predicate(in scope: inout PredicateConversion) -> PredicateConversion.Format? {
        subquery(sequence, variable.key, test, negated: true, in: &scope).map {
            .init(text: $0.text + ".@count == 0", arguments: $0.arguments)
        }
    }
}

/// `SUBQUERY(collection, $v…, test)` (with `NOT (test)` when `negated`).
private func subquery(
    _ collection: Any, _ variable: PredicateExpressions.VariableID, _ test: Any, negated: Bool,
    in scope: inout PredicateConversion
) -> PredicateConversion.Format? {
    guard let source = scope.expression(collection) else { return nil }
    let name = scope.newSubqueryVariable()
    guard let condition = scope.with(variable, as: name, { $0.predicate(test) }) else { return nil }
    let body = negated ? "NOT (" + condition.text + ")" : condition.text
    return .init(
        text: "SUBQUERY(" + source.text + ", " + name + ", " + body + ")", arguments: source.arguments + condition.arguments)
}

/// Whether a key path is a collection's `count` (`$0.items.count`: `items.@count`).
enum CollectionCount {
    static func isCount(_ keyPath: AnyKeyPath) -> Bool {
        (type(of: keyPath).rootType as? any CountedCollection.Type)?.countKeyPath == keyPath
    }
}

/// A collection a to-many relationship is held in, with the key path of its `count` (made in
/// the concrete type, where it equals the one a predicate holds; `\C.count` of a generic
/// `Collection` is the protocol's requirement, another key path).
protocol CountedCollection {
    static var countKeyPath: AnyKeyPath { get }
}

extension Set: CountedCollection {
    static var countKeyPath: AnyKeyPath { \Set.count }
}

extension Array: CountedCollection {
    static var countKeyPath: AnyKeyPath { \Array.count }
}
