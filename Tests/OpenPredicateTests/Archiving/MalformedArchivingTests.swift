@testable import OpenPredicate
import Testing

/// An archivable class that no allow-list names.
final class OutsiderObject: NSObject, NSSecureCoding {
    static var supportsSecureCoding: Bool { true }
    override init() {}
    func encode(with coder: NSCoder) {}
    init?(coder: NSCoder) {}
}

/// Archives our classes never write — keys missing, objects of the wrong class, raw values Apple
/// does not define, cycles — must fail with an error, never stop the process.
///
/// Each row changes one key of a forged archive that decodes when unchanged (checked by
/// `forgedBasesDecode`), so the change is what makes it fail.
@Suite("Archiving: malformed archives")
struct MalformedArchivingTests {
    typealias Forged = ForgedObject

    // MARK: Valid forged objects, the bases the rows change

    static func keyPath(_ path: String) -> Forged {
        Forged(NSExpression.self, [("NSExpressionType", .integer(3)), ("NSKeyPath", .object(path))])
    }

    static func integer(_ value: Int) -> Forged {
        Forged(NSExpression.self, [("NSExpressionType", .integer(0)), ("NSConstantInteger", .integer(value))])
    }

    static let predicateOperator = Forged(
        PredicateOperator.self, [("NSOperatorType", .integer(4)), ("NSModifier", .integer(0)), ("NSOptions", .integer(0))])

    /// `left == 1`.
    static func comparison(_ left: Forged = keyPath("a"), operator op: Forged = predicateOperator) -> Forged {
        Forged(NSComparisonPredicate.self, [
            ("NSPredicateOperator", .object(op)), ("NSLeftExpression", .object(left)),
            ("NSRightExpression", .object(integer(1))),
        ])
    }

    static let function = Forged(NSExpression.self, [
        ("NSExpressionType", .integer(4)), ("NSSelectorName", .object("add:to:")),
        ("NSArguments", .object([integer(1), keyPath("a")] as NSArray)),
    ])
    static let customFunction = Forged(NSExpression.self, [
        ("NSExpressionType", .integer(4)), ("NSOperand", .object(keyPath("name"))),
        ("NSSelectorName", .object("uppercaseString")), ("NSArguments", .object(NSArray())),
    ])
    static let constantString = Forged(NSExpression.self, [("NSExpressionType", .integer(0)), ("NSConstantValue", .object("x"))])
    static let variable = Forged(NSExpression.self, [("NSExpressionType", .integer(2)), ("NSVariable", .object("v"))])
    static let symbol = Forged(NSExpression.self, [("NSExpressionType", .integer(11)), ("NSToken", .object("LAST"))])
    static let subquery = Forged(NSExpression.self, [
        ("NSExpressionType", .integer(13)), ("NSExpression", .object(keyPath("items"))), ("NSVariable", .object("x")),
        ("NSSubpredicate", .object(comparison(Forged(NSExpression.self, [("NSExpressionType", .integer(2)), ("NSVariable", .object("x"))])))),
    ])
    static let conditional = Forged(NSExpression.self, [
        ("NSExpressionType", .integer(20)), ("NSPredicate", .object(comparison())),
        ("NSTrueExpression", .object(integer(1))), ("NSFalseExpression", .object(integer(2))),
    ])
    static let aggregate = Forged(NSExpression.self, [
        ("NSExpressionType", .integer(14)), ("NSCollection", .object([integer(1), integer(2)] as NSArray)),
    ])
    static let union = Forged(NSExpression.self, [
        ("NSExpressionType", .integer(5)), ("NSLeftExpression", .object(keyPath("b"))), ("NSRightExpression", .object(keyPath("c"))),
    ])
    static let compound = Forged(NSCompoundPredicate.self, [
        ("NSCompoundPredicateType", .integer(1)), ("NSSubpredicates", .object([comparison(), comparison(keyPath("b"))] as NSArray)),
    ])
    static let not = Forged(NSCompoundPredicate.self, [
        ("NSCompoundPredicateType", .integer(0)), ("NSSubpredicates", .object([comparison()] as NSArray)),
    ])
    static let truePredicate = Forged(NSPredicate.self, [("NSPredicateValue", .bool(true))])
    static let sortDescriptor = Forged(NSSortDescriptor.self, [
        ("NSKey", .object("name")), ("NSAscending", .bool(true)), ("NSSelector", .object("compare:")),
    ])

    static let bases: [(label: String, forged: Forged, printed: String)] = [
        ("comparison", comparison(), "a == 1"),
        ("function", comparison(function), "1 + a == 1"),
        ("custom function", comparison(customFunction), #"FUNCTION(name, "uppercaseString") == 1"#),
        ("string constant", comparison(constantString), #""x" == 1"#),
        ("variable", comparison(variable), "$v == 1"),
        ("symbol", comparison(symbol), "LAST == 1"),
        ("subquery", comparison(subquery), "SUBQUERY(items, $x, $x == 1) == 1"),
        ("conditional", comparison(conditional), "TERNARY(a == 1, 1, 2) == 1"),
        ("aggregate", comparison(aggregate), "{1, 2} == 1"),
        ("union", comparison(union), "b UNION c == 1"),
        ("compound", compound, "a == 1 AND b == 1"),
        ("not", not, "NOT a == 1"),
        ("true", truePredicate, "TRUEPREDICATE"),
    ]

    /// The controls: every base decodes, to the predicate it spells.
    @Test(arguments: bases)
    func forgedBasesDecode(label: String, forged: Forged, printed: String) throws {
        let (object, error) = try unarchiveForged(forged, classes: [NSPredicate.self])
        #expect(error == nil, "\(label): \(String(describing: error))")
        #expect((object as? NSPredicate)?.predicateFormat == printed, "\(label)")
    }

    @Test func forgedSortDescriptorDecodes() throws {
        let (object, error) = try unarchiveForged(Self.sortDescriptor, classes: [NSSortDescriptor.self])
        #expect(error == nil)
        #expect((object as? NSSortDescriptor)?.isEqual(NSSortDescriptor(key: "name", ascending: true)) == true)
    }

    // MARK: One change each

    static func operatorWith(_ key: String, _ value: Forged.Value?) -> Forged {
        comparison(operator: predicateOperator.with(key, value))
    }

    static func leftWith(_ base: Forged, _ key: String, _ value: Forged.Value?) -> Forged {
        comparison(base.with(key, value))
    }

    static let malformed: [(label: String, forged: Forged)] = [
        // The comparison.
        ("no left expression", comparison().with("NSLeftExpression", nil)),
        ("left expression is nil", comparison().with("NSLeftExpression", .object(nil))),
        ("left expression is a string", comparison().with("NSLeftExpression", .object("a"))),
        ("left expression is a predicate", comparison().with("NSLeftExpression", .object(NSPredicate(format: "a == 1")))),
        ("left expression is an inline number", comparison().with("NSLeftExpression", .integer(3))),
        ("right expression is an array", comparison().with("NSRightExpression", .object([integer(1)] as NSArray))),
        ("no operator", comparison().with("NSPredicateOperator", nil)),
        ("operator is an expression", comparison().with("NSPredicateOperator", .object(keyPath("a")))),
        // The operator.
        ("operator type 12", operatorWith("NSOperatorType", .integer(12))),
        ("operator type 98", operatorWith("NSOperatorType", .integer(98))),
        ("operator type -1", operatorWith("NSOperatorType", .integer(-1))),
        ("no operator type", operatorWith("NSOperatorType", nil)),
        ("modifier 3", operatorWith("NSModifier", .integer(3))),
        ("no modifier", operatorWith("NSModifier", nil)),
        ("option bit 0x10", operatorWith("NSOptions", .integer(0x10))),
        ("negative options", operatorWith("NSOptions", .integer(-1))),
        ("custom selector without a name", operatorWith("NSOperatorType", .integer(11))),
        ("custom selector name is a number",
         comparison(operator: predicateOperator.with("NSOperatorType", .integer(11)).with("NSSelectorName", .object(5)))),
        // Expressions.
        ("expression type 8", leftWith(keyPath("a"), "NSExpressionType", .integer(8))),
        ("expression type 10", leftWith(keyPath("a"), "NSExpressionType", .integer(10))),
        ("expression type 99", leftWith(keyPath("a"), "NSExpressionType", .integer(99))),
        ("expression type -3", leftWith(keyPath("a"), "NSExpressionType", .integer(-3))),
        ("block expression type", leftWith(keyPath("a"), "NSExpressionType", .integer(19))),
        ("no expression type", leftWith(keyPath("a"), "NSExpressionType", nil)),
        ("no key path", leftWith(keyPath("a"), "NSKeyPath", nil)),
        ("key path is a number", leftWith(keyPath("a"), "NSKeyPath", .object(5))),
        ("key path is an expression", leftWith(keyPath("a"), "NSKeyPath", .object(keyPath("b")))),
        ("no variable name", leftWith(variable, "NSVariable", nil)),
        ("unknown function", leftWith(function, "NSSelectorName", .object("foo:bar:"))),
        ("function name is nil", leftWith(function, "NSSelectorName", .object(nil))),
        ("too few arguments", leftWith(function, "NSArguments", .object([integer(1)] as NSArray))),
        ("too many arguments", leftWith(function, "NSArguments", .object([integer(1), integer(2), integer(3)] as NSArray))),
        ("arguments are a string", leftWith(function, "NSArguments", .object("x"))),
        ("an argument is a string", leftWith(function, "NSArguments", .object(["x", integer(1)] as NSArray))),
        ("an argument is a predicate", leftWith(function, "NSArguments", .object([integer(1), comparison()] as NSArray))),
        ("no arguments", leftWith(function, "NSArguments", nil)),
        ("operand is a string", leftWith(customFunction, "NSOperand", .object("name"))),
        ("custom function without selector", leftWith(customFunction, "NSSelectorName", nil)),
        ("constant without a value", leftWith(constantString, "NSConstantValue", nil)),
        ("constant is an expression", leftWith(constantString, "NSConstantValue", .object(keyPath("a")))),
        ("constant array holds an expression", leftWith(constantString, "NSConstantValue", .object(["x", keyPath("a")] as NSArray))),
        ("constant set holds a predicate", leftWith(constantString, "NSConstantValue", .object(NSSet(array: [comparison()])))),
        ("constant has two values", comparison(constantString.with("NSConstantInteger", .integer(1)))),
        ("constant has two numbers", comparison(integer(1).with("NSConstantDouble", .double(1)))),
        ("decimal constant is not a number", comparison(
            Forged(NSExpression.self, [("NSExpressionType", .integer(0)), ("NSConstantDecimal", .object("1,5x"))]))),
        ("unknown index symbol", leftWith(symbol, "NSToken", .object("MIDDLE"))),
        ("subquery without predicate", leftWith(subquery, "NSSubpredicate", nil)),
        ("subquery predicate is an expression", leftWith(subquery, "NSSubpredicate", .object(keyPath("a")))),
        ("subquery collection is a predicate", leftWith(subquery, "NSExpression", .object(comparison()))),
        ("subquery variable is a number", leftWith(subquery, "NSVariable", .object(1))),
        ("conditional predicate is an expression", leftWith(conditional, "NSPredicate", .object(keyPath("a")))),
        ("conditional without false expression", leftWith(conditional, "NSFalseExpression", nil)),
        ("aggregate is not an array", leftWith(aggregate, "NSCollection", .object(NSSet(array: [1])))),
        ("set expression without right side", leftWith(union, "NSRightExpression", nil)),
        // Compounds and constants.
        ("compound type 3", compound.with("NSCompoundPredicateType", .integer(3))),
        ("compound type -1", compound.with("NSCompoundPredicateType", .integer(-1))),
        ("no compound type", compound.with("NSCompoundPredicateType", nil)),
        ("no subpredicates", compound.with("NSSubpredicates", nil)),
        ("subpredicates are a predicate", compound.with("NSSubpredicates", .object(comparison()))),
        ("a subpredicate is a string", compound.with("NSSubpredicates", .object([comparison(), "a == 1"] as NSArray))),
        ("a subpredicate is an expression", compound.with("NSSubpredicates", .object([keyPath("a")] as NSArray))),
        ("NOT of two predicates", not.with("NSSubpredicates", .object([comparison(), comparison()] as NSArray))),
        ("NOT of nothing", not.with("NSSubpredicates", .object(NSArray()))),
        ("constant predicate without value", truePredicate.with("NSPredicateValue", nil)),
        // Cycles: without a depth limit these recurse until the stack overflows.
        ("a function that is its own argument", leftWith(function, "NSArguments", .arrayWithSelf)),
        ("a compound that is its own subpredicate", compound.with("NSSubpredicates", .arrayWithSelf)),
        ("a set expression that is its own left side", leftWith(union, "NSLeftExpression", .selfReference)),
        ("a subquery that is its own collection", leftWith(subquery, "NSExpression", .selfReference)),
    ]

    @Test("malformed archives fail with an error", arguments: malformed)
    func malformedArchivesFail(label: String, forged: Forged) throws {
        let (object, error) = try unarchiveForged(forged, classes: [NSPredicate.self])
        #expect(object == nil, "\(label): decoded \(String(describing: object))")
        let nsError = try #require(error as NSError?, "\(label)")
        #expect(nsError.domain == NSCocoaErrorDomain, "\(label)")
        #expect(nsError.code == CocoaError.Code.coderReadCorrupt.rawValue, "\(label): \(nsError)")
    }

    /// Without secure coding corelibs instantiates any class, so only our checks stand.
    @Test func wrongClassesFailWithoutSecureCodingToo() throws {
        for forged in [
            Self.comparison().with("NSLeftExpression", .object(OutsiderObject())),
            Self.leftWith(Self.constantString, "NSConstantValue", .object(OutsiderObject())),
        ] {
            let data = try NSKeyedArchiver.archivedData(withRootObject: forged, requiringSecureCoding: true)
            let unarchiver = try NSKeyedUnarchiver(forReadingFrom: data)
            unarchiver.requiresSecureCoding = false
            unarchiver.decodingFailurePolicy = .setErrorAndReturn
            #expect(unarchiver.decodeObject(forKey: NSKeyedArchiveRootObjectKey) == nil)
            #expect((unarchiver.error as NSError?)?.code == CocoaError.Code.coderReadCorrupt.rawValue)
        }
    }

    /// A cycle stops at `ArchiveLimits.maxDepth` levels, on a 512 KiB thread too.
    @Test func cyclesFailOnASmallStack() throws {
        let data = try NSKeyedArchiver.archivedData(
            withRootObject: Self.compound.with("NSSubpredicates", .arrayWithSelf), requiringSecureCoding: true)
        let failed = onSmallStackThread {
            (try? NSKeyedUnarchiver.unarchivedObject(ofClasses: [NSPredicate.self], from: data)) == nil
        }
        #expect(failed == true)
    }

    /// Documents corelibs' behaviour, not ours: under secure coding an object of a class that no
    /// allow-list names stops the process inside `NSKeyedUnarchiver` (`fatalError("Value was of
    /// unexpected class …")`) before any `init?(coder:)` runs, so nothing here can turn it into
    /// an error. Classes our allow-list names but a key does not expect fail with an error
    /// (the rows above).
    @Test func aClassNoAllowListNamesStopsTheProcessInsideCorelibs() async {
        await #expect(processExitsWith: .failure) {
            let forged = MalformedArchivingTests.comparison().with("NSLeftExpression", .object(OutsiderObject()))
            _ = try? unarchiveForged(forged, classes: [NSPredicate.self])
        }
    }
}
