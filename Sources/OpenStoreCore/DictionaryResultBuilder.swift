import Foundation
import OpenPredicate

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
    /// The number of keys (`names.count`, kept apart: reading an array's count from a class
    /// retains and releases its buffer, on every row).
    private let width: Int
    /// One key object per name.
    private let keys: UnsafeMutablePointer<NSObject>
    /// The key index of each column (a buffer, for the same reason as `width`).
    private let keyIndexes: UnsafeMutablePointer<Int>
    /// The number of columns.
    private let columnCount: Int
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
        let (names, keyIndexes) = DictionaryRows.keys(of: columns)
        self.names = names
        width = names.count
        columnCount = keyIndexes.count
        self.keyIndexes = .allocate(capacity: keyIndexes.count)
        self.keyIndexes.initialize(from: keyIndexes, count: keyIndexes.count)
        keys = .allocate(capacity: width)
        keys.initialize(from: names.map { DictionaryResultKey($0) }, count: width)
        self.objectID = objectID
        objects = .allocate(capacity: width)
        objects.initialize(repeating: nil, count: width)
        rowObjects = .allocate(capacity: width)
        rowKeys = .allocate(capacity: width)
    }

    deinit {
        keys.deinitialize(count: width)
        keys.deallocate()
        objects.deinitialize(count: width)
        objects.deallocate()
        rowObjects.deallocate()
        rowKeys.deallocate()
        keyIndexes.deallocate()
    }

    /// Sets the value of a column (by its index among the columns given to `init`) in the row
    /// being built; `.null` leaves the row as it is.
    package func set(_ value: StoreValue, column: Int) {
        let key = keyIndex(column)
        switch value {
        case .null: return
        case .string(let text): set(NSString(string: text), key: key)
        case .integer(let number): set(NSNumber(value: Int(number)), key: key)
        case .double(let number): set(NSNumber(value: number), key: key)
        case .bool(let flag): set(NSNumber(value: flag), key: key)
        case .date(let date): set(NSDate(timeIntervalSinceReferenceDate: date.timeIntervalSinceReferenceDate), key: key)
        case .object(let row): set(objectID(row), key: key)
        case .objects(let rows):
            objects[key] = nil
            others[key] = rows.map(objectID)
        case .decimal, .data, .uuid, .url:
            objects[key] = nil
            others[key] = value.naturalValue ?? ValueSemantics.null
        }
    }

    /// Sets a column to a string, as `set(.string(string), column:)` does.
    package func set(string: String, column: Int) {
        // The new object stored in place: through `set(_:key:)` it is retained and released
        // once more (about 45 instructions a value).
        let key = keyIndex(column)
        objects[key] = NSString(string: string)
        if !others.isEmpty { others[key] = nil }
    }

    /// Sets a column to an integer, as `set(.integer(integer), column:)` does.
    package func set(integer: Int64, column: Int) {
        let key = keyIndex(column)
        objects[key] = NSNumber(value: Int(integer))
        if !others.isEmpty { others[key] = nil }
    }

    /// Sets the object of a key.
    private func set(_ object: AnyObject, key: Int) {
        objects[key] = object
        if !others.isEmpty { others[key] = nil }
    }

    /// The key index of a column (one of the columns given to `init`).
    @inline(__always) private func keyIndex(_ column: Int) -> Int {
        precondition(column >= 0 && column < columnCount, "column out of range")
        return keyIndexes[column]
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
        var complete = true
        for key in 0..<width where objects[key] == nil {
            complete = false
            break
        }
        // The designated initializer: `init(objects:forKeys:)` takes `[Any]` and casts every
        // value back to an object (a third of the cost of making the dictionary).
        if complete {
            // Every key has a value: the row's objects are already side by side (an optional
            // object and an object are laid out alike), so no reference is copied.
            let dictionary = objects.withMemoryRebound(to: AnyObject.self, capacity: width) {
                NSDictionary(objects: $0, forKeys: keys, count: width)
            }
            objects.update(repeating: nil, count: width)
            return dictionary
        }
        var count = 0
        for key in 0..<width {
            guard let object = (objects + key).move() else {
                (objects + key).initialize(to: nil)
                continue
            }
            (objects + key).initialize(to: nil)
            (rowObjects + count).initialize(to: object)
            (rowKeys + count).initialize(to: keys[key])
            count += 1
        }
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
