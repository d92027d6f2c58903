import Foundation

/// The parsed or built form of an `NSPredicate`.
indirect enum PredicateNode: Hashable {
    /// `TRUEPREDICATE` / `FALSEPREDICATE`, or `NSPredicate(value:)`.
    case constant(Bool)
    /// A comparison of two expressions.
    case comparison(ComparisonNode)
    /// `AND` of any number of subpredicates (empty is true).
    case and([PredicateNode])
    /// `OR` of any number of subpredicates (empty is false).
    case or([PredicateNode])
    /// `NOT`.
    case not(PredicateNode)
    /// A predicate we cannot look into (`NSPredicate(block:)` or a foreign subclass): evaluated by
    /// calling its own `evaluate(with:substitutionVariables:)`.
    case opaque(OpaquePredicate)
}

/// One comparison: `left op right` with a modifier and options.
struct ComparisonNode: Hashable {
    var left: ExpressionNode
    var right: ExpressionNode
    var operatorType: ComparisonOperator
    var modifier: ComparisonModifier
    var options: ComparisonOptions
    /// The selector of a `.customSelector` comparison.
    var customSelector: String?
}

/// Apple's operator raw values (`NSComparisonPredicate.Operator`).
enum ComparisonOperator: UInt, Hashable {
    case lessThan = 0, lessThanOrEqualTo, greaterThan, greaterThanOrEqualTo, equalTo, notEqualTo
    case matches, like, beginsWith, endsWith, `in`, customSelector
    case contains = 99
    case between = 100
}

/// Apple's modifier raw values (`NSComparisonPredicate.Modifier`).
enum ComparisonModifier: UInt, Hashable {
    case direct = 0, all, any
}

/// Apple's option bits (`NSComparisonPredicate.Options`).
struct ComparisonOptions: OptionSet, Hashable {
    let rawValue: UInt
    static let caseInsensitive = ComparisonOptions(rawValue: 0x1)
    static let diacriticInsensitive = ComparisonOptions(rawValue: 0x2)
    static let normalized = ComparisonOptions(rawValue: 0x4)
    static let localeSensitive = ComparisonOptions(rawValue: 0x8)
}

/// A predicate object we only know from the outside; compared by identity.
final class OpaquePredicate: Hashable {
    let predicate: Foundation.NSPredicate

    init(_ predicate: Foundation.NSPredicate) {
        self.predicate = predicate
    }

    static func == (lhs: OpaquePredicate, rhs: OpaquePredicate) -> Bool {
        lhs.predicate === rhs.predicate
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(predicate))
    }
}
