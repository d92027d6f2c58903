import Foundation
import OpenPredicate
import OpenStoreCore

/// String operators against a constant in SQL that SQLite evaluates itself, giving exactly the
/// in-memory engine's answers; the registered functions (`ocd_begins_with`, …) are kept for
/// the rows where bytes alone cannot decide.
///
/// The engine compares Swift strings: `BEGINSWITH`/`ENDSWITH` by characters (extended grapheme
/// clusters) under canonical equivalence (`"e\u{301}x"` does not begin with `"e"`; `"éx"` begins
/// with `"e\u{301}"`), `CONTAINS` by canonical equivalence too, `==` as Swift's `==`; an empty
/// constant matches nothing. SQLite compares bytes. The two agree when the constant (folded, for
/// `[c]`/`[d]`) is ASCII and:
///
/// - the row is ASCII (`length(x) = length(CAST(x AS BLOB))`: as many characters as bytes, and
///   no NUL, since `length` stops at one) — every operator; folding an ASCII row is SQLite's
///   `lower` for `[c]` and nothing for `[d]`. A line feed starting the suffix of an `ENDSWITH`
///   is left to the function (`"x\r\nb"` does not end with `"\nb"`: CR LF is one character).
/// - for `BEGINSWITH` without options, in any row: a row whose bytes begin with the constant's
///   answers true when what follows them is nothing or a scalar below U+0300 (the first scalar
///   that can join an ASCII character), i.e. when the row is below `p + "\u{300}"`; a row
///   that begins with the constant must begin with its bytes, unless it spells one of the
///   constant's characters with a canonical singleton (`SQLCompiler.singletons`: the Kelvin sign
///   for `K`, …). So the test is the index-friendly range `x >= p AND x < succ(p)`, OR-ed, when
///   the constant holds such a character, with ranges over its spelled-otherwise variants checked
///   by the function.
/// - for `BEGINSWITH[c]`/`[d]`, in any row: the engine's fast path, which reads bytes. A row
///   whose first byte is ASCII and not the needle's (in either case under `[c]`) is false, so
///   ranges on the column (`x >= 'K' AND x < 'L'`, the same for `k`, `x >= '\u{80}'`) come first
///   and spare most rows everything else. Then the row's first bytes, folded by `lower` (which
///   leaves a byte above 0x7F as it is), equal the needle: true when the next byte is below 0xCC
///   (as the fast path answers, a line feed after a needle ending in CR included, in every
///   row), else the function; they do not: false for an ASCII row, the function for the others.
/// - for `CONTAINS[c]` and `ENDSWITH[c]` in an ASCII row, `x LIKE '%needle%' ESCAPE '\\'` and
///   `x LIKE '%needle'`: SQLite's `LIKE` folds A–Z only, as `lower` does, but without copying the
///   row (a needle with a NUL, which `LIKE` stops at, uses `instr` and `substr` of `lower(x)`).
///   The store never sets `case_sensitive_like`.
/// - for `ENDSWITH` and `CONTAINS` without options: the bytes must match (unless the constant
///   holds a singleton's character); for a match in a row that is not ASCII the function decides
///   (a prepended or combining scalar can join the constant's first or last character).
///
/// Other constants (not ASCII once folded) and key paths on the right keep the function.
extension CompilerState {
    /// The native test of `column <operatorType> constant` with `flags` (1 `[c]`, 2 `[d]`), or
    /// nil when the function is the only exact test. `function` is the registered function's
    /// call, bound afresh where it appears.
    mutating func nativeStringTest(
        _ operatorType: NSComparisonPredicate.Operator, column: String, constant: String, flags: UInt, exact: Bool
    ) -> String? {
        let needle = fold(constant, flags)
        guard !needle.isEmpty, needle.utf8.allSatisfy({ $0 < 0x80 }), let function = Self.functions[operatorType] else {
            return nil
        }
        let bytes = Array(needle.utf8)
        let count = Int64(bytes.count)
        let blob = "CAST(\(column) AS BLOB)"
        let ascii = "length(\(column)) = length(\(blob))"
        let folded = flags & 1 != 0 ? "lower(\(column))" : column
        let hasSingletons = needle.unicodeScalars.contains { SQLCompiler.singletons[$0] != nil }
        switch operatorType {
        case .beginsWith where flags == 0:
            return twoValued(beginsWith(column, needle, function: function), exact: exact)
        case .beginsWith:
            let candidates = firstBytes(column, bytes[0], caseInsensitive: flags & 1 != 0)
            let test = foldedBeginsWith(column, bytes, ascii: ascii, function: function, constant, flags)
            return twoValued("(\(candidates) AND \(test))", exact: exact)
        case .endsWith where bytes.first == UInt8(ascii: "\n"):
            return nil
        case .endsWith where flags == 0 && !hasSingletons:
            let match = "substr(\(blob), \(arguments.bind(.integer(-count)))) = \(arguments.bind(.data(Data(bytes))))"
            let before =
                "substr(\(blob), \(arguments.bind(.integer(-count - 1))), 1) < \(arguments.bind(.data(Data([0x80]))))"
            return twoValued("(\(match) AND (\(before) OR \(call(function, column, constant, flags))))", exact: exact)
        case .endsWith:
            let test: String
            if flags & 1 != 0, let pattern = Self.likePattern(bytes, endsWith: true) {
                test = like(column, pattern)
            } else {
                test = "substr(\(folded), \(arguments.bind(.integer(-count)))) = \(arguments.bind(.string(needle)))"
            }
            return either(test, ascii: ascii, otherwise: call(function, column, constant, flags), exact: exact)
        case .contains where flags == 0 && !hasSingletons:
            let match = "instr(\(blob), \(arguments.bind(.data(Data(bytes))))) > 0"
            return twoValued("(\(match) AND (\(ascii) OR \(call(function, column, constant, flags))))", exact: exact)
        case .contains:
            let test: String
            if flags == 0 {
                test = "instr(\(blob), \(arguments.bind(.data(Data(bytes))))) > 0"
            } else if flags & 1 != 0, let pattern = Self.likePattern(bytes, endsWith: false) {
                test = like(column, pattern)
            } else {
                test = "instr(\(folded), \(arguments.bind(.string(needle)))) > 0"
            }
            return either(test, ascii: ascii, otherwise: call(function, column, constant, flags), exact: exact)
        default:
            return nil
        }
    }

    /// `test` for an ASCII row, `otherwise` for the others: `((test AND ascii) OR (NOT (ascii)
    /// AND otherwise))`, which SQLite runs faster than a `CASE`; the ASCII check runs only where
    /// `test` holds.
    private func either(_ test: String, ascii: String, otherwise: String, exact: Bool) -> String {
        twoValued("((\(test) AND \(ascii)) OR (NOT (\(ascii)) AND \(otherwise)))", exact: exact)
    }

    /// The registered function's call, the constant bound.
    private mutating func call(_ function: String, _ column: String, _ constant: String, _ flags: UInt) -> String {
        "\(function)(\(column), \(arguments.bind(.string(constant))), \(flags))"
    }

    /// `BEGINSWITH` without options, as ranges an index on the column can serve (see the type's
    /// discussion).
    private mutating func beginsWith(_ column: String, _ prefix: String, function: String) -> String {
        let bytes = Array(prefix.utf8)
        var terms: [String] = []
        let main = range(column, prefix)
        if bytes.last == UInt8(ascii: "\r") {
            terms.append("(\(main) AND \(call(function, column, prefix, 0)))")
        } else {
            // Below prefix + U+0300: what follows the prefix is nothing or a scalar below U+0300.
            let boundary = "\(column) < \(arguments.bind(.string(prefix + "\u{300}")))"
            terms.append("(\(main) AND (\(boundary) OR \(call(function, column, prefix, 0))))")
        }
        // Rows spelling a character of the prefix with a canonical singleton: the first
        // character either way, then the prefix up to its next character that has one.
        let scalars = Array(prefix.unicodeScalars)
        if let first = scalars.first, scalars.contains(where: { SQLCompiler.singletons[$0] != nil }) {
            let rest = scalars.dropFirst().prefix { SQLCompiler.singletons[$0] == nil }
            for spelling in [first] + (SQLCompiler.singletons[first] ?? []) {
                var start = String.UnicodeScalarView()
                start.append(spelling)
                start.append(contentsOf: rest)
                let variant = String(start)
                if variant.utf8.elementsEqual(prefix.utf8) { continue }
                terms.append("(\(range(column, variant)) AND \(call(function, column, prefix, 0)))")
            }
        }
        return terms.count == 1 ? terms[0] : "(" + terms.joined(separator: " OR ") + ")"
    }

    /// `BEGINSWITH[c]`/`[d]` of an ASCII `needle` (folded): the in-memory engine's test, which
    /// reads bytes. Its first `needle.count` bytes, case folded under `[c]` (SQLite's `lower`
    /// folds A–Z only, and leaves a byte above 0x7F as it is), equal the needle's: true when the
    /// next byte is below 0xCC (no scalar that can join the last character; a line feed after a
    /// needle ending in CR counts as the bytes say, as the engine's fast path says), else the
    /// function. Otherwise false for an ASCII row (a mismatch of ASCII bytes, or too short),
    /// the function for the others.
    private mutating func foldedBeginsWith(
        _ column: String, _ needle: [UInt8], ascii: String, function: String, _ constant: String, _ flags: UInt
    ) -> String {
        let blob = "CAST(\(column) AS BLOB)"
        let count = Int64(needle.count)
        let head = "substr(\(blob), 1, \(arguments.bind(.integer(count))))"
        let match =
            flags & 1 != 0
            ? "lower(\(head)) = \(arguments.bind(.string(String(decoding: needle, as: UTF8.self))))"
            : "\(head) = \(arguments.bind(.data(Data(needle))))"
        let next = "substr(\(blob), \(arguments.bind(.integer(count + 1))), 1) < \(arguments.bind(.data(Data([0xCC]))))"
        let matched = "(\(match) AND (\(next) OR \(call(function, column, constant, flags))))"
        return "(\(matched) OR (NOT (\(ascii)) AND \(call(function, column, constant, flags))))"
    }

    /// The rows that can begin with a needle whose first byte is the ASCII `first` (folded): those
    /// whose first byte is `first` (or, under `[c]`, its capital) or is not ASCII. A row whose
    /// first character begins with another ASCII byte folds to a character that begins with
    /// that byte, folded. Ranges on the column, which SQLite tests before anything else.
    private mutating func firstBytes(_ column: String, _ first: UInt8, caseInsensitive: Bool) -> String {
        var starts = [first]
        if caseInsensitive, first >= UInt8(ascii: "a"), first <= UInt8(ascii: "z") { starts.insert(first - 0x20, at: 0) }
        let ranges = starts.map { "(\(range(column, String(Unicode.Scalar($0)))))" }
        return "(" + (ranges + ["\(column) >= \(arguments.bind(.string("\u{80}")))"]).joined(separator: " OR ") + ")"
    }

    /// `column LIKE pattern ESCAPE '\\'`: SQLite's `LIKE` folds A–Z as `lower` does, but without
    /// copying the row.
    private mutating func like(_ column: String, _ pattern: String) -> String {
        "\(column) LIKE \(arguments.bind(.string(pattern))) ESCAPE \(arguments.bind(.string("\\")))"
    }

    /// The `LIKE` pattern (escaped with `\\`) of the ASCII rows holding `needle` (ASCII, folded)
    /// once folded: `%needle%`, or `%needle` for those ending with it. Nil for a needle with a
    /// NUL (`LIKE` stops reading there) or too long for SQLite's limit on patterns.
    static func likePattern(_ needle: [UInt8], endsWith: Bool) -> String? {
        guard !needle.contains(0), needle.count <= 1_000 else { return nil }
        var pattern = "%"
        for byte in needle {
            if byte == UInt8(ascii: "%") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "\\") { pattern += "\\" }
            pattern.unicodeScalars.append(Unicode.Scalar(byte))
        }
        return endsWith ? pattern : pattern + "%"
    }

    /// `column >= start AND column < successor(start)`: the column begins with `start`'s bytes.
    private mutating func range(_ column: String, _ start: String) -> String {
        "\(column) >= \(arguments.bind(.string(start))) AND \(column) < \(arguments.bind(.string(SQLCompiler.successor(start))))"
    }
}

extension SQLCompiler {
    /// The scalars other than itself that are canonically equivalent to an ASCII character (their
    /// canonical decomposition is that character), by that character: Swift's `==` and
    /// `hasPrefix` treat `"\u{212A}"` (KELVIN SIGN) as `"K"`. Unicode's stability policy keeps
    /// decompositions fixed; `SQLStringOperatorTests` checks the table against every scalar.
    package static let singletons: [Unicode.Scalar: [Unicode.Scalar]] = [
        "K": ["\u{212A}"], ";": ["\u{037E}"], "`": ["\u{1FEF}"],
    ]

    /// The least string above every string that begins with `prefix` (its last scalar plus
    /// one; UTF-8 orders bytes as scalars).
    package static func successor(_ prefix: String) -> String {
        var scalars = Array(prefix.unicodeScalars)
        guard let last = scalars.popLast() else { return prefix }
        var value = last.value + 1
        if value == 0xD800 { value = 0xE000 }
        var view = String.UnicodeScalarView(scalars)
        view.append(Unicode.Scalar(value) ?? last)
        return String(view)
    }
}
