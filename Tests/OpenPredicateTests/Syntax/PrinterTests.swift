import Foundation
import Testing
@testable import OpenPredicate

@Suite struct PrinterTests {
    /// Apple's documented `predicateFormat` output for these inputs.
    static let appleExamples: [(format: String, arguments: [Any?], printed: String)] = [
        ("name == 'x'", [], #"name == "x""#),
        ("lastName like[c] 'Worsley'", [], #"lastName LIKE[c] "Worsley""#),
        ("ANY tags.name IN {'a', 'b'}", [], #"ANY tags.name IN {"a", "b"}"#),
        ("SELF like[c] %@", ["prefix*suffix"], #"SELF LIKE[c] "prefix*suffix""#),
        ("SELF like[c] %@*%@", ["prefix", "suffix"], #"SELF LIKE[c] "prefix" * "suffix""#),
        ("%K like %@", ["firstName", "Adam"], #"firstName LIKE "Adam""#),
        ("%@ like %@", ["firstName", "Adam"], #""firstName" LIKE "Adam""#),
        ("\"%K\" like \"%@\"", [], #""%K" LIKE "%@""#),
        ("isMale == YES", [], "isMale == 1"),
        ("isMale == %@", [true], "isMale == 1"),
        ("NOT name == 'Kyle'", [], #"NOT name == "Kyle""#),
        ("%K like %@+$b+$c", ["$single", "b\""], #"$single LIKE ("b\"" + $b) + $c"#),
    ]

    @Test(arguments: appleExamples)
    func appleSpelling(format: String, arguments: [Any?], printed: String) throws {
        let tree = try PredicateParser.parsePredicate(format, arguments: arguments)
        #expect(PredicatePrinter.format(tree) == printed)
    }

    /// Formats whose printed form must re-parse to the same tree.
    static let roundTrips = [
        "a == 1", "a != 'x'", "a < 1.5", "a <= -2", "a > 0x10", "a >= 1e-05", "a =< 3", "a => 3", "a <> 3",
        "name MATCHES '\\\\d+'", "name LIKE[cd] 'a*'", "name BEGINSWITH[n] 'a'", "name ENDSWITH[l] 'a'",
        "name CONTAINS[cdnl] 'a'", "a IN {1, 2, 3}", "a BETWEEN {1, 10}", "ANY a.b == 1", "ALL a > 0",
        "NONE a == 1", "SOME a == 1", "TRUEPREDICATE", "FALSEPREDICATE",
        "a == 1 OR b == 2 AND c == 3", "(a == 1 OR b == 2) AND c == 3", "(a == 1 AND b == 2) AND c == 3",
        "NOT (a == 1 OR b == 2)", "NOT a == 1 AND NOT (b == 1 AND c == 1)", "NOT NOT a == 1",
        "a + b * c - d / e ** f == 1", "(a + b) * c == 1", "a - (b - c) == 1", "-a == 0", "--5 == 5",
        "2 ** -1 == 0.5", "a[FIRST] == a[LAST]", "a[SIZE] == 1", "a[0][1] == a['k']", "(a + 1)[0] == 1",
        "$a.b.c == $x.$y", "'abc'.length == 3", "(1 + 2).x == nil", "(-5).y == 1", "SELF.a.b == SELF",
        "#self.#size == #first", "g.@max.#self == 1", "caf\\u00e9 == 'é'", "a == \"quote\\\" back\\\\slash\\n\\t\\r\"",
        "sum(a) == 1", "sum:(1, 2, 3) == 6", "now() > a", "random() < 1", "uppercase(a) == 'A'",
        "multiply:by:(a, 3) == 9", "modulus:by:(a, 2) == 1", "count:(a.b) > 1", "max({1, 2}) == 2",
        "SUBQUERY(items, $x, $x.price > 10 AND $x.name BEGINSWITH 'a').@count > 0",
        "TERNARY(a == 1, 'y', 'n') == 'y'", "CAST(a, 'NSNumber') == 1", "CAST('1', 'NSNumber').x == 1",
        "FUNCTION(SELF, 'foo:', 1, 'b') == 2", "a UNION b == c", "(a UNION b) INTERSECT c == {}",
        "a MINUS (b UNION c) == d", "(a UNION b) + 1 == c", "ANYKEY == 1", "a == nil", "a == TRUE",
        "$x.a[0].b == 1", "TERNARY(a == 1, 'y', 'n').length == 1", "a == 9223372036854775807",
        "a == -9223372036854775808", "a == 99999999999999999999",
        // Deep unary minus, infinite doubles, and key paths that need escapes (issue 17).
        "- - -a == 0", "-(-1) == 1", "-(-a) == 1", "- -(-(1)) == 1", "-(-(-1.5)) < 0", "---a.b == 1",
        "-(-a)[0] == 1", "-(1 + 2) == -3", "-{1, 2} == a", "-(-9223372036854775808) == a", "-(-1e999) == a",
        "a == 1e999", "a == -1e999", "a < 1e999 AND a > -1e999", "-1e999 == a", "1e400 + a == 1",
        "#@ == 1", "a.#@ == 1", "#@.a == '#@'", "#@count == 1", "a.@count == 1", "\\u0040 == 1",
        "a\\u0023b == 1", "a\\u0020b.\\u0031x == 1", "a == '#@'", "'@' == \"#\"",
        // Variables with escaped characters (found by Fuzz/run.sh with FUZZ_STRICT=1).
        "age == $a\\u001Ab", "$\\u0040x == 1", "SUBQUERY(a, $x\\u0020y, $x\\u0020y == 1).@count > 0", "a.$b\\u0023 == 1",
    ]

    @Test(arguments: roundTrips)
    func roundTrip(format: String) throws {
        let tree = try PredicateParser.parsePredicate(format, arguments: [])
        let printed = PredicatePrinter.format(tree)
        let reparsed = try PredicateParser.parsePredicate(printed, arguments: [])
        #expect(reparsed == tree, "\(format) printed as \(printed)")
    }

    /// Unary minus as deep as the parser accepts prints in a form that parses back to the same
    /// tree (printed as `0 - (0 - (…))` it cost two levels per minus and failed past 250).
    @Test func deepUnaryMinusParsesBack() throws {
        for depth in [1, 2, 3, 251, 499] {
            for operand in ["a", "1", "(1)", "-1", "1.5", "'s'", "(a + 1)", "a[0]"] {
                let format = String(repeating: "-", count: depth) + operand + " == 0"
                // 499 minuses and a parenthesized sum are over the limit already.
                guard let tree = try? PredicateParser.parsePredicate(format, arguments: []) else {
                    #expect(depth == 499 && operand.hasPrefix("("), "\(format)")
                    continue
                }
                let printed = PredicatePrinter.format(tree)
                let reparsed = try PredicateParser.parsePredicate(printed, arguments: [])
                #expect(reparsed == tree, "\(depth) × - before \(operand)")
                let predicate = NSPredicate(format: format)
                #expect(NSPredicate(format: predicate.predicateFormat) == predicate)
            }
        }
        #expect(PredicatePrinter.format(try PredicateParser.parsePredicate("- - -a == -(1)", arguments: [])) == "0 - --a == 0 - 1")
    }

    /// Infinite doubles print as `1e999` / `-1e999` (Swift's `inf` reads back as a key path).
    @Test func infinitiesParseBack() throws {
        for value in [Double.infinity, -Double.infinity] {
            let predicate = NSPredicate(format: "a == %@", value as NSNumber)
            let reparsed = NSPredicate(format: predicate.predicateFormat)
            #expect(reparsed == predicate, "\(predicate.predicateFormat)")
            #expect(reparsed.evaluate(with: ["a": value]))
        }
        #expect(PredicatePrinter.formatConstant(Double.infinity) == "1e999")
        #expect(PredicatePrinter.formatConstant(-Double.infinity) == "-1e999")
        #expect(PredicatePrinter.formatConstant(Float.infinity) == "1e999")
    }

    /// Key paths with characters an identifier cannot hold print with `\u` escapes or `#`.
    @Test func keyPathsWithSymbolsParseBack() throws {
        for components in [["@"], ["a", "#@"], ["a b", "1x"], ["@count"], ["we#ird", "@x y"], ["-"], ["ünï"]] {
            let tree = PredicateNode.comparison(
                ComparisonNode(
                    left: .keyPath(KeyPathComponents(components: components)), right: .constant(ConstantValue(1)),
                    operatorType: .equalTo, modifier: .direct, options: [], customSelector: nil))
            let printed = PredicatePrinter.format(tree)
            #expect(try PredicateParser.parsePredicate(printed, arguments: []) == tree, "\(components) printed as \(printed)")
        }
        #expect(PredicatePrinter.format(ExpressionNode.keyPath(KeyPathComponents(components: ["@"]))) == "#@")
        #expect(PredicatePrinter.format(ExpressionNode.keyPath(KeyPathComponents(components: ["a#b"]))) == "a\\u0023b")
    }

    @Test func printedForms() throws {
        let cases: [(String, String)] = [
            ("a + b * c - d == 1", "(a + (b * c)) - d == 1"),
            ("a - (b - c) == 1", "a - (b - c) == 1"),
            ("-a == 0", "0 - a == 0"),
            ("a[FIRST] == a[size]", "a[FIRST] == a[SIZE]"),
            ("$a.b.c == $x.$y", "$a.b.c == $x.$y"),
            ("(1 + 2).x == 1", "(1 + 2).x == 1"),
            ("#self.#size == 1", "#self.#size == 1"),
            ("sum(a) == now()", "sum:(a) == now()"),
            ("SUBQUERY(i, $x, $x.p > 1 OR $x.q < 2).@count > 0", "SUBQUERY(i, $x, $x.p > 1 OR $x.q < 2).@count > 0"),
            ("TERNARY(a == 1, 2, 3) == 2", "TERNARY(a == 1, 2, 3) == 2"),
            ("CAST(a, 'NSNumber') == 1", #"CAST(a, "NSNumber") == 1"#),
            // A cast of seconds to a date prints as a date constant does.
            ("d < CAST(-978250148, 'NSDate')", #"d < CAST(-978250148.000000, "NSDate")"#),
            ("FUNCTION(SELF, 'foo:', 1) == 2", #"FUNCTION(SELF, "foo:", 1) == 2"#),
            ("a UNION (b INTERSECT c) == d", "a UNION (b INTERSECT c) == d"),
            ("NONE a == 1", "NOT ANY a == 1"),
            ("a == 1 AND (b == 2 OR c == 3)", "a == 1 AND (b == 2 OR c == 3)"),
            ("(NOT (a == 1 AND b == 1)) OR c == 1", "(NOT (a == 1 AND b == 1)) OR c == 1"),
            ("a == 2.5 AND b == 1e-5", "a == 2.5 AND b == 1e-05"),
            ("a == nil", "a == nil"),
            ("a == ANYKEY", "a == ANYKEY"),
        ]
        for (format, printed) in cases {
            let tree = try PredicateParser.parsePredicate(format, arguments: [])
            #expect(PredicatePrinter.format(tree) == printed, "\(format)")
        }
    }

    @Test func treesWithoutFormatSyntax() {
        #expect(PredicatePrinter.format(PredicateNode.and([])) == "TRUEPREDICATE")
        #expect(PredicatePrinter.format(PredicateNode.or([])) == "FALSEPREDICATE")
        let custom = PredicateNode.comparison(ComparisonNode(
            left: .keyPath(KeyPathComponents("a")), right: .constant(ConstantValue(1)), operatorType: .customSelector,
            modifier: .direct, options: [], customSelector: "isFoo:"))
        #expect(PredicatePrinter.format(custom) == "a isFoo: 1")
        let opaque = PredicateNode.opaque(OpaquePredicate(NSPredicate(value: true)))
        #expect(PredicatePrinter.format(PredicateNode.not(opaque)) == "NOT BLOCKPREDICATE")
        #expect(PredicatePrinter.format(ExpressionNode.symbol(.last)) == "LAST")
    }

    @Test func constants() {
        #expect(PredicatePrinter.formatConstant(nil) == "nil")
        #expect(PredicatePrinter.formatConstant(Optional<Int>.none as Any) == "nil")
        #expect(PredicatePrinter.formatConstant(NSNull()) == "<null>")
        #expect(PredicatePrinter.formatConstant("a\"b\\c\nd\te\rf") == #""a\"b\\c\nd\te\rf""#)
        #expect(PredicatePrinter.formatConstant(42) == "42")
        #expect(PredicatePrinter.formatConstant(UInt8(7)) == "7")
        #expect(PredicatePrinter.formatConstant(-3) == "-3")
        #expect(PredicatePrinter.formatConstant(2.5) == "2.5")
        #expect(PredicatePrinter.formatConstant(0.00001) == "1e-05")
        #expect(PredicatePrinter.formatConstant(true) == "1")
        #expect(PredicatePrinter.formatConstant(false) == "0")
        #expect(PredicatePrinter.formatConstant(NSNumber(value: true)) == "1")
        #expect(PredicatePrinter.formatConstant(NSNumber(value: 12)) == "12")
        #expect(PredicatePrinter.formatConstant(NSNumber(value: 1.5)) == "1.5")
        #expect(PredicatePrinter.formatConstant(Decimal(string: "1.25")) == "1.25")
        // Apple's spelling, as quoted from Core Data's output (objc.io issue 4, "Fetch
        // Requests"): CAST(-978250148.000000, "NSDate").
        #expect(PredicatePrinter.formatConstant(Date(timeIntervalSinceReferenceDate: 123.5)) == #"CAST(123.500000, "NSDate")"#)
        #expect(PredicatePrinter.formatConstant(Date(timeIntervalSinceReferenceDate: -978250148)) == #"CAST(-978250148.000000, "NSDate")"#)
        let uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
        #expect(PredicatePrinter.formatConstant(uuid) == #"CAST("E621E1F8-C36C-495A-93FC-0C247A3E6E5F", "NSUUID")"#)
        #expect(PredicatePrinter.formatConstant(URL(string: "https://x.org/a")) == #"CAST("https://x.org/a", "NSURL")"#)
        #expect(PredicatePrinter.formatConstant(Data([1, 2, 3])) == #"CAST("AQID", "NSData")"#)
        #expect(PredicatePrinter.formatConstant([1, "a", nil] as [Any?]) == #"{1, "a", nil}"#)
        #expect(PredicatePrinter.formatConstant(["x"] as Set) == #"{"x"}"#)
        #expect(PredicatePrinter.formatConstant(["k": 1]) == #"{"k": 1}"#)
    }

    @Test func keyPathsEscapeReservedWords() {
        let path = ExpressionNode.keyPath(KeyPathComponents(components: ["self", "Size", "@count", "name", "in"]))
        #expect(PredicatePrinter.format(path) == "#self.#Size.@count.name.#in")
    }
}
