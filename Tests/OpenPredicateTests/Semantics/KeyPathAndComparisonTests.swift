@testable import OpenPredicate
import Testing

/// Section 3 of the fact table: key paths, numbers, comparisons, BETWEEN / IN, nil, ANY/ALL.
@Suite("Semantics: key paths and comparisons")
struct KeyPathAndComparisonTests {
    // Rows 70–76 (A, 76 R): fixture G with %K / %@ / %d / %f.
    @Test func fixtureGComparisons() throws {
        let cases: [(String, [Any], Bool)] = [
            ("%K == %@", ["Record1.Name", "John"], true),                                              // 70
            ("(%K == %@) AND (%K == %@)", ["Record1.Name", "John", "Record2.Name", "Mary"], true),
            ("(%K == %@) AND (%K == %@)", ["Record1.Name", "John", "Record2.Name", "John"], false),
            ("%K BEGINSWITH %@", ["Record1.Name", "Jo"], true),
            ("%K == %d", ["Record1.Age", 34], true),                                                    // 71
            ("%K = %@", ["Record1.Age", NSNumber(value: 34)], true),
            ("%K < %d", ["Record1.Age", 40], true),
            ("%K <= %d", ["Record1.Age", 40], true),
            ("%K <= %d", ["Record1.Age", 34], true),
            ("%K > %d", ["Record1.Age", 20], true),
            ("%K >= %d", ["Record1.Age", 34], true),
            ("%K >= %d", ["Record1.Age", 20], true),
            ("%K != %d", ["Record1.Age", 20], true),
            ("%K <> %d", ["Record1.Age", 20], true),
            ("%K < %d", ["Record1.Age", 34], false),
            ("%K == %d", ["Record1.Age", 35], false),
            ("%K BETWEEN %@", ["Record1.Age", [20, 40]], true),                                         // 72
            ("%K BETWEEN %@", ["Record1.Age", [35, 40]], false),
            ("(%K == %d) OR (%K == %d)", ["Record1.Age", 34, "Record2.Age", 34], true),                  // 73
            ("(%K == %d) OR (%K == %d)", ["Record1.Age", 33, "Record2.Age", 34], false),
            ("%K < %f", ["Record1.Age", 40.5], true),                                                   // 74
            ("%f > %K", [40.5, "Record1.Age"], true),
            ("%f < %K", [40.5, "Record1.Age"], false),
            ("%@ IN %K", ["Kid1", "Record1.Children"], true),                                           // 75
            ("%@ IN %K", ["Girl1", "Record1.Children"], false),
            ("ANY %K == %@", ["Record2.Children", "Girl1"], true),
            ("ANY %K == %@", ["Record1.Children", "Girl1"], false),
            ("%K CONTAINS %@", ["Record1.Children", "Kid1"], true),                                     // 76
            ("%K CONTAINS %@", ["Record1.Children", "Kid"], false),
        ]
        for (format, args, expected) in cases {
            #expect(try semanticsEval(format, args, on: fixtureG) == expected, "\(format) \(args)")
        }
    }

    // Row 77 (R): fixture C.
    @Test func fixtureCNumbers() throws {
        #expect(try semanticsEval("value < %f", [20.0], on: fixtureC) == true)
        #expect(try semanticsEval("value > %f", [17.3], on: fixtureC) == true)
        #expect(try semanticsEval("value > %f", [17.5], on: fixtureC) == false)
        #expect(try semanticsEval("value between {%f, %f}", [15.0, 20.0], on: fixtureC) == true)
        #expect(try semanticsEval("value between {%f, %f}", [20.0, 25.0], on: fixtureC) == false)
    }

    // Rows 78, 79 (R): BETWEEN is inclusive, on strings, numbers and dates.
    @Test func betweenFilters() throws {
        #expect(["a", "b", "c", "d"].filtered(using: try semanticsPredicate("SELF BETWEEN {%@, %@}", ["b", "c"])) == ["b", "c"])
        #expect([1, 2, 3].filtered(using: try semanticsPredicate("SELF BETWEEN {%d, %d}", [2, 3])) == [2, 3])
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let months = (1...4).map { calendar.date(from: DateComponents(year: 2024, month: $0, day: 1))! }
        let filtered = months.filtered(using: try semanticsPredicate("SELF BETWEEN {%@, %@}", [months[1], months[2]]))
        #expect(filtered == [months[1], months[2]])
    }

    // Rows 80–82 (R): fixture W.
    @Test func fixtureWCounts() throws {
        let animals = fixtureW()
        #expect(animals.filtered(using: try semanticsPredicate("age == %d", [5])).count == 1)
        #expect(animals.filtered(using: try semanticsPredicate("name == %@", ["testAnimal"])).count == 10)
        #expect(animals.filtered(using: try semanticsPredicate("age BETWEEN %@", [[0, 3]])).count == 4)
        #expect(animals.filtered(using: try semanticsPredicate("age >= 5")).count == 5)
        #expect(animals.filtered(using: try semanticsPredicate("%K >= %@", ["age", 5])).count == 5)
        let withCat = animals + [SemanticsAnimal(name: "cat", age: 7)]
        let cats = withCat.filtered(using: try semanticsPredicate("(age >= 5) AND (age <= 8) AND (name == %@)", ["cat"]))
        #expect(cats.map(\.name) == ["cat"])
        let tests = [["name": "test1"], ["name": "test2"]]
        #expect(tests.filtered(using: try semanticsPredicate("name IN %@", [["test1", "randomName"]])).count == 1)
    }

    // Rows 83–85 (R): IN with arrays, sets and dictionaries (values); BETWEEN ignores [c].
    @Test func inCollections() throws {
        #expect(try semanticsEval("%@ IN %@", [10, [20, 10, 18]]) == true)
        #expect(try semanticsEval("%@ IN %@", [11, [20, 10, 18]]) == false)
        #expect(try semanticsEval("coinValue IN %@", [[20, 10, 18]], on: ["coinValue": 20]) == true)
        #expect(try semanticsEval("%@ IN %@", ["Gold", Set(["Gold", "Silver", "Copper"])]) == true)
        #expect(try semanticsEval("%@ IN %@", ["Gold", NSSet(array: ["Gold", "Silver", "Copper"])]) == true)
        #expect(try semanticsEval("%@ IN %@", ["Iron", Set(["Gold", "Silver", "Copper"])]) == false)
        let coins: [String: Int] = ["one": 1, "Two": 2, "nine": 9]
        #expect(try semanticsEval("coinValue IN %@", [coins], on: ["coinValue": 9]) == true)
        #expect(try semanticsEval("coinValue IN %@", [coins], on: ["coinValue": 3]) == false)
        // Keys are not members.
        #expect(try semanticsEval("'nine' IN %@", [coins]) == false)
        let between = NSComparisonPredicate(leftExpression: NSExpression(forConstantValue: 15),
                                            rightExpression: NSExpression(forConstantValue: [0, 33]),
                                            modifier: .direct, type: .between, options: .caseInsensitive)
        #expect(between.evaluate(with: nil))
        #expect(try semanticsEval("15 BETWEEN {16, 33}") == false)
    }

    // Row 86 (R): negative literals and padding.
    @Test func negativeLiterals() throws {
        #expect(try semanticsEval("self < 9", on: 8) == true)
        #expect(try semanticsEval("self.age <= 5", on: ["age": 5]) == true)
        let fast = ["speed": -7, "age": 5]
        #expect(try semanticsEval("self.speed <= -5", on: fast) == true)
        #expect(try semanticsEval("   self.speed >= -7   ", on: fast) == true)
        #expect(try semanticsEval("self.speed >= -6", on: fast) == false)
        #expect(try semanticsEval("NOT((self.speed >= -7) AND (self.age < -15))", on: fast) == true)
    }

    // Rows 87–100 (A): fixture O.
    @Test func fixtureO() throws {
        let o = SemanticsObject()
        let now = Date()
        let cases: [(String, [Any], Bool)] = [
            ("a == 2", [], false), ("a + 2 == 4", [], false), ("a + 2 == 3", [], true),                    // 87
            ("g.@count == 5", [], true), ("(SELF.g)[0] == 2", [], false), ("(SELF.g)[0] == 5", [], true),   // 88
            ("(SELF.h)['A'] == 1", [], true),
            ("g.@max.#self == g.@min.#self", [], false), ("g.@max.#self == 9", [], true),                  // 89
            ("f == YES", [], true), ("YES == YES", [], true), ("NO == YES", [], false),                     // 90
            ("(YES == YES) && (NO == YES)", [], false),
            ("i BETWEEN {i, i}", [], true),                                                                // 91
            ("i >= i AND i < i", [], false),                                                               // 92
            ("i >= %@ AND i < %@", [now, now], false), ("i BETWEEN %@", [[now, now]], false),              // 93
            ("i >= %@", [now], true), ("i <= %@", [now], false), ("i < %@", [now], false), ("i > %@", [now], true),
            ("j == nil", [], true), ("j != nil", [], false),                                               // 94
            ("k == %@", [o.k], true), ("k == %@", [UUID()], false),                                        // 98
            ("l == %@", [Data([1, 2, 3])], true), ("l == %@", [NSData(bytes: [1, 2, 3] as [UInt8], length: 3)], true), // 99
            ("l == %@", [Data([1, 2])], false),
            ("m == %@", [URL(string: "http://apple.com")!], true), ("m == %@", [NSURL(string: "http://apple.com")!], true),
            ("m == %@", [URL(string: "http://apple.org")!], false),
            ("a == 3 AND a > 2", [], false), ("a == 1 AND a > 0", [], true),                               // 100
        ]
        for (format, args, expected) in cases {
            #expect(try semanticsEval(format, args, on: o) == expected, "\(format)")
        }
        #expect(try semanticsEval("YES == YES", on: "Hello") == true)
        // Row 98: the same predicate on another O (a fresh UUID) is false.
        #expect(try semanticsPredicate("k == %@", [o.k]).evaluate(with: SemanticsObject()) == false)
    }

    // Row 101 (R): a string compared with a number. GNUstep raises; our documented choice
    // (ValueSemantics/PredicateCompiler doc comments: "no common order … is false") is false.
    @Test func stringVersusNumberOrderingIsFalse() throws {
        #expect(try semanticsEval("SELF.foo <= 2", on: ["foo": "2"]) == false)
        #expect(try semanticsEval("SELF.foo > 2", on: ["foo": "2"]) == false)
        #expect(try semanticsEval("SELF.foo == 2", on: ["foo": "2"]) == false)
        #expect(try semanticsEval("SELF.foo <= 2", on: ["foo": 2]) == true)
    }

    // Row 102 (A): KVC `description` on strings.
    @Test func descriptionOnStrings() throws {
        let notes = ["Do", "Re", "Mi", "Fa"]
        #expect(notes.filtered(using: try semanticsPredicate("description == 'Do'")) == ["Do"])
    }

    // Row 103 (R): NSNull elements are skipped without raising; a missing key matches nothing.
    @Test func nsNullElements() throws {
        let objects: [Any] = [["key": "value1"], ["key": "value2"], NSNull()]
        #expect(objects.filtered(using: try semanticsPredicate("key == %@", ["value2"])).count == 1)
        #expect(objects.filtered(using: try semanticsPredicate("nokey == %@", ["value2"])).count == 0)
    }

    // Row 104 (A): booleans print as 1 / 0 and evaluate.
    @Test func booleansPrintAsNumbers() throws {
        let man = SemanticsPerson("Adam", "Smith", isMale: true)
        let woman = SemanticsPerson("Lily", "Ames", isMale: false)
        #expect(try semanticsPredicate("isMale == %@", [NSNumber(value: true)]).predicateFormat == "isMale == 1")
        #expect(try semanticsPredicate("isMale == %@", [NSNumber(value: false)]).predicateFormat == "isMale == 0")
        for spelling in ["YES", "yes", "true", "TRUE"] {
            let predicate = try semanticsPredicate("isMale == \(spelling)")
            #expect(predicate.predicateFormat == "isMale == 1", "\(spelling)")
            #expect(predicate.evaluate(with: man) && !predicate.evaluate(with: woman), "\(spelling)")
        }
        for spelling in ["NO", "no", "false", "FALSE"] {
            let predicate = try semanticsPredicate("isMale == \(spelling)")
            #expect(predicate.predicateFormat == "isMale == 0", "\(spelling)")
            #expect(!predicate.evaluate(with: man) && predicate.evaluate(with: woman), "\(spelling)")
        }
        #expect(try semanticsPredicate("isMale == %@", [true]).evaluate(with: man))
    }

    // Row 105 (R): `self = YES` only for 1; `self = NO` only for 0.
    @Test func selfEqualsYes() throws {
        let values: [Any] = [0, 1, 2, "1", "true", "YES"]
        let yes = try semanticsPredicate("self = YES")
        let no = try semanticsPredicate("self = NO")
        #expect(values.map { yes.evaluate(with: $0) } == [false, true, false, false, false, false])
        #expect(values.map { no.evaluate(with: $0) } == [true, false, false, false, false, false])
    }

    // Numbers of every width compare by value (ValueSemantics doc comment).
    @Test func numbersAcrossWidths() throws {
        let threes: [Any] = [Int8(3), Int16(3), Int32(3), Int64(3), UInt(3), UInt8(3), 3.0, Float(3), Decimal(3),
                             NSNumber(value: 3), NSDecimalNumber(value: 3)]
        let equal = try semanticsPredicate("SELF == 3")
        let greater = try semanticsPredicate("SELF > 2.5")
        let less = try semanticsPredicate("SELF < 3.5")
        let notTwo = try semanticsPredicate("SELF != 2")
        for value in threes {
            #expect(equal.evaluate(with: value), "\(type(of: value))")
            #expect(greater.evaluate(with: value), "\(type(of: value))")
            #expect(less.evaluate(with: value), "\(type(of: value))")
            #expect(notTwo.evaluate(with: value), "\(type(of: value))")
            #expect(try semanticsEval("SELF == %@", [Int64(3)], on: value), "\(type(of: value))")
            #expect(try semanticsEval("SELF == %@", [Decimal(3)], on: value), "\(type(of: value))")
            #expect(try !semanticsEval("SELF == %@", [Float(3.5)], on: value), "\(type(of: value))")
        }
        #expect(try semanticsEval("SELF == 1", on: true) == true)
        #expect(try semanticsEval("SELF == 0", on: false) == true)
        #expect(try semanticsEval("SELF == 1", on: false) == false)
        // UInt64 values above Int64.max become Double in ValueSemantics.number and lose precision, so
        // UInt64.max and UInt64.max - 1 compare equal (NSNumber compares them exactly).
        let hugeGreater = try semanticsEval("SELF > %@", [UInt64.max - 1], on: UInt64.max)
        let hugeEqual = try semanticsEval("SELF == %@", [UInt64.max - 1], on: UInt64.max)
        // Above Int64.max, numbers compare exactly (as NSNumber does), not through Double.
        #expect(hugeGreater == true)
        #expect(hugeEqual == false)
        #expect(try semanticsEval("SELF == %@", [Decimal(string: "0.1")!], on: Decimal(string: "0.1")!) == true)
    }

    // nil semantics (PredicateCompiler / ValueSemantics doc comments; rows 155–159 in IdentityAndFormatTests).
    @Test func nilSemantics() throws {
        let optionalNone: String? = nil
        for object in [["x": NSNull()] as [String: Any], ["y": 1], ["x": optionalNone as Any]] {
            #expect(try semanticsEval("x == nil", on: object), "\(object)")
            #expect(try !semanticsEval("x != nil", on: object), "\(object)")
            #expect(try !semanticsEval("x > nil", on: object), "\(object)")
            #expect(try !semanticsEval("x < 1", on: object), "\(object)")
        }
        #expect(try semanticsEval("SELF == nil", on: nil))
        #expect(try !semanticsEval("x == nil", on: ["x": 0]))
        #expect(try semanticsEval("x != nil", on: ["x": 0]))
        #expect(try !semanticsEval("x > nil", on: ["x": 1]))
        #expect(try !semanticsEval("x <= nil", on: ["x": 1]))
        #expect(try semanticsEval("x == NULL", on: ["x": NSNull()]))
        #expect(try semanticsEval("x == %@", [NSNull()], on: [String: Any]()))
    }

    // ANY / ALL / NONE over collections (PredicateCompiler doc comment).
    @Test func anyAllNone() throws {
        let cases: [(String, Any, Bool)] = [
            ("ANY SELF > 2", [1, 2, 3], true), ("ANY SELF > 3", [1, 2, 3], false),
            ("ALL SELF > 0", [1, 2, 3], true), ("ALL SELF > 1", [1, 2, 3], false),
            ("NONE SELF > 3", [1, 2, 3], true), ("NONE SELF > 2", [1, 2, 3], false),
            ("SOME SELF == 2", [1, 2, 3], true),
            ("ALL SELF > 100", [Int](), true), ("ANY SELF > 100", [Int](), false), ("NONE SELF > 100", [Int](), true),
            ("ANY SELF == 2", Set([1, 2]), true), ("ALL SELF BEGINSWITH 'K'", ["Kid1", "Kid2"], true),
            ("ANY SELF == 2", ["a": 2], true),
            ("ANY SELF BETWEEN {7, 11}", [3, 10, 40], true), ("ANY SELF BETWEEN {7, 11}", [3, 40], false),
            ("ANY SELF == 'x'", "x", true), // a non-collection is a one-element collection
        ]
        for (format, object, expected) in cases {
            #expect(try semanticsEval(format, on: object) == expected, "\(format) on \(object)")
        }
        #expect(try semanticsEval("ANY SELF == 1", on: nil) == false)
        #expect(try semanticsEval("ALL SELF == 1", on: nil) == true)
        // Row 151 (R).
        #expect(try semanticsEval("ANY Record2.Children BEGINSWITH 'Gi'", on: fixtureG) == true)
        #expect(try semanticsEval("ALL Record1.Children BEGINSWITH 'Kid'", on: fixtureG) == true)
        #expect(try semanticsEval("ALL Record2.Children BEGINSWITH 'Kid'", on: fixtureG) == false)
    }
}
