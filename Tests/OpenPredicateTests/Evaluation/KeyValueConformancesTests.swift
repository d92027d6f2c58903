import Foundation
import Synchronization
import TestSupport
import Testing
@testable import OpenPredicate

// Objects of several kinds that answer `v`: classes (a subclass overriding the read, a generic
// class, an `NSObject` subclass), a subclass of a class that does not conform, a struct, a class
// read through `Mirror`.

class VHolder: KeyValueCodable {
    let v: Any?
    init(_ v: Any?) { self.v = v }
    func value(forKey key: String) -> Any? { key == "v" ? v : nil }
}

/// Answers `v` from its own override: the remembered conformance must still dispatch here.
final class VShadowingHolder: VHolder {
    override func value(forKey key: String) -> Any? { key == "v" ? "shadowed" : super.value(forKey: key) }
}

final class VGenericHolder<Tag>: KeyValueCodable {
    let v: Any?
    init(_ v: Any?) { self.v = v }
    func value(forKey key: String) -> Any? { key == "v" ? v : nil }
}

final class VObject: NSObject, KeyValueCodable {
    let v: Any?
    init(_ v: Any?) { self.v = v }
    func value(forKey key: String) -> Any? { key == "v" ? v : nil }
}

class VPlainBase {
    let v: Any?
    init(_ v: Any?) { self.v = v }
}

/// Conforms where its superclass does not.
final class VConformingSubclass: VPlainBase, KeyValueCodable {
    func value(forKey key: String) -> Any? { key == "v" ? "from subclass" : nil }
}

struct VRow: KeyValueCodable {
    let v: Any?
    func value(forKey key: String) -> Any? { key == "v" ? v : nil }
}

/// `KeyValueConformances` (the `KeyValueCodable` cast remembered per class) and the
/// stored-type reads of `ExactValue` must give the answers of the casts they replace.
@Suite("Evaluation: conformances remembered per class answer as the cast")
struct KeyValueConformancesTests {
    /// `value` inside an object of kind `kind`, stored in `Any` the way the kind says.
    static func object(_ kind: Int, _ value: Any?) -> Any? {
        switch kind {
        case 0: return VHolder(value)
        case 1: return VShadowingHolder(value)
        case 2:
            // Stored as its superclass.
            let holder: VHolder = VShadowingHolder(value)
            return holder
        case 3: return VGenericHolder<Int>(value)
        case 4: return VGenericHolder<String>(value)
        case 5: return VObject(value)
        case 6: return AnyHashable(VObject(value))
        case 7: return Optional(VHolder(value)) as Any
        case 8: return VPlainBase(value)
        case 9:
            // Stored as the superclass that does not conform.
            let base: VPlainBase = VConformingSubclass(value)
            return base
        case 10: return VConformingSubclass(value)
        case 11: return VRow(v: value)
        case 12: return ["v": value ?? NSNull()] as NSDictionary
        case 13:
            var row: [String: Any] = [:]
            if let value { row["v"] = value }
            return row
        case 14: return Optional<VHolder>.none as Any
        default: return nil
        }
    }

    static let kindCount = 16

    /// What `v` reads on `object` the way evaluation read it before conformances were
    /// remembered: a `[String: Any]` by lookup, anything else cast to `KeyValueCodable` every
    /// time (which also looks into optionals and `AnyHashable`), then the general reader.
    static func referenceValue(_ object: Any?) -> Any? {
        if let object, type(of: object) == [String: Any].self, let row = object as? [String: Any] { return row["v"] }
        if let codable = object as? KeyValueCodable { return codable.value(forKey: "v") }
        return KeyValueReader.value(of: object, forKey: "v")
    }

    @Test func rememberedClassesAnswerAsTheCast() {
        for kind in 0..<Self.kindCount {
            // Several rounds: the first casts and remembers, the later ones read remembered types.
            for round in 0..<3 {
                let object = Self.object(kind, round)
                let cast = object.flatMap { $0 as? KeyValueCodable }
                let view = KeyValueConformances.codable(object)
                #expect((cast == nil) == (view == nil), "kind \(kind) round \(round)")
                #expect(
                    ValueSemantics.isEqual(cast?.value(forKey: "v"), view?.value(forKey: "v")),
                    "kind \(kind) round \(round)")
                if let cast, let view, type(of: cast) is AnyClass {
                    #expect((cast as AnyObject) === (view as AnyObject), "kind \(kind) round \(round)")
                }
                let subject = EvaluationSubject(object)
                #expect(
                    ValueSemantics.isEqual(subject.codable.value(forKey: "v"), Self.referenceValue(object)),
                    "kind \(kind) round \(round)")
            }
        }
        // Classes are remembered; structs, optionals and boxes are not (they are cast each time).
        #expect(KeyValueConformances.remembered(VHolder(1) as Any) != nil)
        #expect(KeyValueConformances.remembered(VRow(v: 1) as Any) == nil)
        #expect(KeyValueConformances.remembered(Optional(VHolder(1)) as Any) == nil)
        #expect(KeyValueConformances.remembered(AnyHashable(VObject(1)) as Any) == nil)
        #expect(KeyValueConformances.remembered(VPlainBase(1) as Any) == nil)
        // A subclass stored as a superclass that does not conform is not remembered under it.
        let base: VPlainBase = VConformingSubclass(1)
        #expect(KeyValueConformances.remembered(base as Any) == nil)
        #expect(KeyValueConformances.remembered(VPlainBase(1) as Any) == nil)
    }

    /// Random values of every kind the fast paths know (and the ones they must not take) inside
    /// objects of every kind, through `evaluate(with:)` and `filtered(using:)`, against the
    /// general test on the value the general reader reads.
    @Test func objectsOfEveryKindAnswerAsTheGeneralTest() throws {
        var random = SplitMix64(seed: 0xC1A55)
        for (format, args) in FastPathEquivalenceTests.cases {
            let comparison = try FastPathEquivalenceTests.comparison(format, args)
            let predicate = try semanticsPredicate(format, args)
            let constant = try #require(comparison.right.compileTimeValue, "\(format)").value
            let general = ComparisonTest.make(comparison)
            for _ in 0..<120 {
                let object = Self.object(random.next(below: Self.kindCount), FastPathEquivalenceTests.value(&random))
                let expected = general(Self.referenceValue(object), constant)
                let label = "\(format) on \(String(describing: object))"
                #expect(predicate.evaluate(with: object) == expected, "\(label)")
                #expect([object].filtered(using: predicate).count == (expected ? 1 : 0), "\(label)")
            }
        }
    }

    /// The stored-type reads agree with the type and the cast wherever they answer, and leave
    /// values they cannot read (boxed, optional, of another type) alone.
    @Test func storedTypeReadsAgreeWithCasts() throws {
        var random = SplitMix64(seed: 0x57_04ED)
        for _ in 0..<2000 {
            let value = FastPathEquivalenceTests.value(&random)
            if let number = ValueSemantics.exactNumber(value) {
                let general = value.flatMap { ValueSemantics.number($0) }
                #expect(general.map { ValueSemantics.compare(number, $0) } == .orderedSame, "\(String(describing: value))")
                #expect(number.isSameKind(as: general), "\(String(describing: value))")
            }
            if let string = ValueSemantics.exactly(value, String.self) {
                #expect(value.map { type(of: $0) == String.self } == true)
                #expect(string == value as? String)
            }
            if let integer = ValueSemantics.exactly(value, Int.self) {
                #expect(value.map { type(of: $0) == Int.self } == true)
                #expect(integer == value as? Int)
            }
        }
        // Every integer width managed objects hold, at the edges of a Double's exact range.
        let integers: [Any] = [
            Int64.max, Int64.min, Int64(1) << 53, (Int64(1) << 53) + 1, Int64(-7), Int32.max, Int32.min, Int16.min,
            Int.max, Int.min, true, false, 2.5, -0.0, Double.infinity,
        ]
        for value in integers {
            let fast = ValueSemantics.exactNumber(value)
            let general = ValueSemantics.number(value)
            #expect(fast != nil, "\(value)")
            #expect(fast.map { number in general.map { ValueSemantics.compare(number, $0) } } == .orderedSame, "\(value)")
            #expect(fast?.isSameKind(as: general) == true, "\(value)")
        }
        // Not stored as themselves: left to the general rules.
        let others: [Any?] = [
            nil, NSNumber(value: 3), NSNumber(value: true), Optional(3) as Any, AnyHashable(3), Decimal(3), UInt8(3),
            Float(2.5), "3", "3" as NSString, NSNull(), [3] as NSArray, Int8(3),
        ]
        for value in others {
            #expect(ValueSemantics.exactNumber(value) == nil, "\(String(describing: value))")
            #expect(ValueSemantics.exactly(value, Int.self) == nil, "\(String(describing: value))")
            if !(value is String) {
                #expect(ValueSemantics.exactly(value, String.self) == nil, "\(String(describing: value))")
            }
        }
        // A boxed Swift value (an `NSArray`'s element seen as `Any`) has the type but not the
        // stored type, so it takes the general path, which answers the same.
        let boxed = (["Ann"] as NSArray)[0]
        #expect(ValueSemantics.exactly(boxed, String.self) == nil || ValueSemantics.exactly(boxed, String.self) == "Ann")
        #expect(try semanticsEval(#"SELF == "Ann""#, on: boxed))
    }

    /// Threads meeting new classes at once all get right answers while the table grows.
    @Test func manyThreadsMeetNewClasses() throws {
        let predicate = try semanticsPredicate("v > 10")
        let objects: [Any] = (0..<600).map { index in
            Self.object([0, 1, 2, 3, 4, 5, 10][index % 7], index % 20) ?? NSNull()
        }
        let expected = objects.map { predicate.evaluate(with: $0) }
        let wrong = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            if thread == 0 { KeyValueConformances.forgetAll() }
            for (index, object) in objects.enumerated() where predicate.evaluate(with: object) != expected[index] {
                wrong.withLock { $0 += 1 }
            }
        }
        #expect(wrong.withLock { $0 } == 0)
        #expect(expected.contains(true) && expected.contains(false))
    }
}

extension ValueSemantics.Number {
    /// Whether both are the same case (an exact integer is not a double).
    fileprivate func isSameKind(as other: Self?) -> Bool {
        switch (self, other) {
        case (.int, .int?), (.double, .double?), (.decimal, .decimal?): true
        default: false
        }
    }
}
