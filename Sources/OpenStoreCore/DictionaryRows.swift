/// The results of a dictionary fetch, by column: the keys once, then one value per key per row,
/// `.null` where the row has no entry for the key (a NULL or nil value, as Apple's result
/// dictionaries leave out).
///
/// A store fills it row by row: `appendRow()`, then `set(_:column:)` for each column of the
/// shape. Columns of the same name share one key; the last non-NULL value of that name wins,
/// as assigning into a dictionary column by column would. As a collection, each element is the
/// row's dictionary (for tests and the in-memory store's filters); `foundationResults(objectID:)`
/// makes the `NSDictionary` results from `names` and `values` without a Swift dictionary per row.
package struct DictionaryRows: Sendable, DictionaryRowSink {
    /// The keys, each once, in the order of their first column.
    package let names: [String]
    /// The values, row after row, `names.count` per row.
    package private(set) var values: [StoreValue] = []
    /// The number of rows.
    package private(set) var rowCount = 0
    /// The key index of each column (columns of the same name share one).
    private let keyIndexes: [Int]
    /// Where the row being filled starts in `values`.
    private var rowStart = 0

    /// Empty results for columns of these names (duplicates allowed; see the type's comment).
    package init(columns: [String]) {
        (names, keyIndexes) = Self.keys(of: columns)
    }

    /// The keys of columns of these names, each once in the order of its first column, and
    /// the key index of each column (columns of the same name share one).
    static func keys(of columns: [String]) -> (names: [String], keyIndexes: [Int]) {
        var names: [String] = []
        var keyIndexes: [Int] = []
        keyIndexes.reserveCapacity(columns.count)
        for name in columns {
            if let index = names.firstIndex(of: name) {
                keyIndexes.append(index)
            } else {
                keyIndexes.append(names.count)
                names.append(name)
            }
        }
        return (names, keyIndexes)
    }

    /// Results holding these dictionaries, keyed by the columns' names: each dictionary's keys
    /// must be among them (others are dropped).
    package init(columns: [String], dictionaries: [[String: StoreValue]]) {
        self.init(columns: columns)
        reserveCapacity(dictionaries.count)
        for dictionary in dictionaries {
            appendRow()
            for (index, name) in names.enumerated() {
                if let value = dictionary[name] { values[rowStart + index] = value }
            }
        }
    }

    /// Makes room for this many rows.
    package mutating func reserveCapacity(_ rows: Int) {
        values.reserveCapacity(rows * names.count)
    }

    /// Starts a new row, with no entries.
    package mutating func appendRow() {
        rowStart = values.count
        values.append(contentsOf: repeatElement(.null, count: names.count))
        rowCount += 1
    }

    /// Sets the value of a column (by its index among the columns given to `init(columns:)`)
    /// in the last row; `.null` leaves the row as it is.
    package mutating func set(_ value: StoreValue, column: Int) {
        if case .null = value { return }
        values[rowStart + keyIndexes[column]] = value
    }

    /// Nothing: a row is complete once its columns are set.
    package func endRow() {}

    /// The values of a row, one per name.
    package func row(_ index: Int) -> ArraySlice<StoreValue> {
        values[index * names.count..<(index + 1) * names.count]
    }
}

/// Where a store puts the rows of a dictionary fetch, column by column: `appendRow()`, then
/// `set(_:column:)` for each column (by its index in the fetch's shape; `.null` sets nothing),
/// then `endRow()`.
package protocol DictionaryRowSink {
    mutating func appendRow()
    mutating func set(_ value: StoreValue, column: Int)
    /// Sets a column to a string: `set(.string(string), column:)`, which is the default.
    mutating func set(string: String, column: Int)
    /// Sets a column to an integer: `set(.integer(integer), column:)`, which is the default.
    mutating func set(integer: Int64, column: Int)
    mutating func endRow()
}

extension DictionaryRowSink {
    package mutating func set(string: String, column: Int) { set(.string(string), column: column) }
    package mutating func set(integer: Int64, column: Int) { set(.integer(integer), column: column) }
}

extension DictionaryRows: RandomAccessCollection {
    package var startIndex: Int { 0 }
    package var endIndex: Int { rowCount }

    /// A row as a dictionary: its non-NULL values by name.
    package subscript(position: Int) -> [String: StoreValue] {
        var dictionary: [String: StoreValue] = Dictionary(minimumCapacity: names.count)
        for (name, value) in zip(names, row(position)) where value != .null {
            dictionary[name] = value
        }
        return dictionary
    }
}

extension DictionaryRows: Equatable {
    /// Equal when the rows' dictionaries are, in order (the layout of the keys does not count).
    package static func == (lhs: DictionaryRows, rhs: DictionaryRows) -> Bool {
        lhs.elementsEqual(rhs)
    }
}

extension DictionaryRows: ExpressibleByArrayLiteral {
    /// Results holding these dictionaries, the keys in sorted order (for tests).
    package init(arrayLiteral elements: [String: StoreValue]...) {
        self.init(columns: Set(elements.flatMap(\.keys)).sorted(), dictionaries: elements)
    }
}
