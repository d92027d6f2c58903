import OpenPredicate

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
/// `+CoreDataProperties.swift` files declare them. Reads and writes go through
/// `value(forKey:)` and `setValue(_:forKey:)`, so faulting, change tracking, validation and
/// inverse relationships behave exactly as for key-value access. The property's name is the
/// key; when that is not the managed property's name, give the key:
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
/// spelling, a macro that writes the property's `get` and `set` with its key. A key path is
/// named by reading it once on a stand-in object of its class (`KeyPathRecorder`); a
/// non-optional property of a type that is not a number, string, date, data, UUID, URL,
/// decimal, collection, class or managed object cannot be read on a stand-in, and naming its
/// key path stops the process: declare such properties optional.
@attached(accessor)
public macro Managed(_ key: String? = nil) = #externalMacro(module: "OpenCoreDataMacros", type: "ManagedMacro")

extension NSManagedObject {
    /// The value of the managed property `key` as a `@Managed` property's type: what the
    /// `get` that `@Managed` writes calls. Not for use in your own code (use
    /// `value(forKey:)`).
    public final func _managedValue<Value>(forKey key: String) -> Value {
        if isKeyPathStandIn { return KeyPathRecorder.read(key) }
        let value = value(forKey: key)
        guard let typed: Value = ManagedValueCast.cast(value) else {
            AppleException.internalInconsistency(
                "The managed property '\(key)' of \(type(of: self)) holds \(value.map { "\($0)" } ?? "nil"), which is not \(Value.self)"
            )
        }
        return typed
    }

    /// Sets the managed property `key` from a `@Managed` property: what the `set` that
    /// `@Managed` writes calls. Not for use in your own code (use `setValue(_:forKey:)`).
    public final func _setManagedValue<Value>(_ newValue: Value, forKey key: String) {
        if isKeyPathStandIn { return }
        setValue(ManagedValueCast.unwrap(newValue), forKey: key)
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
