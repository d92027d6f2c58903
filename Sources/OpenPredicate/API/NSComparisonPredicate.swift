import Foundation

/// A predicate that compares two expressions: `left op right`, with a modifier (direct, ANY,
/// ALL) and options (`[c]`, `[d]`, `[n]`).
///
/// `NSPredicate(format: "age > 30")` returns one of these.
///
/// **Differences from Apple:** `customSelector` is a `String` (Linux has no Objective-C
/// selectors). corelibs declares an unusable class of this name; `import CoreData` makes the name
/// mean this one, also in files that import `Foundation`.
/// See [NSComparisonPredicate](https://developer.apple.com/documentation/foundation/nscomparisonpredicate).
public final class NSComparisonPredicate: NSPredicate {
    /// The comparison this predicate holds (`node` is `.comparison(comparison)`).
    let comparison: ComparisonNode

    init(comparison: ComparisonNode) {
        self.comparison = comparison
        super.init(node: .comparison(comparison))
    }

    /// Reads a comparison archived by `encode(with:)`, validating every key: an unknown
    /// operator, modifier or option, a missing key, or an object of the wrong class makes the
    /// initializer fail and the coder report an error (see `NSExpression.init(coder:)`).
    ///
    /// ```swift
    /// let predicate = try NSKeyedUnarchiver.unarchivedObject(ofClasses: [NSPredicate.self], from: data)
    /// ```
    public required init?(coder: NSCoder) {
        guard let comparison = PredicateUnarchiver.comparison(from: coder) else { return nil }
        self.comparison = comparison
        super.init(node: .comparison(comparison))
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
}
