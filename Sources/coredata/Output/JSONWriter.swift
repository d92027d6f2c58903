/// Writes rows as JSON objects whose keys keep the column order: one array (`[` … `]`, a row a
/// line), or with `lines` one object per line and nothing else (NDJSON, for `jq` and log tools).
/// Exact: integers and decimals as JSON numbers, doubles as the shortest text that reads back
/// the same (`NaN` and infinities as strings), booleans, `null`, dates as ISO 8601 strings with
/// fractional seconds, data as base64 strings, object IDs as their `x-coredata:` URIs (to-many:
/// arrays).
final class JSONWriter: RowWriter {
    private let lines: Bool
    private let output: (String) -> Void
    private var keys: [String] = []
    private var rowCount = 0

    init(lines: Bool, output: @escaping (String) -> Void) {
        self.lines = lines
        self.output = output
    }

    func begin(columns: [String]) {
        keys = columns.map { Self.quoted($0) + ": " }
    }

    func write(_ row: [Cell]) {
        var object = lines ? "{" : rowCount == 0 ? "[\n  {" : ",\n  {"
        for (column, key) in keys.enumerated() {
            if column > 0 { object += ", " }
            object += key + (column < row.count ? Self.value(row[column]) : "null")
        }
        object += lines ? "}\n" : "}"
        rowCount += 1
        output(object)
    }

    func end() {
        guard !lines else { return }
        output(rowCount == 0 ? "[]\n" : "\n]\n")
    }

    static func value(_ cell: Cell) -> String {
        switch cell {
        case .null: return "null"
        case .bool(let value): return value ? "true" : "false"
        case .integer(let value): return String(value)
        case .double(let value): return value.isFinite ? "\(value)" : quoted("\(value)")
        case .decimal(let value): return value.isNaN ? quoted("NaN") : "\(value)"
        case .objects(let ids):
            return "[" + ids.map { quoted($0.uriRepresentation().absoluteString) }.joined(separator: ", ") + "]"
        default: return quoted(cell.exactText)
        }
    }

    /// A JSON string literal.
    static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20: result += String(format: "\\u%04x", scalar.value)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
