@testable import OpenPredicate
import Testing

/// Section 1 of the fact table: literal and operator parsing and evaluation (no key paths).
@Suite("Semantics: literals and operators")
struct LiteralAndOperatorTests {
    // Rows 1, 2 (A), 3 (R): every operator spelling parses and evaluates.
    @Test("operator spellings are true", arguments: [
        "1 == 1", "1 = 1",
        "2 >= 1", "2 => 1", "1 <= 2", "1 =< 2", "2 > 1", "1 < 2", "2 != 1", "1 <> 2",
        "5 > 2",
    ])
    func spellingsTrue(format: String) throws {
        #expect(try semanticsEval(format) == true)
    }

    // The same spellings with the operands swapped are false, so a test that returns true for
    // anything would fail here.
    @Test("operator spellings are false when reversed", arguments: [
        "1 == 2", "1 = 2",
        "1 >= 2", "1 => 2", "2 <= 1", "2 =< 1", "1 > 2", "2 < 1", "1 != 1", "1 <> 1",
    ])
    func spellingsFalse(format: String) throws {
        #expect(try semanticsEval(format) == false)
    }

    // Row 2: the alternative spellings build the same operator as the canonical one.
    @Test("alternative spellings are the same predicate", arguments: [
        ("1 = 1", "1 == 1"), ("2 => 1", "2 >= 1"), ("1 =< 2", "1 <= 2"), ("1 <> 2", "1 != 2"),
        ("!(1 < 0)", "NOT (1 < 0)"), ("(1 < 0) && (1 > 0)", "(1 < 0) AND (1 > 0)"),
        ("(1 < 0) || (1 > 0)", "(1 < 0) OR (1 > 0)"),
    ])
    func alternativeSpellings(pair: (String, String)) throws {
        #expect(try semanticsPredicate(pair.0).isEqual(try semanticsPredicate(pair.1)))
    }

    // Rows 4–10: boolean combinations.
    @Test("boolean combinations", arguments: [
        ("(5 > 2) && (1 < 0)", false),                 // row 4
        ("!((5 > 2) && (1 < 0) && (1 > 0))", true),    // row 5
        ("(1 < 0) || (1 > 0)", true),                  // row 6
        ("(1 < 0) OR (1 > 0)", true),
        ("(1 < 0) && (1 > 0)", false),                 // row 7
        ("(1 < 0) AND (1 > 0)", false),
        ("!(1 < 0)", true),                            // row 8
        ("NOT(1 < 0)", true),
        ("NOT(1 > 0)", false),
        ("TRUEPREDICATE", true),                       // row 9
        ("FALSEPREDICATE", false),
        ("(1 < 0) || TRUEPREDICATE", true),            // row 10
        ("(1 < 0) || FALSEPREDICATE", false),
        ("truepredicate", true),                       // keywords are case-insensitive
        ("1 > 0 AND 2 > 1 OR 1 > 2", true),
        ("1 > 2 OR 2 > 3 OR 3 > 2", true),
        ("1 > 2 OR 2 > 3 OR 3 > 4", false),
        ("NOT 1 > 2 AND 1 > 2", false),                 // NOT binds tighter than AND
        ("1 < 2 OR 1 > 2 AND 1 > 2", true),            // AND binds tighter than OR
    ])
    func booleanCombinations(format: String, expected: Bool) throws {
        #expect(try semanticsEval(format) == expected)
    }

    // Row 9: TRUEPREDICATE/FALSEPREDICATE are the constant predicates.
    @Test func constantPredicates() throws {
        #expect(try semanticsPredicate("TRUEPREDICATE").isEqual(NSPredicate(value: true)))
        #expect(try semanticsPredicate("FALSEPREDICATE").isEqual(NSPredicate(value: false)))
        #expect(try semanticsPredicate("TRUEPREDICATE").evaluate(with: "anything"))
        #expect(try !semanticsPredicate("FALSEPREDICATE").evaluate(with: "anything"))
    }

    // Row 11 (?): Apple's grammar has no bitwise operators (the daydreamboy author also marks
    // them unsupported), so each of these is a parse error.
    @Test("bitwise operators do not parse (row 11)", arguments: [
        "1 << 3 == 8", "8 >> 2 == 2", "1 & 0 == 0", "2 | 1 == 3", "2 ^ 1 == 3",
    ])
    func bitwiseOperatorsThrow(format: String) {
        #expect(throws: (any Error).self) { try NSPredicate(validatingFormat: format, argumentArray: nil) }
    }

    // Row 12: `~` is not in the grammar either (the author comments "not support ~").
    @Test func onesComplementOperatorDoesNotParse() {
        #expect(throws: (any Error).self) { try NSPredicate(validatingFormat: "~(1) == 0", argumentArray: nil) }
    }

    // Row 13: a bare expression is not a predicate.
    @Test("bare expressions are not predicates (row 13)", arguments: ["1", "0 || 1", "TRUE", "FALSE", "YES", "a", "1 + 2"])
    func bareExpressionThrows(format: String) {
        #expect(throws: (any Error).self) { try NSPredicate(validatingFormat: format, argumentArray: nil) }
    }

    // Row 14: %@ > %@ with 1, 1 is false, and so is the re-parse of its predicateFormat.
    @Test func argumentComparisonRoundTrip() throws {
        let predicate = try semanticsPredicate("%@ > %@", [1, 1])
        #expect(predicate.evaluate(with: nil) == false)
        #expect(predicate.predicateFormat == "1 > 1")
        let reparsed = try semanticsPredicate(predicate.predicateFormat)
        #expect(reparsed.evaluate(with: nil) == false)
        #expect(try semanticsEval("%@ > %@", [2, 1]) == true)
    }

    // Rows 15, 16 (A via mySTEP): string CONTAINS string and string IN string are substring tests.
    @Test func substringOperatorsOnArguments() throws {
        #expect(try semanticsEval("%@ CONTAINS %@", ["AABBBAA", "BBB"], on: fixtureG) == true)
        #expect(try semanticsEval("%@ IN %@", ["BBB", "AABBBAA"], on: fixtureG) == true)
        #expect(try semanticsEval("%@ CONTAINS %@", ["AABBBAA", "BBBB"], on: fixtureG) == false)
        #expect(try semanticsEval("%@ IN %@", ["AABBBAA", "BBB"], on: fixtureG) == false)
    }

    // Negative numbers, floating literals, hex/octal/binary literals and whitespace (row 86 too).
    @Test("numeric literals", arguments: [
        ("-5 < -4", true), ("1.5 == 1.50", true), ("2e2 == 200", true), ("0x10 == 16", true),
        ("0o10 == 8", true), ("0b101 == 5", true), ("   1 == 1   ", true), ("-1 == 1", false),
        ("1 == 1.0", true), ("1 == 1.0000001", false),
    ])
    func numericLiterals(format: String, expected: Bool) throws {
        #expect(try semanticsEval(format) == expected)
    }
}
