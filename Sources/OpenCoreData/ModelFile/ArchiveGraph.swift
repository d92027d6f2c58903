import OpenPredicate

/// The object graph of an `NSKeyedArchiver` archive, walked without instantiating any class:
/// `$objects` holds the objects, `$top` the roots, and object references are indices into
/// `$objects` (index 0 is `$null`).
///
/// Every read is typed and checked: a reference out of range, a value of the wrong kind, an
/// object without a class, or a collection whose keys and values do not pair up is an error
/// (`ModelFileError`, corrupt) that names the object and the key. The graph may have cycles
/// (an entity refers to its model, which refers to the entity); readers follow only the keys
/// they need, and `plainValue(_:)` (user info, default values) stops at a depth limit.
struct ArchiveGraph {
    /// An archived object: its index in `$objects`, its class name and its fields.
    struct Object {
        var index: Int
        var className: String
        var fields: [String: PropertyListValue]

        /// What to call the object in a message.
        var label: String { "\(className) #\(index)" }
    }

    /// The deepest nesting `plainValue(_:)` follows (user info values, default values).
    static let maximumValueDepth = 32
    /// The most values `plainValue(_:)` builds for one archive, all calls together: an archive
    /// can share one array many times at every level, which would otherwise unfold into an
    /// exponential tree.
    static let maximumValueCount = 100_000

    /// How many values `plainValue(_:)` has built so far for this archive.
    private final class Counter {
        var values = 0
    }
    private let counter = Counter()

    let file: URL
    let objects: [PropertyListValue]
    let root: Object

    init(data: Data, file: URL) throws {
        self.file = file
        let plist: PropertyListValue
        do {
            plist = try BinaryPropertyList.read(data)
        } catch let failure as BinaryPropertyList.Failure {
            throw ModelFileError(.corrupt, "not a valid binary property list: \(failure.message)", file: file)
        }
        guard case .dictionary(let archive) = plist, case .array(let objects)? = archive["$objects"],
            case .dictionary(let top)? = archive["$top"]
        else {
            throw ModelFileError(.corrupt, "not a keyed archive (no $objects array and $top dictionary)", file: file)
        }
        if case .string(let archiver)? = archive["$archiver"], archiver != "NSKeyedArchiver" {
            throw ModelFileError(.corrupt, "not a keyed archive ($archiver is '\(archiver)')", file: file)
        }
        self.objects = objects
        guard case .uid(let rootIndex)? = top["root"] else {
            throw ModelFileError(.corrupt, "the keyed archive has no root object ($top.root)", file: file)
        }
        // `root` is set last; `object(at:)` needs only `objects` and `file`.
        root = try Self.object(at: rootIndex, in: objects, file: file, what: "the root object")
    }

    func error(_ message: String) -> ModelFileError {
        ModelFileError(.corrupt, message, file: file)
    }

    // MARK: - Objects

    private static func object(at index: Int, in objects: [PropertyListValue], file: URL, what: String) throws -> Object {
        guard index > 0, index < objects.count else {
            throw ModelFileError(
                .corrupt, "\(what) refers to object #\(index), which the archive does not have (\(objects.count) objects)",
                file: file)
        }
        guard case .dictionary(let fields) = objects[index] else {
            throw ModelFileError(.corrupt, "\(what) (#\(index)) is \(objects[index].kindName), not an object", file: file)
        }
        guard case .uid(let classIndex)? = fields["$class"], classIndex > 0, classIndex < objects.count,
            case .dictionary(let classInfo) = objects[classIndex], case .string(let className)? = classInfo["$classname"]
        else {
            throw ModelFileError(.corrupt, "\(what) (#\(index)) has no valid $class", file: file)
        }
        return Object(index: index, className: className, fields: fields)
    }

    /// The value a field holds, references followed once; nil for an absent field or `$null`.
    func resolved(_ value: PropertyListValue?, what: @autoclosure () -> String) throws -> PropertyListValue? {
        guard let value else { return nil }
        guard case .uid(let index) = value else { return value }
        if index == 0 { return nil }
        guard index < objects.count else {
            throw error("\(what()) refers to object #\(index), which the archive does not have (\(objects.count) objects)")
        }
        return objects[index]
    }

    /// The object a field refers to; nil when absent or `$null`.
    func object(_ owner: Object, _ key: String) throws -> Object? {
        guard let value = owner.fields[key] else { return nil }
        guard case .uid(let index) = value else {
            throw error("\(key) of \(owner.label) is \(value.kindName), not an object reference")
        }
        if index == 0 { return nil }
        return try Self.object(at: index, in: objects, file: file, what: "\(key) of \(owner.label)")
    }

    /// The object a reference (an element of a collection) refers to; nil for `$null`.
    func object(reference value: PropertyListValue, what: @autoclosure () -> String) throws -> Object? {
        guard case .uid(let index) = value else {
            throw error("\(what()) is \(value.kindName), not an object reference")
        }
        if index == 0 { return nil }
        return try Self.object(at: index, in: objects, file: file, what: what())
    }

    /// A string field (a plain string or an archived `NSString`); nil when absent or `$null`.
    func string(_ owner: Object, _ key: String) throws -> String? {
        try string(owner.fields[key], what: "\(key) of \(owner.label)")
    }

    func string(_ value: PropertyListValue?, what: @autoclosure () -> String) throws -> String? {
        switch try resolved(value, what: what()) {
        case nil: return nil
        case .string(let string)?: return string
        case .dictionary(let fields)? where fields["NS.string"] != nil:
            guard case .string(let string)? = try resolved(fields["NS.string"], what: what()) else {
                throw error("\(what()) is an NSString without a string")
            }
            return string
        case let other?: throw error("\(what()) is \(other.kindName), not a string")
        }
    }

    /// An integer field; nil when absent.
    func integer(_ owner: Object, _ key: String) throws -> Int? {
        switch try resolved(owner.fields[key], what: "\(key) of \(owner.label)") {
        case nil: return nil
        case .integer(let value)?:
            guard let int = Int(exactly: value) else { throw error("\(key) of \(owner.label) is out of range") }
            return int
        case .bool(let value)?: return value ? 1 : 0
        case let other?: throw error("\(key) of \(owner.label) is \(other.kindName), not an integer")
        }
    }

    /// A Boolean field (a Boolean or an integer); `false` when absent.
    func flag(_ owner: Object, _ key: String) throws -> Bool {
        switch try resolved(owner.fields[key], what: "\(key) of \(owner.label)") {
        case nil: return false
        case .bool(let value)?: return value
        case .integer(let value)?: return value != 0
        case let other?: throw error("\(key) of \(owner.label) is \(other.kindName), not a Boolean")
        }
    }

    // MARK: - Collections

    /// The element references of an archived array or set (`NS.objects`); empty when absent.
    func elements(_ owner: Object, _ key: String) throws -> [PropertyListValue] {
        guard let collection = try object(owner, key) else { return [] }
        return try elements(of: collection)
    }

    func elements(of collection: Object) throws -> [PropertyListValue] {
        guard case .array(let elements)? = collection.fields["NS.objects"] else {
            throw error("\(collection.label) is not an array or set (no NS.objects array)")
        }
        return elements
    }

    /// The entries of an archived dictionary (`NS.keys`, `NS.objects`) whose keys are strings, in
    /// archive order; empty when absent.
    func entries(_ owner: Object, _ key: String) throws -> [(key: String, value: PropertyListValue)] {
        guard let dictionary = try object(owner, key) else { return [] }
        return try entries(of: dictionary)
    }

    func entries(of dictionary: Object) throws -> [(key: String, value: PropertyListValue)] {
        if dictionary.className == "NSKnownKeysDictionary1" { return try knownKeysEntries(of: dictionary) }
        guard case .array(let keys)? = dictionary.fields["NS.keys"], case .array(let values)? = dictionary.fields["NS.objects"]
        else {
            throw error("\(dictionary.label) is not a dictionary (no NS.keys and NS.objects arrays)")
        }
        guard keys.count == values.count else {
            throw error("\(dictionary.label) has \(keys.count) keys but \(values.count) values")
        }
        var result: [(key: String, value: PropertyListValue)] = []
        var seen: Set<String> = []
        for (index, key) in keys.enumerated() {
            guard let name = try string(key, what: "key \(index) of \(dictionary.label)") else {
                throw error("key \(index) of \(dictionary.label) is null")
            }
            guard seen.insert(name).inserted else { throw error("\(dictionary.label) has the key '\(name)' twice") }
            result.append((name, values[index]))
        }
        return result
    }

    /// The entries of an `NSKnownKeysDictionary1`, the dictionary class the model Apple's Core Data
    /// caches in a store (`Z_MODELCACHE`) holds its entities in (a `.mom` from Xcode holds an
    /// `NSDictionary`). Inferred from those caches, as Apple documents neither: `searchMapping`
    /// is an `NSKnownKeysMappingStrategy1` whose `keys` array holds the keys, `values` an array
    /// holding each key's value at the key's position; a slot holding the string `emptyToken`
    /// names has no entry.
    private func knownKeysEntries(of dictionary: Object) throws -> [(key: String, value: PropertyListValue)] {
        guard let mapping = try object(dictionary, "searchMapping"), let keyArray = try object(mapping, "keys"),
            let valueArray = try object(dictionary, "values")
        else {
            throw error("\(dictionary.label) is not a dictionary (no searchMapping keys and values arrays)")
        }
        let keys = try elements(of: keyArray), values = try elements(of: valueArray)
        guard keys.count == values.count else {
            throw error("\(dictionary.label) has \(keys.count) keys but \(values.count) values")
        }
        let empty = try string(dictionary.fields["emptyToken"], what: "the empty token of \(dictionary.label)")
        var result: [(key: String, value: PropertyListValue)] = []
        var seen: Set<String> = []
        for (index, key) in keys.enumerated() {
            guard let name = try string(key, what: "key \(index) of \(dictionary.label)") else {
                throw error("key \(index) of \(dictionary.label) is null")
            }
            if let empty, name == empty { continue }
            guard seen.insert(name).inserted else { throw error("\(dictionary.label) has the key '\(name)' twice") }
            result.append((name, values[index]))
        }
        return result
    }

    // MARK: - Plain values

    /// A value as Foundation types: `String`, `NSNumber`, `Date`, `Data`, `UUID`, `URL`,
    /// `NSDecimalNumber`, `[Any]`, `[String: Any]`; nil for `$null`. Anything else (an object of
    /// another class) is an error.
    func plainValue(_ value: PropertyListValue?, what: @autoclosure () -> String) throws -> Any? {
        var count = counter.values
        defer { counter.values = count }
        return try plainValue(value, what: what(), depth: 0, count: &count)
    }

    private func plainValue(
        _ value: PropertyListValue?, what: @autoclosure () -> String, depth: Int, count: inout Int
    ) throws -> Any? {
        count += 1
        guard count <= Self.maximumValueCount else {
            throw error("\(what()): the archive's values unfold into more than \(Self.maximumValueCount) values")
        }
        guard depth <= Self.maximumValueDepth else {
            throw error("\(what()) is nested more than \(Self.maximumValueDepth) levels deep (or refers to itself)")
        }
        guard let resolved = try resolved(value, what: what()) else { return nil }
        switch resolved {
        case .null: return nil
        case .bool(let value): return NSNumber(value: value)
        case .integer(let value): return NSNumber(value: value)
        case .real(let value): return NSNumber(value: value)
        case .date(let value): return value
        case .data(let value): return value
        case .string(let value): return value
        case .uid: throw error("\(what()) is a reference to a reference")
        case .array(let values):
            return try values.map { try plainValue($0, what: what(), depth: depth + 1, count: &count) ?? ValueSemantics.null }
        case .dictionary:
            guard case .uid(let index)? = value, index > 0 else { throw error("\(what()) is a dictionary outside an object") }
            let object = try Self.object(at: index, in: objects, file: file, what: what())
            return try plainObject(object, what: what(), depth: depth, count: &count)
        }
    }

    private func plainObject(
        _ object: Object, what: @autoclosure () -> String, depth: Int, count: inout Int
    ) throws -> Any {
        let fields = object.fields
        switch object.className {
        case "NSString", "NSMutableString":
            return try string(.uid(object.index), what: what()) ?? ""
        case "NSDate":
            guard case .real(let seconds)? = fields["NS.time"] else { throw error("\(what()) is an NSDate without NS.time") }
            return Date(timeIntervalSinceReferenceDate: seconds)
        case "NSData", "NSMutableData":
            guard case .data(let data)? = try resolved(fields["NS.data"], what: what()) else {
                throw error("\(what()) is an NSData without NS.data")
            }
            return data
        case "NSUUID":
            guard case .data(let bytes)? = fields["NS.uuidbytes"], bytes.count == 16 else {
                throw error("\(what()) is an NSUUID without 16 NS.uuidbytes")
            }
            let b = [UInt8](bytes)
            return UUID(
                uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
        case "NSURL":
            guard let relative = try string(fields["NS.relative"], what: what()) else {
                throw error("\(what()) is an NSURL without NS.relative")
            }
            let base = try plainValue(fields["NS.base"], what: what(), depth: depth + 1, count: &count) as? URL
            guard let url = URL(string: relative, relativeTo: base) else { throw error("\(what()) is not a valid URL") }
            return url
        case "NSDecimalNumber":
            return try decimalNumber(object, what: what())
        case "NSArray", "NSMutableArray", "NSSet", "NSMutableSet", "NSOrderedSet", "NSMutableOrderedSet":
            return try elements(of: object).map {
                try plainValue($0, what: what(), depth: depth + 1, count: &count) ?? ValueSemantics.null
            }
        case "NSDictionary", "NSMutableDictionary", "NSKnownKeysDictionary1":
            var result: [String: Any] = [:]
            for (key, value) in try entries(of: object) {
                result[key] = try plainValue(value, what: what(), depth: depth + 1, count: &count) ?? ValueSemantics.null
            }
            return result
        default:
            throw error("\(what()) is an object of class \(object.className), which a model file does not hold")
        }
    }

    /// An archived `NSDecimalNumber`: `NS.mantissa` (little-endian bytes), `NS.exponent`,
    /// `NS.negative`.
    private func decimalNumber(_ object: Object, what: @autoclosure () -> String) throws -> NSDecimalNumber {
        guard case .data(let mantissaBytes)? = object.fields["NS.mantissa"], mantissaBytes.count <= 16,
            case .integer(let exponent)? = object.fields["NS.exponent"], (-128...127).contains(exponent)
        else {
            throw error("\(what()) is an NSDecimalNumber without a valid NS.mantissa and NS.exponent")
        }
        var mantissa = Decimal(0)
        for byte in mantissaBytes.reversed() { mantissa = mantissa * 256 + Decimal(Int(byte)) }
        var negative = false
        switch object.fields["NS.negative"] {
        case .bool(let value)?: negative = value
        case .integer(let value)?: negative = value != 0
        default: break
        }
        let value = Decimal(sign: negative ? .minus : .plus, exponent: Int(exponent), significand: mantissa)
        return NSDecimalNumber(decimal: value)
    }
}
