import OpenStoreCore

extension NSManagedObjectContext {
    /// A store's dictionary rows as `NSDictionary` results: NULLs left out, relationships as
    /// object IDs, other values as Foundation objects.
    ///
    /// Each result is made from arrays of objects and keys: the keys are one string per column
    /// name, made once per fetch with its hash and shared by every row (`DictionaryResultKey`),
    /// and common values become
    /// `NSNumber`, `NSString` or `NSDate` directly, so no `[String: Any]` is built and bridged
    /// per row. Rows holding other values (decimals, data, UUIDs, URLs, to-many IDs) go through
    /// `NSDictionary(dictionary:)`.
    func dictionaryResults(
        _ rows: DictionaryRows, store: RowBackedPersistentStore, coordinator: NSPersistentStoreCoordinator
    ) -> [NSDictionary] {
        let names = rows.names
        let keys: [NSObject] = names.map { DictionaryResultKey($0) }
        let width = names.count
        let maker = PermanentIDMaker(store: store, coordinator: coordinator)
        var results: [NSDictionary] = []
        results.reserveCapacity(rows.count)
        var rowKeys: [NSObject] = []
        var rowValues: [AnyObject] = []
        rowKeys.reserveCapacity(width)
        rowValues.reserveCapacity(width)
        let values = rows.values
        rows: for row in 0..<rows.count {
            let start = row * width
            rowKeys.removeAll(keepingCapacity: true)
            rowValues.removeAll(keepingCapacity: true)
            for column in 0..<width {
                let value = values[start + column]
                if case .null = value { continue }
                guard let object = foundationObject(value, maker: maker) else {
                    var dictionary: [String: Any] = [:]
                    for column in 0..<width where values[start + column] != .null {
                        dictionary[names[column]] = export(values[start + column], maker: maker)
                    }
                    results.append(NSDictionary(dictionary: dictionary))
                    continue rows
                }
                rowKeys.append(keys[column])
                rowValues.append(object)
            }
            // The designated initializer: `init(objects:forKeys:)` takes `[Any]` and casts every
            // value back to an object (a third of the cost of making the dictionary).
            let dictionary = rowValues.withUnsafeBufferPointer { objects in
                rowKeys.withUnsafeBufferPointer { keys in
                    NSDictionary(objects: objects.baseAddress, forKeys: keys.baseAddress, count: keys.count)
                }
            }
            results.append(dictionary)
        }
        return results
    }

    /// A stored value as the object `NSDictionary` would hold for its Swift value, when that
    /// is one of the common cases; nil for the others.
    private func foundationObject(_ value: StoreValue, maker: PermanentIDMaker) -> AnyObject? {
        switch value {
        case .string(let text): return NSString(string: text)
        case .integer(let number): return NSNumber(value: Int(number))
        case .double(let number): return NSNumber(value: number)
        case .bool(let flag): return NSNumber(value: flag)
        case .date(let date): return NSDate(timeIntervalSinceReferenceDate: date.timeIntervalSinceReferenceDate)
        case .object(let key): return maker.id(for: key)
        default: return nil
        }
    }

    /// A stored value as dictionary results show it: Swift values, IDs for relationships.
    private func export(_ value: StoreValue, maker: PermanentIDMaker) -> Any {
        switch value {
        case .object(let key): return maker.id(for: key)
        case .objects(let keys): return keys.map(maker.id(for:))
        default: return value.naturalValue ?? NSNull()
        }
    }
}
