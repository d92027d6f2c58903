import OpenStoreCore

/// Rows fetched for faults, kept until the faults fire.
///
/// A row fetched for a registered fault is kept on the object itself (`fetchedRow`), so firing
/// it looks nothing up by key; rows fetched ahead of their objects (prefetched destinations,
/// objects not registered yet) and rows whose age `stalenessInterval` asks for are kept in
/// `rowCache` by key. Every read and write of cached rows goes through here.
extension NSManagedObjectContext {
    /// Keeps a fetched row until the fault of `object` (or of the row's key) fires.
    func cache(_ row: RowSnapshot, for object: NSManagedObject?, fetchedAt: TimeInterval?) {
        if let object, object.isFault, fetchedAt == nil {
            object.fetchedRow = row.values
            object.version = row.version
            // One place per row: an older copy by key would outlive the fault.
            if !rowCache.isEmpty { rowCache[row.key] = nil }
            return
        }
        rowCache[row.key] = row
        if let fetchedAt { rowCacheTimes[row.key] = fetchedAt }
    }

    /// The cached row of a fault, without taking it.
    func cachedRow(of object: NSManagedObject) -> RowSnapshot? {
        guard let key = object.storeKey else { return nil }
        if let values = object.fetchedRow { return RowSnapshot(key: key, version: object.version, values: values) }
        return rowCache.isEmpty ? nil : rowCache[key]
    }

    /// The cached row of a saved object, registered here or not.
    func cachedRow(for id: NSManagedObjectID, key: ObjectKey) -> RowSnapshot? {
        if let object = registry[id], let row = cachedRow(of: object) { return row }
        return rowCache.isEmpty ? nil : rowCache[key]
    }

    /// Replaces the cached row of a fault (e.g. with its to-many members filled in).
    func updateCachedRow(of object: NSManagedObject, _ change: (inout RowSnapshot) -> Void) {
        guard let key = object.storeKey else { return }
        if object.fetchedRow != nil {
            var row = RowSnapshot(key: key, version: object.version, values: object.fetchedRow ?? [])
            object.fetchedRow = nil
            change(&row)
            object.fetchedRow = row.values
        } else if var row = rowCache.removeValue(forKey: key) {
            change(&row)
            rowCache[key] = row
        }
    }

    /// Takes the cached row of a fault that is firing; nil when there is none, or when it is
    /// older than `stalenessInterval` allows.
    func takeCachedRow(of object: NSManagedObject, key: ObjectKey) -> RowSnapshot? {
        if let values = object.fetchedRow {
            object.fetchedRow = nil
            // Kept on the object only while no interval was set: no known age, so stale once one is.
            return stalenessInterval >= 0 ? nil : RowSnapshot(key: key, version: object.version, values: values)
        }
        guard !rowCache.isEmpty, let row = rowCache.removeValue(forKey: key) else { return nil }
        return isStale(cachedRow: key) ? nil : row
    }

    /// Forgets the cached row of an object (it changed in the store). A fired object whose
    /// values are still its fetched row keeps them until it is refreshed.
    func forgetCachedRow(for id: NSManagedObjectID, key: ObjectKey) {
        if let object = registry[id], object.isFault { object.fetchedRow = nil }
        rowCache[key] = nil
        rowCacheTimes[key] = nil
    }

    /// The time to record for rows cached now, when `stalenessInterval` asks for ages; nil
    /// otherwise (the default, -1: cached rows never go stale, and nothing is recorded).
    func rowCacheTimestamp() -> TimeInterval? {
        stalenessInterval >= 0 ? Date().timeIntervalSinceReferenceDate : nil
    }

    /// Whether a row from `rowCache` is older than `stalenessInterval` allows (a row cached
    /// while no interval was set has no known age and counts as stale once one is); forgets its
    /// time.
    private func isStale(cachedRow key: ObjectKey) -> Bool {
        // Without an interval, no time is recorded (the common case: no lookup at all).
        let fetchedAt = rowCacheTimes.isEmpty ? nil : rowCacheTimes.removeValue(forKey: key)
        let interval = stalenessInterval
        guard interval >= 0 else { return false }
        guard let fetchedAt else { return true }
        return Date().timeIntervalSinceReferenceDate - fetchedAt > interval
    }
}
