/// Prints a `ResultTable` for a terminal: a header, a rule, one line per row, columns two spaces
/// apart, numbers right-aligned; the widest columns are narrowed (cells cut with `…`) until the
/// table fits `width`, down to 6 characters a column.
///
/// ```
/// firstName  lastName  salary
/// ─────────  ────────  ──────
/// Ada        Núñez     182000
/// ```
struct TableFormatter {
    let width: Int
    static let gap = 2
    static let narrowest = 6

    func render(_ table: ResultTable) -> String {
        let texts = table.rows.map { row in row.map { Self.flatten($0.tableText) } }
        let rightAligned = table.columns.indices.map { column in
            !table.rows.isEmpty && table.rows.allSatisfy { column < $0.count && ($0[column].isNumeric || isNull($0[column])) }
                && table.rows.contains { $0[column].isNumeric }
        }
        var widths = table.columns.map { $0.count }
        for row in texts {
            for (column, text) in row.enumerated() where column < widths.count {
                widths[column] = max(widths[column], text.count)
            }
        }
        fit(&widths)
        var lines: [String] = []
        lines.append(line(table.columns, widths: widths, rightAligned: rightAligned.map { _ in false }))
        lines.append(widths.map { String(repeating: "─", count: $0) }.joined(separator: String(repeating: " ", count: Self.gap)))
        for row in texts { lines.append(line(row, widths: widths, rightAligned: rightAligned)) }
        return lines.joined(separator: "\n")
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

    private func line(_ cells: [String], widths: [Int], rightAligned: [Bool]) -> String {
        var parts: [String] = []
        for (column, width) in widths.enumerated() {
            let text = Self.cut(column < cells.count ? cells[column] : "", to: width)
            let padding = String(repeating: " ", count: width - text.count)
            parts.append(rightAligned[column] ? padding + text : text + padding)
        }
        var result = parts.joined(separator: String(repeating: " ", count: Self.gap))
        while result.hasSuffix(" ") { result.removeLast() }
        return result
    }

    private func isNull(_ cell: Cell) -> Bool {
        if case .null = cell { return true }
        return false
    }

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
