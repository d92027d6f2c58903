import Foundation

/// Fast paths for the commonest shape, `keyPath op constant`, where the constant may also be an
/// aggregate of constants (`{20, 40}`, `{"Leeds", "York"}`) or a collection passed as `%@`.
///
/// The constant is examined once, when the predicate compiles (converted, folded, its elements
/// sorted out), and an object's value whose dynamic type is exactly `String`, `Int`, `Double`,
/// `Bool` or `Date` is tested with one cast and a compare, without boxing the constant again or
/// allocating. Every other value (an `NSNumber` or `NSString` from JSON, `nil`, `NSNull`, a
/// collection, an `Optional` inside `Any`) goes to the general test with the same constant, so a
/// fast path only ever answers for values whose answer it computes the way the general test
/// does; `FastPathEquivalenceTests` compares the two over random mixed-type values.
///
/// Each fast test also comes in the form an object that reads its integers and strings without
/// an `Any` applies (`ScalarTests`, `ScalarKeyValueCodable`): the same test of an integer as
/// `Int64` and of a `String`, and of anything else as `Any?`.
extension ComparisonTest {
    /// A test of one evaluated left operand against the compiled-in constant.
    typealias ValueTest = (Any?) -> Bool

    /// A fast test, for a value as `Any?` and by the form it is read in (`ScalarTests`): the
    /// same answers.
    struct FastTest {
        let value: ValueTest
        let scalar: ScalarTests

        /// A test whose integers and strings are tested as `Any` (the operators with their own
        /// tests of integers and strings make theirs).
        init(_ value: @escaping ValueTest) {
            self.value = value
            scalar = ScalarTests(integer: { value($0) }, string: { value($0) }, other: value)
        }

        init(value: @escaping ValueTest, scalar: ScalarTests) {
            self.value = value
            self.scalar = scalar
        }
    }

    /// The fast test for `comparison` against `constant`, or nil when there is none (the caller
    /// then uses the general test).
    static func fastConstantTest(_ comparison: ComparisonNode, constant: Any?) -> FastTest? {
        let general = make(comparison)
        if let string = ValueSemantics.string(constant) {
            return stringTest(comparison, constant: constant, string: string, general: general)
        }
        guard let constant else { return nil }
        if let number = ValueSemantics.number(constant) {
            return numberTest(comparison.operatorType, constant: constant, number: number, general: general)
        }
        if let date = ValueSemantics.exactly(constant, Date.self) {
            return dateTest(comparison.operatorType, constant: constant, date: date, general: general).map(FastTest.init)
        }
        if let elements = ExpressionCompiler.collectionElements(constant) {
            return collectionTest(comparison, constant: constant, elements: elements, general: general)
                .map(FastTest.init)
        }
        return nil
    }

    /// A string test from its test of a `String` (`onString`) and of any other value
    /// (`onOther`).
    private static func stringFastTest(
        _ onString: @escaping (String) -> Bool, other onOther: @escaping ValueTest
    ) -> FastTest {
        let value: ValueTest = { value in
            guard let s = ValueSemantics.exactly(value, String.self) else { return onOther(value) }
            return onString(s)
        }
        return FastTest(value: value, scalar: ScalarTests(integer: { onOther($0) }, string: onString, other: value))
    }

    /// Whether an operator that orders or equates holds for `result` (lhs compared with rhs).
    @inline(__always)
    static func holds(_ operatorType: ComparisonOperator, _ result: ComparisonResult) -> Bool {
        switch operatorType {
        case .lessThan: result == .orderedAscending
        case .lessThanOrEqualTo: result != .orderedDescending
        case .greaterThan: result == .orderedDescending
        case .greaterThanOrEqualTo: result != .orderedAscending
        case .equalTo: result == .orderedSame
        case .notEqualTo: result != .orderedSame
        default: false
        }
    }

    /// Whether `operatorType` is one `holds(_:_:)` decides.
    static func isOrderOrEquality(_ operatorType: ComparisonOperator) -> Bool {
        switch operatorType {
        case .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo, .equalTo, .notEqualTo: true
        default: false
        }
    }

    // MARK: - Strings

    /// A string constant (`String`, `NSString`, `Substring`, `Character`), against values that
    /// are `String`s. The general rules for those: `==`, `!=` and ordering compare the strings
    /// (folded first under `[c]`/`[d]`); `BEGINSWITH`, `ENDSWITH`, `CONTAINS` with an empty
    /// constant are false, otherwise test the folded strings.
    private static func stringTest(
        _ comparison: ComparisonNode, constant: Any?, string: String, general: @escaping Test
    ) -> FastTest? {
        let options = comparison.options
        let folding = options.contains(.caseInsensitive) || options.contains(.diacriticInsensitive)
        let needle = StringFolding.fold(string, options: options)
        let operatorType = comparison.operatorType
        let otherValue: ValueTest = { general($0, constant) }
        switch operatorType {
        case .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo, .equalTo, .notEqualTo:
            return stringFastTest(
                { s in
                    let folded = folding ? StringFolding.fold(s, options: options) : s
                    let other = folding ? needle : string
                    switch operatorType {
                    case .equalTo: return folded == other
                    case .notEqualTo: return folded != other
                    default: return holds(operatorType, ValueSemantics.compareStrings(folded, other))
                    }
                }, other: otherValue)
        case .beginsWith where string.isEmpty, .endsWith where string.isEmpty:
            return FastTest { _ in false }
        case .beginsWith:
            let hasPrefix: (String) -> Bool = { s in
                folding ? foldedHasPrefix(s, needle, options: options) : s.hasPrefix(needle)
            }
            return stringFastTest(hasPrefix, other: { value in ValueSemantics.string(value).map(hasPrefix) ?? false })
        case .endsWith:
            return stringFastTest(
                { s in folding ? StringFolding.fold(s, options: options).hasSuffix(needle) : s.hasSuffix(string) },
                other: otherValue)
        case .contains:
            let asciiNeedle = ASCIISearch(needle: needle)
            let caseInsensitive = options.contains(.caseInsensitive)
            return stringFastTest(
                { s in
                    if string.isEmpty { return false }
                    if let asciiNeedle, let found = asciiNeedle.isFound(in: s, caseInsensitive: caseInsensitive) {
                        return found
                    }
                    return StringSearch.contains(folding ? StringFolding.fold(s, options: options) : s, needle)
                }, other: otherValue)
        default:
            return nil
        }
    }

    // MARK: - Numbers and dates

    /// A number constant (any width, `Bool`, `NSNumber`, `Decimal`) against values that are
    /// exactly `Int`, `Double` or `Bool`: compared by value, as the general rules compare two
    /// numbers.
    private static func numberTest(
        _ operatorType: ComparisonOperator, constant: Any, number: ValueSemantics.Number, general: @escaping Test
    ) -> FastTest? {
        guard isOrderOrEquality(operatorType) else { return nil }
        // Values not of an exact number type (an `NSNumber` from JSON, an `Optional` inside
        // `Any`, a string, nil). Ordering against a number that is not a string: the general
        // `order` compares by number or not at all (false), whatever the options, so the value
        // is reduced to a number once here. Equality also asks `PredicateIdentity`, so it keeps
        // the general test.
        let other: ValueTest
        if operatorType == .equalTo || operatorType == .notEqualTo {
            other = { general($0, constant) }
        } else {
            other = { value in
                guard let unwrapped = ValueSemantics.unwrapOptional(value), let lhs = ValueSemantics.number(unwrapped)
                else { return false }
                return holds(operatorType, ValueSemantics.compare(lhs, number))
            }
        }
        if case .int(let bound) = number {
            // The commonest case, `age > 30`, compares two integers.
            // Managed objects' integer attributes hold `Int64`: compared as integers where
            // `exactNumber` reads them as `.int` (below 9.2e18 in magnitude), so the answer is
            // `compare(.int, .int)`'s.
            let test: ValueTest = { value in
                if let integer = ValueSemantics.exactly(value, Int.self) {
                    let lhs = Int64(integer)
                    return holds(
                        operatorType, lhs < bound ? .orderedAscending : (lhs > bound ? .orderedDescending : .orderedSame))
                }
                if let lhs = ValueSemantics.exactly(value, Int64.self), Double(lhs).magnitude < 9.2e18 {
                    return holds(
                        operatorType, lhs < bound ? .orderedAscending : (lhs > bound ? .orderedDescending : .orderedSame))
                }
                guard let lhs = ValueSemantics.exactNumber(value) else { return other(value) }
                return holds(operatorType, ValueSemantics.compare(lhs, number))
            }
            let integer: (Int64) -> Bool = { lhs in
                // As `exactNumber` reads an `Int64`: compared as one below 9.2e18 in magnitude.
                guard Double(lhs).magnitude < 9.2e18 else { return test(lhs) }
                return holds(
                    operatorType, lhs < bound ? .orderedAscending : (lhs > bound ? .orderedDescending : .orderedSame))
            }
            return FastTest(value: test, scalar: ScalarTests(integer: integer, string: { test($0) }, other: test))
        }
        return FastTest { value in
            guard let lhs = ValueSemantics.exactNumber(value) else { return other(value) }
            return holds(operatorType, ValueSemantics.compare(lhs, number))
        }
    }

    /// A `Date` constant against values that are exactly `Date`s: chronological order.
    private static func dateTest(
        _ operatorType: ComparisonOperator, constant: Any, date: Date, general: @escaping Test
    ) -> ValueTest? {
        guard isOrderOrEquality(operatorType) else { return nil }
        return { value in
            guard let lhs = ValueSemantics.exactly(value, Date.self) else { return general(value, constant) }
            return holds(operatorType, lhs < date ? .orderedAscending : (lhs > date ? .orderedDescending : .orderedSame))
        }
    }

    // MARK: - Collections

    /// `BETWEEN` two numbers, and `IN` a collection of strings or of numbers, against values of
    /// the matching exact type. The general rules: `BETWEEN` orders the value against each bound;
    /// `IN` is true when an element equals the value (strings folded under `[c]`/`[d]`).
    private static func collectionTest(
        _ comparison: ComparisonNode, constant: Any, elements: [Any], general: @escaping Test
    ) -> ValueTest? {
        let options = comparison.options
        switch comparison.operatorType {
        case .between:
            guard elements.count == 2, ValueSemantics.string(elements[0]) == nil, ValueSemantics.string(elements[1]) == nil,
                let low = ValueSemantics.number(elements[0]), let high = ValueSemantics.number(elements[1])
            else { return nil }
            // Any other value (an `NSNumber` from JSON, an `Optional` inside `Any`, a string, nil):
            // with two bounds that are numbers and not strings, the general test's `order`
            // compares by number or not at all, whatever the options, so the value is reduced
            // to a number once here instead of per bound through the general rules.
            return { value in
                guard let number = ValueSemantics.exactNumber(value) else {
                    guard let unwrapped = ValueSemantics.unwrapOptional(value), let number = ValueSemantics.number(unwrapped)
                    else { return false }
                    return ValueSemantics.compare(number, low) != .orderedAscending
                        && ValueSemantics.compare(number, high) != .orderedDescending
                }
                return ValueSemantics.compare(number, low) != .orderedAscending
                    && ValueSemantics.compare(number, high) != .orderedDescending
            }
        case .in:
            let strings = elements.compactMap { ValueSemantics.string($0) }
            if !elements.isEmpty, strings.count == elements.count {
                let folding = options.contains(.caseInsensitive) || options.contains(.diacriticInsensitive)
                let members = Set(folding ? strings.map { StringFolding.fold($0, options: options) } : strings)
                return { value in
                    guard let s = ValueSemantics.exactly(value, String.self) else { return general(value, constant) }
                    return members.contains(folding ? StringFolding.fold(s, options: options) : s)
                }
            }
            let numbers = elements.compactMap { element in
                ValueSemantics.string(element) == nil ? ValueSemantics.number(element) : nil
            }
            if !elements.isEmpty, numbers.count == elements.count {
                return { value in
                    guard let number = ValueSemantics.exactNumber(value) else { return general(value, constant) }
                    return numbers.contains { ValueSemantics.compare(number, $0) == .orderedSame }
                }
            }
            return nil
        default:
            return nil
        }
    }

    // MARK: - Prefixes

    /// `s` folded begins with `needle` (already folded). ASCII bytes are compared in place; when
    /// the compared part of `s` has other characters, only as many characters as the needle
    /// could need are folded, never the whole string.
    @inline(__always)
    static func foldedHasPrefix(_ s: String, _ needle: String, options: ComparisonOptions) -> Bool {
        var s = s
        var needle = needle
        let asciiResult: Bool? = s.withUTF8 { text in
            needle.withUTF8 { prefix -> Bool? in
                guard prefix.count <= text.count else { return nil }
                for index in 0..<prefix.count {
                    let a = text[index]
                    let b = prefix[index]
                    if a >= 0x80 || b >= 0x80 { return nil }
                    let lower = (a >= 0x41 && a <= 0x5A && options.contains(.caseInsensitive)) ? a | 0x20 : a
                    if lower != b { return false }
                }
                // The compared part is ASCII and matches; it only fails to be a prefix of
                // characters if what follows combines with the last compared character. Every
                // scalar that can (combining marks, joiners, variation selectors) is at or
                // above U+0300, whose UTF-8 lead byte is 0xCC or higher.
                if prefix.count < text.count, text[prefix.count] >= 0xCC { return nil }
                return true
            }
        }
        if let asciiResult { return asciiResult }
        return foldedHasPrefixSlow(s, needle, options: options)
    }

    /// Folds a short head of `s`: characters fold one by one, so `needle.count + 1` characters
    /// are enough unless folding removed some (a lone combining mark under `[d]`); then the
    /// whole string is folded.
    static func foldedHasPrefixSlow(_ s: String, _ needle: String, options: ComparisonOptions) -> Bool {
        let needleCount = needle.count
        let head = s.prefix(needleCount + 1)
        let foldedHead = StringFolding.fold(String(head), options: options)
        if foldedHead.hasPrefix(needle) { return true }
        if head.endIndex == s.endIndex || foldedHead.count > needleCount { return false }
        return StringFolding.fold(s, options: options).hasPrefix(needle)
    }
}

/// A folded `CONTAINS` needle that is all ASCII, searched for byte by byte in strings that are
/// too: there a substring of bytes is a match (`StringSearch`, which does not join CR LF), and
/// `[c]` folding is lower-casing A–Z.
struct ASCIISearch {
    private let needle: [UInt8]

    /// Nil when `needle` (already folded) is empty or not plain ASCII.
    init?(needle: String) {
        let bytes = Array(needle.utf8)
        guard !bytes.isEmpty, bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
        self.needle = bytes
    }

    /// Whether the needle occurs in `text` folded (`caseInsensitive`: A–Z lower-cased); nil
    /// when `text` is not plain ASCII, for the caller to fold and search it.
    @inline(__always)
    func isFound(in text: String, caseInsensitive: Bool) -> Bool? {
        var text = text
        return text.withUTF8 { haystack -> Bool? in
            var isASCII = true
            for byte in haystack where byte >= 0x80 {
                isASCII = false
                break
            }
            guard isASCII else { return nil }
            return needle.withUnsafeBufferPointer { needle -> Bool in
                guard needle.count <= haystack.count else { return false }
                let first = needle[0]
                var start = 0
                while start + needle.count <= haystack.count {
                    if fold(haystack[start], caseInsensitive) == first {
                        var index = 1
                        while index < needle.count, fold(haystack[start + index], caseInsensitive) == needle[index] {
                            index += 1
                        }
                        if index == needle.count { return true }
                    }
                    start += 1
                }
                return false
            }
        }
    }

    @inline(__always)
    private func fold(_ byte: UInt8, _ caseInsensitive: Bool) -> UInt8 {
        caseInsensitive && byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
    }
}
