import CoreData

/// A result held whole: named columns and rows of cells, in the order they came. For small
/// results (the demo's, `stores`); `fetch` streams its rows through a `RowWriter` instead.
struct ResultTable {
    var columns: [String]
    var rows: [[Cell]]

    /// The table written in `format`, as one string without a final line break; `width` is the
    /// terminal width tables must fit.
    func rendered(as format: OutputFormat, width: Int = Console.width) -> String {
        var text = ""
        let writer = format.writer(width: width) { text += $0 }
        writer.begin(columns: columns)
        for row in rows { writer.write(row) }
        writer.end()
        if text.hasSuffix("\n") { text.removeLast() }
        return text
    }
}
