import Foundation

/// A predicate that compares two expressions: `left op right`, with a modifier (direct, ANY,
/// ALL) and options (`[c]`, `[d]`, `[n]`).
///
/// `NSPredicate(format: "age > 30")` returns one of these.
///
/// **Differences from Apple:** as with `NSExpression`, corelibs declares an unusable class of this
/// name, so in a file that imports Foundation as well as CoreData the *type* name
/// `NSComparisonPredicate` is ambiguous (creating one still works); import only CoreData.
/// `customSelector` is a `String` (Linux has no Objective-C selectors).
public final class NSComparisonPredicate: Foundation.NSPredicate {
    let comparison: ComparisonNode
    let compiled: CompiledPredicate

    init(comparison: ComparisonNode) {
        self.comparison = comparison
        self.compiled = PredicateCompiler.compileTree(.comparison(comparison))
        super.init(value: false)
    }

    /// The operators, with Apple's raw values (`contains` is 99, `between` 100).
    public enum Operator: UInt, Sendable {
        /// `<`
        case lessThan = 0
        /// `<=`
        case lessThanOrEqualTo = 1
        /// `>`
        case greaterThan = 2
        /// `>=`
        case greaterThanOrEqualTo = 3
        /// `==`
        case equalTo = 4
        /// `!=`
        case notEqualTo = 5
        /// `MATCHES`: an ICU regular expression that matches the whole string.
        case matches = 6
        /// `LIKE`: `*` and `?` wildcards.
        case like = 7
        /// `BEGINSWITH`
        case beginsWith = 8
        /// `ENDSWITH`
        case endsWith = 9
        /// `IN`: the left value is an element of the right collection, or a substring of the right string.
        case `in` = 10
        /// A custom selector called on the left value with the right value.
        case customSelector = 11
        /// `CONTAINS`: the right value is an element of the left collection, or a substring of the left string.
        case contains = 99
        /// `BETWEEN`: inclusive bounds given as a two-element collection.
        case between = 100
    }

    /// How the left expression is used: directly, or element by element (ANY / ALL).
    public enum Modifier: UInt, Sendable {
        /// Compare the value itself.
        case direct = 0
        /// Every element must match (`ALL`).
        case all = 1
        /// Some element must match (`ANY`, `SOME`).
        case any = 2
    }

    /// String comparison options.
    public struct Options: OptionSet, Sendable {
        /// The option bits, Apple's values.
        public let rawValue: UInt
        /// Creates options from bits.
        public init(rawValue: UInt) { self.rawValue = rawValue }
        /// `[c]`: ignore case.
        public static let caseInsensitive = Options(rawValue: 0x1)
        /// `[d]`: ignore diacritics.
        public static let diacriticInsensitive = Options(rawValue: 0x2)
        /// `[n]`: the strings are already normalized; compared literally.
        public static let normalized = Options(rawValue: 0x4)
    }

    /// Creates `lhs type rhs` with a modifier and options.
    public convenience init(
        leftExpression lhs: NSExpression, rightExpression rhs: NSExpression,
        modifier: Modifier, type: Operator, options: Options = []
    ) {
        self.init(
            comparison: ComparisonNode(
                left: lhs.node, right: rhs.node,
                operatorType: ComparisonOperator(rawValue: type.rawValue) ?? .equalTo,
                modifier: ComparisonModifier(rawValue: modifier.rawValue) ?? .direct,
                options: ComparisonOptions(rawValue: options.rawValue),
                customSelector: nil))
    }

    /// Creates a comparison that calls `selector` on the left value with the right value.
    ///
    /// **Differences from Apple:** the selector is a string, and only selectors that
    /// `FUNCTION()` supports here can answer; others make the predicate false.
    public convenience init(leftExpression lhs: NSExpression, rightExpression rhs: NSExpression, customSelector selector: String)
    {
        self.init(
            comparison: ComparisonNode(
                left: lhs.node, right: rhs.node, operatorType: .customSelector,
                modifier: .direct, options: [], customSelector: selector))
    }

    /// The operator.
    public var predicateOperatorType: Operator {
        Operator(rawValue: comparison.operatorType.rawValue) ?? .equalTo
    }

    /// Direct, ANY or ALL.
    public var comparisonPredicateModifier: Modifier {
        Modifier(rawValue: comparison.modifier.rawValue) ?? .direct
    }

    /// The left-hand expression.
    public var leftExpression: NSExpression { NSExpression(node: comparison.left) }

    /// The right-hand expression.
    public var rightExpression: NSExpression { NSExpression(node: comparison.right) }

    /// The selector of a custom-selector comparison, or nil.
    public var customSelector: String? { comparison.customSelector }

    /// The options (`[c]`, `[d]`, `[n]`).
    public var options: Options { Options(rawValue: comparison.options.rawValue) }

    // MARK: - NSPredicate

    /// The predicate in format-string syntax, as Apple prints it (`name == "x"`).
    public override var predicateFormat: String {
        PredicatePrinter.format(.comparison(comparison))
    }

    /// Same as `predicateFormat`.
    public override var description: String { predicateFormat }

    /// Whether `object` matches, with `$VARIABLES` taken from `bindings`. Where Apple raises
    /// (values that cannot be compared, an unbound variable), the answer is false.
    public override func evaluate(with object: Any?, substitutionVariables bindings: [String: Any]?) -> Bool {
        var context = EvaluationContext(variables: bindings ?? [:])
        return compiled(EvaluationSubject(object), &context)
    }

    /// Whether `object` matches.
    public override func evaluate(with object: Any?) -> Bool {
        var context = EvaluationContext()
        return compiled(EvaluationSubject(object), &context)
    }

    /// Equal when the operator, modifier, options and both expressions are equal.
    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSComparisonPredicate else { return false }
        return other === self || PredicateNode.comparison(other.comparison).isEqualOnAnyStack(to: .comparison(comparison))
    }

    /// A hash consistent with `isEqual(_:)`.
    public override var hash: Int { PredicateNode.comparison(comparison).hashValueOnAnyStack }

    /// Predicates are immutable; the copy is the same object.
    public override func copy(with zone: NSZone? = nil) -> Any { self }
}
