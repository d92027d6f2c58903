import Foundation
import TestSupport
import Testing

@testable import OpenCoreData

/// Writes binary property lists object by object, so that tests can make the files no archiver
/// would: references out of range, containers that contain themselves, deep nesting, keyed
/// archives with values of the wrong kind.
struct BinaryPropertyListWriter {
    private(set) var objects: [[UInt8]] = []

    /// Adds an object given as its encoded bytes; returns its reference.
    @discardableResult
    mutating func add(_ bytes: [UInt8]) -> Int {
        objects.append(bytes)
        return objects.count - 1
    }

    /// Reserves a reference to fill later with `set(_:_:)` (for cycles).
    mutating func reserve() -> Int { add([0x00]) }
    mutating func set(_ reference: Int, _ bytes: [UInt8]) { objects[reference] = bytes }

    static func header(_ type: UInt8, _ count: Int) -> [UInt8] {
        count < 15 ? [type << 4 | UInt8(count)] : [type << 4 | 0xF, 0x11, UInt8(count >> 8), UInt8(count & 0xFF)]
    }

    /// References are 2 bytes wide.
    static func references(_ refs: [Int]) -> [UInt8] { refs.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] } }

    mutating func string(_ text: String) -> Int { add(Self.header(0x5, text.utf8.count) + Array(text.utf8)) }
    mutating func integer(_ value: Int) -> Int { add([0x11, UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]) }
    mutating func bool(_ value: Bool) -> Int { add([value ? 0x09 : 0x08]) }
    mutating func uid(_ value: Int) -> Int { add([0x81, UInt8(value >> 8), UInt8(value & 0xFF)]) }
    mutating func array(_ refs: [Int]) -> Int { add(Self.header(0xA, refs.count) + Self.references(refs)) }
    static func arrayBytes(_ refs: [Int]) -> [UInt8] { header(0xA, refs.count) + references(refs) }
    mutating func dictionary(_ entries: [(Int, Int)]) -> Int {
        add(Self.header(0xD, entries.count) + Self.references(entries.map(\.0)) + Self.references(entries.map(\.1)))
    }

    func data(top: Int, offsetTableStart: Int? = nil) -> Data {
        var bytes = Array("bplist00".utf8)
        var offsets: [Int] = []
        for object in objects {
            offsets.append(bytes.count)
            bytes += object
        }
        let table = offsetTableStart ?? bytes.count
        for offset in offsets {
            bytes += [UInt8(offset >> 24 & 0xFF), UInt8(offset >> 16 & 0xFF), UInt8(offset >> 8 & 0xFF), UInt8(offset & 0xFF)]
        }
        var trailer = [UInt8](repeating: 0, count: 6) + [4, 2]
        for value in [objects.count, top, table] {
            trailer += (0..<8).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
        }
        return Data(bytes + trailer)
    }
}

/// A keyed archive written with `BinaryPropertyListWriter`: `$objects` entries are plist values
/// described by a small tree, references written as `.ref(n)`.
indirect enum ArchiveValue: Sendable {
    case string(String)
    case integer(Int)
    case bool(Bool)
    case ref(Int)
    case array([ArchiveValue])
    case dictionary([(String, ArchiveValue)])

    func write(into writer: inout BinaryPropertyListWriter) -> Int {
        switch self {
        case .string(let text): return writer.string(text)
        case .integer(let value): return writer.integer(value)
        case .bool(let value): return writer.bool(value)
        case .ref(let index): return writer.uid(index)
        case .array(let values):
            let refs = values.map { $0.write(into: &writer) }
            return writer.array(refs)
        case .dictionary(let entries):
            let refs = entries.map { (writer.string($0.0), $0.1.write(into: &writer)) }
            return writer.dictionary(refs)
        }
    }

    /// The whole archive: `$top.root` refers to `$objects[root]`.
    static func archive(_ objects: [ArchiveValue], root: Int = 1) -> Data {
        var writer = BinaryPropertyListWriter()
        let top = ArchiveValue.dictionary([
            ("$archiver", .string("NSKeyedArchiver")), ("$version", .integer(100_000)),
            ("$top", .dictionary([("root", .ref(root))])), ("$objects", .array(objects)),
        ])
        let reference = top.write(into: &writer)
        return writer.data(top: reference)
    }

    static func classInfo(_ name: String) -> ArchiveValue {
        .dictionary([("$classname", .string(name)), ("$classes", .array([.string(name), .string("NSObject")]))])
    }
}

@Suite("Model files: hostile compiled models are refused with a clear error")
struct CompiledModelBadInputTests {
    /// Loads `data` as `Model.mom` and returns the error, which must be a Cocoa error with `code`.
    static func refusal(_ data: Data, code: Int = NSFileReadCorruptFileError) throws -> String {
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("Model.mom")
        try data.write(to: url)
        #expect(NSManagedObjectModel(contentsOf: url) == nil)
        do {
            _ = try NSManagedObjectModel(validatingContentsOf: url)
            Issue.record("the file loaded")
            return ""
        } catch {
            let error = error as NSError
            #expect(error.domain == NSCocoaErrorDomain)
            #expect(error.code == code, "\(error.localizedDescription)")
            #expect(error.localizedDescription.hasPrefix(url.path))
            return error.localizedDescription
        }
    }

    /// A valid one-entity model (`Item` with a string `name`), with `entityFields` added to the
    /// entity and `attributeFields` to the attribute.
    static func model(
        entityFields: [(String, ArchiveValue)] = [], attributeFields: [(String, ArchiveValue)] = [],
        extraObjects: [ArchiveValue] = []
    ) -> Data {
        // 0 $null, 1 model, 2 entities dict, 3 "Item", 4 entity, 5 properties dict, 6 "name",
        // 7 attribute, 8-11 classes, 12… extra objects.
        let objects: [ArchiveValue] = [
            .string("$null"),
            .dictionary([("$class", .ref(8)), ("NSEntities", .ref(2))]),
            .dictionary([("$class", .ref(11)), ("NS.keys", .array([.ref(3)])), ("NS.objects", .array([.ref(4)]))]),
            .string("Item"),
            .dictionary(
                [("$class", .ref(9)), ("NSEntityName", .ref(3)), ("NSProperties", .ref(5))] + entityFields),
            .dictionary([("$class", .ref(11)), ("NS.keys", .array([.ref(6)])), ("NS.objects", .array([.ref(7)]))]),
            .string("name"),
            .dictionary(
                [("$class", .ref(10)), ("NSPropertyName", .ref(6)), ("NSAttributeType", .integer(700))] + attributeFields),
            ArchiveValue.classInfo("NSManagedObjectModel"), ArchiveValue.classInfo("NSEntityDescription"),
            ArchiveValue.classInfo("NSAttributeDescription"), ArchiveValue.classInfo("NSMutableDictionary"),
        ]
        return ArchiveValue.archive(objects + extraObjects)
    }

    @Test("The hand-written archive loads, so the refusals below are about what each one breaks")
    func baseline() throws {
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("Model.mom")
        try Self.model().write(to: url)
        let model = try NSManagedObjectModel(validatingContentsOf: url)
        #expect(model.entitiesByName["Item"]?.attributesByName["name"]?.attributeType == .stringAttributeType)
        #expect(model.entitiesByName["Item"]?.attributesByName["name"]?.isOptional == false)
    }

    @Test("A truncated file or a trailer that points outside the file")
    func badTrailer() throws {
        let good = Self.model()
        #expect(try Self.refusal(good.prefix(good.count - 5)).contains("not a valid binary property list"))
        var writer = BinaryPropertyListWriter()
        writer.add([0x08])
        #expect(try Self.refusal(writer.data(top: 0, offsetTableStart: 100_000)).contains("trailer is inconsistent"))
    }

    @Test("An array that contains itself")
    func cycle() throws {
        var writer = BinaryPropertyListWriter()
        let loop = writer.reserve()
        writer.set(loop, BinaryPropertyListWriter.arrayBytes([loop]))
        #expect(try Self.refusal(writer.data(top: loop)).contains("contains itself"))
    }

    @Test("Arrays nested 20,000 levels deep stop at the depth limit")
    func deepNesting() throws {
        var writer = BinaryPropertyListWriter()
        var inner = writer.add([0x08])
        for _ in 0..<20_000 { inner = writer.array([inner]) }
        #expect(try Self.refusal(writer.data(top: inner)).contains("nested more than"))
    }

    /// The valid model with fields that break it: the refusal's code and what its message says.
    struct Broken: Sendable, CustomTestStringConvertible {
        var label: String
        var entityFields: [(String, ArchiveValue)] = []
        var attributeFields: [(String, ArchiveValue)] = []
        var extraObjects: [ArchiveValue] = []
        var code = NSFileReadCorruptFileError
        var message: String

        var testDescription: String { label }
    }

    static let broken: [Broken] = [
        Broken(
            label: "A reference to an object the archive does not have", entityFields: [("NSSuperentity", .ref(500))],
            message: "NSSuperentity of NSEntityDescription #4 refers to object #500"),
        Broken(
            label: "A value of the wrong kind names the key and the object: a flag",
            attributeFields: [("NSIsOptional", .string("yes"))], message: "NSIsOptional of NSAttributeDescription #7"),
        Broken(
            label: "A value of the wrong kind names the key and the object: a reference",
            entityFields: [("NSProperties", .integer(3))],
            message: "NSProperties of NSEntityDescription #4 is an integer, not an object reference"),
        Broken(
            label: "An unknown attribute type", attributeFields: [("NSAttributeType", .integer(12_345))],
            message: "unknown NSAttributeType 12345"),
        Broken(
            label: "An entity that is its own superentity", entityFields: [("NSSuperentity", .ref(4))],
            message: "entity 'Item' inherits from itself"),
        Broken(
            label: "A dictionary whose keys and values do not pair up", entityFields: [("NSUserInfo", .ref(12))],
            extraObjects: [
                .dictionary([("$class", .ref(11)), ("NS.keys", .array([.ref(6), .ref(3)])), ("NS.objects", .array([.ref(6)]))])
            ],
            message: "has 2 keys but 1 values"),
        // Object 12 is an array whose only element is itself.
        Broken(
            label: "A user info value that refers to itself stops at the depth limit", entityFields: [("NSUserInfo", .ref(13))],
            extraObjects: [
                .dictionary([("$class", .ref(14)), ("NS.objects", .array([.ref(12)]))]),
                .dictionary([("$class", .ref(11)), ("NS.keys", .array([.ref(6)])), ("NS.objects", .array([.ref(12)]))]),
                ArchiveValue.classInfo("NSArray"),
            ],
            message: "nested more than"),
        Broken(
            label:
                "A user info value that shares one array twice at each of 25 levels stops at the value limit, not after 2^25 values",
            entityFields: [("NSUserInfo", .ref(37))], extraObjects: sharedTwiceAtEachLevel, message: "more than 100000 values"),
        Broken(
            label: "A derived attribute whose derivation is not an expression is refused",
            attributeFields: [("NSDerivationExpression", .ref(6))], code: NSFileReadCorruptFileError,
            message: "is a string, not an object"),
    ]

    /// Objects 12…36: NSArray objects, each holding the next one twice; 37 the user info, 38 NSArray's class.
    static var sharedTwiceAtEachLevel: [ArchiveValue] {
        var extra: [ArchiveValue] = (0..<25).map { level in
            let next: ArchiveValue = level == 24 ? .ref(6) : .ref(13 + level)
            return .dictionary([("$class", .ref(38)), ("NS.objects", .array([next, next]))])
        }
        extra.append(.dictionary([("$class", .ref(11)), ("NS.keys", .array([.ref(6)])), ("NS.objects", .array([.ref(12)]))]))
        extra.append(ArchiveValue.classInfo("NSArray"))
        return extra
    }

    @Test("Each broken model is refused with a clear error", arguments: broken)
    func brokenModel(_ broken: Broken) throws {
        let data = Self.model(
            entityFields: broken.entityFields, attributeFields: broken.attributeFields, extraObjects: broken.extraObjects)
        let message = try Self.refusal(data, code: broken.code)
        #expect(message.contains(broken.message), "\(message)")
    }

    @Test("A root object that is not a model")
    func wrongRoot() throws {
        let data = ArchiveValue.archive([.string("$null"), .dictionary([("$class", .ref(2))]), ArchiveValue.classInfo("NSDate")])
        #expect(try Self.refusal(data).contains("a keyed archive of NSDate, not of a Core Data model"))
    }

    @Test("Validation predicates in Apple's archived shape are read back")
    func validationPredicate() throws {
        // name: length >= 2 (warning 1670) — a comparison of the key path `length` with 2.
        let objects: [ArchiveValue] = [
            .dictionary([("$class", .ref(16)), ("NS.objects", .array([.ref(13)]))]),  // 12 predicates
            .dictionary([  // 13 comparison
                ("$class", .ref(17)), ("NSLeftExpression", .ref(14)), ("NSRightExpression", .ref(15)),
                ("NSPredicateOperator", .ref(19)),
            ]),
            .dictionary([("$class", .ref(18)), ("NSExpressionType", .integer(3)), ("NSKeyPath", .ref(20))]),  // 14
            .dictionary([("$class", .ref(18)), ("NSExpressionType", .integer(0)), ("NSConstantValue", .integer(2))]),  // 15
            ArchiveValue.classInfo("NSArray"),  // 16
            ArchiveValue.classInfo("NSComparisonPredicate"),  // 17
            ArchiveValue.classInfo("NSExpression"),  // 18
            .dictionary([("$class", .ref(21)), ("NSOperatorType", .integer(3)), ("NSModifier", .integer(0))]),  // 19
            .string("length"),  // 20
            ArchiveValue.classInfo("NSComparisonPredicateOperator"),  // 21
            .dictionary([("$class", .ref(16)), ("NS.objects", .array([.ref(23)]))]),  // 22 warnings
            .integer(1670),  // 23
        ]
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("Model.mom")
        try Self.model(
            attributeFields: [("NSValidationPredicates", .ref(12)), ("NSValidationWarnings", .ref(22))], extraObjects: objects
        ).write(to: url)
        let model = try NSManagedObjectModel(validatingContentsOf: url)
        let name = try #require(model.entitiesByName["Item"]?.attributesByName["name"])
        #expect(name.validationPredicates.map(\.predicateFormat) == ["length >= 2"])
        #expect((name.validationWarnings.first as? NSNumber)?.intValue == 1670)
    }
}
