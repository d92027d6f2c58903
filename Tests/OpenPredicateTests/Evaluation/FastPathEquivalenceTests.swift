import Foundation
import TestSupport
import Testing
@testable import OpenPredicate

/// The fast paths of `keyPath op constant` (`ComparisonTest.fastConstantTest`) and of
/// `[String: Any]` objects (`DictionaryObject`) must answer what the general rules answer.
/// Random mixed-type values from a fixed seed go through both; any difference fails with the
/// format and the value.
@Suite("Evaluation: fast paths agree with the general rules")
struct FastPathEquivalenceTests {
    static let words = [
        "Ann", "ann", "ANNA", "bob", "Bob", "Émile", "émile", "zoë", "Zoë", "Leeds", "York", "york", "",
        "an", "AN", "Straße", "STRASSE", "a\r\nb", "e\u{301}", "Mann", "Ångström", "M", "m", "Dan", "e",
    ]

    /// One value of a type a dictionary row can hold: Swift values, their Foundation twins, nil,
    /// `NSNull`, optionals inside `Any`, collections.
    static func value(_ random: inout SplitMix64) -> Any? {
        let word = words[random.next(below: words.count)]
        let integer = random.next(below: 60) - 5
        switch random.next(below: 20) {
        case 0: return nil
        case 1: return NSNull()
        case 2, 3, 4: return integer
        case 5: return Double(integer) + [0, 0.5, -0.25][random.next(below: 3)]
        case 6: return random.next(below: 2) == 0
        case 7: return NSNumber(value: integer)
        case 8: return NSNumber(value: Double(integer) / 2)
        case 9: return NSNumber(value: random.next(below: 2) == 0)
        case 10, 11, 12: return word
        case 13: return word as NSString
        case 14: return Optional(integer) as Any
        case 15: return Date(timeIntervalSinceReferenceDate: Double(integer) * 1000)
        case 16: return [word, words[random.next(below: words.count)]]
        case 17:
            // Managed objects' integer attributes, and an Int64 beyond a Double's exact range.
            return [Int64(integer), Int32(integer), Int16(integer), Int64.max - Int64(integer.magnitude)][random.next(below: 4)] as Any
        case 18: return Decimal(integer)
        default: return word.isEmpty ? word : Substring(word)
        }
    }

    static let date = Date(timeIntervalSinceReferenceDate: 20_000)

    /// `tests` applied to `value` as a `ScalarKeyValueCodable` tests it: integers of every
    /// width as `integer`, a `String` as `string`, anything else as `other`.
    static func scalar(_ value: Any?, _ tests: ScalarTests) -> Bool {
        guard let value else { return tests.other(nil) }
        switch value {
        case let integer as Int where type(of: value) == Int.self: return tests.integer(Int64(integer))
        case let integer as Int64 where type(of: value) == Int64.self: return tests.integer(integer)
        case let integer as Int32 where type(of: value) == Int32.self: return tests.integer(Int64(integer))
        case let integer as Int16 where type(of: value) == Int16.self: return tests.integer(Int64(integer))
        case let string as String where type(of: value) == String.self: return tests.string(string)
        default: return tests.other(value)
        }
    }

    /// Formats whose right side is a constant or an aggregate of constants.
    static let cases: [(String, [Any])] = [
        ("v > 30", []), ("v >= 30", []), ("v < 30", []), ("v <= 30", []), ("v == 30", []), ("v != 30", []),
        ("v > 2.5", []), ("v == 1", []), ("v == YES", []), ("v != NO", []), ("v < -1", []),
        ("v > %@", [NSNumber(value: 30)]), ("v == %@", [Decimal(3)]), ("v >= %@", [NSNumber(value: 2.5)]),
        (#"v == "Ann""#, []), (#"v ==[c] "ann""#, []), (#"v ==[cd] "EMILE""#, []), (#"v != "Ann""#, []),
        (#"v < "M""#, []), (#"v >=[cd] "é""#, []), (#"v <=[c] "bob""#, []), ("v == %@", ["York" as NSString]),
        (#"v BEGINSWITH "A""#, []), (#"v BEGINSWITH[c] "a""#, []), (#"v BEGINSWITH[cd] "e""#, []),
        (#"v ENDSWITH "n""#, []), (#"v ENDSWITH[cd] "E""#, []), (#"v ENDSWITH[c] "SSE""#, []), (#"v ENDSWITH """#, []),
        (#"v CONTAINS "an""#, []), (#"v CONTAINS[c] "AN""#, []), (#"v CONTAINS[cd] "e""#, []), (#"v CONTAINS """#, []),
        (#"v CONTAINS[c] "ss""#, []), ("v CONTAINS %@", ["\n"]), ("v CONTAINS %@", ["\r"]), ("v CONTAINS[d] %@", ["é"]),
        ("v < %@", [date]), ("v == %@", [date]), ("v >= %@", [date]),
        ("v BETWEEN {20, 40}", []), ("v BETWEEN {2.5, 40}", []), ("v BETWEEN %@", [[20, 40]]), ("v BETWEEN {-1, YES}", []),
        (#"v IN {"Ann", "bob"}"#, []), (#"v IN[c] {"ann", "BOB", "straße"}"#, []), ("v IN {1, 2, 3.5}", []),
        (#"v IN {1, "Ann"}"#, []), ("v IN %@", [Set(["Ann", "York"])]), ("v IN %@", [["Leeds": "Leeds"]]),
        (#"v IN {"Ann", nil}"#, []), (#"v MATCHES "[A-Z].*""#, []),
    ]

    /// The comparison node of a one-comparison format.
    static func comparison(_ format: String, _ args: [Any]) throws -> ComparisonNode {
        let predicate = try semanticsPredicate(format, args)
        guard case .comparison(let comparison) = predicate.node else {
            Issue.record("\(format) is not a comparison")
            throw CancellationError()
        }
        return comparison
    }

    @Test func constantFastPathsAnswerAsTheGeneralTest() throws {
        var random = SplitMix64(seed: 0x5EED)
        var fastPathCount = 0
        for (format, args) in Self.cases {
            let comparison = try Self.comparison(format, args)
            let constant = try #require(comparison.right.compileTimeValue, "\(format)").value
            let general = ComparisonTest.make(comparison)
            guard let fast = ComparisonTest.fastConstantTest(comparison, constant: constant) else { continue }
            fastPathCount += 1
            for _ in 0..<400 {
                let value = Self.value(&random)
                let expected = general(value, constant)
                #expect(fast.value(value) == expected, "\(format) with \(String(describing: value))")
                #expect(
                    Self.scalar(value, fast.scalar) == expected, "\(format) with \(String(describing: value)), scalar tests")
            }
            // Every word, once each.
            for word in Self.words {
                #expect(fast.value(word) == general(word, constant), "\(format) with \(word.debugDescription)")
                #expect(fast.scalar.string(word) == general(word, constant), "\(format) with \(word.debugDescription)")
            }
        }
        // The fast paths exist: a refactoring that loses them shows here (and in the benchmark).
        #expect(fastPathCount >= Self.cases.count - 3)
    }

    @Test func dictionaryRowsAnswerAsTheGeneralTest() throws {
        var random = SplitMix64(seed: 42)
        for (format, args) in Self.cases {
            let comparison = try Self.comparison(format, args)
            let predicate = try semanticsPredicate(format, args)
            let constant = try #require(comparison.right.compileTimeValue, "\(format)").value
            let general = ComparisonTest.make(comparison)
            for _ in 0..<200 {
                let value = Self.value(&random)
                var row: [String: Any] = ["other": 1]
                if let value { row["v"] = value }
                let expected = general(value, constant)
                #expect(predicate.evaluate(with: row) == expected, "\(format) with \(String(describing: value))")
                #expect([row].filtered(using: predicate).count == (expected ? 1 : 0), "\(format) with \(String(describing: value))")
            }
        }
    }

    @Test func dictionaryObjectReadsAsKeyValueReader() throws {
        let row: [String: Any] = ["name": "Ann", "age": 3, "self": "shadowed", "none": Optional<Int>.none as Any, "null": NSNull()]
        let object = DictionaryObject(dictionary: row)
        for key in ["name", "age", "none", "null", "missing", "", "@count"] {
            let general = row.predicateValue(forKey: key)
            let fast = object.value(forKey: key)
            #expect((general == nil) == (fast == nil), "\(key)")
            #expect(ValueSemantics.isEqual(general, fast), "\(key)")
        }
        // `self` is the dictionary itself, also when the dictionary has a "self" entry.
        #expect(object.value(forKey: "self") as? [String: Any] != nil)
        #expect(KeyValueReader.value(of: row, forKey: "self") as? [String: Any] != nil)
        #expect(EvaluationSubject(row).object as? [String: Any] != nil)
        // Nested rows read through the same lookup.
        let nested: [String: Any] = ["address": ["city": "Leeds"] as [String: Any]]
        #expect(KeyValueReader.value(of: nested, forKeyPath: "address.city") as? String == "Leeds")
        #expect(try semanticsEval(#"address.city == "Leeds""#, on: nested))
        #expect(try semanticsEval("SELF.name == 'Ann'", on: row))
    }
}
