import Foundation

/// The parsed or built form of an `NSExpression`: one case per kind of expression.
///
/// Back ends (the closure compiler, the printer, later the SQL compiler) are each one switch over
/// this tree. Arithmetic (`a + b`), indexes (`a[0]`) and function-call syntax all become
/// `.function` with Apple's selector names (`add:to:`, `objectFrom:withIndex:`, `sum:` …).
indirect enum ExpressionNode {
    /// A constant; `nil` is the `nil`/`NULL` literal.
    case constant(ConstantValue)
    /// `SELF`.
    case evaluatedObject
    /// `$NAME`.
    case variable(String)
    /// A key path; `components` are the dotted parts, already split (`@count` stays one part).
    case keyPath(KeyPathComponents)
    /// A built-in function (Apple's table): `name` is the selector (`sum:`), `arguments` its operands.
    case function(name: String, arguments: [ExpressionNode])
    /// `FUNCTION(receiver, 'selector:', args…)`: a method called on an evaluated object.
    case customFunction(receiver: ExpressionNode, selector: String, arguments: [ExpressionNode])
    /// `{a, b, …}`.
    case aggregate([ExpressionNode])
    /// `a UNION b`, `a INTERSECT b`, `a MINUS b`.
    case set(SetOperation, ExpressionNode, ExpressionNode)
    /// `SUBQUERY(collection, $variable, predicate)`.
    case subquery(collection: ExpressionNode, variable: String, predicate: PredicateNode)
    /// `TERNARY(predicate, a, b)`.
    case conditional(PredicateNode, ExpressionNode, ExpressionNode)
    /// `ANYKEY` (Spotlight); evaluates to nil here.
    case anyKey
    /// `NSExpression(block:arguments:)`.
    case block(ExpressionBlock, arguments: [ExpressionNode])
    /// `FIRST`, `LAST`, `SIZE` inside an index.
    case symbol(IndexSymbol)

    enum SetOperation: Hashable {
        case union, intersect, minus
    }

    enum IndexSymbol: String, Hashable {
        case first = "FIRST", last = "LAST", size = "SIZE"
    }
}

/// A key path split once into its components.
struct KeyPathComponents: Hashable {
    let components: [String]
    var string: String { components.joined(separator: ".") }

    init(_ string: String) {
        components = string.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    }

    init(components: [String]) {
        self.components = components
    }
}

/// A constant value with the equality and hashing Apple's `isEqual:` gives it.
struct ConstantValue: Hashable {
    let value: Any?

    init(_ value: Any?) {
        self.value = ValueSemantics.unwrapOptional(value)
    }

    static func == (lhs: ConstantValue, rhs: ConstantValue) -> Bool {
        ValueSemantics.isEqual(lhs.value, rhs.value)
    }

    func hash(into hasher: inout Hasher) {
        ValueSemantics.hash(value, into: &hasher)
    }
}

/// A block held by an expression; compared by identity.
final class ExpressionBlock: Hashable {
    let body: (Any?, [Any], NSMutableDictionary?) -> Any

    init(_ body: @escaping (Any?, [Any], NSMutableDictionary?) -> Any) {
        self.body = body
    }

    static func == (lhs: ExpressionBlock, rhs: ExpressionBlock) -> Bool { lhs === rhs }
    func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

extension ExpressionNode: Hashable {}
