/// Prints a `ResultTable` as CSV (RFC 4180): a header line, then one line per row; fields with a
/// comma, quote or line break are quoted, quotes doubled. Values are exact (`Cell.exactText`):
/// nil is an empty field, to-many relationships are their object ID URIs separated by spaces.
struct CSVFormatter {
    func render(_ table: ResultTable) -> String {
        var lines = [table.columns.map(Self.field).joined(separator: ",")]
        for row in table.rows { lines.append(row.map { Self.field($0.exactText) }.joined(separator: ",")) }
        return lines.joined(separator: "\n")
    }

    static func field(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0.isNewline }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
