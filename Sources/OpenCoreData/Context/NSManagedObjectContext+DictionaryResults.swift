import OpenStoreCore

extension NSManagedObjectContext {
    /// A store's dictionary rows as `NSDictionary` results: NULLs left out, relationships as
    /// object IDs, other values as Foundation objects.
    ///
    /// Each result is made from arrays of objects and keys: the keys are one `NSString` per
    /// column name, shared by every row, and common values become `NSNumber`, `NSString` or
    /// `NSDate` directly, so no `[String: Any]` is built and bridged per row. Rows holding
    /// other values (decimals, data, UUIDs, URLs, to-many IDs) go through `NSDictionary(dictionary:)`.
    func dictionaryResults(
        _ rows: [[String: StoreValue]], store: RowBackedPersistentStore, coordinator: NSPersistentStoreCoordinator
    ) -> [NSDictionary] {
        // The column names met so far with their keys: a few, so a scan comparing (mostly
        // small) strings beats hashing each name of each row.
        var keys: [(name: String, key: NSString)] = []
        let maker = PermanentIDMaker(store: store, coordinator: coordinator)
        var results: [NSDictionary] = []
        results.reserveCapacity(rows.count)
        var rowKeys: [NSObject] = []
        var rowValues: [AnyObject] = []
        rows: for row in rows {
            rowKeys.removeAll(keepingCapacity: true)
            rowValues.removeAll(keepingCapacity: true)
            for (name, value) in row where value != .null {
                guard let object = foundationObject(value, maker: maker) else {
                    var dictionary: [String: Any] = [:]
                    for (name, value) in row where value != .null {
                        dictionary[name] = export(value, maker: maker)
                    }
                    results.append(NSDictionary(dictionary: dictionary))
                    continue rows
                }
                let key: NSString
                if let known = keys.first(where: { $0.name == name }) {
                    key = known.key
                } else {
                    key = NSString(string: name)
                    keys.append((name, key))
                }
                rowKeys.append(key)
                rowValues.append(object)
            }
            // The designated initializer: `init(objects:forKeys:)` takes `[Any]` and casts every
            // value back to an object (a third of the cost of making the dictionary).
            let dictionary = rowValues.withUnsafeBufferPointer { values in
                rowKeys.withUnsafeBufferPointer { keys in
                    NSDictionary(objects: values.baseAddress, forKeys: keys.baseAddress, count: keys.count)
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
