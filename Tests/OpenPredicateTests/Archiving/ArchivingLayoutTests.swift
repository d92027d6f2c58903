@testable import OpenPredicate
import Testing

/// What an archive holds: Apple's keys and raw values, and the class names corelibs writes for
/// our classes (module-qualified Swift names; see `ArchiveKey`).
@Suite("Archiving: archive layout")
struct ArchivingLayoutTests {
    /// The objects of `root`'s archive that are dictionaries (one per archived object, with
    /// references to other objects resolved one level), and the class names it holds.
    static func archivedObjects(_ root: Any) throws -> (objects: [[String: Any]], classNames: [String]) {
        let data = try NSKeyedArchiver.archivedData(withRootObject: root, requiringSecureCoding: true)
        let plist = try #require(try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])
        let entries = try #require(plist["$objects"] as? [Any])
        var objects: [[String: Any]] = []
        var classNames: [String] = []
        for entry in entries {
            guard let dictionary = entry as? [AnyHashable: Any] else { continue }
            var object: [String: Any] = [:]
            for (key, value) in dictionary {
                if let key = key.base as? String { object[key] = resolve(value, in: entries) }
            }
            if let name = object["$classname"] as? String { classNames.append(name) } else { objects.append(object) }
        }
        return (objects, classNames)
    }

    /// The object a reference (corelibs' internal `_NSKeyedArchiverUID`) points to; other values
    /// as they are.
    static func resolve(_ value: Any, in entries: [Any]) -> Any {
        guard String(describing: type(of: value)).contains("KeyedArchiverUID"),
            let index = Mirror(reflecting: value).children.first(where: { $0.label == "value" })?.value as? UInt32,
            Int(index) < entries.count
        else { return value }
        return entries[Int(index)]
    }

    static func keys(_ object: [String: Any]) -> Set<String> {
        Set(object.keys).subtracting(["$class"])
    }

    static func integer(_ object: [String: Any], _ key: String) -> Int? {
        (object[key] as? NSNumber)?.intValue ?? (object[key] as? Int)
    }

    @Test func comparisonsUseApplesKeys() throws {
        let (objects, classNames) = try Self.archivedObjects(NSPredicate(format: "name BEGINSWITH[cd] 'b'"))
        #expect(Set(classNames) == ["OpenPredicate.NSComparisonPredicate", "OpenPredicate.NSExpression", "OpenPredicate.PredicateOperator"])
        let keySets = Set(objects.map(Self.keys))
        #expect(keySets.contains(["NSLeftExpression", "NSRightExpression", "NSPredicateOperator"]))
        #expect(keySets.contains(["NSExpressionType", "NSKeyPath"]))
        #expect(keySets.contains(["NSExpressionType", "NSConstantValue"]))
        let predicateOperator = try #require(objects.first { $0["NSOperatorType"] != nil })
        #expect(Self.keys(predicateOperator) == ["NSOperatorType", "NSModifier", "NSFlags"])
        #expect(Self.integer(predicateOperator, "NSOperatorType") == 8)  // BEGINSWITH
        #expect(Self.integer(predicateOperator, "NSModifier") == 0)
        #expect(Self.integer(predicateOperator, "NSFlags") == 3)  // [cd]
        let keyPath = try #require(objects.first { $0["NSKeyPath"] != nil })
        #expect(Self.integer(keyPath, "NSExpressionType") == 3)
        #expect(keyPath["NSKeyPath"] as? String == "name")

        let (comparisonObjects, _) = try Self.archivedObjects(NSPredicate(format: "ANY a <[c] 2"))
        let comparisonOperator = try #require(comparisonObjects.first { $0["NSOperatorType"] != nil })
        #expect(Self.keys(comparisonOperator) == ["NSOperatorType", "NSModifier", "NSOptions"])
        #expect(Self.integer(comparisonOperator, "NSModifier") == 2)  // ANY
        #expect(comparisonObjects.contains { Self.keys($0) == ["NSExpressionType", "NSConstantInteger"] })
    }

    @Test func compoundsAndConstantsUseApplesKeys() throws {
        let (objects, classNames) = try Self.archivedObjects(NSPredicate(format: "NOT (a == 1 OR TRUEPREDICATE)"))
        #expect(classNames.contains("OpenPredicate.NSCompoundPredicate"))
        #expect(classNames.contains("OpenPredicate.NSPredicate"))
        let compounds = objects.filter { Self.keys($0) == ["NSCompoundPredicateType", "NSSubpredicates"] }
        #expect(compounds.compactMap { Self.integer($0, "NSCompoundPredicateType") }.sorted() == [0, 2])  // NOT, OR
        #expect(objects.contains { Self.keys($0) == ["NSPredicateValue"] })
    }

    @Test func expressionsUseApplesKeysAndTypes() throws {
        let cases: [(NSExpression, Int, Set<String>)] = [
            (NSExpression(format: "sum:(a)"), 4, ["NSExpressionType", "NSSelectorName", "NSArguments"]),
            (NSExpression(format: "FUNCTION(a, 'b')"), 4, ["NSExpressionType", "NSOperand", "NSSelectorName", "NSArguments"]),
            (NSExpression(format: "$v"), 2, ["NSExpressionType", "NSVariable"]),
            (NSExpression(format: "a UNION b"), 5, ["NSExpressionType", "NSLeftExpression", "NSRightExpression"]),
            (NSExpression(format: "SUBQUERY(a, $x, $x == 1)"), 13, ["NSExpressionType", "NSExpression", "NSVariable", "NSSubpredicate"]),
            (NSExpression(format: "{1, 2}"), 14, ["NSExpressionType", "NSCollection"]),
            (NSExpression(format: "TERNARY(a == 1, 2, 3)"), 20, ["NSExpressionType", "NSPredicate", "NSTrueExpression", "NSFalseExpression"]),
            (.expressionForAnyKey(), 15, ["NSExpressionType"]),
            (.expressionForEvaluatedObject(), 1, ["NSExpressionType"]),
            (NSExpression(forConstantValue: "s"), 0, ["NSExpressionType", "NSConstantValue"]),
        ]
        for (expression, type, keys) in cases {
            let (objects, _) = try Self.archivedObjects(expression)
            // The root is the first object after the archive's own `$null`.
            let root = try #require(objects.first { Self.integer($0, "NSExpressionType") == type && Self.keys($0) == keys },
                                    "\(expression): \(objects.map(Self.keys))")
            #expect(Self.integer(root, "NSExpressionType") == type)
        }
        let (symbolObjects, _) = try Self.archivedObjects(NSExpression(format: "a[LAST]"))
        #expect(symbolObjects.contains { Self.integer($0, "NSExpressionType") == 11 && $0["NSToken"] as? String == "LAST" })
    }

    @Test func sortDescriptorsUseApplesKeys() throws {
        let (objects, classNames) = try Self.archivedObjects(NSSortDescriptor(key: "name", ascending: false, selector: "localizedCompare:"))
        #expect(classNames == ["OpenPredicate.NSSortDescriptor"])
        let descriptor = try #require(objects.first)
        #expect(Self.keys(descriptor) == ["NSKey", "NSAscending", "NSSelector"])
        #expect(descriptor["NSKey"] as? String == "name")
        #expect(descriptor["NSSelector"] as? String == "localizedCompare:")
        #expect((descriptor["NSAscending"] as? NSNumber)?.boolValue == false || descriptor["NSAscending"] as? Bool == false)
    }
}
