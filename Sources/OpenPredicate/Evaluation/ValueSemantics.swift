import Foundation

/// How predicate values compare: Apple's `isEqual:` and `compare:` rules, over the values Swift
/// and Foundation users pass (any integer or floating-point width, `Decimal`, `Bool`, `NSNumber`,
/// strings, dates, data, UUIDs, URLs, collections, `NSNull`).
///
/// Choices where Apple is silent or raises:
/// - Numbers compare by value across types (`2 == 2.0`, `true == 1`), as `NSNumber` does.
/// - A number and a string are never equal, and have no order (Apple raises; we answer false).
/// - `nil` and `NSNull` are equal to each other; an ordering comparison with either is false.
/// - A `PredicateIdentity` value (a store's row view) is equal to what it stands for (its key).
package enum ValueSemantics {
    /// A number reduced to the widest exact representation we need to compare it. Stores use it
    /// too, so that their native comparisons agree with predicates'.
    package enum Number {
        case int(Int64)
        case double(Double)
        case decimal(Decimal)

        var doubleValue: Double {
            switch self {
            case .int(let value): Double(value)
            case .double(let value): value
            case .decimal(let value): value.nearestDouble
            }
        }

        var decimalValue: Decimal {
            switch self {
            case .int(let value): Decimal(value)
            case .double(let value): Decimal(spelling: value)
            case .decimal(let value): value
            }
        }
    }

    /// `Optional<Optional<…>>` boxed in `Any` is flattened to a plain value or `nil`.
    ///
    /// The checks here and in `isNSNull` ask the value's type, not the value: on Linux a cast
    /// of a bridgeable value (a `String`, an array, a dictionary) to a protocol or a class that
    /// it does not match first bridges it to a Foundation object, several times the cost of the
    /// whole check (a dictionary is copied into an `NSDictionary`).
    @inline(__always)
    package static func unwrapOptional(_ value: Any?) -> Any? {
        guard let value else { return nil }
        if type(of: value) is OptionalBox.Type, let optional = value as? OptionalBox {
            return optional.flattened
        }
        return value
    }

    /// True for `NSNull` (see `unwrapOptional` for why the type is asked).
    @inline(__always)
    package static func isNSNull(_ value: Any) -> Bool { type(of: value) is NSNull.Type }

    /// One `NSNull` for every "no value" a dictionary or array holds, as Apple's `[NSNull null]`
    /// is one object: on Linux `NSNull()` allocates a new one each time (one per changed
    /// property of every new object, once, in the change it records).
    package static let null = NSNull()

    /// `value as? T` for a class `T` that no value type bridges to (`NSManagedObject`, a
    /// relationship fault), with values that are not class instances ruled out by their type
    /// (see `unwrapOptional`): asking whether a to-many relationship's array is a fault would
    /// otherwise turn the whole array into an `NSArray`.
    @inline(__always)
    package static func objectCast<T: AnyObject>(_ value: Any?, to type: T.Type) -> T? {
        guard let value, Swift.type(of: value) is AnyClass else { return nil }
        return value as? T
    }

    /// True for `nil`, `NSNull`, and an `Optional.none` hidden inside `Any`.
    @inline(__always)
    static func isNil(_ value: Any?) -> Bool {
        guard let value = unwrapOptional(value) else { return true }
        return isNSNull(value)
    }

    /// `value` when it is stored as exactly `T` (`ExactValue.storedType`); nil for anything else,
    /// also for values that a cast would bridge, unbox or unwrap into a `T` (an `NSNumber`, an
    /// `Optional<T>` inside `Any`, a `T` boxed by Foundation). Fast paths take these values and
    /// leave every other one to the general rules. `T` must be stored inline in `Any` (`Int`,
    /// `Double`, `Bool`, `String`, `Date`, …); for any other type the answer is always nil.
    @inline(__always)
    static func exactly<T>(_ value: Any?, _ type: T.Type) -> T? {
        ExactValue.loadStored(value, as: T.self)
    }

    /// `exactly(_:_:)` for the types managed objects hold, for other modules (where a generic
    /// call would not be specialized), reading the value where it is held (passing an `Any?` to
    /// another module copies it first): one read of the container's type word, no runtime cast.
    package static func exactly(at value: UnsafePointer<Any?>, _ type: String.Type) -> String? {
        ExactValue.loadStored(at: value, as: type)
    }
    package static func exactly(at value: UnsafePointer<Any?>, _ type: Int64.Type) -> Int64? {
        ExactValue.loadStored(at: value, as: type)
    }
    package static func exactly(at value: UnsafePointer<Any?>, _ type: Int32.Type) -> Int32? {
        ExactValue.loadStored(at: value, as: type)
    }
    package static func exactly(at value: UnsafePointer<Any?>, _ type: Int16.Type) -> Int16? {
        ExactValue.loadStored(at: value, as: type)
    }
    package static func exactly(at value: UnsafePointer<Any?>, _ type: Double.Type) -> Double? {
        ExactValue.loadStored(at: value, as: type)
    }
    package static func exactly(at value: UnsafePointer<Any?>, _ type: Date.Type) -> Date? {
        ExactValue.loadStored(at: value, as: type)
    }
    package static func exactly(at value: UnsafePointer<Any?>, _ type: Bool.Type) -> Bool? {
        ExactValue.loadStored(at: value, as: type)
    }

    /// `number(_:)` for a value stored as exactly `Int`, `Double`, `Bool`, `Int64`, `Int32` or
    /// `Int16` (what managed objects' integer attributes hold), with the answer `number(_:)`
    /// gives (which reads the last three as the `NSNumber`s they bridge to); nil for any other
    /// value, which the caller leaves to `number(_:)`. One read of the container's type word,
    /// no runtime call.
    @inline(__always)
    static func exactNumber(_ value: Any?) -> Number? {
        guard let type = ExactValue.storedType(value) else { return nil }
        return withUnsafePointer(to: value) { pointer -> Number? in
            let container = UnsafeRawPointer(pointer)
            if type == ExactValue.metadata(Int.self) { return .int(Int64(container.load(as: Int.self))) }
            if type == ExactValue.metadata(Int64.self) {
                // As `number(nsNumber:)` reads an NSNumber of it.
                let integer = container.load(as: Int64.self)
                let double = Double(integer)
                return double.magnitude < 9.2e18 ? .int(integer) : .double(double)
            }
            if type == ExactValue.metadata(Double.self) { return .double(container.load(as: Double.self)) }
            if type == ExactValue.metadata(Bool.self) { return .int(container.load(as: Bool.self) ? 1 : 0) }
            if type == ExactValue.metadata(Int32.self) { return .int(Int64(container.load(as: Int32.self))) }
            if type == ExactValue.metadata(Int16.self) { return .int(Int64(container.load(as: Int16.self))) }
            return nil
        }
    }

    /// The number inside `value`, if it is one (integers of any width, floats, `Decimal`, `Bool`,
    /// `NSNumber`).
    static func number(_ value: Any) -> Number? {
        switch value {
        case let value as Int: return .int(Int64(value))
        case let value as Double: return .double(value)
        case let value as Bool: return .int(value ? 1 : 0)
        case let value as NSNumber: return number(nsNumber: value)
        case let value as Decimal: return .decimal(value)
        case let value as Float: return .double(Double(value))
        case let value as Int64: return .int(value)
        case let value as Int32: return .int(Int64(value))
        case let value as Int16: return .int(Int64(value))
        case let value as Int8: return .int(Int64(value))
        // Above Int64.max, Decimal (38 digits) keeps the value exact.
        case let value as UInt:
            return value <= UInt(Int64.max) ? .int(Int64(value)) : .decimal(Decimal(UInt64(value)))
        case let value as UInt64:
            return value <= UInt64(Int64.max) ? .int(Int64(value)) : .decimal(Decimal(value))
        case let value as UInt32: return .int(Int64(value))
        case let value as UInt16: return .int(Int64(value))
        case let value as UInt8: return .int(Int64(value))
        case let value as CGFloat: return .double(Double(value))
        default: return nil
        }
    }

    private static func number(nsNumber: NSNumber) -> Number {
        if let decimal = nsNumber as? NSDecimalNumber {
            return .decimal(decimal.decimalValue)
        }
        let unsigned = nsNumber.uint64Value
        if unsigned > UInt64(Int64.max), Double(unsigned) == nsNumber.doubleValue {
            return .decimal(Decimal(unsigned))
        }
        let double = nsNumber.doubleValue
        let integer = nsNumber.int64Value
        if Double(integer) == double, double.magnitude < 9.2e18 {
            return .int(integer)
        }
        return .double(double)
    }

    /// The string inside `value`, if it is one (`String`, `Substring`, `NSString`, `Character`).
    @inline(__always)
    static func string(_ value: Any?) -> String? {
        switch value {
        case let value as String: return value
        case let value as Substring: return String(value)
        case let value as NSString: return value._bridgeToSwift()
        case let value as Character: return String(value)
        default: return nil
        }
    }

    /// Compares two numbers by value.
    package static func compare(_ lhs: Number, _ rhs: Number) -> ComparisonResult {
        switch (lhs, rhs) {
        case (.int(let a), .int(let b)):
            return a < b ? .orderedAscending : (a > b ? .orderedDescending : .orderedSame)
        case (.decimal, .decimal), (.decimal, .int), (.int, .decimal):
            let a = lhs.decimalValue
            let b = rhs.decimalValue
            return a < b ? .orderedAscending : (a > b ? .orderedDescending : .orderedSame)
        default:
            // With a double: as doubles, the decimal correctly rounded (what an SQL store compares,
            // its decimal column holding that double), without spelling the double out per row.
            let a = lhs.doubleValue
            let b = rhs.doubleValue
            return a < b ? .orderedAscending : (a > b ? .orderedDescending : .orderedSame)
        }
    }

    /// Apple's `compare:`: numbers by value, strings literally (by Unicode scalars after canonical
    /// equivalence), dates chronologically. Nil for values that have no common order (including
    /// `nil`, `NSNull`, and mixed types).
    static func compare(_ lhs: Any?, _ rhs: Any?) -> ComparisonResult? {
        guard let lhs = unwrapOptional(lhs), let rhs = unwrapOptional(rhs) else { return nil }
        if let a = lhs as? String, let b = rhs as? String {
            return compareStrings(a, b)
        }
        if let a = number(lhs), let b = number(rhs) {
            return compare(a, b)
        }
        if let a = string(lhs), let b = string(rhs) {
            return compareStrings(a, b)
        }
        if let a = lhs as? Date, let b = rhs as? Date {
            return a < b ? .orderedAscending : (a > b ? .orderedDescending : .orderedSame)
        }
        if let a = lhs as? UUID, let b = rhs as? UUID {
            return compareStrings(a.uuidString, b.uuidString)
        }
        if let a = lhs as? URL, let b = rhs as? URL {
            return compareStrings(a.absoluteString, b.absoluteString)
        }
        if let a = lhs as? Data, let b = rhs as? Data {
            return a.lexicographicallyPrecedes(b)
                ? .orderedAscending
                : (b.lexicographicallyPrecedes(a) ? .orderedDescending : .orderedSame)
        }
        return nil
    }

    @inline(__always)
    static func compareStrings(_ a: String, _ b: String) -> ComparisonResult {
        a < b ? .orderedAscending : (a == b ? .orderedSame : .orderedDescending)
    }

    /// Apple's `isEqual:` for predicate operands.
    package static func isEqual(_ lhs: Any?, _ rhs: Any?) -> Bool {
        isEqual(lhs, rhs, followingIdentities: true)
    }

    /// `isEqual(_:_:)`; a `PredicateIdentity` stands for its identity only once: an unsaved
    /// object's identity is its object ID, itself a `PredicateIdentity` whose identity is
    /// the ID again, which followed again recursed until the stack ran out (`self == 0` in a
    /// fetch with pending inserts, found by the fuzz target).
    private static func isEqual(_ lhs: Any?, _ rhs: Any?, followingIdentities: Bool) -> Bool {
        let lhsNil = isNil(lhs)
        let rhsNil = isNil(rhs)
        if lhsNil || rhsNil { return lhsNil && rhsNil }
        guard let lhs = unwrapOptional(lhs), let rhs = unwrapOptional(rhs) else { return false }
        if let a = lhs as? String, let b = rhs as? String { return a == b }
        if let a = number(lhs), let b = number(rhs) { return compare(a, b) == .orderedSame }
        if let a = string(lhs), let b = string(rhs) { return a == b }
        if let a = lhs as? Date, let b = rhs as? Date { return a == b }
        if let a = lhs as? UUID, let b = rhs as? UUID { return a == b }
        if let a = lhs as? URL, let b = rhs as? URL { return a == b }
        if let a = lhs as? Data, let b = rhs as? Data { return a == b }
        if followingIdentities, let a = lhs as? PredicateIdentity {
            let identity = a.predicateIdentity
            if let b = rhs as? PredicateIdentity { return identity == b.predicateIdentity }
            return isEqual(identity.base, rhs, followingIdentities: false)
        }
        if followingIdentities, let b = rhs as? PredicateIdentity {
            return isEqual(lhs, b.predicateIdentity.base, followingIdentities: false)
        }
        if let a = lhs as? PredicateCollection, let b = rhs as? PredicateCollection {
            return collectionsEqual(a, b)
        }
        if let a = lhs as? NSObject, let b = rhs as? NSObject { return a.isEqual(b) }
        if let a = lhs as? AnyHashable, let b = rhs as? AnyHashable { return a == b }
        if type(of: lhs) is AnyClass, type(of: rhs) is AnyClass {
            return (lhs as AnyObject) === (rhs as AnyObject)
        }
        return false
    }

    private static func collectionsEqual(_ a: PredicateCollection, _ b: PredicateCollection) -> Bool {
        guard a.isUnordered == b.isUnordered else { return false }
        let left = a.predicateElements
        let right = b.predicateElements
        guard left.count == right.count else { return false }
        if a.isUnordered {
            return left.allSatisfy { element in right.contains { isEqual(element, $0) } }
        }
        return zip(left, right).allSatisfy { isEqual($0, $1) }
    }

    /// A hash consistent with `isEqual(_:_:)`: numbers hash by value, so `1`, `1.0` and `true`
    /// hash alike.
    static func hash(_ value: Any?, into hasher: inout Hasher) {
        guard let value = unwrapOptional(value), !isNSNull(value) else {
            hasher.combine(0)
            return
        }
        if let string = string(value) {
            hasher.combine(string)
        } else if let number = number(value) {
            let double = number.doubleValue
            hasher.combine(double)
        } else if let collection = value as? PredicateCollection {
            hasher.combine(collection.predicateElements.count)
        } else if let standIn = value as? PredicateIdentity {
            hasher.combine(standIn.predicateIdentity)
        } else if let hashable = value as? AnyHashable {
            hasher.combine(hashable)
        } else if type(of: value) is AnyClass {
            hasher.combine(ObjectIdentifier(value as AnyObject))
        } else {
            hasher.combine(String(describing: type(of: value)))
        }
    }
}

/// Lets `unwrapOptional` see through `Optional` values boxed in `Any`.
protocol OptionalBox {
    var flattened: Any? { get }
}

extension Optional: OptionalBox {
    var flattened: Any? {
        switch self {
        case .none: return nil
        case .some(let wrapped): return ValueSemantics.unwrapOptional(wrapped)
        }
    }
}
