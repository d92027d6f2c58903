import OpenPredicate
import OpenStoreCore

/// The one-word annotation that makes a property of an `NSManagedObject` subclass read and
/// write the object's managed value of the same name — what `@NSManaged` does on Apple.
///
/// ```swift
/// final class Employee: NSManagedObject {
///     @Managed var name: String?
///     @Managed var salary: Decimal?
///     @Managed var department: Department?
///     @Managed var reports: Set<Employee>
/// }
/// ```
///
/// As with `@NSManaged`, the properties may also be declared in an extension, as Xcode's
/// `+CoreDataProperties.swift` files declare them. Reads and writes behave exactly as
/// `value(forKey:)` and `setValue(_:forKey:)` do (faulting, access hooks, change tracking,
/// validation, inverse relationships); a read of a fetched attribute of a string, number, date,
/// data, UUID, URL or decimal type, or of a to-one relationship, takes the value from the fetched
/// row without going through `Any`. The property's name is the
/// key; when that is not the managed property's name, give the key:
/// `@Managed("title") var heading: String?`.
///
/// A Swift key path to a `@Managed` property names its key, as on Apple:
/// `NSExpression(forKeyPath: \Employee.department?.name)` reads `department.name`, and
/// `NSSortDescriptor(keyPath: \Employee.salary, ascending: false)` sorts fetches by `salary`.
///
/// A non-optional property whose value is nil (an optional attribute never set, an object whose
/// row is gone) reads 0 (`false`) for a number, as Apple's scalar accessors do, and the empty
/// value of `String`, `Data`, `Decimal`, `Date` (the reference date) and `UUID`. Reading a value
/// the property's type cannot hold (an `Int` property of a `String` attribute, a nil `URL`)
/// stops the process with a message naming the property. Integer properties convert between
/// widths (`Int` reads an Integer 64 attribute).
///
/// **Differences from Apple:** `@NSManaged` needs the Objective-C runtime; this is its Linux
/// spelling, a macro that writes the property's `get` and `set` with its key. A key path is
/// named by reading it once on a stand-in object of its class (`KeyPathRecorder`); a
/// non-optional property of a type that is not a number, string, date, data, UUID, URL,
/// decimal, collection, class or managed object cannot be read on a stand-in, and naming its
/// key path stops the process: declare such properties optional.
@attached(accessor)
@attached(peer, names: prefixed(_managed_))
public macro Managed(_ key: String? = nil) = #externalMacro(module: "OpenCoreDataMacros", type: "ManagedMacro")

/// What `@Managed` puts beside a property declared in a class's body: a stored value of no
/// size, so that key paths to the class's plain `var`s can be named. Not for use in your own code.
public struct _ManagedPropertyMarker: Sendable {
    /// A marker.
    public init() {}
}

extension NSManagedObject {
    /// The value of the managed property `key` as a `@Managed` property's type: what the
    /// `get` that `@Managed` writes calls. Not for use in your own code (use
    /// `value(forKey:)`).
    ///
    /// Disfavored: the typed overloads below serve the types they name.
    @_disfavoredOverload
    public final func _managedValue<Value>(forKey key: String) -> Value {
        managedValue(forKey: key, typed: { _, _ in nil }, cast: ManagedValueCast.cast)
    }

    /// `_managedValue(forKey:)` for a to-one relationship: its destination read without going
    /// through `Any`. Not for use in your own code.
    public final func _managedValue<Destination: NSManagedObject>(forKey key: String) -> Destination? {
        if isKeyPathStandIn { return KeyPathRecorder.read(key) }
        guard let (slot, decoding, count) = slotFacts(forKey: key) else {
            return castDestination(value(forKey: key), key: key)
        }
        willAccessValue(forKey: key)
        defer { didAccessValue(forKey: key) }
        fireFault()
        if valuesArePending, case .toOne = decoding, let stored = pendingStoredValue(slot: slot, count: count),
            let destination = pendingDestination(stored, slot: slot)
        {
            guard let destination else { return nil }
            if let typed = destination as? Destination { return typed }
        }
        return castDestination(loadedValue(slot: slot, decoding: decoding, count: count), key: key)
    }

    private func castDestination<Destination: NSManagedObject>(_ value: Any?, key: String) -> Destination? {
        guard let value else { return nil }
        guard let typed = value as? Destination else { managedTypeMismatch(value, key: key, type: Destination?.self) }
        return typed
    }

    /// The value of a `@Managed` property: `typed` reads it straight from a pending fetched row
    /// (nil: not that way), else the property's value as `value(forKey:)` returns it, `cast`.
    /// The access hooks run once either way.
    @inline(__always)
    final func managedValue<Value>(
        forKey key: String, typed: (StoreValue, AttributeKind) -> Value?, cast: (Any?) -> Value?
    ) -> Value {
        if isKeyPathStandIn { return KeyPathRecorder.read(key) }
        let value: Any?
        if let (slot, decoding, count) = slotFacts(forKey: key) {
            willAccessValue(forKey: key)
            defer { didAccessValue(forKey: key) }
            fireFault()
            if valuesArePending, case .attribute(let kind) = decoding,
                let stored = pendingStoredValue(slot: slot, count: count), let result = typed(stored, kind)
            {
                return result
            }
            value = loadedValue(slot: slot, decoding: decoding, count: count)
        } else {
            value = self.value(forKey: key)
        }
        guard let result = cast(value) ?? (value == nil ? ManagedValueCast.empty() : nil) else {
            managedTypeMismatch(value, key: key, type: Value.self)
        }
        return result
    }

    /// The slot of a stored property, how its fetched value decodes and the layout's slot count:
    /// what a read needs of the layout, taken before the access hooks run (so that the layout
    /// need not be kept across them).
    @inline(__always)
    final func slotFacts(forKey key: String) -> (slot: Int, decoding: PropertyLayout.Decoding, count: Int)? {
        // Not retained: what holds the layout outlives this read, which changes nothing. That is
        // the object's state (every object of an entity still editable has one), its ID origin,
        // or its entity (which keeps the layout once it cannot change: `hasFixedLayout`).
        Unmanaged.passUnretained(layout)._withUnsafeGuaranteedRef { layout in
            guard let slot = layout.slot(named: key) else { return nil }
            return (slot, layout.decodings[slot], layout.count)
        }
    }

    private func managedTypeMismatch(_ value: Any?, key: String, type: Any.Type) -> Never {
        AppleException.internalInconsistency(
            "The managed property '\(key)' of \(Swift.type(of: self)) holds \(value.map { "\($0)" } ?? "nil"), which is not \(type)"
        )
    }

    /// Sets the managed property `key` from a `@Managed` property: what the `set` that
    /// `@Managed` writes calls. Not for use in your own code (use `setValue(_:forKey:)`).
    public final func _setManagedValue<Value>(_ newValue: Value, forKey key: String) {
        if isKeyPathStandIn { return }
        setValue(ManagedValueCast.unwrap(newValue), forKey: key)
    }
}

// The `get` of a `@Managed` property of these types reads a fetched value without `Any`: Swift
// picks the overload of the property's type over the generic `_managedValue(forKey:)`.
extension NSManagedObject {
    /// `_managedValue(forKey:)` for `String`. Not for use in your own code.
    public final func _managedValue(forKey key: String) -> String { requiredValue(key, TypedRead.string) }
    /// `_managedValue(forKey:)` for `String?`. Not for use in your own code.
    public final func _managedValue(forKey key: String) -> String? { optionalValue(key, TypedRead.string) }
    /// `_managedValue(forKey:)` for `Int`. Not for use in your own code.
    public final func _managedValue(forKey key: String) -> Int { requiredValue(key, TypedRead.integer) }
    /// `_managedValue(forKey:)` for `Int?`. Not for use in your own code.
    public final func _managedValue(forKey key: String) -> Int? { optionalValue(key, TypedRead.integer) }
    /// `_managedValue(forKey:)` for `Int16`. Not for use in your own code.
    public final func _managedValue(forKey key: String) -> Int16 { requiredValue(key, TypedRead.integer) }
    /// `_managedValue(forKey:)` for `Int16?`. Not for use in your own code.
    public final func _managedValue(forKey key: String) -> Int16? { optionalValue(key, TypedRead.integer) }
    /// `_managedValue(forKey:)` for `Int32`. Not for use in your own code.
    public final func _managedValue(forKey key: String) -> Int32 { requiredValue(key, TypedRead.integer) }
    /// `_managedValue(forKey:)` for `Int32?`. Not for use in your own code.
    public final func _managedValue(forKey key: String) -> Int32? { optionalValue(key, TypedRead.integer) }
    /// `_managedValue(forKey:)` for `Int64`. Not for use in your own code.
    public final func _managedValue(forKey key: String) -> Int64 { requiredValue(key, TypedRead.integer) }
    /// `_managedValue(forKey:)` for `Int64?`. Not for use in your own code.
    public final func _managedValue(forKey key: String) -> Int64? { optionalValue(key, TypedRead.integer) }
    /// `_managedValue(forKey:)` for `Double`. Not for use in your own code.
    public final func _managedValue(forKey key: String) -> Double { requiredValue(key, TypedRead.double) }
    /// `_managedValue(forKey:)` for `Double?`. Not for use in your own code.
    public final func _managedValue(forKey key: String) -> Double? { optionalValue(key, TypedRead.double) }
    /// `_managedValue(forKey:)` for `Float`. Not for use in your own code.
    public final func _managedValue(forKey key: String) -> Float { requiredValue(key, TypedRead.float) }
    /// `_managedValue(forKey:)` for `Float?`. Not for use in your own code.
    public final func _managedValue(forKey key: String) -> Float? { optionalValue(key, TypedRead.float) }
    /// `_managedValue(forKey:)` for `Bool`. Not for use in your own code.
    public final func _managedValue(forKey key: String) -> Bool { requiredValue(key, TypedRead.bool) }
    /// `_managedValue(forKey:)` for `Bool?`. Not for use in your own code.
    public final func _managedValue(forKey key: String) -> Bool? { optionalValue(key, TypedRead.bool) }
    /// `_managedValue(forKey:)` for `Decimal`. Not for use in your own code.
    public final func _managedValue(forKey key: String) -> Decimal { requiredValue(key, TypedRead.decimal) }
    /// `_managedValue(forKey:)` for `Decimal?`. Not for use in your own code.
    public final func _managedValue(forKey key: String) -> Decimal? { optionalValue(key, TypedRead.decimal) }
    /// `_managedValue(forKey:)` for `Date`. Not for use in your own code.
    public final func _managedValue(forKey key: String) -> Date { requiredValue(key, TypedRead.date) }
    /// `_managedValue(forKey:)` for `Date?`. Not for use in your own code.
    public final func _managedValue(forKey key: String) -> Date? { optionalValue(key, TypedRead.date) }
    /// `_managedValue(forKey:)` for `Data`. Not for use in your own code.
    public final func _managedValue(forKey key: String) -> Data { requiredValue(key, TypedRead.data) }
    /// `_managedValue(forKey:)` for `Data?`. Not for use in your own code.
    public final func _managedValue(forKey key: String) -> Data? { optionalValue(key, TypedRead.data) }
    /// `_managedValue(forKey:)` for `UUID`. Not for use in your own code.
    public final func _managedValue(forKey key: String) -> UUID { requiredValue(key, TypedRead.uuid) }
    /// `_managedValue(forKey:)` for `UUID?`. Not for use in your own code.
    public final func _managedValue(forKey key: String) -> UUID? { optionalValue(key, TypedRead.uuid) }
    /// `_managedValue(forKey:)` for `URL`. Not for use in your own code.
    public final func _managedValue(forKey key: String) -> URL { requiredValue(key, TypedRead.url) }
    /// `_managedValue(forKey:)` for `URL?`. Not for use in your own code.
    public final func _managedValue(forKey key: String) -> URL? { optionalValue(key, TypedRead.url) }

    /// `managedValue(forKey:typed:cast:)` for a non-optional type.
    @inline(__always)
    private func requiredValue<Value>(_ key: String, _ typed: (StoreValue, AttributeKind) -> Value?) -> Value {
        managedValue(forKey: key, typed: typed) { value in (value as? Value) ?? ManagedValueCast.cast(value) }
    }

    /// `managedValue(forKey:typed:cast:)` for an optional type: a NULL reads as nil.
    @inline(__always)
    private func optionalValue<Value>(_ key: String, _ typed: (StoreValue, AttributeKind) -> Value?) -> Value? {
        managedValue(
            forKey: key,
            typed: { stored, kind in
                if case .null = stored { return .some(nil) }
                return typed(stored, kind).map { .some($0) }
            },
            cast: { value in
                guard let value else { return .some(nil) }
                return (value as? Value).map { .some($0) } ?? ManagedValueCast.cast(value)
            })
    }
}

/// Reads a fetched value as a Swift type, as `StoreValue.swiftValue(kind:)` and then
/// `ManagedValueCast` would: nil where that is not the simple case (the general path then
/// decides, and reports a mismatch).
enum TypedRead {
    @inline(__always)
    static func string(_ stored: StoreValue, _ kind: AttributeKind) -> String? {
        guard case .string = kind, case .string(let value) = stored else { return nil }
        return value
    }

    /// An integer attribute's value, clamped to the attribute's width as it is read, in the
    /// property's width when it fits.
    @inline(__always)
    static func integer<Integer: FixedWidthInteger>(_ stored: StoreValue, _ kind: AttributeKind) -> Integer? {
        guard case .integer(let value) = stored else { return nil }
        switch kind {
        case .integer16: return Integer(exactly: Int16(clamping: value))
        case .integer32: return Integer(exactly: Int32(clamping: value))
        case .integer64: return Integer(exactly: value)
        default: return nil
        }
    }

    @inline(__always)
    static func double(_ stored: StoreValue, _ kind: AttributeKind) -> Double? {
        guard case .double = kind else { return nil }
        switch stored {
        case .double(let value): return value
        case .integer(let value): return Double(value)
        default: return nil
        }
    }

    @inline(__always)
    static func float(_ stored: StoreValue, _ kind: AttributeKind) -> Float? {
        guard case .float = kind else { return nil }
        switch stored {
        case .double(let value): return Float(value)
        case .integer(let value): return Float(Double(value))
        default: return nil
        }
    }

    @inline(__always)
    static func bool(_ stored: StoreValue, _ kind: AttributeKind) -> Bool? {
        guard case .boolean = kind else { return nil }
        switch stored {
        case .bool(let value): return value
        case .integer(let value): return value != 0
        default: return nil
        }
    }

    @inline(__always)
    static func decimal(_ stored: StoreValue, _ kind: AttributeKind) -> Decimal? {
        guard case .decimal = kind, case .decimal(let value) = stored else { return nil }
        return value
    }

    @inline(__always)
    static func date(_ stored: StoreValue, _ kind: AttributeKind) -> Date? {
        guard case .date = kind, case .date(let value) = stored else { return nil }
        return value
    }

    @inline(__always)
    static func data(_ stored: StoreValue, _ kind: AttributeKind) -> Data? {
        guard case .binary = kind, case .data(let value) = stored else { return nil }
        return value
    }

    @inline(__always)
    static func uuid(_ stored: StoreValue, _ kind: AttributeKind) -> UUID? {
        guard case .uuid = kind, case .uuid(let value) = stored else { return nil }
        return value
    }

    @inline(__always)
    static func url(_ stored: StoreValue, _ kind: AttributeKind) -> URL? {
        guard case .uri = kind, case .url(let value) = stored else { return nil }
        return value
    }
}

/// Converts managed values to a `@Managed` property's type.
package enum ManagedValueCast {
    package static func cast<Value>(_ value: Any?) -> Value? {
        if let value = value as? Value { return value }
        // nil for an optional property.
        if value == nil, let none = Optional<Any>.none as? Value { return none }
        // Integers of another width, numbers as NSNumber.
        if let number = value.flatMap(numberValue) {
            switch Value.self {
            case is Int.Type, is Int?.Type: return Int(exactly: number.int64Value) as? Value
            case is Int16.Type, is Int16?.Type: return Int16(exactly: number.int64Value) as? Value
            case is Int32.Type, is Int32?.Type: return Int32(exactly: number.int64Value) as? Value
            case is Int64.Type, is Int64?.Type: return number.int64Value as? Value
            case is Double.Type, is Double?.Type: return number.doubleValue as? Value
            case is Float.Type, is Float?.Type: return number.floatValue as? Value
            case is Bool.Type, is Bool?.Type: return number.boolValue as? Value
            default: return nil
            }
        }
        return nil
    }

    private static func numberValue(_ value: Any) -> NSNumber? {
        switch value {
        case let value as Int16: return NSNumber(value: value)
        case let value as Int32: return NSNumber(value: value)
        case let value as Int64: return NSNumber(value: value)
        case let value as Int: return NSNumber(value: value)
        case let value as Double: return NSNumber(value: value)
        case let value as Float: return NSNumber(value: value)
        case let value as Bool: return NSNumber(value: value)
        case let value as NSNumber: return value
        default: return nil
        }
    }

    /// What a property of a non-optional type reads while its value is nil (an optional
    /// attribute never set, an object whose row is gone): 0 (`false`) for numbers, as Apple's
    /// scalar accessors read it, and the empty value of `String`, `Data`, `Decimal`, `Date`
    /// (the reference date) and `UUID` (all zeros), where Apple's bridging would stop the
    /// process. Nil for other types.
    static func empty<Value>() -> Value? {
        if let zero: Value = cast(NSNumber(value: 0)) { return zero }
        switch Value.self {
        case is String.Type: return "" as? Value
        case is Data.Type: return Data() as? Value
        case is Decimal.Type: return Decimal(0) as? Value
        case is Date.Type: return Date(timeIntervalSinceReferenceDate: 0) as? Value
        case is UUID.Type: return UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) as? Value
        default: return nil
        }
    }

    /// An optional's wrapped value or nil, so that `setValue` sees nil rather than `.none`.
    static func unwrap<Value>(_ value: Value) -> Any? { ValueSemantics.unwrapOptional(value) }
}
