import Foundation

/// Makes a dictionary fetch's `NSDictionary` results row by row, straight from stored values:
/// NULLs left out, relationships as the caller's object IDs, other values as Foundation objects.
///
/// A store fills each row with `set(_:column:)` for each column, then `endRow()` adds it to
/// `results`. Columns of the same name share one key; the last non-NULL value of that name wins, as in
/// `DictionaryRows`. The keys are one `DictionaryResultKey` per name, made once and shared by
/// every row, and the common values (strings, numbers, dates, to-one IDs) become `NSString`,
/// `NSNumber`, `NSDate` or the ID directly, so no `[String: Any]` is built and bridged per row.
/// A row holding another value (a decimal, data, a UUID, a URL, a to-many's IDs) goes through
/// `NSDictionary(dictionary:)` instead.
package final class DictionaryResultBuilder: DictionaryRowSink {
    /// The rows ended so far. (Accesses to the builder's variables never overlap: without the
    /// runtime's exclusivity checks, a row costs about 450 instructions less.)
    @exclusivity(unchecked) package private(set) var results: [NSDictionary] = []
    /// The keys, each once, in the order of their first column.
    private let names: [String]
    /// One key object per name.
    private let keys: [NSObject]
    /// The key index of each column.
    private let keyIndexes: [Int]
    /// The ID of a row a relationship names.
    private let objectID: (ObjectKey) -> AnyObject
    /// The row's Foundation objects by key index; nil where it has none (yet).
    private let objects: UnsafeMutablePointer<AnyObject?>
    /// The row's other values by key index, as `NSDictionary(dictionary:)` takes them.
    @exclusivity(unchecked) private var others: [Int: Any] = [:]
    /// The row's objects and keys, side by side, for `NSDictionary(objects:forKeys:count:)`.
    private let rowObjects: UnsafeMutablePointer<AnyObject>
    private let rowKeys: UnsafeMutablePointer<NSObject>

    /// A builder for rows of columns of these names (duplicates allowed), relationships given
    /// as `objectID` names their rows.
    package init(columns: [String], objectID: @escaping (ObjectKey) -> AnyObject) {
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
        self.names = names
        self.keyIndexes = keyIndexes
        keys = names.map { DictionaryResultKey($0) }
        self.objectID = objectID
        objects = .allocate(capacity: names.count)
        objects.initialize(repeating: nil, count: names.count)
        rowObjects = .allocate(capacity: names.count)
        rowKeys = .allocate(capacity: names.count)
    }

    deinit {
        objects.deinitialize(count: names.count)
        objects.deallocate()
        rowObjects.deallocate()
        rowKeys.deallocate()
    }

    /// Sets the value of a column (by its index among the columns given to `init`) in the row
    /// being built; `.null` leaves the row as it is.
    package func set(_ value: StoreValue, column: Int) {
        let key = keyIndexes[column]
        let object: AnyObject
        switch value {
        case .null: return
        case .string(let text): object = NSString(string: text)
        case .integer(let number): object = NSNumber(value: Int(number))
        case .double(let number): object = NSNumber(value: number)
        case .bool(let flag): object = NSNumber(value: flag)
        case .date(let date): object = NSDate(timeIntervalSinceReferenceDate: date.timeIntervalSinceReferenceDate)
        case .object(let row): object = objectID(row)
        case .objects(let rows):
            objects[key] = nil
            others[key] = rows.map(objectID)
            return
        case .decimal, .data, .uuid, .url:
            objects[key] = nil
            others[key] = value.naturalValue ?? NSNull()
            return
        }
        objects[key] = object
        if !others.isEmpty { others[key] = nil }
    }

    /// Makes room for this many rows.
    package func reserveCapacity(_ rows: Int) { results.reserveCapacity(rows) }

    /// Nothing: a row starts empty.
    package func appendRow() {}

    /// Adds the row built since the last call to `results`; the builder is then empty.
    package func endRow() { results.append(finishRow()) }

    /// The row built since the last call, as a dictionary.
    private func finishRow() -> NSDictionary {
        guard others.isEmpty else { return finishMixedRow() }
        var count = 0
        for key in 0..<names.count {
            guard let object = (objects + key).move() else {
                (objects + key).initialize(to: nil)
                continue
            }
            (objects + key).initialize(to: nil)
            (rowObjects + count).initialize(to: object)
            (rowKeys + count).initialize(to: keys[key])
            count += 1
        }
        // The designated initializer: `init(objects:forKeys:)` takes `[Any]` and casts every
        // value back to an object (a third of the cost of making the dictionary).
        let dictionary = NSDictionary(objects: rowObjects, forKeys: rowKeys, count: count)
        rowObjects.deinitialize(count: count)
        rowKeys.deinitialize(count: count)
        return dictionary
    }

    /// A row with a value that has no common Foundation object.
    private func finishMixedRow() -> NSDictionary {
        var dictionary: [String: Any] = others.reduce(into: [:]) { $0[names[$1.key]] = $1.value }
        others = [:]
        for key in 0..<names.count {
            if let object = (objects + key).move() { dictionary[names[key]] = object }
            (objects + key).initialize(to: nil)
        }
        return NSDictionary(dictionary: dictionary)
    }
}

extension DictionaryRows {
    /// The rows as `NSDictionary` results (see `DictionaryResultBuilder`), relationships given as
    /// `objectID` names their rows.
    package func foundationResults(objectID: @escaping (ObjectKey) -> AnyObject) -> [NSDictionary] {
        let builder = DictionaryResultBuilder(columns: names, objectID: objectID)
        builder.reserveCapacity(rowCount)
        for row in 0..<rowCount {
            for (column, value) in self.row(row).enumerated() { builder.set(value, column: column) }
            builder.endRow()
        }
        return builder.results
    }
}

extension RowStore {
    /// Runs a dictionary fetch through `execute(_:)` and makes its results with
    /// `DictionaryRows.foundationResults(objectID:)`.
    package func dictionaryResults(_ plan: FetchPlan, objectID: @escaping (ObjectKey) -> AnyObject) throws -> [NSDictionary] {
        guard case .dictionaries(let rows) = try execute(plan) else { return [] }
        return rows.foundationResults(objectID: objectID)
    }
}
