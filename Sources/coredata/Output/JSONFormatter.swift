/// Prints a `ResultTable` as a JSON array of objects whose keys keep the column order. Exact:
/// integers and decimals as JSON numbers, doubles as the shortest text that reads back the same
/// (`NaN` and infinities as strings), booleans, `null`, dates as ISO 8601 strings with fractional
/// seconds, data as base64 strings, object IDs as their `x-coredata:` URIs (to-many: arrays).
struct JSONFormatter {
    func render(_ table: ResultTable) -> String {
        guard !table.rows.isEmpty else { return "[]" }
        let lines = table.rows.map { row -> String in
            let members = table.columns.enumerated().map { column, name in
                "\(Self.quoted(name)): \(column < row.count ? Self.value(row[column]) : "null")"
            }
            return "  {" + members.joined(separator: ", ") + "}"
        }
        return "[\n" + lines.joined(separator: ",\n") + "\n]"
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
