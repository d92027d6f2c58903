import OpenPredicate

/// The one-word annotation that makes a stored property of an `NSManagedObject` subclass read
/// and write the object's managed value of the same name — what `@NSManaged` does on Apple.
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
/// Reads and writes go through `value(forKey:)` and `setValue(_:forKey:)`, so faulting, change
/// tracking, validation and inverse relationships behave exactly as for key-value access. The
/// property's name is the key; when that is not the managed property's name, give the key:
/// `@Managed("title") var heading: String?`.
///
/// A Swift key path to a `@Managed` property names its key, as on Apple:
/// `NSExpression(forKeyPath: \Employee.department?.name)` reads `department.name`, and
/// `NSSortDescriptor(keyPath: \Employee.salary, ascending: false)` sorts fetches by `salary`.
///
/// Reading a value the property's type cannot hold (a non-optional property whose value is nil,
/// an `Int` property of a `String` attribute) stops the process with a message naming the
/// property; declare properties optional when they may be nil. Integer properties convert
/// between widths (`Int` reads an Integer 64 attribute).
///
/// **Differences from Apple:** `@NSManaged` needs the Objective-C runtime; this is its Linux
/// spelling. The name is read from Swift's reflection metadata on first use (keep it in release
/// builds: do not pass `-disable-reflection-metadata`), or given explicitly. A key path is named
/// by reading it once on a stand-in object of its class (`KeyPathRecorder`); a non-optional
/// property of a type that is not a number, string, date, data, UUID, URL, decimal,
/// collection, class or managed object cannot be read on a stand-in, and naming its key path
/// stops the process: declare such properties optional.
@propertyWrapper
public struct Managed<Value> {
    /// The managed property's name, once known.
    private var key: String?

    /// Uses the Swift property's name as the key.
    public init() {}

    /// Uses `key` as the managed property's name.
    public init(_ key: String) {
        self.key = key
    }

    /// Not available: a managed property lives in its object (use it through the object).
    @available(*, unavailable, message: "@Managed properties can only be declared in NSManagedObject subclasses")
    public var wrappedValue: Value {
        get { AppleException.internalInconsistency("@Managed is only for NSManagedObject subclasses") }
        // swift-format-ignore: NoEmptyBlock
        set {}
    }

    /// The value of the managed property named like this Swift property.
    public static subscript<Object: NSManagedObject>(
        _enclosingInstance object: Object, wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Object, Managed<Value>>
    ) -> Value {
        get {
            let key = name(in: object, storage: storageKeyPath)
            if object.isKeyPathStandIn { return KeyPathRecorder.read(key) }
            let value = object.value(forKey: key)
            guard let typed: Value = ManagedValueCast.cast(value) else {
                AppleException.internalInconsistency(
                    "The managed property '\(key)' of \(type(of: object)) holds \(value.map { "\($0)" } ?? "nil"), which is not \(Value.self)"
                )
            }
            return typed
        }
        set {
            if object.isKeyPathStandIn { return }
            object.setValue(ManagedValueCast.unwrap(newValue), forKey: name(in: object, storage: storageKeyPath))
        }
    }

    /// The key: given, cached, or read once from the storage key path (`\Employee._name`).
    private static func name<Object: NSManagedObject>(
        in object: Object, storage: ReferenceWritableKeyPath<Object, Managed<Value>>
    ) -> String {
        if let key = object[keyPath: storage].key { return key }
        let path = storage.debugDescription
        let field = path.split(separator: ".").last.map(String.init) ?? path
        let key = field.hasPrefix("_") ? String(field.dropFirst()) : field
        object[keyPath: storage].key = key
        return key
    }
}

/// Converts managed values to a `@Managed` property's type.
enum ManagedValueCast {
    static func cast<Value>(_ value: Any?) -> Value? {
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

    /// An optional's wrapped value or nil, so that `setValue` sees nil rather than `.none`.
    static func unwrap<Value>(_ value: Value) -> Any? { ValueSemantics.unwrapOptional(value) }
}
