/// Writes rows for a terminal: a header, a rule, one line per row, columns two spaces apart,
/// numbers right-aligned; the widest columns are narrowed (cells cut with `…`) until the table
/// fits `width`, down to 6 characters a column, and a line still wider (too many columns) is cut
/// at `width`: a row never wraps.
///
/// ```
/// firstName  lastName  salary
/// ─────────  ────────  ──────
/// Ada        Núñez     182000
/// ```
///
/// The columns are sized from the first `sampleSize` rows, held until then (or until the end);
/// later rows print as they come, cut to those widths, as `psql` does with `FETCH_COUNT`.
final class TableWriter: RowWriter {
    let width: Int
    static let gap = 2
    static let narrowest = 6
    static let sampleSize = 200

    private let output: (String) -> Void
    private var columns: [String] = []
    private var sample: [[Cell]] = []
    /// The column widths and alignment, once the sample has fixed them.
    private var layout: (widths: [Int], rightAligned: [Bool])?

    init(width: Int, output: @escaping (String) -> Void) {
        self.width = width
        self.output = output
    }

    func begin(columns: [String]) {
        self.columns = columns
    }

    func write(_ row: [Cell]) {
        if let layout {
            output(line(row.map { Self.flatten($0.tableText) }, layout.widths, layout.rightAligned) + "\n")
            return
        }
        sample.append(row)
        if sample.count == Self.sampleSize { printSample() }
    }

    func end() {
        if layout == nil { printSample() }
    }

    /// Sizes the columns from the rows held, prints the header and those rows.
    private func printSample() {
        let texts = sample.map { row in row.map { Self.flatten($0.tableText) } }
        let rightAligned = columns.indices.map { column in
            !sample.isEmpty && sample.allSatisfy { column < $0.count && ($0[column].isNumeric || $0[column].isNull) }
                && sample.contains { $0[column].isNumeric }
        }
        var widths = columns.map(\.count)
        for row in texts {
            for (column, text) in row.enumerated() where column < widths.count {
                widths[column] = max(widths[column], text.count)
            }
        }
        fit(&widths)
        layout = (widths, rightAligned)
        sample = []
        var lines = [
            line(columns, widths, columns.map { _ in false }),
            Self.cut(widths.map { String(repeating: "─", count: $0) }.joined(separator: Self.spacing), to: width),
        ]
        for row in texts { lines.append(line(row, widths, rightAligned)) }
        output(lines.joined(separator: "\n") + "\n")
    }

    /// Narrows the widest column one character at a time until the row fits.
    private func fit(_ widths: inout [Int]) {
        var total = widths.reduce(0, +) + Self.gap * max(widths.count - 1, 0)
        while total > width {
            guard let widest = widths.indices.max(by: { widths[$0] < widths[$1] }), widths[widest] > Self.narrowest else {
                return
            }
            widths[widest] -= 1
            total -= 1
        }
    }

    private func line(_ cells: [String], _ widths: [Int], _ rightAligned: [Bool]) -> String {
        var parts: [String] = []
        for (column, width) in widths.enumerated() {
            let text = Self.cut(column < cells.count ? cells[column] : "", to: width)
            let padding = String(repeating: " ", count: width - text.count)
            parts.append(rightAligned[column] ? padding + text : text + padding)
        }
        var result = parts.joined(separator: Self.spacing)
        while result.hasSuffix(" ") { result.removeLast() }
        return Self.cut(result, to: width)
    }

    private static let spacing = String(repeating: " ", count: gap)

    /// `text` cut to `width` characters, ending in `…` when cut.
    static func cut(_ text: String, to width: Int) -> String {
        text.count <= width ? text : String(text.prefix(max(width - 1, 0))) + "…"
    }

    /// Line breaks and tabs as visible marks, so that one row stays one line.
    static func flatten(_ text: String) -> String {
        guard text.contains(where: { $0.isNewline || $0 == "\t" }) else { return text }
        return String(text.map { $0.isNewline ? "⏎" : $0 == "\t" ? " " : $0 })
    }
}
