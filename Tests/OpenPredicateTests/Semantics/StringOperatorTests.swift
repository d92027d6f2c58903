@testable import OpenPredicate
import Testing

/// Section 2 of the fact table: string operators and the [c] [d] [cd] options.
@Suite("Semantics: string operators")
struct StringOperatorTests {
    // Rows 20–27 (A), 42–43, 51, 55, 56, 58 (R): literal operands, evaluated with nil.
    @Test("string operators on constants", arguments: [
        ("'hello' BEGINSWITH 'he'", true), ("'Hello' BEGINSWITH 'he'", false), ("'Hello' BEGINSWITH[cd] 'he'", true),  // 20
        ("'hello' ENDSWITH 'llo'", true), ("'HELLO' ENDSWITH 'llo'", false), ("'HELLO' ENDSWITH[cd] 'llo'", true),      // 21
        ("'hello' CONTAINS 'll'", true), ("'hello' CONTAINS 'LL'", false), ("'HELLO' CONTAINS[cd] 'll'", true),         // 22
        ("'hello' LIKE 'hello'", true), ("'HELLO' LIKE 'hello'", false), ("'HELLO' LIKE[cd] 'hello'", true),            // 23
        ("'hello' LIKE 'hel*o'", true), ("'heo' LIKE 'hel*o'", false), ("'helllo' LIKE 'hel*o'", true),                // 24
        ("'helo' LIKE 'hel?o'", false), ("'hello' LIKE 'hel?o'", true), ("'helllo' LIKE 'hel?o'", false),              // 25
        ("'hello' MATCHES 'hel{2}o'", true), ("'heo' MATCHES 'he[l]*o'", true),                                         // 26
        ("'hello' MATCHES 'ell'", false),                                   // MATCHES is a whole-string match
        ("'helllo' == 'hel*o'", false), ("'hello' == 'hel?o'", false), ("'helllo' != 'hel*o'", true),                  // 27
        ("'Hello How Are You?' CONTAINS 'are'", false), ("'Hello How Are You?' CONTAINS[c] 'ARE'", true),             // 42
        ("'Hello, How are you?' BEGINSWITH 'Hello'", true), ("'HELLO, How are you?' BEGINSWITH[c] 'Hello'", true),     // 43
        ("'The quick word dog' ENDSWITH 'dog'", true), ("'The quick word dog' ENDSWITH[c] 'DOG'", true),
        ("'Hello' LIKE 'H?llo'", true), ("NOT ('Jello' == 'Hello')", true), ("'Hello' == \"Hello\"", true),            // 51
        ("'àa' LIKE[cd] 'aà'", true), ("'aB' LIKE[c] 'Ab'", true), ("'àa' LIKE[c] 'aa'", false),                        // 55
        ("'Farenight 451' MATCHES[d] '(F|g)\\\\w+\\\\s\\\\d{3}'", true),                                                      // 56
        ("'Aa' < 'ab'", true), ("'Ac' <[d] 'ab'", true), ("'ab' < 'Aa'", false),                                        // 58
        ("'hello' LIKE[c] 'HE*'", true), ("'he.lo' LIKE 'he.lo'", true), ("'hello' LIKE 'he.lo'", false),
    ])
    func constantStringOperators(format: String, expected: Bool) throws {
        #expect(try semanticsEval(format) == expected)
    }

    // Unicode folding: the brief's own cases and Unicode case folding beyond ASCII.
    @Test("Unicode case and diacritic folding", arguments: [
        ("\"Crèpes\" BEGINSWITH[cd] \"crepes\"", true),
        ("\"crepes\" BEGINSWITH[cd] \"Crèpes\"", true),
        ("\"Crèpes\" BEGINSWITH[c] \"crepes\"", false),
        ("\"Crèpes\" BEGINSWITH[d] \"crepes\"", false),
        ("\"ÉCOLE\" ==[c] \"école\"", true),
        ("\"ÉCOLE\" == \"école\"", false),
        ("\"ÉCOLE\" ==[d] \"ECOLE\"", true),
        ("\"école\" ==[cd] \"ECOLE\"", true),
        ("\"ÑANDÚ\" CONTAINS[c] \"ndú\"", true),
        ("\"naïve\" ENDSWITH[d] \"ive\"", true),
        ("\"ΣΟΦΙΑ\" ==[c] \"σοφια\"", true),
        ("\"e\u{0301}\" == \"é\"", true),           // canonical equivalence
    ])
    func unicodeFolding(format: String, expected: Bool) throws {
        #expect(try semanticsEval(format) == expected)
    }

    // Rows 28, 29, 31: LIKE wildcards on SELF; wildcards inside an argument are wildcards.
    @Test func likeOnSelf() throws {
        let predicate = try semanticsPredicate("SELF like[c] 'prefix*suffix'")
        #expect(predicate.evaluate(with: "prefixxxxxxsuffix"))
        #expect(!predicate.evaluate(with: "prefixxxxxxsuffi"))
        #expect(predicate.predicateFormat == "SELF LIKE[c] \"prefix*suffix\"")
        #expect(try semanticsEval("SELF like[c] 'prefix?suffix'", on: "prefixxsuffix") == true)
        #expect(try semanticsEval("SELF like[c] 'prefix?suffix'", on: "prefixsuffix") == false)
        #expect(try semanticsEval("SELF like[c] %@", ["prefix*suffix"], on: "prefixxxxxxsuffix") == true)
    }

    // Row 30 (A): `%@*%@` is multiplication. Apple raises when evaluating string * string; ours
    // gives nil for the product (NSExpression.expressionValue doc: "Returns nil where Apple raises"),
    // so LIKE is false.
    @Test func likeWithMultipliedArguments() throws {
        let predicate = try semanticsPredicate("SELF like[c] %@*%@", ["prefix", "suffix"])
        #expect(predicate.predicateFormat == "SELF LIKE[c] \"prefix\" * \"suffix\"")
        #expect(predicate.evaluate(with: "prefix*suffix") == false)
    }

    // Rows 32, 33 (A): a quoted %@ is a literal string, not a substitution.
    @Test func quotedSpecifierIsLiteral() throws {
        let people = semanticsPeople()
        #expect(people.filtered(using: try semanticsPredicate("lastName LIKE '%@'", ["Smith"])).isEmpty)
        #expect(people.filtered(using: try semanticsPredicate("lastName LIKE \"%@\"", ["Smith"])).isEmpty)
        #expect(people.filtered(using: try semanticsPredicate("lastName LIKE %@", ["Smith"])).count == 1)
        let notes = ["Do", "Re", "Mi", "Fa", "%@"]
        #expect(notes.filtered(using: try semanticsPredicate("SELF == '%@'", ["Do"])) == ["%@"])
        #expect(notes.filtered(using: try semanticsPredicate("SELF == %@", ["Do"])) == ["Do"])
    }

    // Rows 34–36 (A): %@ inserts a constant, %K a key path; nothing is substituted inside quotes.
    @Test func specifierPrinting() throws {
        #expect(try semanticsPredicate("%@ like %@", ["firstName", "Adam"]).predicateFormat == "\"firstName\" LIKE \"Adam\"")
        #expect(try semanticsPredicate("%K like %@", ["firstName", "Adam"]).predicateFormat == "firstName LIKE \"Adam\"")
        #expect(try semanticsPredicate("'%K' like '%@'").predicateFormat == "\"%K\" LIKE \"%@\"")
        #expect(try semanticsPredicate("\"%K\" like \"%@\"").predicateFormat == "\"%K\" LIKE \"%@\"")
        let adam = SemanticsPerson("Adam", "Smith")
        #expect(try semanticsEval("%K like %@", ["firstName", "Adam"], on: adam) == true)
        #expect(try semanticsEval("%@ like %@", ["firstName", "Adam"], on: adam) == false)
    }

    // Row 37 (A): lower-case %k is not a specifier.
    @Test func lowerCaseKThrows() {
        #expect(throws: (any Error).self) { try NSPredicate(validatingFormat: "%k like %@", argumentArray: ["firstName", "Adam"]) }
    }

    // Row 38 (R): operands are not swapped; CONTAINS keeps its operator type.
    @Test func containsStructure() throws {
        let predicate = try semanticsPredicate("name CONTAINS 'y'")
        #expect(predicate.evaluate(with: ["name": "xyz"]))
        let comparison = try #require(predicate as? NSComparisonPredicate)
        #expect(comparison.predicateOperatorType == .contains)
        #expect(comparison.leftExpression.isEqual(NSExpression(forKeyPath: "name")))
        #expect(comparison.rightExpression.isEqual(NSExpression(forConstantValue: "y")))
        #expect(comparison.comparisonPredicateModifier == .direct)
    }

    // Rows 39–41 (R): substring vs membership.
    @Test("CONTAINS and IN on strings and lists", arguments: [
        ("name CONTAINS 'q'", false), ("name CONTAINS 'Y'", false), ("name CONTAINS[c] 'Y'", true),  // 39
        ("list CONTAINS 'a'", true), ("list CONTAINS 'z'", false),                                   // 40
        ("name IN 'wxyz'", true), ("'a' IN list", true), ("'z' IN list", false), ("name IN 'wxy'", false), // 41
    ])
    func containsAndIn(format: String, expected: Bool) throws {
        let object: [String: Any] = ["name": "xyz", "list": ["a", "b"]]
        #expect(try semanticsEval(format, on: object) == expected)
    }

    // Rows 44–50 (R): filtering counts.
    @Test func filteringCounts() throws {
        func names(_ list: [String]) -> [[String: Any]] { list.map { ["name": $0] } }
        #expect(names(["aaa", "Abc", "adb", "bcd"]).filtered(using: try semanticsPredicate("name BEGINSWITH[cd] %@", ["a"])).count == 3) // 44
        #expect(names(["aax", "abc"]).filtered(using: try semanticsPredicate("name ENDSWITH[cd] %@", ["x"])).count == 1)                // 45
        #expect(names(["aax", "ABC"]).filtered(using: try semanticsPredicate("name CONTAINS[c] %@", ["bc"])).count == 1)                // 46
        #expect(names(["aax"]).filtered(using: try semanticsPredicate("name CONTAINS[cd] %@", ["b"])).count == 0)
        let t = names(["test", "tesp"]).filtered(using: try semanticsPredicate("name MATCHES %@", ["t.*t"]))                            // 47
        #expect(t.map { $0["name"] as? String } == ["test"])
        #expect(names(["test1", "test2", "testp"]).filtered(using: try semanticsPredicate("name MATCHES 't.*t[0-9]'")).count == 2)    // 48
        let dna = ["CATCATCATGTCT", "CATCAT", "GTCTGTCT", "CATCATCATCATCA", "ACATCATCA", "TTTT"]                                         // 49
        #expect(dna.filtered(using: try semanticsPredicate("SELF MATCHES '.*(CAT){3,}(?!CA).*'")) == ["CATCATCATGTCT"])
        let files = names(["test.foo", "test.foo", "hello.foo", "atestp.foo"])                                                          // 50
        #expect(files.filtered(using: try semanticsPredicate("name LIKE %@", ["test*.foo"])).count == 2)
    }

    // Rows 52, 53 (R): fixture C, and a missing key is nil without raising.
    @Test func cocotronStrings() throws {
        #expect(try semanticsEval("name contains %@", ["Some"], on: fixtureC) == true)
        #expect(try semanticsEval("name beginswith %@", ["Some"], on: fixtureC) == true)
        #expect(try semanticsEval("name endswith %@", ["thing"], on: fixtureC) == true)
        #expect(try semanticsEval("name contains %@", ["None"], on: fixtureC) == false)
        #expect(try semanticsEval("name beginswith %@", ["None"], on: fixtureC) == false)
        #expect(try semanticsEval("name endswith %@", ["None"], on: fixtureC) == false)
        #expect(try semanticsEval("unavailable like %@", ["None"], on: fixtureC) == false)
    }

    // Row 54 (A): %K with a dotted path, MATCHES[c].
    @Test func matchesKeyPathCaseInsensitive() throws {
        #expect(try semanticsEval("%K MATCHES[c] %@", ["Record1.Name", "john"], on: fixtureG) == true)
        #expect(try semanticsEval("%K MATCHES %@", ["Record1.Name", "john"], on: fixtureG) == false)
    }

    // Rows 59–62 (A): fixture O; option letter `l` parses.
    @Test("fixture O string predicates", arguments: [
        ("b CONTAINS[cdl] 'ABC'", false), ("b ==[c] 'ABC'", false), ("b <[c] 'ABC'", false), ("b ==[l] 'ABC'", false), // 59
        ("b ==[c] 'HELLO'", true), ("b CONTAINS[cdl] 'ELL'", true),
        ("b MATCHES '.*[e-f][l-m].*'", true),                                                                      // 60
        ("b CONTAINS 'foo'", false), ("b BEGINSWITH 'foo'", false),                                                // 61
        ("b.length == 5", true), ("b.length == 4", false),                                                         // 62
    ])
    func fixtureOStrings(format: String, expected: Bool) throws {
        #expect(try semanticsEval(format, on: SemanticsObject()) == expected)
    }

    // String operators with a non-string operand are false (PredicateCompiler doc comment).
    @Test func nonStringOperandsAreFalse() throws {
        #expect(try semanticsEval("SELF BEGINSWITH '1'", on: 12) == false)
        #expect(try semanticsEval("SELF LIKE '*'", on: nil) == false)
        #expect(try semanticsEval("SELF MATCHES '.*'", on: nil) == false)
    }

    // Our documented choice (PredicateCompiler): an empty string to look for never matches,
    // as NSString's searches find nothing for it. Swift's own hasPrefix("") would say true.
    @Test(arguments: ["BEGINSWITH", "ENDSWITH", "CONTAINS", "BEGINSWITH[c]", "CONTAINS[cd]", "ENDSWITH[d]"])
    func emptyNeedleNeverMatches(operatorSpelling: String) throws {
        #expect(try semanticsEval("SELF \(operatorSpelling) ''", on: "abc") == false)
        #expect(try semanticsEval("SELF \(operatorSpelling) %@", [""], on: "abc") == false)
        #expect(try semanticsEval("SELF \(operatorSpelling) 'b'", on: "abc") == operatorSpelling.hasPrefix("CONTAINS"))
        #expect(try semanticsEval("'' IN SELF", on: "abc") == false)
    }

    // [c] is Unicode case folding, not lower-casing: ß folds to ss, as Apple's
    // caseInsensitiveCompare: treats them.
    @Test func caseFoldingIsFullUnicodeFolding() throws {
        #expect(try semanticsEval("SELF ==[c] 'STRASSE'", on: "Straße") == true)
        #expect(try semanticsEval("SELF BEGINSWITH[c] 'strass'", on: "STRAßE") == true)
        #expect(try semanticsEval("SELF == 'STRASSE'", on: "Straße") == false)
        #expect(try semanticsEval("SELF ==[cd] 'ecole'", on: "ÉCOLE") == true)
        #expect(try semanticsEval("SELF ==[c] 'ecole'", on: "ÉCOLE") == false)
    }
}
