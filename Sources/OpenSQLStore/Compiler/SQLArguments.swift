import OpenStoreCore

/// The sink every value of a compiled statement goes through: writing a value appends it to the
/// bound values and gives back the `?` to put in the SQL text, so values never enter the text.
///
/// ```swift
/// var arguments = SQLArguments()
/// let sql = "ZAGE > " + arguments.bind(.integer(30))   // "ZAGE > ?"
/// arguments.values                                      // [.integer(30)]
/// ```
package struct SQLArguments: Equatable {
    /// The values bound to `?1`, `?2`, … in order.
    package private(set) var values: [StoreValue] = []

    package init() {}

    /// Appends `value` and returns its placeholder, `?`.
    package mutating func bind(_ value: StoreValue) -> String {
        values.append(value)
        return "?"
    }

    /// Appends `values` and returns their placeholders separated by commas.
    package mutating func bind(_ values: [StoreValue]) -> String {
        values.map { bind($0) }.joined(separator: ", ")
    }
}

/// A compiled statement: the SQL text with `?` placeholders and the values bound to them.
package struct SQLQuery: Equatable {
    package let sql: String
    package let arguments: [StoreValue]
    /// `sql` without its last sort term, the tie-break by primary key (`t0.Z_PK`), for an engine
    /// that may return rows of equal sort keys in that order without it: set for SQLite fetches
    /// sorted by descriptors with a limit, nil otherwise. The store runs it only where it reads
    /// that order from SQLite's plan for it (`SQLiteConnection.statement(for:)`); the sort term
    /// costs some 40 instructions a row the sorter sees.
    package let sqlWithoutTieBreak: String?

    package init(sql: String, arguments: [StoreValue], sqlWithoutTieBreak: String? = nil) {
        self.sql = sql
        self.arguments = arguments
        self.sqlWithoutTieBreak = sqlWithoutTieBreak
    }
}
