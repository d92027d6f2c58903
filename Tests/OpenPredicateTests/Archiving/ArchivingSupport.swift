@testable import OpenPredicate
import Testing

// Helpers for the archiving suites: the two ways archives are made (a root object, and an
// object nested in another object's archive), the checks every round trip must pass, and a
// forger that writes arbitrary keys under our class names to make malformed archives.

/// Archives `object` as the root with secure coding and reads it back allowing `classes`.
func archivingRoundTrip(_ object: Any, classes: [AnyClass]) throws -> Any? {
    let data = try NSKeyedArchiver.archivedData(withRootObject: object, requiringSecureCoding: true)
    return try NSKeyedUnarchiver.unarchivedObject(ofClasses: classes, from: data)
}

/// An object that holds a predicate, an expression and sort descriptors in its own archive, the
/// way a fetch request does, through corelibs' plain API (`encode(_:forKey:)`,
/// `decodeObject(of:forKey:)`).
final class ArchiveHolder: NSObject, NSSecureCoding {
    static var supportsSecureCoding: Bool { true }

    let predicate: NSPredicate?
    let expression: NSExpression?
    let sortDescriptors: [NSSortDescriptor]?

    init(predicate: NSPredicate? = nil, expression: NSExpression? = nil, sortDescriptors: [NSSortDescriptor]? = nil) {
        self.predicate = predicate
        self.expression = expression
        self.sortDescriptors = sortDescriptors
    }

    func encode(with coder: NSCoder) {
        coder.encode("holder", forKey: "name")
        coder.encode(predicate, forKey: "predicate")
        coder.encode(expression, forKey: "expression")
        coder.encode(sortDescriptors, forKey: "sortDescriptors")
    }

    init?(coder: NSCoder) {
        guard coder.decodeObject(of: [NSString.self], forKey: "name") as? String == "holder" else { return nil }
        predicate = coder.decodeObject(of: [NSPredicate.self], forKey: "predicate") as? NSPredicate
        expression = coder.decodeObject(of: [NSExpression.self], forKey: "expression") as? NSExpression
        sortDescriptors = coder.decodeObject(of: [NSArray.self, NSSortDescriptor.self], forKey: "sortDescriptors")
            as? [NSSortDescriptor]
    }
}

/// `holder` archived with an `NSKeyedArchiver(requiringSecureCoding: true)` under a key, and
/// read back with `NSKeyedUnarchiver(forReadingFrom:)` and `decodeObject(of:forKey:)`.
func nestedArchivingRoundTrip(_ holder: ArchiveHolder) throws -> ArchiveHolder? {
    let archiver = NSKeyedArchiver(requiringSecureCoding: true)
    archiver.encode(holder, forKey: "holder")
    archiver.finishEncoding()
    if let error = archiver.error { throw error }
    let unarchiver = try NSKeyedUnarchiver(forReadingFrom: archiver.encodedData)
    unarchiver.requiresSecureCoding = true
    unarchiver.decodingFailurePolicy = .setErrorAndReturn
    let decoded = unarchiver.decodeObject(of: ArchiveHolder.self, forKey: "holder")
    if let error = unarchiver.error { throw error }
    return decoded
}

/// Objects the round-tripped predicates are evaluated against: every answer must match.
let archivingFixtures: [Any?] = [
    nil,
    fixtureG,
    fixtureC,
    [
        "a": 1, "b": [1, 2], "c": [2, 3], "d": [1], "e": 2, "f": 1, "name": "abc", "isMale": true,
        "tags": [["name": "a"], ["name": "z"]], "g": [1, 2, 3], "items": [["price": 11, "name": "apple"]],
        "firstName": "Adam", "lastName": "Worsley", "Record1": ["Age": 34], "title": "A Title",
    ] as [String: Any],
    ["a": "x", "b": 2.5, "name": "Émile", "tags": [] as [Any]] as [String: Any],
    SemanticsObject(),
]

/// Checks that `decoded` is the same predicate as `original`: same class, equal both ways, equal
/// hashes, the same `predicateFormat`, and the same answer for every fixture.
func expectSamePredicate(
    _ decoded: NSPredicate?, _ original: NSPredicate, _ label: String,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    guard let decoded else {
        Issue.record("\(label): nothing decoded", sourceLocation: sourceLocation)
        return
    }
    #expect(type(of: decoded) == type(of: original), "\(label)", sourceLocation: sourceLocation)
    #expect(decoded.isEqual(original), "\(label): \(decoded) vs \(original)", sourceLocation: sourceLocation)
    #expect(original.isEqual(decoded), "\(label)", sourceLocation: sourceLocation)
    #expect(decoded.hash == original.hash, "\(label)", sourceLocation: sourceLocation)
    #expect(decoded.predicateFormat == original.predicateFormat, "\(label)", sourceLocation: sourceLocation)
    for object in archivingFixtures {
        #expect(
            decoded.evaluate(with: object) == original.evaluate(with: object),
            "\(label) on \(String(describing: object))", sourceLocation: sourceLocation)
    }
}

/// Archives `predicate` both ways (as the root, and nested in a holder) and checks each result.
func expectPredicateSurvivesArchiving(
    _ predicate: NSPredicate, _ label: String, sourceLocation: SourceLocation = #_sourceLocation
) throws {
    let root = try archivingRoundTrip(predicate, classes: [NSPredicate.self]) as? NSPredicate
    expectSamePredicate(root, predicate, "\(label) (root)", sourceLocation: sourceLocation)
    let nested = try nestedArchivingRoundTrip(ArchiveHolder(predicate: predicate))?.predicate
    expectSamePredicate(nested, predicate, "\(label) (nested)", sourceLocation: sourceLocation)
}

/// Writes an archive object with arbitrary keys under another class's name, to make archives
/// our own classes never write. `.selfReference` writes the forged object itself (a cycle).
final class ForgedObject: NSObject, NSSecureCoding {
    enum Value {
        case integer(Int)
        case bool(Bool)
        case double(Double)
        case object(Any?)
        case selfReference
        case arrayWithSelf
    }

    static var supportsSecureCoding: Bool { true }

    let archivedClass: AnyClass
    let values: [(String, Value)]

    init(_ archivedClass: AnyClass, _ values: [(String, Value)]) {
        self.archivedClass = archivedClass
        self.values = values
    }

    override var classForKeyedArchiver: AnyClass? { archivedClass }

    func encode(with coder: NSCoder) {
        for (key, value) in values {
            switch value {
            case .integer(let integer): coder.encode(integer, forKey: key)
            case .bool(let bool): coder.encode(bool, forKey: key)
            case .double(let double): coder.encode(double, forKey: key)
            case .object(let object): coder.encode(object, forKey: key)
            case .selfReference: coder.encode(self, forKey: key)
            case .arrayWithSelf: coder.encode([self] as NSArray, forKey: key)
            }
        }
    }

    /// A copy with `key` set to `value` (appended if absent), or removed when `value` is nil.
    func with(_ key: String, _ value: Value?) -> ForgedObject {
        var values = self.values.filter { $0.0 != key }
        if let value { values.append((key, value)) }
        return ForgedObject(archivedClass, values)
    }

    init?(coder: NSCoder) { nil }
}

/// Decodes the archive of `forged` as the root, allowing `classes`; nil and the error when it
/// fails (the unarchiver sets its error and returns instead of stopping the process).
func unarchiveForged(_ forged: ForgedObject, classes: [AnyClass]) throws -> (object: Any?, error: Error?) {
    let data = try NSKeyedArchiver.archivedData(withRootObject: forged, requiringSecureCoding: true)
    do {
        return (try NSKeyedUnarchiver.unarchivedObject(ofClasses: classes, from: data), nil)
    } catch {
        return (nil, error)
    }
}
