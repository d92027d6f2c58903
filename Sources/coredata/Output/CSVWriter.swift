/// Writes rows as CSV (RFC 4180): a header line, then one line per row; fields with a comma,
/// quote or line break are quoted, quotes doubled. Values are exact (`Cell.exactText`): nil is
/// an empty field, to-many relationships are their object ID URIs separated by spaces.
final class CSVWriter: RowWriter {
    private let output: (String) -> Void

    init(output: @escaping (String) -> Void) {
        self.output = output
    }

    func begin(columns: [String]) {
        output(columns.map(Self.field).joined(separator: ",") + "\n")
    }

    func write(_ row: [Cell]) {
        output(row.map { Self.field($0.exactText) }.joined(separator: ",") + "\n")
    }

    func end() {}

    static func field(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0.isNewline }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
