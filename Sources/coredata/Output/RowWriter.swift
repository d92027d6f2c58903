/// Writes a result's rows in one output format as they come, so that a fetch prints its first
/// rows before its last are read and holds no more than a row at a time (a table, the first
/// `TableWriter.sampleSize` rows).
///
/// Call `begin(columns:)` once, `write(_:)` for each row, then `end()`.
protocol RowWriter: AnyObject {
    func begin(columns: [String])
    func write(_ row: [Cell])
    func end()
}

/// How results print: `table` (readable, fits the terminal), `json` (one array), `ndjson` (one
/// object per line) or `csv` (all exact).
enum OutputFormat: String, CaseIterable {
    case table, json, ndjson, csv

    /// A writer of this format sending its text to `output` (pieces of lines, with their line
    /// breaks); `width` is the width a table must fit.
    func writer(width: Int, output: @escaping (String) -> Void) -> RowWriter {
        switch self {
        case .table: return TableWriter(width: width, output: output)
        case .json: return JSONWriter(lines: false, output: output)
        case .ndjson: return JSONWriter(lines: true, output: output)
        case .csv: return CSVWriter(output: output)
        }
    }
}
