import OpenStoreCore

/// A fired fault keeps its fetched row (`fetchedRow`) as its values: reading an attribute
/// decodes that one value, and a to-one relationship finds its destination in the context (and
/// keeps it: the first in `keptDestination`, beside the row, others in their slot of
/// `storedValues`, otherwise empty while pending). The
/// row is decoded into `PropertyValues` only when something needs them whole — a change, a
/// to-many relationship, a save, a merge — through `values` and `committed`
/// (`NSManagedObject+Extras`), which decode first. Firing a fault therefore costs no allocation,
/// and objects whose values are only read never decode a value that is not read.
extension NSManagedObject {
    /// The fired fault takes a fetched row as its values (pending until needed whole).
    func adopt(row values: [StoreValue], version: Int64) {
        fetchedRow = values
        keptDestination = nil
        self.version = version
        valuesArePending = true
    }

    /// The fired fault takes decoded values (from a parent context).
    func adopt(decoded values: PropertyValues, version: Int64) {
        fetchedRow = nil
        valuesArePending = false
        storedValues = values
        commitValues()
        self.version = version
    }

    /// Decodes pending values (see the extension's summary).
    @inline(__always)
    func materializeValues() {
        if valuesArePending { decodePendingValues() }
    }

    private func decodePendingValues() {
        valuesArePending = false
        keptDestination = nil  // the decoded values hold it now
        guard let row = fetchedRow else { return }
        fetchedRow = nil
        let layout = self.layout
        guard let context, let key = storeKey else {
            // No context to find destinations in (it is gone): attributes only.
            var decoded = PropertyValues(layout: layout)
            for slot in 0..<min(layout.count, row.count) {
                if case .attribute(let kind) = layout.decodings[slot], row[slot] != .null {
                    decoded[slot: slot] = layout.attributeValue(row[slot], kind: kind, slot: slot)
                }
            }
            storedValues = decoded
            commitValues()
            return
        }
        let decoded = context.decode(
            RowSnapshot(key: key, version: version, values: row), origin: idOrigin, faultingToMany: true
        ) { context.object(with: $0) }
        storedValues = decoded
        commitValues()
    }

    /// A pending value, read from the fetched row without decoding the others: an attribute, or
    /// a to-one relationship's destination; nil when the slot needs the values decoded (a to-many
    /// relationship, a transformable attribute, a row that does not follow the layout).
    @inline(__always)
    func pendingValue(slot: Int, layout: PropertyLayout) -> Any?? {
        pendingValue(slot: slot, decoding: layout.decodings[slot], count: layout.count)
    }

    /// `pendingValue(slot:layout:)` with what it needs of the layout: the slot's decoding and
    /// the layout's slot count.
    @inline(__always)
    func pendingValue(slot: Int, decoding: PropertyLayout.Decoding, count: Int) -> Any?? {
        switch decoding {
        case .attribute(let kind):
            guard let stored = pendingStoredValue(slot: slot, count: count) else { return nil }
            if case .null = stored { return .some(nil) }
            // A transformed value is made once, when the values are decoded: reading it again
            // gives the same object, and changes made to that object are kept.
            if case .transformable = kind { return nil }
            return .some(stored.swiftValue(kind: kind))
        case .toOne:
            guard let stored = pendingStoredValue(slot: slot, count: count) else { return nil }
            return pendingDestination(stored, slot: slot).map { $0 as Any? }
        case .transient:
            return pendingStoredValue(slot: slot, count: count) == nil ? nil : .some(nil)
        case .toMany:
            return nil
        }
    }

    /// The destination a pending object keeps at `slot` of its values (see
    /// `pendingDestination(_:slot:)`), without making its state.
    @inline(__always)
    private func keptSlotDestination(_ slot: Int) -> NSManagedObject? {
        guard case .state(let state) = link else { return nil }
        return state.values[slot: slot] as? NSManagedObject
    }

    /// A pending to-one relationship's destination, from the fetched row's value at `slot`:
    /// nil inside for none; nil when there is no context to find it in.
    @inline(__always)
    func pendingDestination(_ stored: StoreValue, slot: Int) -> NSManagedObject?? {
        guard case .object(let destination) = stored else { return .some(nil) }
        // Kept once read, so that the destination lives as long as this object does (the
        // context holds unchanged objects weakly), as Apple's fired to-one holds it: the
        // first in `keptDestination` (beside the row: one array per block of rows), others in
        // their slot.
        let kept = keptDestination
        if let kept, kept.identityKey == destination { return .some(kept) }
        if let inSlot = keptSlotDestination(slot), inSlot.identityKey == destination {
            return .some(inSlot)
        }
        let object: NSManagedObject
        if let registered = registeredNeighbour(destination) {
            object = registered
        } else {
            guard let context else { return nil }
            object = context.object(for: destination, origin: idOrigin)
        }
        if kept == nil {
            keptDestination = object
        } else {
            storedValues[slot: slot] = object
        }
        return .some(object)
    }
}
