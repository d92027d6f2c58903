/// `NSKeyedUnarchiveFromData` (and `NSUnarchiveFromData`): keyed archiving without the class
/// check (`NSCoding`).
final class KeyedUnarchiveFromDataTransformer: ValueTransformer {
    override class func allowsReverseTransformation() -> Bool { true }

    override func transformedValue(_ value: Any?) -> Any? {
        guard let data = value as? Data else { return nil }
        return KeyedArchive.unarchive(data, allowing: nil)
    }

    override func reverseTransformedValue(_ value: Any?) -> Any? {
        KeyedArchive.archive(value, secure: false)
    }
}

/// Keyed archives through corelibs' archiver, which stops the process on a class it cannot
/// decode or a value it cannot encode unless told otherwise: decoding sets an error instead,
/// and values are checked before they are encoded.
enum KeyedArchive {
    /// The root object of an archive; `allowing` nil decodes any class (`NSCoding`), otherwise
    /// the root must be of one of those classes (nil when it is not). Nil when the data does not
    /// decode.
    ///
    /// corelibs' unarchiver stops the process when a secure decode meets a class it was not
    /// allowed, so the archive is decoded without the secure flag and the root's class checked
    /// afterwards: only classes present in the process can be decoded at all, and the root of
    /// another class is refused as Apple refuses it.
    static func unarchive(_ data: Data, allowing classes: [AnyClass]?) -> Any? {
        guard let unarchiver = try? NSKeyedUnarchiver(forReadingFrom: data) else { return nil }
        unarchiver.decodingFailurePolicy = .setErrorAndReturn
        unarchiver.requiresSecureCoding = false
        defer { unarchiver.finishDecoding() }
        guard let root = unarchiver.decodeObject(forKey: NSKeyedArchiveRootObjectKey), unarchiver.error == nil else {
            return nil
        }
        if let classes {
            guard let object = root as? NSObject, classes.contains(where: { object.isKind(of: $0) }) else { return nil }
        }
        return swiftValue(root)
    }

    /// A decoded Foundation value object as the Swift value an attribute holds (`NSData` as
    /// `Data`, `NSString` as `String`, …), so that it compares equal to the value that was set;
    /// collections and other objects as they are (they cast to Swift collections with `as?`).
    static func swiftValue(_ root: Any) -> Any {
        switch root {
        case let data as NSData: return Data(referencing: data)
        case let string as NSString: return String(string)
        case let date as NSDate: return Date(timeIntervalSinceReferenceDate: date.timeIntervalSinceReferenceDate)
        case let url as NSURL: return (url as URL?) ?? root
        case let uuid as NSUUID: return UUID(uuidString: uuid.uuidString) ?? root
        default: return root
        }
    }

    /// Whether `data` is a keyed archive (a property list whose `$archiver` is
    /// `NSKeyedArchiver`).
    static func isKeyedArchive(_ data: Data) -> Bool {
        guard data.starts(with: Array("bplist00".utf8)),
            let plist = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any]
        else { return false }
        return plist["$archiver"] as? String == "NSKeyedArchiver"
    }

    /// The keyed archive of `value`; nil for nil and for a value that cannot be archived.
    static func archive(_ value: Any?, secure: Bool) -> Data? {
        guard let value = ValueSemantics.unwrapOptional(value), !ValueSemantics.isNSNull(value),
            isArchivable(value, secure: secure, depth: 0)
        else { return nil }
        return try? NSKeyedArchiver.archivedData(withRootObject: value, requiringSecureCoding: secure)
    }

    /// Whether corelibs' archiver can encode `value`: Foundation's value types and collections
    /// of them, and objects that adopt `NSCoding` (`NSSecureCoding` when `secure`). Not
    /// `Decimal`/`NSDecimalNumber`, whose archiving corelibs does not implement.
    static func isArchivable(_ value: Any, secure: Bool, depth: Int) -> Bool {
        guard depth < 64 else { return false }
        switch value {
        case is String, is Substring, is Bool, is Int, is Int8, is Int16, is Int32, is Int64, is UInt, is UInt8, is UInt16,
            is UInt32, is UInt64, is Double, is Float, is Date, is Data, is URL, is UUID:
            return true
        case is Decimal, is NSDecimalNumber:
            return false
        case let array as [Any]:
            return array.allSatisfy { isArchivable($0, secure: secure, depth: depth + 1) }
        case let dictionary as [AnyHashable: Any]:
            return dictionary.allSatisfy {
                isArchivable($0.key.base, secure: secure, depth: depth + 1)
                    && isArchivable($0.value, secure: secure, depth: depth + 1)
            }
        case let set as Set<AnyHashable>:
            return set.allSatisfy { isArchivable($0.base, secure: secure, depth: depth + 1) }
        case let object as NSObject:
            guard object is NSCoding else { return false }
            guard secure else { return true }
            return (Swift.type(of: object) as? NSSecureCoding.Type)?.supportsSecureCoding ?? false
        default:
            return false
        }
    }
}
