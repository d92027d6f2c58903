import OpenStoreCore

/// The rows of one fetch of one entity and store, in result order, whose objects are uniqued by
/// the fetch itself rather than entry by entry in its context's registry (see `ObjectRegistry`,
/// "Batch tables"): 8 bytes a row where a registry entry takes 28, so that a batched fetch of
/// 10^6 rows holds little more than its objects.
///
/// A slot holds the address of the row's object while the table uniques it (unretained: the
/// object leaves in its `deinit`, as from the registry), or else the row's primary key shifted
/// left once with the low bit set (object addresses are even): for a row whose object is gone,
/// or is registered in the registry's own table. Rows are found by primary key by binary
/// search: over the slots themselves when the keys come in ascending order (a fetch without
/// sort descriptors), else over `order`, the positions sorted by key (4 bytes more a row).
///
/// Every slot is read and written under the registry's lock: a slot may change from an address
/// to a key (its object's `deinit`, on any thread) at any time otherwise.
final class BatchTable {
    // Every stored property that changes is read and written only while the registry's lock is
    // held, so Swift's dynamic exclusivity checks are left out (as in `ObjectRegistry`).
    let origin: IDOrigin
    let entityID: Int
    /// The number of rows.
    let count: Int
    /// See the type's summary.
    @exclusivity(unchecked) var slots: [UInt]
    /// The positions in primary key order (equal keys in position order), when `slots` are not.
    let order: [UInt32]?
    /// The least and the greatest primary key: a key outside them is not searched for.
    let keyRange: ClosedRange<Int64>
    /// How many slots hold an object.
    @exclusivity(unchecked) var liveCount = 0
    /// The position of the object that left last: the objects of a fetch's results usually go
    /// in result order, each found next to the last without a search.
    @exclusivity(unchecked) private var lastRemoved = 0

    /// A table for `keys`, every slot a key; nil when the table cannot hold them: no keys, keys
    /// of several entities, a negative key or one of 63 bits, more rows than 32-bit positions
    /// count, or addresses narrower than 64 bits; or, with `inKeyOrder`, keys not in ascending
    /// order (sorting them costs a sorted fetch more than the table saves it).
    init?(origin: IDOrigin, keys: [ObjectKey], inKeyOrder: Bool = false) {
        guard MemoryLayout<UInt>.size == 8, let first = keys.first, keys.count < Int(UInt32.max) else { return nil }
        var slots: [UInt] = []
        slots.reserveCapacity(keys.count)
        var ascending = true
        var previous = Int64.min
        var (least, greatest) = (Int64.max, Int64.min)
        for key in keys {
            guard key.entityID == first.entityID, key.primaryKey >= 0, key.primaryKey < 1 << 62 else { return nil }
            ascending = ascending && key.primaryKey > previous
            previous = key.primaryKey
            least = min(least, key.primaryKey)
            greatest = max(greatest, key.primaryKey)
            slots.append(Self.slot(forKey: key.primaryKey))
        }
        if inKeyOrder && !ascending { return nil }
        keyRange = least...greatest
        self.origin = origin
        entityID = first.entityID
        order =
            ascending
            ? nil
            : slots.indices.sorted { slots[$0] < slots[$1] || (slots[$0] == slots[$1] && $0 < $1) }.map {
                UInt32(truncatingIfNeeded: $0)
            }
        self.slots = slots
        count = slots.count
    }

    @inline(__always)
    static func slot(forKey primaryKey: Int64) -> UInt { UInt(bitPattern: Int(primaryKey)) << 1 | 1 }

    @inline(__always)
    static func isObject(_ slot: UInt) -> Bool { slot & 1 == 0 }

    @inline(__always)
    func object(at position: Int) -> Unmanaged<NSManagedObject>? {
        let slot = slots[position]
        guard Self.isObject(slot), let address = UnsafeRawPointer(bitPattern: slot) else { return nil }
        return Unmanaged.fromOpaque(address)
    }

    /// The primary key of the row at `position`: the slot's, or its object's (read without a
    /// reference taken: the object cannot be freed while the caller holds the lock).
    @inline(__always)
    func primaryKey(at position: Int) -> Int64 {
        if let object = object(at: position) { return object._withUnsafeGuaranteedRef { $0.identityKey.primaryKey } }
        return Int64(bitPattern: UInt64(slots[position] >> 1))
    }

    /// The row's object, at `address`, becomes the table's (`position`'s slot must hold its key).
    @inline(__always)
    func adopt(address: UInt, at position: Int) {
        slots[position] = address
        liveCount += 1
    }

    /// The table lets go of the object at `position`: the slot keeps its key.
    func release(at position: Int) {
        slots[position] = Self.slot(forKey: primaryKey(at: position))
        liveCount -= 1
        lastRemoved = position
    }

    /// Calls `body` with each object the table holds and its position.
    func forEachObject(_ body: (Int, Unmanaged<NSManagedObject>) -> Void) {
        for position in 0..<count {
            if let object = object(at: position) { body(position, object) }
        }
    }

    /// Lets go of every object.
    func releaseAll() {
        forEachObject { position, _ in release(at: position) }
    }

    /// The position holding the object of the row `primaryKey`, if the table holds it.
    func live(_ primaryKey: Int64) -> Int? {
        guard liveCount > 0, keyRange.contains(primaryKey) else { return nil }
        let position = { (rank: Int) in self.order.map { Int($0[rank]) } ?? rank }
        // The first rank whose key is not below `primaryKey`, then the ranks of equal keys.
        var low = 0
        var high = count
        while low < high {
            let middle = (low + high) / 2
            if self.primaryKey(at: position(middle)) < primaryKey { low = middle + 1 } else { high = middle }
        }
        while low < count, case let found = position(low), self.primaryKey(at: found) == primaryKey {
            if Self.isObject(slots[found]) { return found }
            low += 1
        }
        return nil
    }

    /// The position holding `object` (whose primary key is `primaryKey`), if the table holds
    /// it: next to the last object that left, or found by key.
    func position(of object: Unmanaged<NSManagedObject>, primaryKey: Int64) -> Int? {
        let address = UInt(bitPattern: object.toOpaque())
        if lastRemoved + 1 < count, slots[lastRemoved + 1] == address { return lastRemoved + 1 }
        if lastRemoved > 0, slots[lastRemoved - 1] == address { return lastRemoved - 1 }
        return live(primaryKey).flatMap { slots[$0] == address ? $0 : nil }
    }
}
