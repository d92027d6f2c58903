/// Reads a value out of an `Any` whose dynamic type is already known to be exactly `T`, without
/// a dynamic cast.
///
/// `value as? T` goes through `swift_dynamicCast` (about 150 instructions even when the type
/// matches, 260 for a dictionary), which the predicate engine would pay on every object and
/// every value on top of the cast the caller's own code does. The existential container of
/// `Any` is ABI: three words of inline buffer and the type's metadata. A type no larger than
/// the buffer, no more aligned than a word and bitwise-takable is stored inline at offset 0, so
/// once the metadata says `T` the value is a plain load. The types this is used for (`Int`,
/// `Double`, `Bool`, `String`, `Date`, `[String: Any]`) are all of that kind; debug builds
/// check the size and alignment, and fall back to the cast for anything else.
enum ExactValue {
    /// `value` as a `T`, when `type(of: value) == T.self` (the caller checked).
    @inline(__always)
    static func load<T>(_ value: Any, as type: T.Type) -> T? {
        guard fitsInline(T.self) else { return value as? T }
        assert(Swift.type(of: value) == T.self, "ExactValue.load: the caller checks the type")
        return withUnsafePointer(to: value) { UnsafeRawPointer($0).load(as: T.self) }
    }

    /// Whether `T` is stored in an existential's inline buffer: at most three words, at most
    /// word-aligned. (Bitwise-takability cannot be asked; every type used here is.)
    @inline(__always)
    static func fitsInline<T>(_ type: T.Type) -> Bool {
        MemoryLayout<T>.size <= 3 * MemoryLayout<Int>.size && MemoryLayout<T>.alignment <= MemoryLayout<Int>.alignment
    }
}
