import Foundation
import Synchronization

/// `object as? KeyValueCodable`, with the conformance found once per type instead of once per
/// object.
///
/// The cast searches the runtime's conformance cache (for a class, walking its superclasses)
/// and copies the value through the general dynamic-cast machinery: about 800 instructions,
/// which `evaluate(with:)` would pay on every object before reading a single key. Here the
/// first object of a type is cast as usual, and its type is remembered with a reader that
/// turns any later value stored as that type into the same `KeyValueCodable` view by a plain
/// load: one comparison of the type word of the `Any` container and a call.
///
/// A type is remembered only when it is a class and the cast found the conformance on the very
/// type the value was stored as (`ExactValue.storedType`), so the answer depends on the type
/// alone:
/// - a class instance stored as its class or a superclass that conforms: every instance
///   stored so gets the same conformance (a subclass cannot conform again), and `value(forKey:)`
///   dispatches to the subclass's override as it does after the cast;
/// - not an `Optional`, an `AnyHashable` or a boxed Swift value, which the cast looks into
///   (what it finds depends on the value), not a struct (it may be stored out of line), and not
///   a type that does not conform: those are cast each time, as before.
///
/// Readers live in an immutable table published through one atomic pointer: readers never
/// lock; a new type (rare, and at most `capacity` of them) copies the table under a lock and
/// publishes the copy. Tables are never freed, so a reader holding an old one stays safe.
enum KeyValueConformances {
    /// How many types are remembered; any further type is cast every time.
    static let capacity = 32

    /// The `KeyValueCodable` view of `object`, or nil when it does not conform.
    @inline(__always)
    static func codable(_ object: Any?) -> KeyValueCodable? {
        if let remembered = remembered(object) { return remembered }
        guard let object else { return nil }
        return castAndRemember(object)
    }

    /// The `KeyValueCodable` view of `object` when its type is remembered; nil when it is not
    /// (the caller casts).
    @inline(__always)
    static func remembered(_ object: Any?) -> KeyValueCodable? { rememberedSubject(object)?.codable }

    /// `EvaluationSubject(object)` when the type of `object` is remembered; nil when it is not
    /// (the caller casts).
    @inline(__always)
    static func rememberedSubject(_ object: Any?) -> EvaluationSubject? {
        guard let stored = ExactValue.storedType(object), let raw = published.load(ordering: .acquiring) else {
            return nil
        }
        // The reader is called inside: the table, which holds it, is not retained, and so
        // neither is the reader.
        return Unmanaged<Table>.fromOpaque(raw)._withUnsafeGuaranteedRef { $0.subject(object, storedAs: stored) }
    }

    /// The cast, for a type not remembered yet; remembers the type when its answer holds for
    /// every value stored as it.
    @inline(never)
    static func castAndRemember(_ object: Any) -> KeyValueCodable? {
        guard let codable = object as? KeyValueCodable else { return nil }
        if let stored = ExactValue.storedType(object), let reader = makeReader(codable, storedAs: stored) {
            remember(reader)
        }
        return codable
    }

    /// A reader for the dynamic type of `value` (opened from the existential), when that is
    /// the type the original value was stored as.
    private static func makeReader<T: KeyValueCodable>(_ value: T, storedAs stored: UnsafeRawPointer) -> Reader? {
        // Classes only: a reference is always stored in the container's inline buffer, where a
        // struct may be boxed (too large, or not bitwise-takable), which its size cannot tell.
        guard ExactValue.metadata(T.self) == stored, T.self is AnyClass else { return nil }
        if let scalar = value as? ScalarKeyValueCodable, let reader = makeScalarReader(scalar, storedAs: stored) {
            return reader
        }
        return TypedReader<T>(type: stored)
    }

    /// `makeReader(_:storedAs:)` for a type that reads integers and strings without an `Any`;
    /// nil when its objects do not (`testsScalarValues`), or when the value was stored as
    /// another class than its own: a class-bound existential holds no type, so `T` opened from
    /// it is the instance's own class, where a value stored as a superclass has `stored` the
    /// superclass's (and later values stored so may be of other subclasses).
    private static func makeScalarReader<T: ScalarKeyValueCodable>(_ value: T, storedAs stored: UnsafeRawPointer)
        -> Reader?
    {
        guard ExactValue.metadata(T.self) == stored, T.testsScalarValues else { return nil }
        return ScalarReader<T>(type: stored)
    }

    private static func remember(_ reader: Reader) {
        // A full table stays full: types past `capacity` are cast without taking the lock.
        if let raw = published.load(ordering: .acquiring),
            Unmanaged<Table>.fromOpaque(raw)._withUnsafeGuaranteedRef({ $0.readers.count >= capacity })
        {
            return
        }
        withTables { tables in
            let current = tables.last?.readers ?? []
            guard current.count < capacity, !current.contains(where: { $0.type == reader.type }) else { return }
            let table = Table(readers: current + [reader])
            // Kept for ever: a reader may still be scanning an older table.
            tables.append(table)
            published.store(Unmanaged.passUnretained(table).toOpaque(), ordering: .releasing)
        }
    }

    /// Forgets every remembered type (tests).
    static func forgetAll() {
        withTables { tables in
            published.store(nil, ordering: .releasing)
            tables.append(Table(readers: []))
        }
    }

    /// The types remembered now (tests).
    static var rememberedCount: Int {
        withTables { tables in tables.last?.readers.count ?? 0 }
    }

    // Shared through atomic loads and stores only (acquire/release); the pointer type is what
    // keeps `Atomic` from being Sendable.
    nonisolated(unsafe) private static let published = Atomic<UnsafeMutableRawPointer?>(nil)
    /// Every table made, guarded by `lock`. A pthread mutex (`NSLock`) rather than
    /// `Synchronization.Mutex`, whose futex ThreadSanitizer cannot see: it reported the tables'
    /// accesses under that lock as races. The lock is taken only for a type not remembered yet.
    nonisolated(unsafe) private static var tables: [Table] = []
    private static let lock = NSLock()

    private static func withTables<Result>(_ body: (inout [Table]) -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return body(&tables)
    }

    /// An immutable set of readers.
    final class Table: Sendable {
        let readers: [Reader]
        /// The same readers, scanned without retaining them (`readers` keeps them alive).
        private let unretained: [Unmanaged<Reader>]

        init(readers: [Reader]) {
            self.readers = readers
            self.unretained = readers.map { Unmanaged.passUnretained($0) }
        }

        /// `EvaluationSubject(object)` from the reader of `stored`, the type `object` is stored
        /// as; nil when no reader has that type.
        @inline(__always)
        func subject(_ object: Any?, storedAs stored: UnsafeRawPointer) -> EvaluationSubject? {
            for reader in unretained where reader._withUnsafeGuaranteedRef({ $0.type == stored }) {
                return reader._withUnsafeGuaranteedRef { $0.subject(object) }
            }
            return nil
        }
    }

    /// Turns a value stored as `type` into its `KeyValueCodable` view.
    class Reader: @unchecked Sendable {
        // @unchecked Sendable: immutable once made (and subclasses add no state).

        /// The type metadata the value is stored as.
        let type: UnsafeRawPointer

        init(type: UnsafeRawPointer) { self.type = type }

        func codable(_ object: Any?) -> KeyValueCodable? { nil }

        func subject(_ object: Any?) -> EvaluationSubject? { codable(object).map(EvaluationSubject.init(codable:)) }
    }

    /// The reader of values stored as `T`.
    class TypedReader<T: KeyValueCodable>: Reader, @unchecked Sendable {
        // @unchecked Sendable: as `Reader`.

        override final func codable(_ object: Any?) -> KeyValueCodable? {
            // The caller compared the type word, so the load does not miss; if it did, the cast
            // would answer. Nothing here is generic over `T` but the final bit cast (a reference
            // to a reference): a generic load would ask the runtime for `Optional<T>`'s
            // metadata on every call.
            guard let reference = ExactValue.storedReference(object, storedAs: type) else {
                return object as? KeyValueCodable
            }
            return unsafeBitCast(reference, to: T.self)
        }
    }

    /// The reader of values stored as `T`, which reads integers and strings without an `Any`.
    final class ScalarReader<T: ScalarKeyValueCodable>: TypedReader<T>, @unchecked Sendable {
        // @unchecked Sendable: as `Reader`.

        override func subject(_ object: Any?) -> EvaluationSubject? {
            // As `codable(_:)`, keeping the view's type.
            guard let reference = ExactValue.storedReference(object, storedAs: type) else { return super.subject(object) }
            return EvaluationSubject(scalar: unsafeDowncast(reference, to: T.self))
        }
    }
}
