import Foundation

/// A Boolean expression of a Swift predicate (`#Predicate`), of any concrete type: what random
/// predicate tests build from their parts.
public typealias PredicateCondition = any StandardPredicateExpression<Bool>

/// `&&`, `||` and `!` of conditions whose concrete types are known only at run time.
public enum PredicateConditions {
    /// `left && right`.
    public static func both<L: StandardPredicateExpression<Bool>, R: StandardPredicateExpression<Bool>>(_ left: L, _ right: R)
        -> PredicateCondition
    {
        PredicateExpressions.Conjunction(lhs: left, rhs: right)
    }

    /// `left || right`.
    public static func either<L: StandardPredicateExpression<Bool>, R: StandardPredicateExpression<Bool>>(
        _ left: L, _ right: R
    ) -> PredicateCondition {
        PredicateExpressions.Disjunction(lhs: left, rhs: right)
    }

    /// `!wrapped`.
    public static func not<W: StandardPredicateExpression<Bool>>(_ wrapped: W) -> PredicateCondition {
        PredicateExpressions.Negation(wrapped)
    }
}
