import Foundation

/// How sort descriptors read and compare values: the five comparison selectors Apple's
/// `NSSortDescriptor` is used with, Apple's nil ordering, and a total fallback order so sorting
/// never fails.
///
/// Rules:
/// - `nil`, `NSNull` and `Optional.none` sort before every other value; two of them are the same.
/// - `compare:` uses `ValueSemantics.compare` (numbers by value across widths, strings, dates,
///   UUIDs, URLs, data). Values with no common order are ordered by type name, then treated as
///   the same, so the order stays total and deterministic (Apple raises "unrecognized selector").
/// - The string selectors apply to strings (`String`, `Substring`, `NSString`, `Character`);
///   other values fall back to `compare:` (Apple raises "unrecognized selector").
enum SortComparison {
    /// The selector a key-based descriptor uses when none is given.
    static let defaultSelector = "compare:"

    /// The selectors we can evaluate, in Apple's spelling.
    static let supportedSelectors: Set<String> = [
        "compare:",
        "caseInsensitiveCompare:",
        "localizedCompare:",
        "localizedCaseInsensitiveCompare:",
        "localizedStandardCompare:",
    ]

    /// Whether `selector` names a comparison we can evaluate.
    static func isSupported(_ selector: String) -> Bool {
        supportedSelectors.contains(selector)
    }

    /// The value a descriptor sorts `object` by: the object itself for a nil key, else the value
    /// at the key path.
    @inline(__always)
    static func value(of object: Any?, key: String?) -> Any? {
        guard let key else { return ValueSemantics.unwrapOptional(object) }
        return KeyValueReader.value(of: object, forKeyPath: key)
    }

    /// Apple's nil ordering: nil before values, two nils the same; nil when neither is nil.
    @inline(__always)
    static func compareNils(_ a: Any?, _ b: Any?) -> ComparisonResult? {
        let aNil = ValueSemantics.isNil(a)
        let bNil = ValueSemantics.isNil(b)
        switch (aNil, bNil) {
        case (true, true): return .orderedSame
        case (true, false): return .orderedAscending
        case (false, true): return .orderedDescending
        case (false, false): return nil
        }
    }

    /// Compares two values (already read from the objects) in ascending order with `selector`.
    static func compare(_ a: Any?, _ b: Any?, selector: String) -> ComparisonResult {
        if let nilOrder = compareNils(a, b) { return nilOrder }
        if selector != defaultSelector,
            let left = ValueSemantics.string(ValueSemantics.unwrapOptional(a)),
            let right = ValueSemantics.string(ValueSemantics.unwrapOptional(b))
        {
            switch selector {
            case "caseInsensitiveCompare:":
                return caseInsensitiveCompare(left, right)
            case "localizedCompare:":
                return left.localizedCompare(right)
            case "localizedCaseInsensitiveCompare:":
                return left.localizedCaseInsensitiveCompare(right)
            case "localizedStandardCompare:":
                return localizedStandardCompare(left, right)
            default:
                break
            }
        }
        return plainCompare(a, b)
    }

    /// `compare:` made total: `ValueSemantics.compare`, else by type name, else the same.
    static func plainCompare(_ a: Any?, _ b: Any?) -> ComparisonResult {
        if let nilOrder = compareNils(a, b) { return nilOrder }
        if let result = ValueSemantics.compare(a, b) { return result }
        guard let left = ValueSemantics.unwrapOptional(a),
            let right = ValueSemantics.unwrapOptional(b)
        else { return .orderedSame }
        let leftType = String(reflecting: type(of: left))
        let rightType = String(reflecting: type(of: right))
        if leftType < rightType { return .orderedAscending }
        if leftType > rightType { return .orderedDescending }
        return .orderedSame
    }

    /// `caseInsensitiveCompare:`: the case-folded strings compared literally.
    static func caseInsensitiveCompare(_ a: String, _ b: String) -> ComparisonResult {
        let left = StringFolding.fold(a, caseInsensitive: true, diacriticInsensitive: false)
        let right = StringFolding.fold(b, caseInsensitive: true, diacriticInsensitive: false)
        return ValueSemantics.compareStrings(left, right)
    }

    /// `localizedStandardCompare:`, as Finder sorts names: case-insensitive, digit runs compared
    /// by numeric value (`"file2" < "file10"`), in the current locale, with a forced order so
    /// strings that differ only in case still have a fixed order.
    static func localizedStandardCompare(_ a: String, _ b: String) -> ComparisonResult {
        a.compare(
            b,
            options: [.caseInsensitive, .numeric, .widthInsensitive, .forcedOrdering],
            range: nil,
            locale: Locale.current)
    }

    /// Flips the order for a descending descriptor.
    @inline(__always)
    static func reversed(_ result: ComparisonResult) -> ComparisonResult {
        switch result {
        case .orderedAscending: return .orderedDescending
        case .orderedDescending: return .orderedAscending
        case .orderedSame: return .orderedSame
        }
    }
}
