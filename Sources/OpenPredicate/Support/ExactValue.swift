/// Reads a value out of an `Any` whose dynamic type is already known to be exactly `T`, without
/// a dynamic cast when the value is stored in the container itself.
///
/// `value as? T` goes through `swift_dynamicCast` (about 150 instructions even when the type
/// matches, 260 for a dictionary), which the predicate engine would pay on every object and
/// every value on top of the cast the caller's own code does. The existential container of
/// `Any` is ABI: three words of inline buffer, then the stored type's metadata. A type no
/// larger than the buffer, no more aligned than a word and bitwise-takable is stored inline at
/// offset 0, so when the container's metadata word is `T`'s the value is a plain load. The types
/// this is used for (`Int`, `Double`, `Bool`, `String`, `Date`, `[String: Any]`) are all of that
/// kind. Anything else — a larger type, or a container holding a box whose dynamic type is `T`
/// (`type(of:)` looks through the `__SwiftValue` boxes values get inside Foundation
/// collections) — is cast as usual.
package enum ExactValue {
    /// `value` as a `T`, when `type(of: value) == T.self` (the caller checked).
    @inline(__always)
    static func load<T>(_ value: Any, as type: T.Type) -> T? {
        guard fitsInline(T.self) else { return value as? T }
        let metadata = unsafeBitCast(T.self as Any.Type, to: UnsafeRawPointer.self)
        let loaded = withUnsafePointer(to: value) { pointer -> T? in
            let container = UnsafeRawPointer(pointer)
            let stored = container.load(fromByteOffset: 3 * MemoryLayout<Int>.size, as: UnsafeRawPointer.self)
            return stored == metadata ? container.load(as: T.self) : nil
        }
        return loaded ?? value as? T
    }

    /// The type metadata word of `value`'s `Any` container: the type the value was stored as;
    /// nil for nil.
    ///
    /// This is not always `type(of: value)`: a class instance stored under a superclass type
    /// gives the superclass, and a Swift value boxed by Foundation gives the box's class. What
    /// it saves is the runtime call `type(of:)` makes on an existential; callers that compare it
    /// with a type only ever take a fast path for a value stored as exactly that type, and leave
    /// every other one to the general code.
    @inline(__always)
    static func storedType(_ value: borrowing Any?) -> UnsafeRawPointer? {
        // `Any?` has `Any`'s layout, `nil` a null metadata word (its first extra inhabitant);
        // the size check is folded away when it holds.
        guard MemoryLayout<Any?>.size == MemoryLayout<Any>.size else { return nil }
        return withUnsafePointer(to: value) { pointer in
            UnsafeRawPointer(pointer).load(fromByteOffset: 3 * MemoryLayout<Int>.size, as: UnsafeRawPointer?.self)
        }
    }

    /// The metadata word of values stored as `T`.
    @inline(__always)
    static func metadata<T>(_ type: T.Type) -> UnsafeRawPointer {
        unsafeBitCast(T.self as Any.Type, to: UnsafeRawPointer.self)
    }

    /// `value` as a `T` when it is stored as exactly `T` in its container's inline buffer
    /// (`storedType(value)` is `T`'s metadata); nil otherwise, also for values a cast would
    /// bridge, unbox or unwrap into a `T`.
    @inline(__always)
    static func loadStored<T>(_ value: borrowing Any?, as type: T.Type) -> T? {
        withUnsafePointer(to: value) { loadStored(at: $0, as: type) }
    }

    /// `loadStored(_:as:)` for a value read where it is held.
    @inline(__always)
    static func loadStored<T>(at value: UnsafePointer<Any?>, as type: T.Type) -> T? {
        guard fitsInline(T.self), MemoryLayout<Any?>.size == MemoryLayout<Any>.size else { return nil }
        let container = UnsafeRawPointer(value)
        let stored = container.load(fromByteOffset: 3 * MemoryLayout<Int>.size, as: UnsafeRawPointer?.self)
        return stored == metadata(T.self) ? container.load(as: T.self) : nil
    }

    /// The class instance in `value` when it is stored as the class whose metadata is `type`;
    /// nil otherwise.
    @inline(__always)
    static func storedReference(_ value: borrowing Any?, storedAs type: UnsafeRawPointer) -> AnyObject? {
        guard MemoryLayout<Any?>.size == MemoryLayout<Any>.size else { return nil }
        return withUnsafePointer(to: value) { pointer -> AnyObject? in
            let container = UnsafeRawPointer(pointer)
            let stored = container.load(fromByteOffset: 3 * MemoryLayout<Int>.size, as: UnsafeRawPointer?.self)
            guard stored == type else { return nil }
            return container.load(as: AnyObject.self)
        }
    }

    /// The class instance `value` holds when it holds one as itself: its container's stored type
    /// is a class (the metadata's kind word is 0, `MetadataKind::Class`, where there is no
    /// Objective-C interop); nil for nil and for anything else, also for values a cast would
    /// unbox or bridge into an object (`AnyHashable`, an optional in an `Any`).
    ///
    /// For `isEqual(_:)` overrides on hot paths: `Set` and `Dictionary` compare `NSObject`s
    /// through it, and `object as? T` on an `Any?` costs some 500 instructions (a dynamic cast
    /// that asks for protocol conformances), where a class-to-class cast of the instance costs
    /// a superclass walk.
    @inline(__always)
    package static func storedObject(_ value: borrowing Any?) -> AnyObject? {
        #if canImport(ObjectiveC)
            return nil
        #else
            guard let stored = storedType(value), stored.load(as: UInt.self) == 0 else { return nil }
            return withUnsafePointer(to: value) { UnsafeRawPointer($0).load(as: AnyObject.self) }
        #endif
    }

    /// Whether `T` is stored in an existential's inline buffer: at most three words, at most
    /// word-aligned. (Bitwise-takability cannot be asked; every type used here is.)
    @inline(__always)
    static func fitsInline<T>(_ type: T.Type) -> Bool {
        MemoryLayout<T>.size <= 3 * MemoryLayout<Int>.size && MemoryLayout<T>.alignment <= MemoryLayout<Int>.alignment
    }
}
