import Foundation
import Synchronization

/// Whether a class overrides one of `NSManagedObject`'s open methods that a save or a predicate
/// calls on each object, read from its vtable, so that they skip what only the base method
/// would do:
///
/// - `validateValue(_:forKey:)`: a save sends every property of an object through it only when
///   its class overrides it (boxing each value as an `AnyObject` for a call that only looks the
///   key up again cost a third more on a save of typed objects without rules, `SaveBenchmarks`);
/// - `value(forKey:)`: a predicate reads a fetched integer or string attribute of an object
///   whose class does not override it without boxing the value
///   (`NSManagedObject.scalarTest(forKey:_:)`);
/// - `validateForInsert()`, `willSave()`, `didSave()`: while no class registered so far
///   (`ManagedClassRegistry`, which every object's class passes through before it is in a
///   context) overrides the method, a save makes no pass over its objects to call it where the
///   base method would do nothing (each pass over 10^5 new objects costs a cache miss or more on
///   each).
///
/// A class's metadata holds its superclasses' vtable entries at the same places as theirs. Two
/// private classes, one overriding the method and one not, differ from `NSManagedObject` in
/// several words (their own descriptor, initializers); the one word in which only the overriding
/// class differs is the method's entry. A class overrides the method when its word there is not
/// `NSManagedObject`'s. Where that word is not found exactly once (another runtime layout), every
/// class counts as overriding it: slower, never wrong.
final class MethodOverride: Sendable {
    private final class Plain: NSManagedObject {}

    private final class ValidateValue: NSManagedObject {
        override func validateValue(_ value: AutoreleasingUnsafeMutablePointer<AnyObject?>, forKey key: String) throws {
            try super.validateValue(value, forKey: key)
        }
    }

    private final class ValidateForInsert: NSManagedObject {
        override func validateForInsert() throws { try super.validateForInsert() }
    }

    private final class WillSave: NSManagedObject {
        override func willSave() { super.willSave() }
    }

    private final class DidSave: NSManagedObject {
        override func didSave() { super.didSave() }
    }

    private final class ValueForKey: NSManagedObject {
        override func value(forKey key: String) -> Any? { super.value(forKey: key) }
    }

    static let validateValue = MethodOverride(overriddenBy: ValidateValue.self)
    static let validateForInsert = MethodOverride(overriddenBy: ValidateForInsert.self)
    static let willSave = MethodOverride(overriddenBy: WillSave.self)
    static let didSave = MethodOverride(overriddenBy: DidSave.self)
    /// `value(forKey:)`, which a predicate's test reads keys through (see
    /// `NSManagedObject.testsScalarValues`).
    static let valueForKey = MethodOverride(overriddenBy: ValueForKey.self)
    /// The methods `ManagedClassRegistry` notes for each class it registers, by name.
    static let named = [
        (name: "validateValue", method: validateValue), (name: "validateForInsert", method: validateForInsert),
        (name: "willSave", method: willSave), (name: "didSave", method: didSave),
    ]

    /// The index of the method's entry among the words of a class's metadata, if found.
    private let entry: Int?
    /// `NSManagedObject`'s word at the entry.
    private let baseWord: UInt?
    /// The classes asked about so far, and their answers.
    private let known = Mutex<[ObjectIdentifier: Bool]>([:])
    /// The class asked last and its answer, in one word (its address, the answer in the low
    /// bit, which metadata alignment leaves free), read without the lock: a save asks for every
    /// object, most of one class.
    private let last = Atomic<UInt>(0)
    /// Whether a class registered so far overrides the method (see `noteRegistered(_:)`).
    private let overriddenByRegisteredClass = Atomic(false)

    private init(overriddenBy overriding: NSManagedObject.Type) {
        #if _runtime(_ObjC)
            entry = nil
        #else
            let base = Self.words(of: NSManagedObject.self), plain = Self.words(of: Plain.self)
            let overridingWords = Self.words(of: overriding)
            if plain.count >= base.count, overridingWords.count >= base.count {
                let candidates = base.indices.filter { base[$0] == plain[$0] && overridingWords[$0] != base[$0] }
                entry = candidates.count == 1 ? candidates[0] : nil
            } else {
                entry = nil
            }
        #endif
        baseWord = entry.map { Self.words(of: NSManagedObject.self)[$0] }
    }

    /// Whether `type` (or a class between it and `NSManagedObject`) overrides the method.
    func isOverridden(by type: NSManagedObject.Type) -> Bool {
        if type == NSManagedObject.self { return false }
        guard let entry, let baseWord else { return true }
        let key = ObjectIdentifier(type)
        let address = UInt(bitPattern: key)
        let cached = last.load(ordering: .relaxed)
        if cached & ~1 == address { return cached & 1 == 1 }
        let overrides = known.withLock { known in
            if let found = known[key] { return found }
            let classWords = Self.words(of: type)
            let overrides = entry >= classWords.count || classWords[entry] != baseWord
            known[key] = overrides
            return overrides
        }
        last.store(address | (overrides ? 1 : 0), ordering: .relaxed)
        return overrides
    }

    /// Notes a class that objects in contexts may have (`ManagedClassRegistry.register(_:)`).
    func noteRegistered(_ type: NSManagedObject.Type) {
        if isOverridden(by: type) { overriddenByRegisteredClass.store(true, ordering: .relaxed) }
    }

    /// Whether a class registered so far overrides the method: false means that every object in
    /// a context runs `NSManagedObject`'s own.
    var isOverriddenByAnyClass: Bool { overriddenByRegisteredClass.load(ordering: .relaxed) }

    /// The words of a class's metadata from its address point to its end (its `classSize`
    /// less its `classAddressPoint`, read from the metadata's header).
    private static func words(of type: AnyClass) -> [UInt] {
        let metadata = unsafeBitCast(type, to: UnsafeRawPointer.self)
        // Kind and superclass (8 bytes each), flags, instance address point and size (4 each),
        // alignment mask and reserved (2 each), then the class size and address point.
        let classSize = Int(metadata.load(fromByteOffset: 32, as: UInt32.self))
        let addressPoint = Int(metadata.load(fromByteOffset: 36, as: UInt32.self))
        let count = (classSize - addressPoint) / MemoryLayout<UInt>.stride
        guard count > 0, count < 4_096 else { return [] }
        return Array(UnsafeBufferPointer(start: metadata.assumingMemoryBound(to: UInt.self), count: count))
    }
}
