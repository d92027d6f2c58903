@testable import OpenPredicate
import Testing

/// A value with no archived form.
private struct Opaque: CustomStringConvertible {
    var description: String { "Opaque()" }
}

/// Expressions of every type through `NSKeyedArchiver`/`NSKeyedUnarchiver`, and what cannot be
/// archived.
@Suite("Archiving: expressions")
struct ExpressionArchivingTests {
    /// One expression of every kind (and every constant type); `evaluates` is false for those
    /// whose value changes between two evaluations (`now()`, `random()`).
    static let expressions: [(label: String, expression: NSExpression, evaluates: Bool)] = [
        ("constant int", NSExpression(forConstantValue: 42), true),
        ("constant string", NSExpression(forConstantValue: "text"), true),
        ("constant nil", NSExpression(forConstantValue: nil), true),
        ("constant NSNull", NSExpression(forConstantValue: NSNull()), true),
        ("constant double", NSExpression(forConstantValue: 2.5), true),
        ("constant bool", NSExpression(forConstantValue: false), true),
        ("constant date", NSExpression(forConstantValue: Date(timeIntervalSinceReferenceDate: -978250148)), true),
        ("constant data", NSExpression(forConstantValue: Data([0, 255])), true),
        ("constant uuid", NSExpression(forConstantValue: UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")), true),
        ("constant url", NSExpression(forConstantValue: URL(string: "file:///tmp/a%20b")), true),
        ("constant array", NSExpression(forConstantValue: [1, "a", 2.5] as [Any]), true),
        ("constant set", NSExpression(forConstantValue: Set(["s"])), true),
        ("constant dictionary", NSExpression(forConstantValue: ["k": ["v"]]), true),
        ("constant empty array", NSExpression(forConstantValue: [Int]()), true),
        ("evaluated object", .expressionForEvaluatedObject(), true),
        ("variable", NSExpression(forVariable: "v"), true),
        ("key path", NSExpression(forKeyPath: "Record1.Children.@count"), true),
        ("function sum:", NSExpression(forFunction: "sum:", arguments: [NSExpression(forKeyPath: "g")]), true),
        ("function add:to:", NSExpression(forFunction: "add:to:", arguments: [NSExpression(forConstantValue: 1), NSExpression(forKeyPath: "a")]), true),
        ("function with constant arguments", NSExpression(forFunction: "max:", arguments: [3, 9, 4]), true),
        ("function now", NSExpression(forFunction: "now", arguments: []), false),
        ("function random", NSExpression(format: "random()"), false),
        ("custom function", NSExpression(forFunction: NSExpression(forKeyPath: "name"), selectorName: "uppercaseString", arguments: nil), true),
        ("custom function with arguments", NSExpression(format: "FUNCTION(name, 'stringByAppendingString:', '!')"), true),
        ("union", NSExpression(forUnionSet: NSExpression(forKeyPath: "b"), with: NSExpression(forKeyPath: "c")), true),
        ("intersect", NSExpression(forIntersectSet: NSExpression(forKeyPath: "b"), with: NSExpression(forConstantValue: [2])), true),
        ("minus", NSExpression(forMinusSet: NSExpression(forKeyPath: "b"), with: NSExpression(forKeyPath: "d")), true),
        ("subquery", NSExpression(
            forSubquery: NSExpression(forKeyPath: "items"), usingIteratorVariable: "x",
            predicate: NSPredicate(format: "$x.price > 10 AND $x.name BEGINSWITH[c] 'A'")), true),
        ("aggregate", NSExpression(forAggregate: [NSExpression(forConstantValue: 1), NSExpression(forKeyPath: "a"), NSExpression(forVariable: "v")]), true),
        ("any key", .expressionForAnyKey(), true),
        ("conditional", NSExpression(
            forConditional: NSPredicate(format: "a == 1"), trueExpression: NSExpression(forConstantValue: "one"),
            falseExpression: NSExpression(forKeyPath: "name")), true),
        ("index symbols", NSExpression(format: "g[LAST] + g[FIRST] + g[SIZE]"), true),
        ("key path on a variable", NSExpression(format: "$v.name.length"), true),
        ("key path on an expression", NSExpression(format: "TERNARY(a == 1, tags, items)[0].name"), true),
        ("arithmetic", NSExpression(format: "(a + 2) * 1.5 - 2 ** 3 / e"), true),
        ("cast", NSExpression(format: "CAST('2', 'NSNumber') + CAST(0, 'NSDate').timeIntervalSinceReferenceDate"), true),
        ("statistics", NSExpression(format: "average:(g) + median:(g) + stddev:(g) + count:(tags)"), true),
    ]

    @Test("every kind of expression", arguments: expressions)
    func everyKind(label: String, expression: NSExpression, evaluates: Bool) throws {
        let context = NSMutableDictionary(dictionary: ["v": ["name": "Zed"]])
        for decoded in [
            try archivingRoundTrip(expression, classes: [NSExpression.self]) as? NSExpression,
            try nestedArchivingRoundTrip(ArchiveHolder(expression: expression))?.expression,
        ] {
            let decoded = try #require(decoded, "\(label)")
            #expect(type(of: decoded) == NSExpression.self)
            #expect(decoded.isEqual(expression), "\(label): \(decoded) vs \(expression)")
            #expect(decoded.hash == expression.hash, "\(label)")
            #expect(decoded.description == expression.description, "\(label)")
            #expect(decoded.expressionType == expression.expressionType, "\(label)")
            guard evaluates else { continue }
            for object in archivingFixtures {
                let before = expression.expressionValue(with: object, context: context)
                let after = decoded.expressionValue(with: object, context: context)
                #expect(ValueSemantics.isEqual(before, after), "\(label) on \(String(describing: object))")
            }
        }
    }

    @Test func constantValuesKeepTheirTypes() throws {
        let values: [Any] = [
            Int8(-1), Int64.max, UInt64.max, Float(0.5), 0.5, true, Decimal(string: "0.1") as Any, "s", NSNull(),
            Date(timeIntervalSinceReferenceDate: 0),
        ]
        let types = ["Int", "Int", "UInt64", "Float", "Double", "Bool", "Decimal", "String", "NSNull", "Date"]
        for (value, expected) in zip(values, types) {
            let decoded = try archivingRoundTrip(NSExpression(forConstantValue: value), classes: [NSExpression.self]) as? NSExpression
            let constant = try #require(decoded?.constantValue, "\(value)")
            #expect("\(type(of: constant))" == expected, "\(value)")
            #expect(ValueSemantics.isEqual(constant, value))
        }
        let nan = try archivingRoundTrip(NSExpression(forConstantValue: Decimal.nan), classes: [NSExpression.self]) as? NSExpression
        #expect((nan?.constantValue as? Decimal)?.isNaN == true)
    }

    @Test func blockExpressionsCannotBeArchived() throws {
        let block = NSExpression(block: { _, _, _ in 1 }, arguments: [NSExpression(forKeyPath: "a")])
        let error = #expect(throws: NSError.self) {
            try NSKeyedArchiver.archivedData(withRootObject: block, requiringSecureCoding: true)
        }
        #expect(error?.domain == NSCocoaErrorDomain)
        #expect(error?.code == CocoaError.Code.coderInvalidValue.rawValue)
        #expect(error?.localizedDescription.contains("block expression") == true)

        let inPredicate = NSComparisonPredicate(
            leftExpression: NSExpression(forFunction: "abs:", arguments: [block]),
            rightExpression: NSExpression(forConstantValue: 1), modifier: .direct, type: .equalTo)
        #expect(throws: NSError.self) {
            try NSKeyedArchiver.archivedData(withRootObject: inPredicate, requiringSecureCoding: true)
        }
        #expect(throws: NSError.self) { try PredicateArchiving.archivable(inPredicate) }

        // Through the instance API the archiver keeps the error, and the process goes on.
        let archiver = NSKeyedArchiver(requiringSecureCoding: true)
        archiver.encode(ArchiveHolder(predicate: inPredicate), forKey: "holder")
        archiver.finishEncoding()
        #expect((archiver.error as NSError?)?.code == CocoaError.Code.coderInvalidValue.rawValue)
    }

    /// A function the unarchiver would refuse is refused when archiving (subclasses such as
    /// Core Data's `NSFetchRequestExpression` stand in a tree as such a call).
    @Test func functionsTheUnarchiverRefusesAreNotArchived() throws {
        let unknown = NSExpression(node: .function(name: "FETCH", arguments: [.constant(ConstantValue(1))]))
        let error = #expect(throws: NSError.self) {
            try NSKeyedArchiver.archivedData(withRootObject: unknown, requiringSecureCoding: true)
        }
        #expect(error?.localizedDescription.contains("FETCH") == true)
        let predicate = NSComparisonPredicate(
            leftExpression: unknown, rightExpression: NSExpression(forConstantValue: 1), modifier: .direct, type: .equalTo)
        #expect(throws: NSError.self) { try PredicateArchiving.archivable(predicate) }
    }

    static let unarchivableConstants: [(label: String, value: Any, message: String)] = [
        ("a struct", Opaque(), "type Opaque"),
        ("a struct in an array", [1, Opaque()] as [Any], "type Opaque"),
        ("an object", NSObject(), "type NSObject"),
        ("a Decimal in an array", [Decimal(1)], "Decimal inside a collection"),
        ("an expression", NSExpression(forKeyPath: "a"), "type NSExpression"),
        ("a closure", { () -> Int in 1 }, "Can't archive a constant"),
    ]

    @Test("constants of other types fail with an error", arguments: unarchivableConstants)
    func unarchivableConstants(label: String, value: Any, message: String) throws {
        let expression = NSExpression(forConstantValue: value)
        let error = #expect(throws: NSError.self, "\(label)") {
            try NSKeyedArchiver.archivedData(withRootObject: expression, requiringSecureCoding: true)
        }
        #expect(error?.code == CocoaError.Code.coderInvalidValue.rawValue, "\(label)")
        #expect(error?.localizedDescription.contains(message) == true, "\(label): \(String(describing: error))")
        let predicate = NSComparisonPredicate(
            leftExpression: NSExpression(forKeyPath: "a"), rightExpression: expression, modifier: .direct, type: .in)
        #expect(throws: NSError.self, "\(label)") { try PredicateArchiving.archivable(predicate) }
    }
}
