import Foundation

/// How the value of a constant expression is archived, and which values may come back.
///
/// Objects go under Apple's `NSConstantValue` key: strings, dates, data, UUIDs, URLs, `NSNull`,
/// and arrays, sets and dictionaries of those and of numbers. A number at the top of a constant
/// is written inline under a key that names its kind (`NSConstantInteger`, `NSConstantDouble`, …;
/// see `ArchiveKey`), so it keeps its type and cannot be merged with an equal number of another
/// type elsewhere in the archive. Numbers inside collections are `NSNumber` objects, which
/// corelibs' archiver merges when equal: `{1, 1.0}` comes back as `{1, 1}` (equal, not printed
/// alike). A `Decimal` inside a collection cannot be archived at all (corelibs' archiver crashes
/// hashing `NSDecimalNumber`), nor can values of other types (custom classes and structs).
enum ArchivedConstant {
    /// The allow-list: the only classes a constant is decoded as. `NSDecimalNumber` is an
    /// `NSNumber`; ordered sets are archived as arrays (corelibs decodes an `NSOrderedSet` empty).
    static let classes: [AnyClass] = [
        NSString.self, NSNumber.self, NSDate.self, NSData.self, NSUUID.self, NSURL.self, NSNull.self,
        NSArray.self, NSSet.self, NSDictionary.self,
    ]

    /// Collections nest at most this deep inside a constant (corelibs decodes nested collections
    /// recursively; this bounds our half of that recursion).
    static let maxCollectionDepth = 64

    /// A number as it is stored inline: the kind decides the key and how it prints.
    enum Number {
        case bool(Bool)
        case integer(Int64)
        case unsigned(UInt64)
        case double(Double)
        case float(Float)
        case decimal(Decimal)

        var key: String {
            switch self {
            case .bool: return ArchiveKey.constantBool
            case .integer: return ArchiveKey.constantInteger
            case .unsigned: return ArchiveKey.constantUnsignedInteger
            case .double: return ArchiveKey.constantDouble
            case .float: return ArchiveKey.constantFloat
            case .decimal: return ArchiveKey.constantDecimal
            }
        }
    }

    // MARK: - Writing

    /// Writes `value` (already unwrapped from any `Optional`) into the current object.
    static func encode(_ value: Any?, to coder: NSCoder) throws(ArchivingError) {
        if let value, let number = number(value) {
            switch number {
            case .bool(let bool): coder.encode(bool, forKey: number.key)
            case .integer(let integer): coder.encode(integer, forKey: number.key)
            case .unsigned(let unsigned): coder.encode(Int64(bitPattern: unsigned), forKey: number.key)
            case .double(let double): coder.encode(double, forKey: number.key)
            case .float(let float): coder.encode(float, forKey: number.key)
            case .decimal(let decimal): coder.encode(decimal.description as NSString, forKey: number.key)
            }
            return
        }
        let object = try value.map { value throws(ArchivingError) in try archivableObject(value, depth: 0) }
        coder.encode(object, forKey: ArchiveKey.constantValue)
    }

    /// Throws when `value` cannot be archived; what `encode(_:to:)` would write is not built.
    static func check(_ value: Any?) throws(ArchivingError) {
        guard let value, number(value) == nil else { return }
        _ = try archivableObject(value, depth: 0)
    }

    /// The kind of number `value` is, or nil when it is not a number.
    private static func number(_ value: Any) -> Number? {
        if type(of: value) is NSNumber.Type, let number = value as? NSNumber {
            if let decimal = number as? NSDecimalNumber { return .decimal(decimal.decimalValue) }
            switch String(cString: number.objCType) {
            case "f", "d": return .double(number.doubleValue)
            case "Q" where number.uint64Value > UInt64(Int64.max): return .unsigned(number.uint64Value)
            default: return .integer(number.int64Value)
            }
        }
        switch value {
        case let bool as Bool: return .bool(bool)
        case let double as Double: return .double(double)
        case let float as Float: return .float(float)
        case let float as CGFloat: return .double(Double(float))
        case let decimal as Decimal: return .decimal(decimal)
        case let integer as any BinaryInteger:
            if let signed = Int64(exactly: integer) { return .integer(signed) }
            if let unsigned = UInt64(exactly: integer) { return .unsigned(unsigned) }
            return nil
        default: return nil
        }
    }

    /// `value` as the Foundation object graph the archiver writes, or an error naming what
    /// cannot be archived.
    private static func archivableObject(_ value: Any, depth: Int) throws(ArchivingError) -> NSObject {
        guard depth <= maxCollectionDepth else {
            throw .unarchivable("Can't archive a constant with collections nested deeper than \(maxCollectionDepth)")
        }
        guard let value = ValueSemantics.unwrapOptional(value) else { return ValueSemantics.null }
        if let string = ValueSemantics.string(value) { return string as NSString }
        switch value {
        case let null as NSNull: return null
        case let date as Date: return date as NSDate
        case let data as Data: return data as NSData
        case let uuid as UUID: return uuid as NSUUID
        case let url as URL: return url as NSURL
        default: break
        }
        if let number = number(value) {
            switch number {
            case .bool(let bool): return NSNumber(value: bool)
            case .integer(let integer): return NSNumber(value: integer)
            case .unsigned(let unsigned): return NSNumber(value: unsigned)
            case .double(let double): return NSNumber(value: double)
            case .float(let float): return NSNumber(value: float)
            case .decimal:
                throw .unarchivable(
                    "Can't archive a Decimal inside a collection constant "
                        + "(swift-corelibs-foundation's archiver cannot hash NSDecimalNumber)")
            }
        }
        if let dictionary = value as? NSDictionary {
            let archived = NSMutableDictionary()
            for (key, element) in dictionary {
                archived[try archivableObject(key, depth: depth + 1)] = try archivableObject(element, depth: depth + 1)
            }
            return archived
        }
        if let dictionary = value as? [AnyHashable: Any] {
            let archived = NSMutableDictionary()
            for (key, element) in dictionary {
                archived[try archivableObject(key.base, depth: depth + 1)] = try archivableObject(element, depth: depth + 1)
            }
            return archived
        }
        if let collection = value as? PredicateCollection {
            var elements: [NSObject] = []
            for element in collection.predicateElements {
                elements.append(try archivableObject(element, depth: depth + 1))
            }
            return collection.isUnordered ? NSSet(array: elements) : NSArray(array: elements)
        }
        throw .unarchivable("Can't archive a constant of type \(type(of: value)): \(value)")
    }

    // MARK: - Reading

    /// The constant stored in the current object, checked against the allow-list.
    static func decode(from reader: ArchiveReader) throws(ArchivingError) -> Any? {
        let numberKeys = [
            ArchiveKey.constantBool, ArchiveKey.constantInteger, ArchiveKey.constantUnsignedInteger,
            ArchiveKey.constantDouble, ArchiveKey.constantFloat, ArchiveKey.constantDecimal,
        ]
        let present = numberKeys.filter(reader.contains)
        if reader.contains(ArchiveKey.constantValue) {
            guard present.isEmpty else {
                throw .malformed("A constant has both \(ArchiveKey.constantValue) and \(present[0])", key: present[0])
            }
            let value = try reader.object(ArchiveKey.constantValue)
            return try checked(value, depth: 0, key: ArchiveKey.constantValue)
        }
        guard present.count == 1 else {
            if present.isEmpty {
                throw .malformed(
                    "A constant expression has no value (\(ArchiveKey.constantValue))", key: ArchiveKey.constantValue)
            }
            throw .malformed("A constant has more than one value: \(present.joined(separator: ", "))", key: present[1])
        }
        let coder = reader.coder
        switch present[0] {
        case ArchiveKey.constantBool: return coder.decodeBool(forKey: ArchiveKey.constantBool)
        case ArchiveKey.constantInteger: return Int(coder.decodeInt64(forKey: ArchiveKey.constantInteger))
        case ArchiveKey.constantUnsignedInteger:
            return UInt64(bitPattern: coder.decodeInt64(forKey: ArchiveKey.constantUnsignedInteger))
        case ArchiveKey.constantDouble: return coder.decodeDouble(forKey: ArchiveKey.constantDouble)
        case ArchiveKey.constantFloat: return coder.decodeFloat(forKey: ArchiveKey.constantFloat)
        default:
            let string = try reader.string(ArchiveKey.constantDecimal)
            if string == Decimal.nan.description { return Decimal.nan }
            // Written as `description`, which `Decimal(string:)` reads back exactly; it also reads a
            // prefix of other strings (`1,5x` as 1), which is not what was written.
            guard let decimal = Decimal(string: string, locale: Locale(identifier: "en_US_POSIX")),
                decimal.description == string
            else {
                throw .malformed(
                    "\(ArchiveKey.constantDecimal) is not a decimal number: \(string)", key: ArchiveKey.constantDecimal)
            }
            return decimal
        }
    }

    /// `value` if it is made only of allowed classes (strings, dates, data, UUIDs and URLs as
    /// their Swift types), else an error. Needed after decoding as well as before: corelibs
    /// checks a class against the allow-list only the first time it meets it in an archive.
    private static func checked(_ value: Any?, depth: Int, key: String) throws(ArchivingError) -> Any? {
        guard let value else { return nil }
        guard depth <= maxCollectionDepth else {
            throw .malformed("A constant nests collections deeper than \(maxCollectionDepth)", key: key)
        }
        if value is NSNull { return value }
        if let string = ValueSemantics.string(value) { return string }
        switch value {
        case let date as Date: return date
        case let data as Data: return data
        case let uuid as UUID: return uuid
        case let url as URL: return url
        default: break
        }
        if type(of: value) is NSNumber.Type || value is Bool || ValueSemantics.number(value) != nil { return value }
        if let dictionary = value as? [AnyHashable: Any] {
            for (element, other) in dictionary {
                _ = try checked(element.base, depth: depth + 1, key: key)
                _ = try checked(other, depth: depth + 1, key: key)
            }
            return value
        }
        if let set = value as? Set<AnyHashable> {
            for element in set { _ = try checked(element.base, depth: depth + 1, key: key) }
            return value
        }
        if let array = value as? [Any] {
            for element in array { _ = try checked(element, depth: depth + 1, key: key) }
            return value
        }
        throw .malformed("\(key) holds a \(type(of: value)), which a constant may not be", key: key)
    }
}
