@testable import OpenPredicate
import Testing

/// Section 5 of the fact table: functions, aggregates, SUBQUERY, set expressions, TERNARY.
@Suite("Semantics: functions and subqueries")
struct FunctionAndSubqueryTests {
    // Rows 130, 131 (R): expression values.
    @Test func expressionValues() throws {
        #expect(semanticsDouble(try semanticsValue("4 + 3")) == 7)
        #expect(semanticsDouble(try semanticsValue("%d*%f", [3, 3.5])) == 10.5)
        #expect(semanticsDouble(try semanticsValue("4 + 3 - 1 + 2")) == 8)
        #expect(semanticsDouble(try semanticsValue("(4 + 3 - 1 + 2) * 10**2")) == 800)
        #expect(semanticsDouble(try semanticsValue("3*5+2")) == 17)
        #expect(try semanticsValue("self", on: "23") as? String == "23")
        #expect(try semanticsValue("self.intValue", on: "23") as? Int == 23)
    }

    // Row 132 (R): `now` is a Date close to now.
    @Test func now() throws {
        let value = NSExpression(forFunction: "now", arguments: []).expressionValue(with: nil, context: nil)
        let date = try #require(value as? Date)
        #expect(abs(date.timeIntervalSinceNow) < 5)
        let parsed = try #require(try semanticsValue("now()") as? Date)
        #expect(abs(parsed.timeIntervalSinceNow) < 5)
    }

    // Rows 133, 134, 139 (R): statistics over a constant collection and over constants.
    @Test func statistics() throws {
        func value(_ name: String, _ list: [Any]) -> Any? {
            NSExpression(forFunction: name, arguments: [NSExpression(forConstantValue: list)]).expressionValue(with: nil, context: nil)
        }
        #expect(semanticsDouble(value("sum:", [1, 2, 3, 4, 5])) == 15)                     // 133
        let cases: [(String, Double)] = [("sum:", 6), ("average:", 2), ("count:", 3), ("max:", 3), ("min:", 1),
                                         ("median:", 2), ("stddev:", (2.0 / 3.0).squareRoot())]
        for (name, expected) in cases {
            let result = try #require(semanticsDouble(value(name, [1, 2, 3])), "\(name)")
            #expect(abs(result - expected) < 1e-9, "\(name)")
            // The same over constants: name:(1, 2, 3).
            let constants = try #require(semanticsDouble(try semanticsValue("\(name)(1, 2, 3)")), "\(name)")
            #expect(abs(constants - expected) < 1e-9, "\(name) over constants")
        }
        #expect(semanticsDouble(value("median:", [4, 1, 3, 2])) == 2.5)
        let mode = try #require(value("mode:", [1, 2, 2, 3]) as? [Any])
        #expect(mode.compactMap(semanticsDouble) == [2])
        // The function keeps its name (row 134).
        let sum = NSExpression(forFunction: "sum:", arguments: [NSExpression(forConstantValue: [1, 2, 3])])
        guard case .function(let name, _) = sum.node else { Issue.record("not a function"); return }
        #expect(name == "sum:")
        // Row 139: comparison of sum: with 6.
        let comparison = NSComparisonPredicate(
            leftExpression: NSExpression(forFunction: "sum:", arguments: [1, 2, 3].map { NSExpression(forConstantValue: $0) }),
            rightExpression: NSExpression(forConstantValue: 6), modifier: .direct, type: .equalTo)
        #expect(comparison.evaluate(with: nil))
    }

    // Row 134 (R): an unknown function throws through the validating initializer.
    @Test func unknownFunctionThrows() {
        #expect(throws: (any Error).self) { try NSExpression(validatingFunction: "nosuchfunction:", arguments: [NSExpression(forConstantValue: 1)]) }
        #expect(throws: (any Error).self) { try NSExpression(validatingFunction: "sqrt:", arguments: []) }
        #expect(throws: Never.self) { try NSExpression(validatingFunction: "sqrt:", arguments: [NSExpression(forConstantValue: 4)]) }
    }

    // Row 136 (R).
    @Test func functionsInPredicates() throws {
        #expect(try semanticsEval("sum:(1,1) = 2") == true)
        #expect(try semanticsEval("multiply:by:(5,3) = 15") == true)
        #expect(try semanticsEval("multiply:by:(5,3) = 8") == false)
    }

    // Row 137 (R): FUNCTION with NSString selectors.
    @Test func customFunctions() throws {
        #expect(try semanticsEval("FUNCTION('a/path', 'lastPathComponent') = 'path'") == true)
        #expect(try semanticsEval("FUNCTION('a/path', 'substringFromIndex:', 2) = 'path'") == true)
        #expect(try semanticsEval("FUNCTION('toto', 'stringByReplacingOccurrencesOfString:withString:', 'o', 'a') == 'tata'") == true)
        #expect(try semanticsEval("FUNCTION('a/path', 'substringFromIndex:', 1) = 'path'") == false)
    }

    // Row 138 (R): a zero-argument selector answered through KeyValueCodable.
    @Test func selectorOnObject() {
        final class Coin: KeyValueCodable {
            func value(forKey key: String) -> Any? { key == "coinValue" ? 5 : nil }
        }
        let expression = NSExpression(forFunction: NSExpression(forConstantValue: Coin()), selectorName: "coinValue", arguments: nil)
        #expect(semanticsDouble(expression.expressionValue(with: nil, context: nil)) == 5)
    }

    // Rows 140–143: SUBQUERY.
    @Test func subqueries() throws {
        // 140 (R)
        #expect(try semanticsEval("SUBQUERY(Record1.Children, $x, $x BEGINSWITH $Begining)[SIZE] = 2", on: fixtureG,
                                  variables: ["Begining": "Kid"]) == true)
        #expect(try semanticsEval("SUBQUERY(Record2.Children, $x, $x BEGINSWITH $Begining)[SIZE] = 2", on: fixtureG,
                                  variables: ["Begining": "Kid"]) == false)
        // 141 (R): a variable bound to an expression.
        let subquery = try NSExpression(validatingFormat: "SUBQUERY(Record1.Children, $x, $x BEGINSWITH $KidVariable)", argumentArray: [])
        let context = NSMutableDictionary()
        context["KidVariable"] = NSExpression(forConstantValue: "Kid")
        let result = subquery.expressionValue(with: fixtureG, context: context)
        #expect(semanticsStringSet(result) == ["Kid1", "Kid2"])
        #expect((result as? [Any])?.compactMap { $0 as? String } == ["Kid1", "Kid2"])
        // 142, 143 (A)
        let o = SemanticsObject()
        #expect(try semanticsEval("SUBQUERY(g, $_local_1, $_local_1 == d).@count > 0", on: o) == false)
        #expect(try semanticsEval("SUBQUERY(g, $_local_1, $_local_1 == 2).@count != 0", on: o) == false)
        #expect(try semanticsEval("SUBQUERY(g, $_local_1, NOT ($_local_1 == 2)).@count == 0", on: o) == false)
        #expect(try semanticsEval("SUBQUERY(g, $_local_1, $_local_1 > d).@count == 5", on: o) == true)
    }

    // Rows 144–146 (R): set expressions (ours return arrays without duplicates: compare as sets).
    @Test func setExpressions() throws {
        #expect(semanticsStringSet(try semanticsValue("{'A','B','C'} INTERSECT {'C','D','E'}")) == ["C"])
        #expect(semanticsStringSet(try semanticsValue("{'A','B','C'} MINUS {'C','D','E'}")) == ["A", "B"])
        #expect(semanticsStringSet(try semanticsValue("{'A','B','C'} UNION {'C','D','E'}")) == ["A", "B", "C", "D", "E"])
        #expect((try semanticsValue("{'A','B','C'} UNION {'C','D','E'}") as? [Any])?.count == 5)
        // A non-collection operand: Apple raises; ours gives nil.
        #expect(try semanticsValue("{'A','B','C'} UNION 'C'") == nil)
        let set = NSSet(array: ["a", "b", "c"])
        let array = ["a", "b", "d"]
        #expect(semanticsStringSet(try semanticsValue("%@ INTERSECT %@", [set, array])) == ["a", "b"])
        #expect(semanticsStringSet(try semanticsValue("%@ UNION %@", [set, array])) == ["a", "b", "c", "d"])
        #expect(semanticsStringSet(try semanticsValue("%@ MINUS %@", [set, array])) == ["c"])
        // 146: `a UNION {'b'}` with a = {a}.
        let object: [String: Any] = ["a": Set(["a"])]
        #expect(semanticsStringSet(try semanticsValue("a UNION {'b'}", on: object)) == ["a", "b"])
        // Cappuccino (and Cocoa) say the NSSet result is not equal to the array {'a','b'}. Ours is
        // documented to return an array in first-seen order (SetOperations doc comment in
        // ExpressionCompiler.swift), so the comparison is true here.
        #expect(try semanticsEval("a UNION {'b'} == {'a','b'}", on: object) == true)
    }

    // Rows 95–97 (A), 147, 148 (R): TERNARY.
    @Test func ternary() throws {
        let o = SemanticsObject()
        #expect(try semanticsEval("TERNARY(j != NULL, j, '').length == 0", on: o) == true)                                  // 95
        #expect(try semanticsEval("TERNARY(j != nil, j.length, nil) == nil", on: o) == true)
        #expect(try semanticsEval("TERNARY(TERNARY(j != nil, j.length, nil) != nil, TERNARY(j != nil, j.length, nil), 1 * -1) > 1", on: o) == false) // 96
        #expect(try semanticsEval("TERNARY(TERNARY(j != nil, j.length, nil) != nil, TERNARY(j != nil, j.length, nil), 1 * -1) == -1", on: o) == true)
        #expect(try semanticsEval("TERNARY(f == YES, YES, NO) == YES", on: o) == true)                                      // 97
        #expect(try semanticsEval("TERNARY(f == YES AND YES == YES, YES, NO) == NO", on: o) == false)
        #expect(try semanticsEval("TERNARY(Record1.Children[SIZE] = 1, 'Single', Record1.Name) = 'John'", on: fixtureG) == true) // 147
        #expect(try semanticsEval("TERNARY(Record1.Children[SIZE] = 2, 'Single', Record1.Name) = 'John'", on: fixtureG) == false)
        // 148: a conditional expression built with the initializer.
        let conditional = NSExpression(forConditional: try semanticsPredicate("SELF = $variable"),
                                       trueExpression: NSExpression(forConstantValue: "TRUE_EXP"),
                                       falseExpression: NSExpression(forConstantValue: "FALSE_EXP"))
        let context = NSMutableDictionary()
        context["variable"] = "OBJ"
        #expect(conditional.expressionValue(with: "OBJ", context: context) as? String == "TRUE_EXP")
        #expect(conditional.expressionValue(with: "OTHER", context: context) as? String == "FALSE_EXP")
    }

    // Row 149 (R): bindings may hold values or expressions.
    @Test func variableBoundToExpression() {
        let variable = NSExpression(forVariable: "variable")
        func value(_ bound: Any) -> Any? {
            let context = NSMutableDictionary()
            context["variable"] = bound
            return variable.expressionValue(with: fixtureG, context: context)
        }
        #expect(semanticsDouble(value(20)) == 20)
        #expect(semanticsDouble(value(NSExpression(forConstantValue: 10))) == 10)
        #expect(semanticsDouble(value(NSExpression(forKeyPath: "Record1.Age"))) == 34)
    }

    // Row 150 (A, negative): ANY over a constant array whose elements are NSExpression objects.
    // macOS raises (no `compare:` on NSConstantValueExpression); ours answers false (no order).
    @Test func anyOverExpressionObjects() {
        let elements = [11, 12, 13, 9].map { NSExpression(forConstantValue: $0) }
        let predicate = NSComparisonPredicate(leftExpression: NSExpression(forConstantValue: elements),
                                              rightExpression: NSExpression(forConstantValue: 10),
                                              modifier: .any, type: .lessThanOrEqualTo)
        #expect(predicate.evaluate(with: nil) == false)
    }

    // Row 152 (R): compound over WinObjC animals; BETWEEN inclusive.
    @Test func compoundOverAnimals() throws {
        let animals = [SemanticsAnimal(name: "Alpha-1", age: 20, speed: 115), SemanticsAnimal(name: "Beta-1", age: 101, speed: 120),
                       SemanticsAnimal(name: "Beta-2", age: 120, speed: 121), SemanticsAnimal(name: "Alpha-4", age: 100, speed: 115),
                       SemanticsAnimal(name: "Beta-5", age: 101, speed: 0)]
        let predicate = NSCompoundPredicate(andPredicateWithSubpredicates: [
            NSCompoundPredicate(orPredicateWithSubpredicates: [
                NSCompoundPredicate(notPredicateWithSubpredicate: try semanticsPredicate("age <= 100")),
                try semanticsPredicate("name CONTAINS[c] 'Alpha'"),
            ]),
            try semanticsPredicate("speed BETWEEN %@", [[0, 120]]),
        ])
        #expect(animals.filtered(using: predicate).map(\.name) == ["Alpha-1", "Beta-1", "Alpha-4", "Beta-5"])
    }

    // Every function in Apple's table, once, with a value a wrong implementation would miss.
    @Test func everyFunction() throws {
        func call(_ name: String, _ arguments: [Any]) throws -> Any? {
            try NSExpression(validatingFunction: name, arguments: arguments.map { NSExpression(forConstantValue: $0) })
                .expressionValue(with: nil, context: nil)
        }
        let numeric: [(String, [Any], Double)] = [
            ("add:to:", [2, 3], 5), ("from:subtract:", [10, 3], 7), ("multiply:by:", [4, 3], 12),
            ("divide:by:", [7, 2], 3.5), ("modulus:by:", [7, 3], 1), ("sqrt:", [16], 4), ("log:", [1000], 3),
            ("ln:", [M_E * M_E], 2), ("raise:toPower:", [2, 10], 1024), ("exp:", [0], 1), ("ceiling:", [2.1], 3),
            ("abs:", [-4], 4), ("trunc:", [-2.7], -2), ("floor:", [-2.1], -3),
            ("bitwiseAnd:with:", [6, 3], 2), ("bitwiseOr:with:", [6, 3], 7), ("bitwiseXor:with:", [6, 3], 5),
            ("leftshift:by:", [1, 3], 8), ("rightshift:by:", [8, 2], 2), ("onesComplement:", [0], -1),
            ("noindex:", [42], 42), ("length:", ["héllo"], 5),
        ]
        for (name, arguments, expected) in numeric {
            let result = try #require(semanticsDouble(try call(name, arguments)), "\(name)")
            #expect(abs(result - expected) < 1e-9, "\(name) gave \(result)")
        }
        #expect(try call("uppercase:", ["abc"]) as? String == "ABC")
        #expect(try call("lowercase:", ["ÀBC"]) as? String == "àbc")
        let random = try #require(semanticsDouble(try call("random", [])))
        #expect(random >= 0 && random == random.rounded())
        for _ in 0..<20 {
            let bounded = try #require(semanticsDouble(try call("random:", [3])))
            #expect([0, 1, 2].contains(bounded))
        }
        #expect(try call("now", []) is Date)
        let cast = try call("castObject:toType:", [100, "NSDate"]) as? Date
        #expect(cast == Date(timeIntervalSinceReferenceDate: 100))
        #expect(try call("castObject:toType:", [12, "NSString"]) as? String == "12")
        #expect(semanticsDouble(try call("castObject:toType:", ["12.5", "NSNumber"])) == 12.5)
    }

    // CAST in a format string.
    @Test func castInFormat() throws {
        #expect(try semanticsValue("CAST(100, 'NSDate')") as? Date == Date(timeIntervalSinceReferenceDate: 100))
        #expect(try semanticsEval("CAST(%@, 'NSDate') == %@", [0, Date(timeIntervalSinceReferenceDate: 0)]) == true)
        #expect(try semanticsEval("CAST('5', 'NSNumber') == 5") == true)
    }

    // Key-path collection operators.
    @Test func collectionOperators() throws {
        let object: [String: Any] = ["items": [["price": 1], ["price": 2], ["price": 6]]]
        #expect(semanticsDouble(try semanticsValue("items.@sum.price", on: object)) == 9)
        #expect(semanticsDouble(try semanticsValue("items.@avg.price", on: object)) == 3)
        #expect(semanticsDouble(try semanticsValue("items.@max.price", on: object)) == 6)
        #expect(semanticsDouble(try semanticsValue("items.@min.price", on: object)) == 1)
        #expect(semanticsDouble(try semanticsValue("items.@count", on: object)) == 3)
        #expect(semanticsDouble(try semanticsValue("sum:(items.price)", on: object)) == 9)
    }
}
