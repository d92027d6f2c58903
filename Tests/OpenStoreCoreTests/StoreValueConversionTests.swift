import OpenPredicate
import OpenStoreCore
import TestSupport
import Testing

@Suite("StoreValue ↔ Swift values")
struct StoreValueConversionTests {
    @Test("accepted values", arguments: [
        (42 as Any?, AttributeKind.integer16, StoreValue.integer(42)),
        (Int16.min, .integer16, .integer(-32768)),
        (UInt8(7), .integer32, .integer(7)),
        (NSNumber(value: 9), .integer64, .integer(9)),
        (3.0, .integer64, .integer(3)),
        (true, .integer32, .integer(1)),
        (dec("12.50"), .decimal, .decimal(dec("12.5"))),
        (0.1, .decimal, .decimal(dec("0.1"))),
        (5, .decimal, .decimal(5)),
        (Float(1.5), .double, .double(1.5)),
        (dec("2.25"), .double, .double(2.25)),
        (2, .float, .double(2)),
        (true, .boolean, .bool(true)),
        (NSNumber(value: 0), .boolean, .bool(false)),
        ("text", .string, .string("text")),
        (NSString(string: "ns"), .string, .string("ns")),
        (day(3), .date, .date(day(3))),
        (Data([1, 2]), .binary, .data(Data([1, 2]))),
        ([UInt8]([3]), .binary, .data(Data([3]))),
        (Data([9]), .transformable, .data(Data([9]))),
        (UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)), .uuid,
            .uuid(UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)))),
        (URL(string: "https://example.com/a"), .uri, .url(URL(string: "https://example.com/a") ?? URL(fileURLWithPath: "/"))),
        (ObjectKey(entityID: 2, primaryKey: 5), .objectID, .object(ObjectKey(entityID: 2, primaryKey: 5))),
        (Int?.none, .integer16, .null),
        (NSNull(), .string, .null),
        (nil, .date, .null),
        (Optional(Optional(7)) as Any, .integer64, .integer(7)),
        ("loose", .undefined, .string("loose")),
        (7, .undefined, .integer(7)),
        // The types attributes read back (one cast each), optionals of them, and numbers that
        // bridge to them exactly.
        (Int64.min, .integer64, .integer(Int64.min)),
        (Int32(-3), .integer32, .integer(-3)),
        (Int16(2), .integer16, .integer(2)),
        (2.5, .double, .double(2.5)),
        (false, .boolean, .bool(false)),
        (NSNumber(value: 1), .boolean, .bool(true)),
        (Optional(day(1)), .date, .date(day(1))),
        (Int64?.none, .integer64, .null),
        (String?.none, .string, .null),
        (NSNumber(value: Int64.max), .integer64, .integer(Int64.max)),
        (NSNumber(value: 0.25), .double, .double(0.25)),
    ] as [(Any?, AttributeKind, StoreValue)])
    func accepted(value: Any?, kind: AttributeKind, expected: StoreValue) throws {
        #expect(try StoreValue(value, kind: kind) == expected)
    }

    @Test("refused values name the types", arguments: [
        ("12" as Any, AttributeKind.integer32, "desired type = Int32; given type = String; value = 12."),
        (2.5, .integer64, "desired type = Int64; given type = Double; value = 2.5. (the number has a fractional part)"),
        (40_000, .integer16, "desired type = Int16; given type = Int; value = 40000. (the number does not fit the attribute's width)"),
        (Int64.max, .integer32, "desired type = Int32; given type = Int64; value = 9223372036854775807. (the number does not fit the attribute's width)"),
        (5, .string, "desired type = String; given type = Int; value = 5."),
        ("2020-01-01", .date, "desired type = Date; given type = String; value = 2020-01-01."),
        ("x", .transformable, "desired type = Data (transformed); given type = String; value = x. (transformable values reach the store as Data)"),
        ("x", .boolean, "desired type = Bool; given type = String; value = x."),
        ("https://x", .uri, "desired type = URL; given type = String; value = https://x."),
    ] as [(Any, AttributeKind, String)])
    func refused(value: Any, kind: AttributeKind, message: String) throws {
        do {
            _ = try StoreValue(value, kind: kind, property: "p")
            Issue.record("expected \(value) to be refused for \(kind)")
        } catch let error as StoreValueConversionError {
            #expect(error.message == "Unacceptable type of value for attribute: property = \"p\"; " + message)
            let bridged = error as NSError
            #expect(bridged.domain == NSCocoaErrorDomain)
            #expect(bridged.code == 1550)
            #expect(bridged.localizedDescription == error.message)
            #expect(bridged.userInfo["NSValidationErrorKey"] as? String == "p")
        }
    }

    @Test func swiftValuesAreWhatCoreDataUsersReadBack() throws {
        #expect(StoreValue.integer(7).swiftValue(kind: .integer16) as? Int16 == 7)
        #expect(StoreValue.integer(7).swiftValue(kind: .integer32) as? Int32 == 7)
        #expect(StoreValue.integer(7).swiftValue(kind: .integer64) as? Int64 == 7)
        #expect(StoreValue.double(2.5).swiftValue(kind: .float) as? Float == 2.5)
        #expect(StoreValue.double(2.5).swiftValue(kind: .double) as? Double == 2.5)
        #expect(StoreValue.decimal(dec("1.25")).swiftValue(kind: .decimal) as? Decimal == dec("1.25"))
        #expect(StoreValue.bool(true).swiftValue(kind: .boolean) as? Bool == true)
        #expect(StoreValue.string("s").swiftValue(kind: .string) as? String == "s")
        #expect(StoreValue.date(day(2)).swiftValue(kind: .date) as? Date == day(2))
        #expect(StoreValue.object(ObjectKey(entityID: 1, primaryKey: 2)).swiftValue(kind: .objectID) as? ObjectKey
            == ObjectKey(entityID: 1, primaryKey: 2))
        #expect(StoreValue.null.swiftValue(kind: .string) == nil)
        // Numbers kept in another numeric case read as the attribute's type.
        #expect(StoreValue.integer(3).swiftValue(kind: .decimal) as? Decimal == 3)
        #expect(StoreValue.double(-3.9).swiftValue(kind: .integer32) as? Int32 == -3)
        #expect(StoreValue.integer(1).swiftValue(kind: .boolean) as? Bool == true)
        // Every accepted value reads back as it was given.
        for (value, kind) in [(Int16(-5), AttributeKind.integer16), (dec("0.3"), .decimal), (Float(0.1), .float)] as [(Any, AttributeKind)] {
            let read = try StoreValue(value, kind: kind).swiftValue(kind: kind)
            #expect(String(describing: read.map { $0 }) == String(describing: Optional(value)))
        }
    }

    @Test("conversion to expression result kinds", arguments: [
        (StoreValue.integer(3), AttributeKind.double, StoreValue.double(3)),
        (.double(2.75), .integer64, .integer(2)),
        (.double(-2.75), .integer16, .integer(-2)),
        (.decimal(dec("9.5")), .integer32, .integer(9)),
        (.integer(5), .decimal, .decimal(5)),
        (.double(0.5), .decimal, .decimal(dec("0.5"))),
        (.integer(0), .boolean, .bool(false)),
        (.double(86_400), .date, .date(day(1))),
        (.date(day(1)), .date, .date(day(1))),
        (.string("s"), .integer64, .string("s")),
        (.null, .double, .null),
    ])
    func converted(value: StoreValue, kind: AttributeKind, expected: StoreValue) {
        #expect(value.converted(to: kind) == expected)
    }

    @Test func inferredValues() {
        #expect(StoreValue(inferring: Int32(4)) == .integer(4))
        #expect(StoreValue(inferring: true) == .bool(true))
        #expect(StoreValue(inferring: 1.5) == .double(1.5))
        #expect(StoreValue(inferring: dec("1.5")) == .decimal(dec("1.5")))
        #expect(StoreValue(inferring: "s") == .string("s"))
        #expect(StoreValue(inferring: nil) == .null)
        #expect(StoreValue(inferring: [ObjectKey(entityID: 1, primaryKey: 1)]) == .objects([ObjectKey(entityID: 1, primaryKey: 1)]))
        #expect(StoreValue(inferring: [1: 2]) == nil)
    }
}
