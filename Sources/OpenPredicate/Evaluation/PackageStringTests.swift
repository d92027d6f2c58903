import Foundation

// Hooks for the SQLite store's SQL functions: the string rules of predicates, so that SQL gives
// the answers the in-memory engine gives.

/// The string operators of predicates (`BEGINSWITH`, `ENDSWITH`, `CONTAINS`, `LIKE`, `MATCHES`,
/// `==`) and the `[c]`/`[d]` folding, as the predicate evaluator applies them.
package enum PredicateStringRules {
    /// `s` folded as `[c]` (`caseInsensitive`) and `[d]` (`diacriticInsensitive`) fold it.
    package static func fold(_ s: String, caseInsensitive: Bool, diacriticInsensitive: Bool) -> String {
        StringFolding.fold(s, caseInsensitive: caseInsensitive, diacriticInsensitive: diacriticInsensitive)
    }

    /// The test of a string operator with options, applied to two strings; nil for an operator
    /// that is not a string operator.
    package static func test(
        _ operatorType: NSComparisonPredicate.Operator, options: NSComparisonPredicate.Options
    ) -> ((String, String) -> Bool)? {
        guard let operatorType = ComparisonOperator(rawValue: operatorType.rawValue) else { return nil }
        switch operatorType {
        case .beginsWith, .endsWith, .contains, .like, .matches, .equalTo: break
        default: return nil
        }
        let node = ComparisonNode(
            left: .evaluatedObject, right: .evaluatedObject, operatorType: operatorType, modifier: .direct,
            options: ComparisonOptions(rawValue: options.rawValue), customSelector: nil)
        let test = ComparisonTest.make(node)
        return { test($0, $1) }
    }

    /// `MATCHES` with options, applied to a string and a pattern: whether the string matches,
    /// or, for a pattern that is not a regular expression, the message the throwing twins throw
    /// (`Can't do regex matching, reason: Can't open pattern …`). The last pattern stays
    /// compiled; the test may be called from several threads.
    package static func regexTest(
        options: NSComparisonPredicate.Options
    ) -> @Sendable (_ string: String, _ pattern: String) -> Result<Bool, NSError> {
        let matcher = StringMatching.Matcher(options: ComparisonOptions(rawValue: options.rawValue))
        return { string, pattern in matcher.matches(string, pattern: pattern).mapError(\.nsError) }
    }
}
