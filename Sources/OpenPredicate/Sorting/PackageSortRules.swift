import Foundation

// Hook for the SQLite store's collations: the string orders of sort descriptors, so that SQL
// sorts as the in-memory sorter does.

/// The string comparisons of sort descriptors' selectors, as `SortComparison` applies them.
package enum PredicateSortRules {
    /// `a` compared with `b` by `selector` (`compare:`, `caseInsensitiveCompare:`,
    /// `localizedCompare:`, `localizedCaseInsensitiveCompare:`, `localizedStandardCompare:`), in
    /// ascending order.
    package static func compare(_ a: String, _ b: String, selector: String) -> ComparisonResult {
        SortComparison.compare(a, b, selector: selector)
    }
}
