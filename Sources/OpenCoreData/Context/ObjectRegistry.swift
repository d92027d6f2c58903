import OpenStoreCore

/// A context's objects by ID: an open-addressing hash table of the objects themselves, each
/// found by its ID's origin and row key, so that a fetched row's object is found from the row's
/// key without making an ID, and no ID is compared through `isEqual(_:)`.
///
/// A slot holds the object and 32 bits of its hash (12 bytes a slot, where a
/// `[NSManagedObjectID: NSManagedObject]` bucket would take 16 and one keyed by origin and key
/// 32): the hash bits rule out almost every other object before its ID is looked at. Linear
/// probing, at most 3/4 full; a removal shifts the slots after it back, so lookups never meet a
/// tombstone. The IDs of one store share one origin (`IDOrigin`), which each registered object's
/// ID keeps alive, so comparing origins by identity is exact.
///
/// Objects are found by the ID they had when registered: change an object's ID only between
/// removing it and registering it again (as saves do).
struct ObjectRegistry: ExpressibleByDictionaryLiteral {
    typealias Key = NSManagedObjectID
    typealias Value = NSManagedObject

    /// The hash bits of each slot (never 0); 0 marks an empty slot.
    private var tags: [UInt32] = []
    /// The object of each slot.
    private var objects: [NSManagedObject?] = []
    /// The number of registered objects.
    private(set) var count = 0

    init(dictionaryLiteral elements: (NSManagedObjectID, NSManagedObject)...) {
        reserveCapacity(elements.count)
        for (id, object) in elements { self[id] = object }
    }

    /// The object registered for `id`; setting registers an object under it (replacing the one
    /// there) or, with nil, removes it.
    subscript(id: NSManagedObjectID) -> NSManagedObject? {
        get { self[id.origin, id.rowKey] }
        set {
            let (found, slot, tag) = find(id.origin, id.rowKey)
            if let newValue {
                if found {
                    objects[slot] = newValue
                } else {
                    insert(newValue, tag: tag)
                }
            } else if found {
                remove(at: slot)
            }
        }
    }

    /// The object registered for a row of the store whose IDs have `origin`.
    subscript(origin: IDOrigin, key: ObjectKey) -> NSManagedObject? {
        let (found, slot, _) = find(origin, key)
        return found ? objects[slot] : nil
    }

    /// Every registered object, in no particular order.
    var values: [NSManagedObject] { objects.compactMap { $0 } }

    /// Makes room for `capacity` objects without growing again.
    mutating func reserveCapacity(_ capacity: Int) {
        var size = max(tags.count, 8)
        while capacity > size / 4 * 3 { size *= 2 }
        if size != tags.count { resize(to: size) }
    }

    /// The object registered for a row of the store whose IDs have `origin`, or the one `make`
    /// returns, registered: one probe where reading then writing would probe twice. `created`
    /// tells which.
    mutating func object(origin: IDOrigin, key: ObjectKey, orRegister make: () -> NSManagedObject) -> (
        object: NSManagedObject, created: Bool
    ) {
        if count + 1 > tags.count / 4 * 3 { reserveCapacity(count + 1) }
        let (found, slot, tag) = find(origin, key)
        if found, let object = objects[slot] { return (object, false) }
        let size = tags.count
        let made = make()
        if tags.count == size && tags[slot] == 0 {
            tags[slot] = tag
            objects[slot] = made
            count += 1
        } else {
            // `make` registered objects itself (a subclass's initializer may): probe again.
            insert(made, tag: tag)
        }
        return (made, true)
    }

    // MARK: - The table

    /// A key's hash bits: the row key and the origin's identity mixed (never 0).
    @inline(__always)
    private static func tag(_ origin: IDOrigin, _ key: ObjectKey) -> UInt32 {
        var mixed = UInt64(bitPattern: key.primaryKey) &* 0x9E37_79B9_7F4A_7C15
        mixed ^= UInt64(truncatingIfNeeded: key.entityID) &* 0xC2B2_AE3D_27D4_EB4F
        mixed ^= UInt64(UInt(bitPattern: ObjectIdentifier(origin))) &* 0x1656_67B1_9E37_79F9
        let tag = UInt32(truncatingIfNeeded: mixed >> 32) ^ UInt32(truncatingIfNeeded: mixed)
        return tag == 0 ? 1 : tag
    }

    /// The slot of the object registered under (`origin`, `key`) if `found`, else the empty
    /// slot where it would go; and the key's hash bits.
    @inline(__always)
    private func find(_ origin: IDOrigin, _ key: ObjectKey) -> (found: Bool, slot: Int, tag: UInt32) {
        let tag = Self.tag(origin, key)
        guard !tags.isEmpty else { return (false, 0, tag) }
        let mask = tags.count - 1
        var slot = Int(tag) & mask
        while true {
            let slotTag = tags[slot]
            if slotTag == 0 { return (false, slot, tag) }
            if slotTag == tag, let id = objects[slot]?.registeredID, id.origin === origin, id.rowKey == key {
                return (true, slot, tag)
            }
            slot = (slot + 1) & mask
        }
    }

    private mutating func insert(_ object: NSManagedObject, tag: UInt32) {
        if count + 1 > tags.count / 4 * 3 { reserveCapacity(count + 1) }
        let mask = tags.count - 1
        var slot = Int(tag) & mask
        while tags[slot] != 0 { slot = (slot + 1) & mask }
        tags[slot] = tag
        objects[slot] = object
        count += 1
    }

    /// Empties a slot and moves back the slots after it that would no longer be found.
    private mutating func remove(at removed: Int) {
        let mask = tags.count - 1
        var hole = removed
        var slot = removed
        while true {
            slot = (slot + 1) & mask
            let tag = tags[slot]
            if tag == 0 { break }
            // The slot's entry may move into the hole unless its home lies after the hole (in
            // probing order) up to the slot itself.
            let home = Int(tag) & mask
            let homeAfterHole = hole <= slot ? (home > hole && home <= slot) : (home > hole || home <= slot)
            if !homeAfterHole {
                tags[hole] = tag
                objects[hole] = objects[slot]
                hole = slot
            }
        }
        tags[hole] = 0
        objects[hole] = nil
        count -= 1
    }

    private mutating func resize(to size: Int) {
        let oldTags = tags
        let oldObjects = objects
        tags = Array(repeating: 0, count: size)
        objects = Array(repeating: nil, count: size)
        count = 0
        for (tag, object) in zip(oldTags, oldObjects) where tag != 0 {
            if let object { insert(object, tag: tag) }
        }
    }
}
