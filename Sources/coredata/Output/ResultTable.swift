import CoreData

/// A result ready to print: named columns and rows of cells, in the order they came.
struct ResultTable {
    var columns: [String]
    var rows: [[Cell]]

    /// Renders the table in `format`; `width` is the terminal width tables must fit.
    func rendered(as format: OutputFormat, width: Int = Console.width) -> String {
        switch format {
        case .table: return TableFormatter(width: width).render(self)
        case .json: return JSONFormatter().render(self)
        case .csv: return CSVFormatter().render(self)
        }
    }
}

/// How results print: `table` (readable, fits the terminal), `json` or `csv` (exact).
enum OutputFormat: String, CaseIterable {
    case table, json, csv
}
