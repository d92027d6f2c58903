@testable import OpenPredicate
import Testing

/// Section 4 of the fact table: variables, substitution, arithmetic and indexes.
@Suite("Semantics: variables and arithmetic")
struct VariablesAndArithmeticTests {
    // Rows 110–116 (A): variables bound at evaluation time.
    @Test func variablesAtEvaluation() throws {
        let cases: [(String, [String: Any], Bool)] = [
            ("$a > 1", ["a": 1], false), ("$a > 1", ["a": 2], true),                          // 110
            ("$a[0] > 1", ["a": [1]], false), ("$a[0] > 1", ["a": [2]], true),                // 111
            ("$a[$b] > 1", ["a": [2], "b": 0], true), ("$a[$b] > 1", ["a": [2, 0], "b": 1], false), // 112
            ("$a[$b] == 'ABC'", ["a": ["a": "ABC"], "b": "a"], true),                          // 113
            ("$a.$b == 'ABC'", ["a": ["a": "ABC"], "b": "a"], true),
            ("$a + 1 > 1", ["a": 1], true), ("$a - 1 < 1", ["a": 1], true),                  // 114
            ("$a - 1 < 0", ["a": 1], false),
            ("$a / 2.5 > 1", ["a": 5], true), ("$a / 2.5 == 2", ["a": 5], true),              // 115
            ("$a / 2.5 == 2.0", ["a": 5], true), ("$a / 2 == 2", ["a": 5], false),
            ("$a * 3 == 6.0", ["a": 2], true), ("$a ** 3 == 8.0", ["a": 2], true),           // 116
            ("($a + 1) ** 3 == 8.0", ["a": 1], true), ("$a + 1 ** 3 == 8.0", ["a": 1], false),
        ]
        for (format, variables, expected) in cases {
            #expect(try semanticsEval(format, variables: variables) == expected, "\(format) \(variables)")
        }
    }

    // Row 117 (A): index with a variable, then a key.
    @Test func variableIndexThenKey() throws {
        let lily = SemanticsPerson("Lily", "Ames")
        #expect(try semanticsEval("$a[$b].firstName == 'Lily'", variables: ["a": ["a": lily], "b": "a"]) == true)
        #expect(try semanticsEval("$a[$b].firstName == 'Adam'", variables: ["a": ["a": lily], "b": "a"]) == false)
    }

    // Row 118 (A): substitution then filtering, diacritic-insensitive.
    @Test func substitutionFiltering() throws {
        let template = try semanticsPredicate("(firstName BEGINSWITH[cd] $letter) OR (lastName BEGINSWITH[cd] $letter)")
        let predicate = try template.withSubstitutionVariables(validating: ["letter": "A"])
        let names = semanticsPeople().filtered(using: predicate).map(\.firstName)
        #expect(names == ["Adam", "Lily", "alice"])
        let e = try template.withSubstitutionVariables(validating: ["letter": "e"])
        #expect(semanticsPeople().filtered(using: e).map(\.firstName) == ["Émile"])
        // The template itself is unchanged.
        #expect(template.predicateFormat.contains("$letter"))
    }

    // Row 119 (R).
    @Test func substitutionWithNegativeNumber() throws {
        let predicate = try semanticsPredicate("self.speed <= $SPEED").withSubstitutionVariables(validating: ["SPEED": -5])
        #expect(predicate.evaluate(with: ["speed": -7]))
        #expect(!predicate.evaluate(with: ["speed": -4]))
        // The printer drops the `self.` prefix of a key path; only the substituted constant matters here.
        #expect(predicate.predicateFormat.hasSuffix("speed <= -5"), "\(predicate.predicateFormat)")
    }

    // Rows 120, 121 (A): %K inserting "$single" is a key path, `+` is left-associative, quotes escape.
    @Test func keyPathLooksLikeVariable() throws {
        let predicate = try semanticsPredicate("%K like %@+$b+$c", ["$single", "b\""])
        #expect(predicate.predicateFormat == "$single LIKE (\"b\\\"\" + $b) + $c")
        let substituted = try predicate.withSubstitutionVariables(validating: [
            "single": "val_for_single_string", "b": "val_for_$b", "c": "val_for_$c",
        ])
        #expect(substituted.predicateFormat == "$single LIKE (\"b\\\"\" + \"val_for_$b\") + \"val_for_$c\"")
    }

    // A missing variable: `withSubstitutionVariables(validating:)` throws an NSError naming it.
    @Test func missingVariableThrows() throws {
        let template = try semanticsPredicate("name == $firstName AND age > $minimumAge")
        do {
            _ = try template.withSubstitutionVariables(validating: ["firstName": "x"])
            Issue.record("expected a throw")
        } catch let error as NSError {
            #expect(error.domain == NSCocoaErrorDomain)
            #expect(error.localizedDescription.contains("minimumAge"))
        }
        let complete = try template.withSubstitutionVariables(validating: ["firstName": "x", "minimumAge": 3])
        #expect(complete.evaluate(with: ["name": "x", "age": 4]))
        #expect(!complete.evaluate(with: ["name": "x", "age": 3]))
        // A SUBQUERY iteration variable does not need a binding.
        let subquery = try semanticsPredicate("SUBQUERY(list, $x, $x > $limit).@count == 1")
        let bound = try subquery.withSubstitutionVariables(validating: ["limit": 2])
        #expect(bound.evaluate(with: ["list": [1, 2, 3]]))
        #expect(!bound.evaluate(with: ["list": [1, 2, 3, 4]]))
        // NSNull substitutes nil.
        let null = try semanticsPredicate("x == $v").withSubstitutionVariables(validating: ["v": NSNull()])
        #expect(null.evaluate(with: [String: Any]()))
        #expect(!null.evaluate(with: ["x": 1]))
    }

    // Row 122 (R): arithmetic on SELF with odd spacing.
    @Test("arithmetic on SELF", arguments: [
        "SELF +1 = 3", "SELF- 1 = 1", "SELF / 2 = 1", "SELF* 2 = 4", "SELF** 3 = 8",
        "SELF + SELF * SELF == 6", "(SELF + SELF) * SELF == 8",
        "-SELF == -2", "SELF % 2 == 0",
    ])
    func arithmeticOnSelf(format: String) throws {
        // `%` is not an operator in Apple's grammar; that case must throw instead.
        if format.contains("%") {
            #expect(throws: (any Error).self) { try NSPredicate(validatingFormat: format, argumentArray: nil) }
            return
        }
        #expect(try semanticsEval(format, on: 2) == true)
        #expect(try semanticsEval(format, on: 3) == false)
    }

    // Binary operators are left-associative (NSPredicate(format:) doc comment), `**` included.
    @Test("left-associative arithmetic", arguments: [
        ("2 ** 3 ** 2 == 64", true), ("2 ** 3 ** 2 == 512", false), ("10 - 4 - 3 == 3", true), ("12 / 3 / 2 == 2", true),
        ("1 + 2 * 3 == 7", true), ("2 * 3 ** 2 == 18", true),
    ])
    func associativity(format: String, expected: Bool) throws {
        #expect(try semanticsEval(format) == expected)
    }

    // Rows 123, 124 (R): FIRST / LAST / SIZE / [n] / an expression as the index.
    @Test func indexes() throws {
        #expect(try semanticsEval("SELF[FIRST] = 1", on: [1, 2, 0]) == true)
        #expect(try semanticsEval("SELF[LAST] = 0", on: [1, 2, 0]) == true)
        #expect(try semanticsEval("SELF[SIZE] = 3", on: [1, 2, 0]) == true)
        #expect(try semanticsEval("SELF[1] = 2", on: [1, 2, 0]) == true)
        #expect(try semanticsEval("SELF[FIRST] = 2", on: [1, 2, 0]) == false)
        #expect(try semanticsEval("SELF[5] = 2", on: [1, 2, 0]) == false) // out of range: nil (Apple raises)
        #expect(try semanticsEval("Record1.Children[  FIRST ] = 'Kid1'", on: fixtureG) == true)
        #expect(try semanticsEval("Record1.Children[1] = 'Kid2'", on: fixtureG) == true)
        #expect(try semanticsEval("Record1.Children[count:(Record1.Children) - 1] = 'Kid2'", on: fixtureG) == true)
        #expect(try semanticsEval("Record1.Children[count:(Record1.Children) - 2] = 'Kid2'", on: fixtureG) == false)
        #expect(try semanticsEval("SELF['Name'] == 'John'", on: fixtureG["Record1"]) == true)
        #expect(try semanticsEval("Record2.Children[LAST] == 'Girl1'", on: fixtureG) == true)
    }

    // Row 125 (R): aggregate == aggregate.
    @Test func aggregateEquality() throws {
        #expect(try semanticsEval("{Record1.Name, Record1.Age} = {'John',34}", on: fixtureG) == true)
        #expect(try semanticsEval("{Record1.Name, Record1.Age} = {'John',35}", on: fixtureG) == false)
        #expect(try semanticsEval("{Record1.Name, Record1.Age} = {34, 'John'}", on: fixtureG) == false)
    }

    // Row 127 (R): `$x CONTAINS ""` parses with a variable on the left.
    @Test func variableOnLeft() throws {
        let comparison = try #require(try semanticsPredicate("$x CONTAINS \"\"") as? NSComparisonPredicate)
        #expect(comparison.leftExpression.isEqual(NSExpression(forVariable: "x")))
        guard case .variable(let name) = comparison.leftExpression.node else {
            Issue.record("left expression is not a variable")
            return
        }
        #expect(name == "x")
        #expect(comparison.predicateOperatorType == .contains)
    }

    // An unbound variable at evaluation time: false, not a crash (NSComparisonPredicate doc comment).
    @Test func unboundVariableIsFalse() throws {
        #expect(try semanticsEval("$missing == 1") == false)
        _ = try semanticsEval("$missing != 1") // only must not crash
    }

    // Arithmetic result types (FunctionCompiler doc comment).
    @Test func arithmeticValues() throws {
        #expect(try semanticsValue("7 / 2") as? Double == 3.5)
        #expect(try semanticsValue("7 * 2") as? Int == 14)
        #expect(try semanticsValue("2 ** 10") as? Double == 1024)
        #expect(try semanticsValue("1.5 + 1") as? Double == 2.5)
        #expect(try semanticsValue("%@ + 1", [Decimal(string: "0.1")!]) as? Decimal == Decimal(string: "1.1")!)
        #expect(try semanticsValue("%@ + 1", [Int.max]) as? Double == Double(Int.max) + 1)
        #expect(try semanticsValue("'a' + 1") == nil)
    }
}
