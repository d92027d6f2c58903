import Foundation
import CoreData
import Testing

// Core Data code as Apple users write it: a file that imports Foundation *and* CoreData.
//
// Everything here compiles unchanged on macOS. swift-corelibs-foundation declares classes named
// `NSPredicate`, `NSExpression`, `NSComparisonPredicate`, `NSCompoundPredicate` and
// `NSSortDescriptor` too; `import CoreData` re-exports ours by name, so those names mean ours in
// type position as well (`let e: NSExpression`).

private let people: [[String: Any]] = [
    ["name": "Ann", "age": 34, "city": "Leeds"],
    ["name": "bob", "age": 2, "city": "York"],
    ["name": "Cy", "age": 51, "city": "Leeds"],
    ["name": "a", "age": 7, "city": "Hull"],
]

private func names(_ rows: [[String: Any]]) -> [String] {
    rows.map { $0["name"] as? String ?? "?" }
}

/// A function that takes an `NSPredicate`, as fetch-request helpers do.
private func matching(_ predicate: NSPredicate, in rows: [[String: Any]]) -> [String] {
    names(rows.filtered(using: predicate))
}

/// A function that takes `[NSSortDescriptor]`, as `NSFetchRequest.sortDescriptors` does.
private func ordered(_ rows: [[String: Any]], by descriptors: [NSSortDescriptor]) -> [String] {
    names(rows.sorted(using: descriptors))
}

/// Numbers come back as `Int` or `NSNumber`; compare them by value.
private func number(_ value: Any?) -> Double? {
    switch value {
    case let value as Int: Double(value)
    case let value as Double: value
    case let value as NSNumber: value.doubleValue
    default: nil
    }
}

@Suite("import Foundation + import CoreData")
struct BothImportsTests {
    @Test func formatWithStringArgument() {
        let p: NSPredicate = NSPredicate(format: "name == %@", "x")
        #expect(p.evaluate(with: ["name": "x"]))
        #expect(!p.evaluate(with: ["name": "y"]))
        #expect(p.description == #"name == "x""#)
        // On an `NSPredicate`-typed value this warns that corelibs deprecated `predicateFormat`;
        // the warning is harmless, the answer is ours.
        #expect(p.predicateFormat == #"name == "x""#)
    }

    @Test func formatWithIntArgument() {
        let p: NSPredicate = NSPredicate(format: "age > %d", 3)
        #expect(matching(p, in: people) == ["Ann", "Cy", "a"])
        #expect(p.description == "age > 3")
    }

    @Test func swiftArrayAsVariadicArgument() {
        let p = NSPredicate(format: "name IN %@", ["a", "b"])
        #expect(matching(p, in: people) == ["a"])
        #expect(p.description == #"name IN {"a", "b"}"#)
    }

    @Test func filteredUsingOnAnArrayOfDictionaries() {
        let dict1: [String: Any] = ["name": "Ann", "age": 34]
        let dict2: [String: Any] = ["name": "Bob", "age": 12]
        let p: NSPredicate = NSPredicate(format: "age >= %d AND name BEGINSWITH[c] %@", 18, "a")
        let adults = [dict1, dict2].filtered(using: p)
        #expect(adults.count == 1)
        #expect(adults.first?["name"] as? String == "Ann")
        #expect(p.description == #"age >= 18 AND name BEGINSWITH[c] "a""#)
    }

    @Test func sortDescriptors() {
        let byName = NSSortDescriptor(key: "name", ascending: true)
        #expect(byName.key == "name")
        #expect(byName.ascending)
        // `compare:` orders strings literally: upper case before lower case.
        #expect(ordered(people, by: [byName]) == ["Ann", "Cy", "a", "bob"])

        let descriptors: [NSSortDescriptor] = [
            NSSortDescriptor(key: "city", ascending: false),
            NSSortDescriptor(key: "age", ascending: true),
        ]
        #expect(ordered(people, by: descriptors) == ["bob", "Ann", "Cy", "a"])
    }

    @Test func compoundPredicateFromCorelibsInitializer() {
        let t: NSCompoundPredicate.LogicalType = .and
        let both = NSCompoundPredicate(andPredicateWithSubpredicates: [
            NSPredicate(format: "city == %@", "Leeds"),
            NSPredicate(format: "age < %d", 40),
        ])
        #expect(both.compoundPredicateType == t)
        #expect(both.subpredicates.count == 2)
        // Built with corelibs' initializer: evaluation is correct (predicateFormat is corelibs').
        #expect(matching(both, in: people) == ["Ann"])

        let either: NSPredicate = NSCompoundPredicate(orPredicateWithSubpredicates: [
            NSPredicate(format: "age < 5"), NSPredicate(format: "age > 50"),
        ])
        #expect(matching(either, in: people) == ["bob", "Cy"])
        let neither = NSCompoundPredicate(notPredicateWithSubpredicate: either)
        #expect(matching(neither, in: people) == ["Ann", "a"])
    }

    @Test func compoundPredicateFromFormatString() {
        let p = NSPredicate(format: "city == 'Leeds' AND (age < 40 OR name == 'Cy')")
        #expect(p is NSCompoundPredicate)
        #expect(matching(p, in: people) == ["Ann", "Cy"])
        #expect(p.description == #"city == "Leeds" AND (age < 40 OR name == "Cy")"#)
    }

    @Test func constantAndBlockPredicates() {
        let yes = NSPredicate(value: true)
        let no = NSPredicate(value: false)
        #expect(matching(yes, in: people).count == people.count)
        #expect(matching(no, in: people).isEmpty)

        let short = NSPredicate(block: { object, _ in
            ((object as? [String: Any])?["name"] as? String)?.count ?? 0 <= 2
        })
        #expect(matching(short, in: people) == ["Cy", "a"])
        // A block predicate also works inside compounds built from format strings.
        let both = NSCompoundPredicate(andPredicateWithSubpredicates: [short, NSPredicate(format: "age > 10")])
        #expect(matching(both, in: people) == ["Cy"])
    }

    @Test func substitutionVariables() {
        let p = NSPredicate(format: "age > 3")
        let same = p.withSubstitutionVariables([:])
        #expect(same.description == "age > 3")
        #expect(matching(same, in: people) == ["Ann", "Cy", "a"])

        let template: NSPredicate = NSPredicate(format: "city == $CITY AND age > $MIN")
        let leeds = template.withSubstitutionVariables(["CITY": "Leeds", "MIN": 40])
        #expect(leeds.description == #"city == "Leeds" AND age > 40"#)
        #expect(matching(leeds, in: people) == ["Cy"])
        // Or bind at evaluation time.
        #expect(template.evaluate(with: people[0], substitutionVariables: ["CITY": "Leeds", "MIN": 30]))
    }

    @Test func throwingTwins() throws {
        #expect(throws: (any Error).self) { try NSPredicate(validatingFormat: "name ==") }
        let p = try NSPredicate(validatingFormat: "name == %@", "a")
        #expect(matching(p, in: people) == ["a"])
        #expect(throws: (any Error).self) {
            try NSPredicate(format: "age > $MIN").withSubstitutionVariables(validating: [:])
        }
    }

    @Test func expressionsAsValues() {
        let key: NSExpression = NSExpression(forKeyPath: "a")
        #expect(key.description == "a")
        #expect(number(key.expressionValue(with: ["a": 5], context: nil)) == 5)

        let sum = NSExpression(format: "1 + 2").expressionValue(with: nil, context: nil)
        #expect(number(sum) == 3)
        #expect(number(NSExpression(format: "2 + 3 * 4").expressionValue(with: nil, context: nil)) == 14)
    }

    @Test func comparisonPredicateAsValue() {
        let older: NSComparisonPredicate = NSComparisonPredicate(
            leftExpression: NSExpression(forKeyPath: "age"),
            rightExpression: NSExpression(forConstantValue: 30),
            modifier: .direct,
            type: .greaterThan,
            options: [])
        let p: NSPredicate = older
        #expect(p.description == "age > 30")
        #expect(matching(p, in: people) == ["Ann", "Cy"])

        let leedsish = NSComparisonPredicate(
            leftExpression: NSExpression(forKeyPath: "city"),
            rightExpression: NSExpression(forConstantValue: "LEE"),
            modifier: .direct,
            type: .beginsWith,
            options: [.caseInsensitive])
        #expect(leedsish.description == #"city BEGINSWITH[c] "LEE""#)
        #expect(matching(leedsish, in: people) == ["Ann", "Cy"])
    }

    @Test func foundationStillWorks() {
        // `import Foundation` is what it always was.
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy"
        formatter.timeZone = TimeZone(identifier: "UTC")
        #expect(formatter.string(from: Date(timeIntervalSince1970: 0)) == "1970")
        let p = NSPredicate(format: "born < %@", Date(timeIntervalSince1970: 1_000))
        #expect(p.evaluate(with: ["born": Date(timeIntervalSince1970: 0)]))
        #expect(!p.evaluate(with: ["born": Date(timeIntervalSince1970: 2_000)]))
    }
}
