import OpenPredicate

/// One value of a binary property list, as `BinaryPropertyList` reads it: a keyed archive's
/// object references stay `uid`s, so nothing is resolved or instantiated while reading.
indirect enum PropertyListValue {
    case null
    case bool(Bool)
    case integer(Int64)
    case real(Double)
    case date(Date)
    case data(Data)
    case string(String)
    /// A keyed archive's object reference (`CF$UID`): an index into `$objects`.
    case uid(Int)
    /// An array or a set, in file order.
    case array([PropertyListValue])
    case dictionary([String: PropertyListValue])

    /// What to call the value's kind in a message.
    var kindName: String {
        switch self {
        case .null: return "null"
        case .bool: return "a Boolean"
        case .integer: return "an integer"
        case .real: return "a real number"
        case .date: return "a date"
        case .data: return "data"
        case .string: return "a string"
        case .uid: return "an object reference"
        case .array: return "an array"
        case .dictionary: return "a dictionary"
        }
    }
}

/// Reads a binary property list (`bplist00`) into a `PropertyListValue`.
///
/// OpenCoreData reads compiled models with its own reader instead of
/// `PropertyListSerialization`: corelibs' reader hands a keyed archive's references back as a
/// class that is not public (so their index cannot be read), and its recursive descent has no
/// depth limit, so a hostile file of deeply nested arrays could overflow the stack. This reader
/// checks every offset and length against the file, refuses a container that contains itself
/// and containers nested deeper than `maximumDepth`, and reads each object once however often it
/// is referenced (a file of shared references cannot blow up into an exponential tree).
enum BinaryPropertyList {
    /// The deepest nesting of arrays and dictionaries. A keyed archive needs 3
    /// (`{$objects: [{NS.keys: [...]}]}`).
    static let maximumDepth = 32

    /// What is wrong with the bytes.
    struct Failure: Error {
        var message: String
    }

    /// Whether `data` starts like a binary property list.
    static func isBinaryPropertyList(_ data: Data) -> Bool {
        data.starts(with: Array("bplist".utf8))
    }

    /// Reads the whole property list.
    static func read(_ data: Data) throws -> PropertyListValue {
        var reader = try Reader(bytes: [UInt8](data))
        return try reader.value(reader.topObject, depth: 0)
    }

    private struct Reader {
        let bytes: [UInt8]
        let offsetSize: Int
        let referenceSize: Int
        let objectCount: Int
        let topObject: Int
        let offsetTable: Int
        /// Objects read so far, by reference.
        var cache: [Int: PropertyListValue] = [:]
        /// Containers being read: a reference back to one of them is a cycle.
        var inProgress: Set<Int> = []

        init(bytes: [UInt8]) throws {
            self.bytes = bytes
            guard bytes.count >= 40, bytes.starts(with: Array("bplist00".utf8)) else {
                throw Failure(message: "not a binary property list (no bplist00 header, or shorter than 40 bytes)")
            }
            let trailer = bytes.count - 32
            offsetSize = Int(bytes[trailer + 6])
            referenceSize = Int(bytes[trailer + 7])
            guard (1...8).contains(offsetSize), (1...8).contains(referenceSize) else {
                throw Failure(
                    message: "the trailer gives offset size \(offsetSize) and reference size \(referenceSize); 1 to 8 expected")
            }
            let count = Self.unsigned(bytes, at: trailer + 8, size: 8)
            let top = Self.unsigned(bytes, at: trailer + 16, size: 8)
            let table = Self.unsigned(bytes, at: trailer + 24, size: 8)
            guard count >= 1, count <= UInt64(bytes.count), top < count, table >= 8, table <= UInt64(trailer),
                (UInt64(trailer) - table) / UInt64(offsetSize) >= count
            else {
                throw Failure(
                    message: "the trailer is inconsistent (\(count) objects, top object \(top), offset table at \(table) "
                        + "in a file of \(bytes.count) bytes)")
            }
            objectCount = Int(count)
            topObject = Int(top)
            offsetTable = Int(table)
        }

        static func unsigned(_ bytes: [UInt8], at offset: Int, size: Int) -> UInt64 {
            var value: UInt64 = 0
            for index in offset..<(offset + size) { value = value << 8 | UInt64(bytes[index]) }
            return value
        }

        func offset(of reference: Int) throws -> Int {
            let offset = Self.unsigned(bytes, at: offsetTable + reference * offsetSize, size: offsetSize)
            guard offset >= 8, offset < UInt64(offsetTable) else {
                throw Failure(message: "object \(reference) starts at \(offset), outside the object area")
            }
            return Int(offset)
        }

        /// `count` bytes from `offset`, or an error when they run past the object area.
        func checkRange(_ offset: Int, _ count: Int, what: String) throws {
            guard count >= 0, offset <= offsetTable, count <= offsetTable - offset else {
                throw Failure(message: "\(what) at \(offset) runs past the end of the objects (\(count) bytes)")
            }
        }

        /// The length of an object whose marker's low nibble is `info`, and where its
        /// content starts.
        func length(info: Int, after offset: Int) throws -> (length: Int, start: Int) {
            guard info == 0xF else { return (info, offset + 1) }
            try checkRange(offset + 1, 1, what: "a length")
            let marker = bytes[offset + 1]
            guard marker >> 4 == 0x1, marker & 0xF <= 3 else {
                throw Failure(message: "the length of the object at \(offset) is not an integer")
            }
            let size = 1 << Int(marker & 0xF)
            try checkRange(offset + 2, size, what: "a length")
            let value = Self.unsigned(bytes, at: offset + 2, size: size)
            guard value <= UInt64(bytes.count) else {
                throw Failure(message: "the object at \(offset) claims \(value) elements, more than the file holds")
            }
            return (Int(value), offset + 2 + size)
        }

        func reference(at offset: Int) -> Int {
            Int(Self.unsigned(bytes, at: offset, size: referenceSize))
        }

        mutating func value(_ reference: Int, depth: Int) throws -> PropertyListValue {
            guard reference >= 0, reference < objectCount else {
                throw Failure(message: "reference \(reference) to an object that does not exist (\(objectCount) objects)")
            }
            if let cached = cache[reference] { return cached }
            guard !inProgress.contains(reference) else {
                throw Failure(message: "object \(reference) contains itself")
            }
            guard depth <= maximumDepth else {
                throw Failure(message: "containers are nested more than \(maximumDepth) levels deep")
            }
            let offset = try offset(of: reference)
            let marker = bytes[offset]
            let info = Int(marker & 0xF)
            let result: PropertyListValue
            switch marker >> 4 {
            case 0x0:
                switch marker {
                case 0x00: result = .null
                case 0x08: result = .bool(false)
                case 0x09: result = .bool(true)
                default: throw Failure(message: "unknown marker 0x\(String(marker, radix: 16)) at \(offset)")
                }
            case 0x1:
                guard info <= 4 else { throw Failure(message: "an integer of 2^\(info) bytes at \(offset)") }
                let size = 1 << info
                try checkRange(offset + 1, size, what: "an integer")
                // 16-byte integers keep their low 8 bytes; 8-byte ones are signed.
                let low = Self.unsigned(bytes, at: offset + 1 + max(0, size - 8), size: min(size, 8))
                result = .integer(Int64(bitPattern: low))
            case 0x2:
                guard info == 2 || info == 3 else { throw Failure(message: "a real of 2^\(info) bytes at \(offset)") }
                try checkRange(offset + 1, 1 << info, what: "a real number")
                let raw = Self.unsigned(bytes, at: offset + 1, size: 1 << info)
                result = .real(info == 2 ? Double(Float(bitPattern: UInt32(raw))) : Double(bitPattern: raw))
            case 0x3:
                guard marker == 0x33 else { throw Failure(message: "unknown marker 0x\(String(marker, radix: 16)) at \(offset)") }
                try checkRange(offset + 1, 8, what: "a date")
                let seconds = Double(bitPattern: Self.unsigned(bytes, at: offset + 1, size: 8))
                result = .date(Date(timeIntervalSinceReferenceDate: seconds))
            case 0x4:
                let (count, start) = try length(info: info, after: offset)
                try checkRange(start, count, what: "data")
                result = .data(Data(bytes[start..<(start + count)]))
            case 0x5:
                let (count, start) = try length(info: info, after: offset)
                try checkRange(start, count, what: "a string")
                result = .string(String(decoding: bytes[start..<(start + count)], as: UTF8.self))
            case 0x6:
                let (count, start) = try length(info: info, after: offset)
                guard count <= Int.max / 2 else { throw Failure(message: "a string at \(offset) is too long") }
                try checkRange(start, count * 2, what: "a string")
                var units: [UInt16] = []
                units.reserveCapacity(count)
                for index in 0..<count {
                    units.append(UInt16(bytes[start + 2 * index]) << 8 | UInt16(bytes[start + 2 * index + 1]))
                }
                result = .string(String(decoding: units, as: UTF16.self))
            case 0x8:
                try checkRange(offset + 1, info + 1, what: "an object reference")
                let value = Self.unsigned(bytes, at: offset + 1, size: info + 1)
                guard value <= UInt64(Int32.max) else {
                    throw Failure(message: "object reference \(value) at \(offset) is too large")
                }
                result = .uid(Int(value))
            case 0xA, 0xC:
                let (count, start) = try length(info: info, after: offset)
                guard count <= Int.max / referenceSize else { throw Failure(message: "an array at \(offset) is too long") }
                try checkRange(start, count * referenceSize, what: "an array")
                inProgress.insert(reference)
                var elements: [PropertyListValue] = []
                elements.reserveCapacity(count)
                for index in 0..<count {
                    elements.append(try value(self.reference(at: start + index * referenceSize), depth: depth + 1))
                }
                inProgress.remove(reference)
                result = .array(elements)
            case 0xD:
                let (count, start) = try length(info: info, after: offset)
                guard count <= Int.max / (2 * referenceSize) else {
                    throw Failure(message: "a dictionary at \(offset) is too long")
                }
                try checkRange(start, 2 * count * referenceSize, what: "a dictionary")
                inProgress.insert(reference)
                var entries: [String: PropertyListValue] = [:]
                for index in 0..<count {
                    let key = try value(self.reference(at: start + index * referenceSize), depth: depth + 1)
                    guard case .string(let name) = key else {
                        throw Failure(message: "a dictionary at \(offset) has a key that is \(key.kindName), not a string")
                    }
                    let valueReference = self.reference(at: start + (count + index) * referenceSize)
                    entries[name] = try value(valueReference, depth: depth + 1)
                }
                inProgress.remove(reference)
                result = .dictionary(entries)
            default:
                throw Failure(message: "unknown marker 0x\(String(marker, radix: 16)) at \(offset)")
            }
            cache[reference] = result
            return result
        }
    }
}
