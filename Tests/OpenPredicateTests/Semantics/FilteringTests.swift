@testable import OpenPredicate
import TestSupport
import Testing

/// Filtering: `Sequence.filtered(using:)` against corelibs' `NSArray.filtered(using:)`, compound
/// predicates from formats against corelibs' NSCompoundPredicate, and section 10 (PredicateQI).
@Suite("Semantics: filtering")
struct FilteringTests {
    /// 50 deterministic objects with a few nils and NSNulls.
    static func generated() -> [[String: Any]] {
        var random = SplitMix64(seed: 0x9E37_79B9_7F4A_7C15)
        func next(_ bound: Int) -> Int { random.next(below: bound) }
        let names = ["Ann", "bob", "Émile", "zoë", "Carl", "anna", "BOB", "Eve"]
        return (0..<50).map { index in
            var object: [String: Any] = ["id": index, "name": names[next(names.count)], "age": next(90),
                                         "score": Double(next(1000)) / 10, "tags": (0..<next(4)).map { _ in ["a", "b", "c"][next(3)] }]
            if next(7) == 0 { object["name"] = NSNull() }
            if next(9) == 0 { object.removeValue(forKey: "age") }
            return object
        }
    }

    static let formats = [
        "age > 30", "age >= 30 AND score < 50", "name BEGINSWITH[cd] 'e'", "name ==[c] 'bob'", "ANY tags == 'a'",
        "ALL tags == 'b'", "tags.@count == 0", "NOT (age < 50) OR name == nil", "score BETWEEN {10, 20.5}",
        "name IN {'Ann', 'anna', 'Eve'}", "name LIKE[c] '*n*'", "name MATCHES '[A-Z].*'", "age + score > 100",
        "(age > 10 AND age < 20) OR (score > 90 AND NOT name CONTAINS 'o')", "id == 3 OR FALSEPREDICATE",
    ]

    @Test func sequenceAndNSArrayAgree() throws {
        let objects = Self.generated()
        let array = NSArray(array: objects)
        for format in Self.formats {
            let predicate = try semanticsPredicate(format)
            let ours = objects.filtered(using: predicate).map { $0["id"] as? Int }
            let corelibs = array.filtered(using: predicate).map { (($0 as? NSDictionary)?["id"] as? NSNumber)?.intValue }
            #expect(ours == corelibs, "\(format)")
            let manual = objects.filter { predicate.evaluate(with: $0) }.map { $0["id"] as? Int }
            #expect(ours == manual, "\(format)")
        }
        // Sanity: the predicates select something, and not everything.
        let older = objects.filtered(using: try semanticsPredicate("age > 30")).count
        #expect(older > 0 && older < objects.count)
    }

    @Test func formatCompoundMatchesCorelibsCompound() throws {
        let objects = Self.generated()
        let parts = try [semanticsPredicate("age > 20"), semanticsPredicate("name BEGINSWITH[c] 'a'"), semanticsPredicate("ANY tags == 'c'")]
        let cases: [(String, NSPredicate)] = [
            ("age > 20 AND name BEGINSWITH[c] 'a' AND ANY tags == 'c'", NSCompoundPredicate(andPredicateWithSubpredicates: parts)),
            ("age > 20 OR name BEGINSWITH[c] 'a' OR ANY tags == 'c'", NSCompoundPredicate(orPredicateWithSubpredicates: parts)),
            ("NOT age > 20", NSCompoundPredicate(notPredicateWithSubpredicate: parts[0])),
            ("(age > 20 AND name BEGINSWITH[c] 'a') OR NOT ANY tags == 'c'",
             NSCompoundPredicate(orPredicateWithSubpredicates: [
                NSCompoundPredicate(andPredicateWithSubpredicates: [parts[0], parts[1]]),
                NSCompoundPredicate(notPredicateWithSubpredicate: parts[2]),
             ])),
        ]
        for (format, corelibs) in cases {
            let parsed = try semanticsPredicate(format)
            #expect(parsed is NSCompoundPredicate, "\(format)")
            var matches = 0
            for object in objects {
                let value = parsed.evaluate(with: object)
                #expect(value == corelibs.evaluate(with: object), "\(format) on \(object)")
                #expect(value == (NSArray(object: object).filtered(using: corelibs).count == 1), "\(format)")
                if value { matches += 1 }
            }
            #expect(matches > 0 && matches < objects.count, "\(format) matched \(matches)")
            #expect(objects.filtered(using: parsed).count == objects.filtered(using: corelibs).count, "\(format)")
        }
    }

    // Section 10 (A): PredicateQI fixtures.
    final class Inhabitant: KeyValueCodable {
        let firstName: String, lastName: String, age: Int
        init(_ firstName: String, _ lastName: String, _ age: Int) {
            self.firstName = firstName
            self.lastName = lastName
            self.age = age
        }
        func value(forKey key: String) -> Any? {
            switch key {
            case "firstName": firstName
            case "lastName": lastName
            case "age": age
            default: nil
            }
        }
    }

    final class House: NSObject, KeyValueCodable {
        let address: String?
        let inhabitants: [Inhabitant]
        init(_ address: String?, _ inhabitants: [Inhabitant]) {
            self.address = address
            self.inhabitants = inhabitants
        }
        func value(forKey key: String) -> Any? {
            switch key {
            case "address": address as Any?
            case "inhabitants": inhabitants
            default: nil
            }
        }
    }

    static func houses() -> [House] {
        [House("99 Nowhere St.", [Inhabitant("Gregory", "Higley", 91), Inhabitant("Flavius", "Josephus", 33)]),
         House("1 Somewhere Rd.", [Inhabitant("Friedrich", "Hayek", 80)]),
         House(nil, [Inhabitant("Edward", "Snowden", 10)])]
    }

    @Test func predicateQIRows() throws {
        let houses = Self.houses()
        let cases: [(String, [Any], Int)] = [
            ("SELF == %@", [houses[0]], 1),                                          // 210
            ("address == nil", [], 1), ("address != nil", [], 2),                    // 211
            ("ALL inhabitants.lastName != %@", ["Kubrick"], 3),                      // 212
            ("ALL inhabitants.lastName != %@", ["Hayek"], 2),
            ("address CONTAINS %@", ["Nowhere"], 1), ("%@ IN address", ["Nowhere"], 1), // 213
            ("address IN %@", [["99 Nowhere St.", "Bad Address"]], 1),
            ("inhabitants.@count < 10", [], 3), ("inhabitants.@count >= 2", [], 1),  // 214
            ("inhabitants.@min.age <= 10", [], 1),                                   // 215
            ("ANY inhabitants.age BETWEEN {7, 11}", [], 1),                          // 216
            ("address MATCHES[c] %@", [".*WHERE.*"], 2),                             // 217
            ("address LIKE[d] %@", ["*whére*"], 2),                                  // 218
            ("address LIKE %@", ["*whére*"], 0),
        ]
        for (format, args, count) in cases {
            let predicate = try semanticsPredicate(format, args)
            #expect(houses.filtered(using: predicate).count == count, "\(format)")
            #expect(NSArray(array: houses).filtered(using: predicate).count == count, "\(format) (NSArray)")
        }
        // 215: over an NSSet of houses.
        let set = NSSet(array: houses)
        let sum = try semanticsPredicate("inhabitants.@sum.age > 20")
        #expect(set.filtered(using: sum).count == 2)
        #expect(set.filtered(using: sum).count == set.allObjects.filtered(using: sum).count)
    }
}
