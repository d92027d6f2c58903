@testable import OpenPredicate
import Testing

/// Predicates through `NSKeyedArchiver`/`NSKeyedUnarchiver` with secure coding, as the root of
/// an archive and nested in another object's archive: equal, printed alike, evaluated alike.
@Suite("Archiving: predicates")
struct PredicateArchivingTests {
    @Test("every format of the printer's round-trip table", arguments: PrinterTests.roundTrips)
    func formats(format: String) throws {
        try expectPredicateSurvivesArchiving(NSPredicate(validatingFormat: format), format)
    }

    @Test("Apple's documented formats with arguments", arguments: PrinterTests.appleExamples)
    func formatsWithArguments(format: String, arguments: [Any?], printed: String) throws {
        let predicate = try NSPredicate(validatingFormat: format, argumentArray: arguments.map { $0 as Any })
        #expect(predicate.predicateFormat == printed)
        try expectPredicateSurvivesArchiving(predicate, format)
    }

    static let constants: [(String, [Any])] = [
        ("a == %@", [Date(timeIntervalSinceReferenceDate: 123.5)]),
        ("a == %@", [UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F") as Any]),
        ("a == %@", [Data([1, 2, 3])]),
        ("a == %@", [URL(string: "https://x.org/a?b=1") as Any]),
        ("a == %@", [NSNull()]),
        ("a == nil AND b == %@", [NSNull()]),
        ("a == %@", ["ünïcødé \"quoted\" \\ \n\t line"]),
        ("a == %@", [Substring("sub")]),
        ("a == %@", [NSString(string: "ns")]),
        ("a == %c", [Character("x")]),
        ("a == %d AND b == %f", [42, 2.5]),
        ("a IN %@", [[1, 2, 3]]),
        ("a IN %@", [["x", "y"]]),
        ("a IN %@", [Set(["x"])]),
        ("a IN %@", [NSSet(array: [7])]),
        ("a IN %@", [["k": "v"]]),
        ("a IN %@", [NSDictionary(dictionary: ["k": 1])]),
        ("a IN %@", [NSOrderedSet(array: [1, 2])]),
        ("a == %@", [[Date(timeIntervalSinceReferenceDate: 1), Data([9]), NSNull(), UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F") as Any] as [Any]]),
        ("a == %@", [[[1, 2], ["z"], ["k": [true]]] as [Any]]),
        ("a BETWEEN %@", [[1, 10]]),
        ("a == %@", [Int8(-5)]),
        ("a == %@", [UInt8(200)]),
        ("a == %@", [Int32.min]),
        ("a == %@", [Int64.min]),
        ("a == %@", [UInt64.max]),
        ("a == %@", [UInt(42)]),
        ("a == %@", [Float(0.1)]),
        ("a == %@", [0.1]),
        ("a == %@", [-0.0]),
        ("a == %@", [Double.infinity]),
        ("a == %@", [CGFloat(2.5)]),
        ("a == %@", [Decimal(string: "1.25") as Any]),
        ("a == %@", [NSDecimalNumber(string: "-3.75")]),
        ("a == %@", [Decimal(string: "12345678901234567890123456789012345678") as Any]),
        ("a == %@", [NSNumber(value: Float(0.1))]),
        ("a == %@", [NSNumber(value: UInt64.max)]),
        ("a == %@", [NSNumber(value: true)]),
        ("a == %@", [NSNumber(value: 1.0)]),
        ("a == %@ AND b == %@", [true, false]),
    ]

    @Test("constants of every supported type", arguments: constants)
    func constants(format: String, arguments: [Any]) throws {
        try expectPredicateSurvivesArchiving(NSPredicate(validatingFormat: format, argumentArray: arguments), format)
    }

    /// corelibs' archiver merges equal objects; numbers must not be merged across types.
    @Test func numbersKeepTheirTypesWithinOneArchive() throws {
        let predicate = try NSPredicate(
            validatingFormat: "a == 1 OR b == 1.0 OR c == YES OR d == %@ OR e == %@ OR f == %@ OR g == %@",
            argumentArray: [Float(1), NSNumber(value: 1.0), Decimal(1), UInt64.max])
        let printed = "a == 1 OR b == 1.0 OR c == 1 OR d == 1.0 OR e == 1.0 OR f == 1 OR g == 18446744073709551615"
        #expect(predicate.predicateFormat == printed)
        try expectPredicateSurvivesArchiving(predicate, "numbers")
        let decoded = try #require(archivingRoundTrip(predicate, classes: [NSPredicate.self]) as? NSCompoundPredicate)
        let constants = decoded.subpredicates.compactMap { ($0 as? NSComparisonPredicate)?.rightExpression.constantValue }
        #expect(constants.count == 7)
        #expect(constants.map { "\(type(of: $0))" } == ["Int", "Double", "Bool", "Float", "Double", "Decimal", "UInt64"])
    }

    static let operators: [NSComparisonPredicate.Operator] = [
        .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo, .equalTo, .notEqualTo,
        .matches, .like, .beginsWith, .endsWith, .in, .contains, .between,
    ]

    @Test("every operator with every modifier and option", arguments: operators)
    func everyOperatorModifierAndOption(type: NSComparisonPredicate.Operator) throws {
        let right: NSExpression
        switch type {
        case .between: right = NSExpression(forConstantValue: [1, 5])
        case .in: right = NSExpression(forAggregate: [NSExpression(forConstantValue: "b"), NSExpression(forKeyPath: "c")])
        default: right = NSExpression(forConstantValue: "b")
        }
        for modifier in [NSComparisonPredicate.Modifier.direct, .all, .any] {
            for bits in UInt(0)..<16 {
                let predicate = NSComparisonPredicate(
                    leftExpression: NSExpression(forKeyPath: "a"), rightExpression: right,
                    modifier: modifier, type: type, options: NSComparisonPredicate.Options(rawValue: bits))
                let label = "\(type) \(modifier) \(bits)"
                let decoded = try #require(archivingRoundTrip(predicate, classes: [NSPredicate.self]) as? NSComparisonPredicate)
                #expect(decoded.predicateOperatorType == type, "\(label)")
                #expect(decoded.comparisonPredicateModifier == modifier, "\(label)")
                #expect(decoded.options.rawValue == bits, "\(label)")
                #expect(decoded.customSelector == nil, "\(label)")
                expectSamePredicate(decoded, predicate, label)
            }
        }
    }

    @Test func customSelectorComparisons() throws {
        let predicate = NSComparisonPredicate(
            leftExpression: NSExpression(forKeyPath: "name"), rightExpression: NSExpression(forConstantValue: "a"),
            customSelector: "hasPrefix:")
        let decoded = try #require(archivingRoundTrip(predicate, classes: [NSPredicate.self]) as? NSComparisonPredicate)
        #expect(decoded.predicateOperatorType == .customSelector)
        #expect(decoded.customSelector == "hasPrefix:")
        try expectPredicateSurvivesArchiving(predicate, "custom selector")
    }

    @Test func compoundsBuiltWithCorelibsClassesArchiveOnceConverted() throws {
        let a = try NSPredicate(validatingFormat: "a == 1")
        let b = try NSPredicate(validatingFormat: "name BEGINSWITH 'a'")
        let c = try NSPredicate(validatingFormat: "ANY tags.name == 'z'")
        let tree = NSCompoundPredicate(andPredicateWithSubpredicates: [
            a,
            NSCompoundPredicate(orPredicateWithSubpredicates: [b, NSCompoundPredicate(notPredicateWithSubpredicate: c)]),
            NSPredicate(value: true),
            NSCompoundPredicate(notPredicateWithSubpredicate: NSCompoundPredicate(type: .or, subpredicates: [])),
        ])
        let archivable = try PredicateArchiving.archivable(tree)
        #expect(archivable is NSCompoundPredicate)
        #expect(archivable.isEqual(tree))
        #expect(archivable.predicateFormat
            == #"a == 1 AND (name BEGINSWITH "a" OR NOT ANY tags.name == "z") AND TRUEPREDICATE AND NOT FALSEPREDICATE"#)
        try expectPredicateSurvivesArchiving(archivable, "corelibs compound")
        for empty in [NSCompoundPredicate(type: .and, subpredicates: []), NSCompoundPredicate(type: .or, subpredicates: [])] {
            try expectPredicateSurvivesArchiving(PredicateArchiving.archivable(empty), "\(empty.compoundPredicateType)")
        }
    }

    @Test func constantPredicates() throws {
        for value in [true, false] {
            let parsed = try NSPredicate(validatingFormat: value ? "TRUEPREDICATE" : "FALSEPREDICATE")
            try expectPredicateSurvivesArchiving(parsed, "\(value)")
            let converted = try PredicateArchiving.archivable(NSPredicate(value: value))
            #expect(converted is NSPredicate)
            #expect(converted.predicateFormat == parsed.predicateFormat)
            try expectPredicateSurvivesArchiving(converted, "NSPredicate(value: \(value))")
        }
    }

    @Test func variablesSurviveAndCanBeSubstitutedAfterDecoding() throws {
        let template = try NSPredicate(validatingFormat:
            "name BEGINSWITH[c] $prefix AND age > $min AND SUBQUERY(items, $x, $x.price > $limit).@count > 0 "
            + "AND $missing == nil")
        let decoded = try #require(archivingRoundTrip(template, classes: [NSPredicate.self]) as? NSPredicate)
        expectSamePredicate(decoded, template, "template")
        #expect(decoded.predicateFormat.contains("$prefix") && decoded.predicateFormat.contains("$x.price > $limit"))

        let bindings: [String: Any] = ["prefix": "ad", "min": 30, "limit": 10, "missing": NSNull()]
        let substituted = try decoded.withSubstitutionVariables(validating: bindings)
        let expected = try template.withSubstitutionVariables(validating: bindings)
        #expect(substituted.isEqual(expected))
        #expect(substituted.predicateFormat == expected.predicateFormat)
        #expect(!substituted.predicateFormat.contains("$prefix"))
        let person: [String: Any] = ["name": "Adam", "age": 34, "items": [["price": 11]]]
        #expect(substituted.evaluate(with: person))
        #expect(decoded.evaluate(with: person, substitutionVariables: bindings))
        #expect(!decoded.evaluate(with: person, substitutionVariables: ["prefix": "zz", "min": 30, "limit": 10, "missing": NSNull()]))
        #expect(throws: NSError.self) { try decoded.withSubstitutionVariables(validating: ["prefix": "ad"]) }
    }

    /// The deepest predicates the parser accepts archive and unarchive on a 512 KiB thread. The
    /// subquery is the deepest in objects: five a level (subquery, OR, AND, comparison, key path).
    @Test func deepestPredicatesArchiveOnASmallStack() throws {
        let depth = ParserLimits.maxNestingDepth
        var subquery = "$x == 1"
        for _ in 0..<depth { subquery = "SUBQUERY(a, $x, $x == 2 OR $x == 3 AND \(subquery)).@count > 0" }
        #expect(try PredicateTree.node(NSPredicate(validatingFormat: subquery)).isDeeper(than: 5 * depth - 1))
        var ternary = "1"
        for _ in 0..<(depth / 4) { ternary = "TERNARY(a == \(ternary) OR a == 2 AND a == 3, 1, 2).x" }
        let formats = [
            String(repeating: "(", count: depth) + "a == 1" + String(repeating: ")", count: depth),
            "a == " + String(repeating: "sum(", count: depth - 1) + "1" + String(repeating: ")", count: depth - 1),
            "a == 1" + String(repeating: " + 0", count: depth - 1),
            String(repeating: "NOT ", count: depth - 1) + "a == 1",
            String(repeating: "(a == 2 OR ", count: depth / 2) + "a == 1" + String(repeating: ")", count: depth / 2),
            subquery,
            ternary + " == 1",
        ]
        let results = onSmallStackThread {
            formats.map { format -> String in
                do {
                    let predicate = try NSPredicate(validatingFormat: format)
                    let data = try NSKeyedArchiver.archivedData(withRootObject: predicate, requiringSecureCoding: true)
                    let decoded = try NSKeyedUnarchiver.unarchivedObject(ofClasses: [NSPredicate.self], from: data) as? NSPredicate
                    let same = decoded?.isEqual(predicate) == true && decoded?.predicateFormat == predicate.predicateFormat
                    return same ? "same" : "different"
                } catch {
                    return "\(error)"
                }
            }
        }
        #expect(results == Array(repeating: "same", count: formats.count))
    }

    /// `comparison(abs(abs(…abs(-1)…)), 1)` with `count` calls: `count + 2` objects deep.
    static func nestedAbs(_ count: Int) -> NSComparisonPredicate {
        var expression = NSExpression(forConstantValue: -1)
        for _ in 0..<count { expression = NSExpression(forFunction: "abs:", arguments: [expression]) }
        return NSComparisonPredicate(
            leftExpression: expression, rightExpression: NSExpression(forConstantValue: 1), modifier: .direct, type: .equalTo)
    }

    @Test func treesDeeperThanTheArchiveLimitFailWithAnError() throws {
        let tooDeep = Self.nestedAbs(ArchiveLimits.maxDepth - 1)
        #expect(tooDeep.evaluate(with: nil))
        let error = #expect(throws: NSError.self) {
            try NSKeyedArchiver.archivedData(withRootObject: tooDeep, requiringSecureCoding: true)
        }
        #expect(error?.code == CocoaError.Code.coderInvalidValue.rawValue)
        #expect(error?.localizedDescription.contains("deeper than \(ArchiveLimits.maxDepth)") == true)
        #expect(throws: NSError.self) { try PredicateArchiving.archivable(tooDeep) }

        // One object less is exactly at the limit: checked, written and read back.
        let deepest = Self.nestedAbs(ArchiveLimits.maxDepth - 2)
        _ = try PredicateArchiving.archivable(deepest)
        let decoded = try archivingRoundTrip(deepest, classes: [NSPredicate.self]) as? NSPredicate
        #expect(decoded?.isEqual(deepest) == true)
    }
}
