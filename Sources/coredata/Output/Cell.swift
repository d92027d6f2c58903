import CoreData

/// One value of a result, kept typed until a formatter renders it for a table, JSON or CSV.
enum Cell {
    case null
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    case decimal(Decimal)
    case string(String)
    case date(Date)
    case data(Data)
    case uuid(UUID)
    case url(URL)
    /// A to-one relationship's destination, or an object ID result.
    case object(NSManagedObjectID)
    /// A to-many relationship's destinations.
    case objects([NSManagedObjectID])

    /// The cell for a value of an attribute of a known type: numbers read as the type says
    /// (an `NSNumber` 0 of a Boolean attribute is `false`, of an integer attribute `0`).
    init(_ value: Any?, type: NSAttributeType?) {
        guard let value, !(value is NSNull), let type else {
            self.init(value)
            return
        }
        let number = Cell.number(value)
        switch type {
        case .booleanAttributeType: self = number.map { .bool($0.boolValue) } ?? Cell(value)
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType:
            self = number.map { .integer($0.int64Value) } ?? Cell(value)
        case .doubleAttributeType, .floatAttributeType: self = number.map { .double($0.doubleValue) } ?? Cell(value)
        default: self.init(value)
        }
    }

    /// The value as a number, if it is one (and not a `Decimal`, which keeps its own cell).
    private static func number(_ value: Any) -> NSNumber? {
        switch value {
        case is Decimal, is NSDecimalNumber: return nil
        case let value as Bool where type(of: value) == Bool.self: return NSNumber(value: value)
        case let value as NSNumber: return value
        default: return nil
        }
    }

    /// The cell for a value fetched from a store (an attribute's value, a dictionary value).
    init(_ value: Any?) {
        if let value, type(of: value) is NSNumber.Type, let number = value as? NSNumber {
            self = Cell(number: number)
            return
        }
        switch value {
        case nil, is NSNull: self = .null
        case let value as Bool: self = .bool(value)
        case let value as Int: self = .integer(Int64(value))
        case let value as Int16: self = .integer(Int64(value))
        case let value as Int32: self = .integer(Int64(value))
        case let value as Int64: self = .integer(value)
        case let value as Double: self = .double(value)
        case let value as Float: self = .double(Double(value))
        case let value as Decimal: self = .decimal(value)
        case let value as String: self = .string(value)
        case let value as Date: self = .date(value)
        case let value as Data: self = .data(value)
        case let value as UUID: self = .uuid(value)
        case let value as URL: self = .url(value)
        case let value as NSManagedObjectID: self = .object(value)
        case let value as NSManagedObject: self = .object(value.objectID)
        case let value as NSNumber: self = Cell(number: value)
        case let value as Set<NSManagedObject>: self = .objects(Cell.sorted(value.map(\.objectID)))
        case let value as [NSManagedObject]: self = .objects(value.map(\.objectID))
        case let value as NSSet: self = .objects(Cell.sorted(value.compactMap { ($0 as? NSManagedObject)?.objectID }))
        case let value as NSOrderedSet: self = .objects(value.compactMap { ($0 as? NSManagedObject)?.objectID })
        case let value?: self = .string(String(describing: value))
        }
    }

    /// An `NSNumber` as the most exact cell: integers stay integers.
    private init(number: NSNumber) {
        if let decimal = number as? NSDecimalNumber {
            self = .decimal(decimal.decimalValue)
        } else if let integer = Int64(exactly: number.doubleValue), String(cString: number.objCType) != "d",
            String(cString: number.objCType) != "f"
        {
            self = .integer(integer)
        } else {
            self = .double(number.doubleValue)
        }
    }

    /// Object IDs in primary-key order, so that to-many values print the same on every run.
    static func sorted(_ ids: [NSManagedObjectID]) -> [NSManagedObjectID] {
        ids.sorted { ($0.entity.name ?? "", primaryKey($0)) < ($1.entity.name ?? "", primaryKey($1)) }
    }

    /// The primary key in an object ID's URI (`…/Entity/p12` → 12), 0 for a temporary ID.
    static func primaryKey(_ id: NSManagedObjectID) -> Int64 {
        let last = id.uriRepresentation().lastPathComponent
        return last.hasPrefix("p") ? Int64(last.dropFirst()) ?? 0 : 0
    }

    /// `Employee/p12`: an object ID without its store UUID, for tables.
    static func shortName(_ id: NSManagedObjectID) -> String {
        let uri = id.uriRepresentation()
        return "\(uri.deletingLastPathComponent().lastPathComponent)/\(uri.lastPathComponent)"
    }

    /// Whether tables align the cell to the right (numbers).
    var isNumeric: Bool {
        switch self {
        case .integer, .double, .decimal: return true
        default: return false
        }
    }

    /// Whether the cell is nil.
    var isNull: Bool {
        if case .null = self { return true }
        return false
    }
}

// MARK: - Text

extension Cell {
    /// The cell for a terminal: readable rather than exact (short object IDs, to-many counts,
    /// data as a byte count and hex prefix).
    var tableText: String {
        switch self {
        case .null: return "nil"
        case .objects(let ids): return ids.count == 1 ? "1 object" : "\(ids.count) objects"
        case .object(let id): return Cell.shortName(id)
        case .double(let value): return Cell.rounded(value)
        case .data(let data):
            let prefix = data.prefix(8).map { String(format: "%02x", $0) }.joined()
            return "\(data.count) bytes" + (data.isEmpty ? "" : " \(prefix)\(data.count > 8 ? "…" : "")")
        default: return exactText
        }
    }

    /// The cell as exact text, for CSV (and JSON strings): full object ID URIs, data in base64,
    /// dates in ISO 8601 with their fractional seconds.
    var exactText: String {
        switch self {
        case .null: return ""
        case .bool(let value): return value ? "true" : "false"
        case .integer(let value): return String(value)
        case .double(let value): return Cell.text(of: value)
        case .decimal(let value): return "\(value)"
        case .string(let value): return value
        case .date(let value): return Cell.iso8601(value)
        case .data(let value): return value.base64EncodedString()
        case .uuid(let value): return value.uuidString
        case .url(let value): return value.absoluteString
        case .object(let id): return id.uriRepresentation().absoluteString
        case .objects(let ids): return ids.map { $0.uriRepresentation().absoluteString }.joined(separator: " ")
        }
    }

    /// A double as the shortest text that reads back as the same double (`72000` for whole numbers).
    static func text(of value: Double) -> String {
        if value.isFinite, value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    /// A double for reading: at most 4 decimals (`2.9941`), whole numbers without a point.
    static func rounded(_ value: Double) -> String {
        guard value.isFinite, abs(value) < 1e15, value == 0 || abs(value) >= 1e-4 else { return "\(value)" }
        var text = String(format: "%.4f", value)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text == "-0" ? "0" : text
    }

    /// `2019-03-04T09:30:00Z`, with fractional seconds (up to microseconds) when there are any.
    static func iso8601(_ date: Date) -> String {
        let seconds = date.timeIntervalSince1970
        let whole = seconds.rounded(.down)
        let micros = Int(((seconds - whole) * 1_000_000).rounded())
        let base = Date(timeIntervalSince1970: whole)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: base)
        var text = String(
            format: "%04d-%02d-%02dT%02d:%02d:%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0, parts.hour ?? 0,
            parts.minute ?? 0, parts.second ?? 0)
        if micros > 0 && micros < 1_000_000 {
            var fraction = String(format: "%06d", micros)
            while fraction.hasSuffix("0") { fraction.removeLast() }
            text += "." + fraction
        }
        return text + "Z"
    }
}
