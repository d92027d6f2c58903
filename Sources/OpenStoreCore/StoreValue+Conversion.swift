import OpenPredicate

// MARK: - Swift values → stored values

extension StoreValue {
    /// The stored form of a value a Core Data user sets on an attribute of `kind`.
    ///
    /// ```swift
    /// let stored = try StoreValue(Decimal(string: "12.50"), kind: .decimal)  // .decimal(12.50)
    /// let none = try StoreValue(nil, kind: .string)                          // .null
    /// ```
    ///
    /// What each kind accepts (`nil` and `NSNull` are `.null` for every kind):
    /// - integer kinds: any integer type, `NSNumber`, `Bool`, or a floating-point value with no
    ///   fractional part; the value must fit the kind's width (`Int16` holds -32768…32767).
    /// - `.decimal`: `Decimal`/`NSDecimalNumber`, integers, and floating-point values (through
    ///   their shortest decimal spelling, so `0.1` is exactly 0.1).
    /// - `.double`, `.float`: any number (a `Decimal` through its double value).
    /// - `.boolean`: `Bool`, or a number (non-zero is true).
    /// - `.string`: `String`, `Substring`, `NSString`, `Character`.
    /// - `.date`, `.binary`, `.uuid`, `.uri`: `Date`, `Data` (or `[UInt8]`), `UUID`, `URL`.
    /// - `.transformable`: `Data` only — the value transformer runs before the store.
    /// - `.objectID`: an `ObjectKey`.
    /// - `.undefined` (transient attributes): any of the values above, kept as it is.
    ///
    /// - Parameters:
    ///   - value: the value as the user gave it.
    ///   - kind: the attribute's kind.
    ///   - property: the attribute's name, for the error message.
    /// - Throws: `StoreValueConversionError` (an `NSError` in `NSCocoaErrorDomain`, code
    ///   `NSManagedObjectValidationError` 1550) naming the desired and given types.
    ///
    /// **Differences from Apple:** Apple checks only that a value is an `NSNumber` for numeric
    /// attributes and stores what it is given; here an integer attribute refuses a fractional or
    /// out-of-range number instead of silently truncating it on the way to the store.
    package init(_ value: Any?, kind: AttributeKind, property: String? = nil) throws {
        self = try withUnsafePointer(to: value) { try StoreValue(at: $0, kind: kind, property: property) }
    }

    /// `init(_:kind:property:)` for a value read where it is held: a value of the type `kind`
    /// holds is converted without a copy of its container (which another module's call makes).
    /// The property's name is read only for an error (copying it out of a schema retains it).
    package init(at pointer: UnsafePointer<Any?>, kind: AttributeKind, property: @autoclosure () -> String? = nil) throws {
        if let common = Self.exactly(at: pointer, kind: kind) {
            self = common
            return
        }
        guard let value = StoreValue.unwrap(pointer.pointee) else {
            self = .null
            return
        }
        func failure(_ reason: String? = nil) -> StoreValueConversionError {
            StoreValueConversionError(kind: kind, property: property(), value: value, reason: reason)
        }
        switch kind {
        case .integer16, .integer32, .integer64:
            guard let number = StoreNumber(value) else { throw failure() }
            guard let integer = number.exactInteger else { throw failure("the number has a fractional part") }
            guard kind.integerRange.contains(integer) else { throw failure("the number does not fit the attribute's width") }
            self = .integer(integer)
        case .decimal:
            guard let number = StoreNumber(value) else { throw failure() }
            self = .decimal(number.decimalValue)
        case .double, .float:
            guard let number = StoreNumber(value) else { throw failure() }
            self = .double(number.doubleValue)
        case .boolean:
            guard let number = StoreNumber(value) else { throw failure() }
            self = .bool(number.doubleValue != 0)
        case .string:
            guard let string = StoreValue.string(value) else { throw failure() }
            self = .string(string)
        case .date:
            guard let date = value as? Date else { throw failure() }
            self = .date(date)
        case .binary, .transformable:
            if let data = value as? Data {
                self = .data(data)
            } else if kind == .binary, let bytes = value as? [UInt8] {
                self = .data(Data(bytes))
            } else {
                throw failure(kind == .transformable ? "transformable values reach the store as Data" : nil)
            }
        case .uuid:
            guard let uuid = value as? UUID else { throw failure() }
            self = .uuid(uuid)
        case .uri:
            guard let url = value as? URL else { throw failure() }
            self = .url(url)
        case .objectID:
            guard let key = value as? ObjectKey else { throw failure() }
            self = .object(key)
        case .undefined:
            guard let inferred = StoreValue(inferring: value) else { throw failure() }
            self = inferred
        }
    }

    /// The stored form of a value whose kind is not known (an expression's result, a transient
    /// attribute): strings, numbers (integers of any width as `.integer`, `Bool` as `.bool`),
    /// `Decimal`, dates, data, UUIDs, URLs, `ObjectKey`s and arrays of them. Nil for anything
    /// else; `nil` and `NSNull` give `.null`.
    package init?(inferring value: Any?) {
        guard let value = StoreValue.unwrap(value) else {
            self = .null
            return
        }
        if let string = value as? String {
            self = .string(string)
        } else if let key = value as? ObjectKey {
            self = .object(key)
        } else if let date = value as? Date {
            self = .date(date)
        } else if let bool = value as? Bool, !(type(of: value) is NSNumber.Type) {
            self = .bool(bool)
        } else if let number = StoreNumber(value) {
            switch number {
            case .integer(let integer): self = .integer(integer)
            case .double(let double): self = .double(double)
            case .decimal(let decimal): self = .decimal(decimal)
            }
        } else if let string = StoreValue.string(value) {
            self = .string(string)
        } else if let data = value as? Data {
            self = .data(data)
        } else if let uuid = value as? UUID {
            self = .uuid(uuid)
        } else if let url = value as? URL {
            self = .url(url)
        } else if let keys = value as? [ObjectKey] {
            self = .objects(keys)
        } else {
            return nil
        }
    }

    /// The stored form of a value that is already the Swift type an attribute of `kind` reads
    /// back (what `setValue(_:forKey:)` keeps), read from the value's container without a
    /// runtime cast (see `ValueSemantics.exactly`); nil for a value stored as anything else
    /// (bridged, boxed, optional), which takes the general path.
    @inline(__always)
    /// The value at `value` when it is of the type `kind` holds (one read of its type word).
    private static func exactly(at value: UnsafePointer<Any?>, kind: AttributeKind) -> StoreValue? {
        switch kind {
        case .integer64: ValueSemantics.exactly(at: value, Int64.self).map(StoreValue.integer)
        case .integer32: ValueSemantics.exactly(at: value, Int32.self).map { .integer(Int64($0)) }
        case .integer16: ValueSemantics.exactly(at: value, Int16.self).map { .integer(Int64($0)) }
        case .string: ValueSemantics.exactly(at: value, String.self).map(StoreValue.string)
        case .double: ValueSemantics.exactly(at: value, Double.self).map(StoreValue.double)
        case .date: ValueSemantics.exactly(at: value, Date.self).map(StoreValue.date)
        case .boolean: ValueSemantics.exactly(at: value, Bool.self).map(StoreValue.bool)
        default: nil
        }
    }

    /// `nil`, `NSNull` and `Optional.none` inside `Any` are all "no value".
    private static func unwrap(_ value: Any?) -> Any? {
        guard let value = ValueSemantics.unwrapOptional(value), !ValueSemantics.isNSNull(value) else { return nil }
        return value
    }

    private static func string(_ value: Any) -> String? {
        switch value {
        case let string as String: return string
        case let substring as Substring: return String(substring)
        case let character as Character: return String(character)
        case let string as NSString: return string._bridgeToSwift()
        default: return nil
        }
    }
}

// MARK: - Stored values → Swift values

extension StoreValue {
    /// The value a Core Data user reads back from an attribute of `kind`: `Int16`, `Int32`,
    /// `Int64`, `Decimal`, `Double`, `Float`, `String`, `Bool`, `Date`, `Data`, `UUID`, `URL`;
    /// `ObjectKey` for `.objectID`; nil for `.null`.
    ///
    /// A number stored under another numeric case (an `.integer` in a `.double` attribute) is
    /// converted to the kind's type; an integer attribute reads a fractional number truncated
    /// toward zero. A value that is not a number where the kind wants one is returned as it
    /// is (`swiftValue` for `.undefined`).
    package func swiftValue(kind: AttributeKind) -> Any? {
        switch kind {
        case .integer16:
            if let integer = integerValue { return Int16(clamping: integer) }
        case .integer32:
            if let integer = integerValue { return Int32(clamping: integer) }
        case .integer64:
            if let integer = integerValue { return integer }
        case .decimal:
            if let number = StoreNumber(self) { return number.decimalValue }
        case .double:
            if let number = StoreNumber(self) { return number.doubleValue }
        case .float:
            if let number = StoreNumber(self) { return Float(number.doubleValue) }
        case .boolean:
            if let number = StoreNumber(self) { return number.doubleValue != 0 }
        default:
            break
        }
        return naturalValue
    }

    /// The value with no kind to follow: `Bool`, `Int`, `Double`, `Decimal`, `String`, `Date`,
    /// `Data`, `UUID`, `URL`, `ObjectKey`, `[ObjectKey]`; nil for `.null`.
    package var naturalValue: Any? {
        switch self {
        case .null: return nil
        case .bool(let value): return value
        case .integer(let value): return Int(value)
        case .double(let value): return value
        case .decimal(let value): return value
        case .string(let value): return value
        case .date(let value): return value
        case .data(let value): return value
        case .uuid(let value): return value
        case .url(let value): return value
        case .object(let value): return value
        case .objects(let value): return value
        }
    }

    /// The value converted to the stored form of `kind`, as an expression result type asks
    /// (`expressionResultType`): numbers convert between integer (truncated toward zero),
    /// double, decimal and boolean; a number becomes a date as seconds since 2001-01-01 (how
    /// Apple's SQLite store keeps dates). Anything else is returned unchanged.
    package func converted(to kind: AttributeKind) -> StoreValue {
        guard let number = StoreNumber(self) else {
            return self
        }
        switch kind {
        case .integer16, .integer32, .integer64:
            return integerValue.map { .integer(kind.integerRange.clamp($0)) } ?? self
        case .decimal: return .decimal(number.decimalValue)
        case .double, .float: return .double(number.doubleValue)
        case .boolean: return .bool(number.doubleValue != 0)
        case .date: return .date(Date(timeIntervalSinceReferenceDate: number.doubleValue))
        default: return self
        }
    }

    /// The integer in a numeric value, truncated toward zero; nil for non-numbers and for
    /// floating-point values out of `Int64`'s range.
    private var integerValue: Int64? {
        switch StoreNumber(self) {
        case .integer(let value): return value
        case .double(let value): return Int64(exactly: value.rounded(.towardZero))
        case .decimal(let value): return Int64(exactly: value.nearestDouble.rounded(.towardZero))
        case nil: return nil
        }
    }
}

// MARK: - Numbers

/// A number as the conversions see it.
private enum StoreNumber {
    case integer(Int64)
    case double(Double)
    case decimal(Decimal)

    /// The number in a Swift or Foundation value: integer types, `Decimal`, floating-point
    /// types, `Bool`, `NSNumber`.
    init?(_ value: Any) {
        switch value {
        case let value as Int: self = .integer(Int64(value))
        case let value as Int64: self = .integer(value)
        case let value as Int32: self = .integer(Int64(value))
        case let value as Int16: self = .integer(Int64(value))
        case let value as Int8: self = .integer(Int64(value))
        case let value as UInt8: self = .integer(Int64(value))
        case let value as UInt16: self = .integer(Int64(value))
        case let value as UInt32: self = .integer(Int64(value))
        case let value as UInt:
            guard let exact = Int64(exactly: value) else { self = .decimal(Decimal(UInt64(value))); return }
            self = .integer(exact)
        case let value as UInt64:
            guard let exact = Int64(exactly: value) else { self = .decimal(Decimal(value)); return }
            self = .integer(exact)
        // Before Double: an `NSDecimalNumber` also casts to Double, losing digits.
        case let value as Decimal: self = .decimal(value)
        case let value as Double: self = .double(value)
        case let value as Float: self = .double(Double(value))
        case let value as Bool: self = .integer(value ? 1 : 0)
        case let value as NSNumber: self = .double(value.doubleValue)
        default: return nil
        }
    }

    /// The number in a stored value (`.bool` counts as 0 or 1).
    init?(_ value: StoreValue) {
        switch value {
        case .integer(let value): self = .integer(value)
        case .double(let value): self = .double(value)
        case .decimal(let value): self = .decimal(value)
        case .bool(let value): self = .integer(value ? 1 : 0)
        default: return nil
        }
    }

    var doubleValue: Double {
        switch self {
        case .integer(let value): Double(value)
        case .double(let value): value
        case .decimal(let value): value.nearestDouble
        }
    }

    var decimalValue: Decimal {
        switch self {
        case .integer(let value): Decimal(value)
        case .double(let value): Decimal(spelling: value)
        case .decimal(let value): value
        }
    }

    /// The value as an integer when it has no fractional part and fits `Int64`.
    var exactInteger: Int64? {
        switch self {
        case .integer(let value): return value
        case .double(let value): return Int64(exactly: value)
        case .decimal(let value):
            guard value.isFinite, value == value.roundedToInteger() else { return nil }
            return Int64(exactly: value.nearestDouble)
        }
    }
}

extension Decimal {
    fileprivate func roundedToInteger() -> Decimal {
        var result = Decimal()
        var source = self
        NSDecimalRound(&result, &source, 0, .plain)
        return result
    }
}

extension AttributeKind {
    /// The values an integer kind holds.
    fileprivate var integerRange: ClosedRange<Int64> {
        switch self {
        case .integer16: Int64(Int16.min)...Int64(Int16.max)
        case .integer32: Int64(Int32.min)...Int64(Int32.max)
        default: Int64.min...Int64.max
        }
    }

    /// The Swift type a user reads back, for messages.
    fileprivate var swiftTypeName: String {
        switch self {
        case .integer16: "Int16"
        case .integer32: "Int32"
        case .integer64: "Int64"
        case .decimal: "Decimal"
        case .double: "Double"
        case .float: "Float"
        case .string: "String"
        case .boolean: "Bool"
        case .date: "Date"
        case .binary: "Data"
        case .uuid: "UUID"
        case .uri: "URL"
        case .transformable: "Data (transformed)"
        case .objectID: "NSManagedObjectID"
        case .undefined: "a string, number, date, data, UUID or URL"
        }
    }
}

extension ClosedRange where Bound == Int64 {
    fileprivate func clamp(_ value: Int64) -> Int64 { Swift.min(Swift.max(value, lowerBound), upperBound) }
}

// MARK: - Errors

/// A value of the wrong type (or out of range) for an attribute.
///
/// Bridges to an `NSError` in `NSCocoaErrorDomain` with Core Data's code
/// `NSManagedObjectValidationError` (1550), whose description names the attribute (when
/// known), the desired type, the given type and the value, in Apple's words.
package struct StoreValueConversionError: Error, CustomStringConvertible, CustomNSError {
    package let kind: AttributeKind
    package let property: String?
    package let givenType: String
    package let message: String

    init(kind: AttributeKind, property: String?, value: Any, reason: String?) {
        self.kind = kind
        self.property = property
        givenType = String(describing: type(of: value))
        var text = "Unacceptable type of value for attribute: "
        if let property { text += "property = \"\(property)\"; " }
        text += "desired type = \(kind.swiftTypeName); given type = \(givenType); value = \(value)."
        if let reason { text += " (\(reason))" }
        message = text
    }

    package var description: String { message }

    package static var errorDomain: String { NSCocoaErrorDomain }

    /// `NSManagedObjectValidationError`.
    package var errorCode: Int { 1550 }

    package var errorUserInfo: [String: Any] {
        var info: [String: Any] = [NSLocalizedDescriptionKey: message, NSDebugDescriptionErrorKey: message]
        if let property { info["NSValidationErrorKey"] = property }
        return info
    }
}
