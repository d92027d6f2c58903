import Foundation
import OpenStoreCore
import Synchronization

/// A context's objects by ID: an open-addressing hash table of the objects themselves, each
/// found by its ID's origin and row key, so that a fetched row's object is found from the row's
/// key without making an ID, and no ID is compared through `isEqual(_:)`.
///
/// A slot holds the object, the origin and row key it was registered under, and 32 bits of
/// their hash: the hash bits rule out almost every other slot, and a lookup compares the
/// identities kept in the table, never touching an object. Linear probing, at most 3/4 full; a
/// removal shifts the slots after it back, so lookups never meet a tombstone. The IDs of one
/// store share one origin (`IDOrigin`), which each registered object keeps alive, so comparing
/// origins by identity is exact.
///
/// Objects are found by the ID they had when registered: change an object's ID only between
/// removing it and registering it again (as saves do).
///
/// **Weak slots.** The table does not keep its objects alive (unless `retainsObjects`, Apple's
/// `retainsRegisteredObjects`): a slot holds an unretained reference, and an object leaves its
/// context's table in its `deinit` (`remove(_:origin:key:)`), so a slot never outlives its object. An
/// object with unsaved changes is kept alive by the context's change lists instead. Compared
/// with Swift `weak` slots, this allocates nothing per object (a weak reference gives each
/// object a side table) and a lookup is one atomic operation.
///
/// The last reference to an object may go on any thread, so its `deinit` may run while the
/// context's queue uses the table: every access takes `lock`, and a lookup that finds an object
/// whose `deinit` has begun but not yet taken the lock does not return it (`tryRetain` refuses
/// an object whose strong count reached zero); such an object counts as gone, and a new one may
/// take its slot (its `deinit` then removes only itself, by identity). While the lock is held
/// nothing here releases an object or takes a reference that could turn out to be its last, so no
/// `deinit` runs inside it.
final class ObjectRegistry: @unchecked Sendable {
    // Every stored property below is read and written only while `lock` is held, so Swift's
    // dynamic exclusivity checks (a thread-local access set, on every fetched row) are left out.
    /// A futex lock: taking it uncontended is one atomic exchange (an `NSLock` is a pthread
    /// mutex call each way, on every fetched row).
    private let lock = Mutex<Void>(())
    /// The hash bits of each slot (never 0); 0 marks an empty slot.
    @exclusivity(unchecked) private var tags: [UInt32] = []
    /// The object of each slot, unretained (retained while `retains`).
    @exclusivity(unchecked) private var objects: [Unmanaged<NSManagedObject>?] = []
    /// The ID each slot's object was registered under: what lookups compare, so that they never
    /// touch an object, which may be in its `deinit` on another thread (any reference taken to
    /// it then could end up the last, and free it inside the lock).
    @exclusivity(unchecked) private var identities: [SlotIdentity] = []
    /// The number of registered objects.
    @exclusivity(unchecked) private var occupied = 0
    /// Counts changes of the table's layout, so that a registration after `make` knows whether
    /// the slot it found is still the right one.
    @exclusivity(unchecked) private var layoutChanges = 0
    /// Whether slots hold a strong reference to their objects.
    @exclusivity(unchecked) private var retains: Bool
    /// What `retainsObjects` was set to.
    @exclusivity(unchecked) private var retainsRequested = false
    /// `swiftTryRetain`, read once.
    private let tryRetainFunction = swiftTryRetain

    init() {
        retains = tryRetainFunction == nil
    }

    deinit {
        guard retains else { return }
        for object in objects { object?.release() }
    }

    /// The number of registered objects.
    var count: Int { lock.withLock { _ in occupied } }

    /// Whether the table keeps its objects alive (Apple's `retainsRegisteredObjects`).
    var retainsObjects: Bool {
        get { lock.withLock { _ in retainsRequested } }
        set {
            var released: [Unmanaged<NSManagedObject>] = []
            lock.withLock { _ in
                retainsRequested = newValue
                // Without the runtime's try-retain, slots must keep their objects alive.
                guard newValue != retains, newValue || tryRetainFunction != nil else { return }
                retains = newValue
                if newValue {
                    // Objects whose `deinit` has begun cannot be retained: they leave now.
                    let (oldTags, oldObjects, oldIdentities) = (tags, objects, identities)
                    clearTable(size: tags.count)
                    for slot in oldTags.indices where oldTags[slot] != 0 {
                        if let object = oldObjects[slot], tryRetain(object) {
                            insert(object, tag: oldTags[slot], identity: oldIdentities[slot])
                        }
                    }
                } else {
                    released = objects.compactMap { $0 }
                }
            }
            for object in released { object.release() }
        }
    }

    /// The object registered for `id`; setting registers an object under it (replacing the one
    /// there) or, with nil, removes it.
    subscript(id: NSManagedObjectID) -> NSManagedObject? {
        get { self[id.origin, id.rowKey] }
        set {
            var released: Unmanaged<NSManagedObject>?
            lock.withLock { _ in
                let (found, slot, tag) = find(id.origin, id.rowKey)
                if let newValue {
                    let object = Unmanaged.passUnretained(newValue)
                    if found {
                        guard objects[slot]?.toOpaque() != object.toOpaque() else { return }
                        if retains {
                            released = objects[slot]
                            _ = object.retain()
                        }
                        objects[slot] = object
                    } else {
                        if retains { _ = object.retain() }
                        insert(object, tag: tag, identity: SlotIdentity(id.origin, id.rowKey))
                    }
                } else if found {
                    released = remove(at: slot)
                }
            }
            released?.release()
        }
    }

    /// The object registered for a row of the store whose IDs have `origin`.
    subscript(origin: IDOrigin, key: ObjectKey) -> NSManagedObject? {
        let retained: Unmanaged<NSManagedObject>? = lock.withLock { _ in
            let (found, slot, _) = find(origin, key)
            guard found, let object = objects[slot], tryRetain(object) else { return nil }
            return object
        }
        return retained?.takeRetainedValue()
    }

    /// Every registered object, in no particular order.
    var values: [NSManagedObject] {
        let retained: [Unmanaged<NSManagedObject>] = lock.withLock { _ in
            var retained: [Unmanaged<NSManagedObject>] = []
            retained.reserveCapacity(occupied)
            for object in objects {
                if let object, tryRetain(object) { retained.append(object) }
            }
            return retained
        }
        return retained.map { $0.takeRetainedValue() }
    }

    /// Makes room for `capacity` objects without growing again.
    func reserveCapacity(_ capacity: Int) {
        lock.withLock { _ in reserve(capacity) }
    }

    /// The object registered for a row of the store whose IDs have `origin`, or the one `make`
    /// returns, registered: one probe where reading then writing would probe twice (unless the
    /// table changed meanwhile). `created` tells which.
    func object(origin: IDOrigin, key: ObjectKey, orRegister make: () -> NSManagedObject) -> (
        object: NSManagedObject, created: Bool
    ) {
        let (existing, slot, tag, changes): (Unmanaged<NSManagedObject>?, Int, UInt32, Int) = lock.withLock { _ in
            if occupied + 1 > tags.count / 4 * 3 { reserve(occupied + 1) }
            let (found, slot, tag) = find(origin, key)
            if found, let object = objects[slot], tryRetain(object) { return (object, slot, tag, 0) }
            return (nil, slot, tag, layoutChanges)
        }
        if let existing { return (existing.takeRetainedValue(), false) }
        // Made outside the lock: a subclass's initializer may do anything, release objects too.
        let made = make()
        let object = Unmanaged.passUnretained(made)
        var released: Unmanaged<NSManagedObject>?
        lock.withLock { _ in
            if retains { _ = object.retain() }
            if layoutChanges == changes {
                // The slot found is still the key's: empty, or held by an object being freed.
                if tags[slot] == 0 {
                    tags[slot] = tag
                    identities[slot] = SlotIdentity(origin, key)
                    occupied += 1
                    layoutChanges &+= 1
                } else if retains {
                    released = objects[slot]
                }
                objects[slot] = object
            } else {
                let (found, slot, _) = find(origin, key)
                if found {
                    if retains { released = objects[slot] }
                    objects[slot] = object
                } else {
                    insert(object, tag: tag, identity: SlotIdentity(origin, key))
                }
            }
        }
        released?.release()
        return (made, true)
    }

    /// The objects for the rows `keys` of the store whose IDs have `origin`, in order: each the
    /// registered one, or the one `make` returns for its index, registered (`created` tells
    /// which). One fetch's rows take the lock twice in all rather than twice each; `make` runs
    /// outside it. A key listed twice gets one object.
    func objects(
        origin: IDOrigin, keys: [ObjectKey], orRegister make: (Int) -> NSManagedObject
    ) -> (objects: [NSManagedObject], created: [Bool]) {
        var found = [Unmanaged<NSManagedObject>?](repeating: nil, count: keys.count)
        lock.withLock { _ in
            reserve(occupied + keys.count)
            for index in keys.indices {
                let (isFound, slot, _) = find(origin, keys[index])
                if isFound, let object = objects[slot], tryRetain(object) { found[index] = object }
            }
        }
        var result: [NSManagedObject] = []
        result.reserveCapacity(keys.count)
        var created = [Bool](repeating: false, count: keys.count)
        var made: [Int] = []
        for index in keys.indices {
            if let object = found[index] {
                result.append(object.takeRetainedValue())
            } else {
                result.append(make(index))
                created[index] = true
                made.append(index)
            }
        }
        guard !made.isEmpty else { return (result, created) }
        var released: [Unmanaged<NSManagedObject>] = []
        var duplicates: [(index: Int, object: Unmanaged<NSManagedObject>)] = []
        lock.withLock { _ in
            reserve(occupied + made.count)
            for index in made {
                let object = Unmanaged.passUnretained(result[index])
                let (isFound, slot, tag) = find(origin, keys[index])
                guard isFound, let occupant = objects[slot] else {
                    if retains { _ = object.retain() }
                    insert(object, tag: tag, identity: SlotIdentity(origin, keys[index]))
                    continue
                }
                if tryRetain(occupant) {
                    // The key came earlier in `keys`: its object stands for this one too (put in
                    // after unlocking, as dropping the one made here may free it).
                    duplicates.append((index, occupant))
                } else {
                    // Held by an object being freed: this one takes its slot.
                    if retains {
                        _ = object.retain()
                        released.append(occupant)
                    }
                    objects[slot] = object
                }
            }
        }
        for object in released { object.release() }
        for (index, object) in duplicates {
            result[index] = object.takeRetainedValue()
            created[index] = false
        }
        return (result, created)
    }

    /// Takes a freed object out of the table (called from its `deinit`, on any thread): its
    /// slot if it still holds this very object (the slot of its ID, `origin` and `key`, may hold
    /// another object by now).
    func remove(_ object: Unmanaged<NSManagedObject>, origin: IDOrigin, key: ObjectKey) {
        let released: Unmanaged<NSManagedObject>? = lock.withLock { _ in
            guard !tags.isEmpty else { return nil }
            // Found by identity, without reading other objects' IDs.
            let mask = tags.count - 1
            let tag = Self.tag(origin, key)
            var slot = Int(tag) & mask
            while tags[slot] != 0 {
                if objects[slot]?.toOpaque() == object.toOpaque() { return remove(at: slot) }
                slot = (slot + 1) & mask
            }
            return nil
        }
        released?.release()
    }

    /// Empties the table, and returns its objects (those not being freed).
    func removeAll() -> [NSManagedObject] {
        let taken: [Unmanaged<NSManagedObject>] = lock.withLock { _ in
            var taken: [Unmanaged<NSManagedObject>] = []
            taken.reserveCapacity(occupied)
            for object in objects {
                // A retained object's reference passes to the caller.
                if let object, retains || tryRetain(object) { taken.append(object) }
            }
            clearTable(size: 0)
            return taken
        }
        return taken.map { $0.takeRetainedValue() }
    }

    // MARK: - The table (callers hold `lock`)

    /// Retains an object unless its `deinit` has begun (its strong count reached zero).
    @inline(__always)
    private func tryRetain(_ object: Unmanaged<NSManagedObject>) -> Bool {
        guard let tryRetainFunction else {
            _ = object.retain()
            return true
        }
        return tryRetainFunction(object.toOpaque()) != nil
    }

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
    ///
    /// Compares the identities the slots were registered under, never the objects.
    @inline(__always)
    private func find(_ origin: IDOrigin, _ key: ObjectKey) -> (found: Bool, slot: Int, tag: UInt32) {
        let tag = Self.tag(origin, key)
        guard !tags.isEmpty else { return (false, 0, tag) }
        let identity = SlotIdentity(origin, key)
        let mask = tags.count - 1
        var slot = Int(tag) & mask
        while true {
            let slotTag = tags[slot]
            if slotTag == 0 { return (false, slot, tag) }
            if slotTag == tag, identities[slot] == identity { return (true, slot, tag) }
            slot = (slot + 1) & mask
        }
    }

    private func reserve(_ capacity: Int) {
        var size = max(tags.count, 8)
        while capacity > size / 4 * 3 { size *= 2 }
        if size != tags.count { resize(to: size) }
    }

    private func insert(_ object: Unmanaged<NSManagedObject>, tag: UInt32, identity: SlotIdentity) {
        if occupied + 1 > tags.count / 4 * 3 { reserve(occupied + 1) }
        let mask = tags.count - 1
        var slot = Int(tag) & mask
        while tags[slot] != 0 { slot = (slot + 1) & mask }
        tags[slot] = tag
        identities[slot] = identity
        objects[slot] = object
        occupied += 1
        layoutChanges &+= 1
    }

    /// Empties a slot and moves back the slots after it that would no longer be found; returns
    /// the object to release (after unlocking) when slots retain their objects.
    private func remove(at removed: Int) -> Unmanaged<NSManagedObject>? {
        let object = objects[removed]
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
                identities[hole] = identities[slot]
                hole = slot
            }
        }
        tags[hole] = 0
        objects[hole] = nil
        occupied -= 1
        layoutChanges &+= 1
        return retains ? object : nil
    }

    private func clearTable(size: Int) {
        tags = Array(repeating: 0, count: size)
        objects = Array(repeating: nil, count: size)
        identities = Array(repeating: SlotIdentity.none, count: size)
        occupied = 0
        layoutChanges &+= 1
    }

    private func resize(to size: Int) {
        let (oldTags, oldObjects, oldIdentities) = (tags, objects, identities)
        clearTable(size: size)
        for slot in oldTags.indices where oldTags[slot] != 0 {
            if let object = oldObjects[slot] { insert(object, tag: oldTags[slot], identity: oldIdentities[slot]) }
        }
    }
}

/// The Swift runtime's "retain unless deinitializing" (`swift_tryRetain`, what loading a `weak`
/// reference uses): +1 and the object for one whose strong count has not reached zero, nil
/// (nothing retained) for one whose `deinit` has begun. Swift does not spell it, so it is looked
/// up once by name; nil where the runtime does not export it (the registry then keeps its
/// objects alive, as it did before it held them weakly).
private let swiftTryRetain = runtimeFunction(
    named: "swift_tryRetain", as: (@convention(c) (UnsafeMutableRawPointer) -> UnsafeMutableRawPointer?).self)

/// The ID a registry slot's object was registered under: its origin's identity and its row key.
private struct SlotIdentity: Equatable {
    let origin: ObjectIdentifier?
    let key: ObjectKey

    init(_ origin: IDOrigin, _ key: ObjectKey) {
        self.origin = ObjectIdentifier(origin)
        self.key = key
    }

    private init() {
        origin = nil
        key = ObjectKey(entityID: 0, primaryKey: 0)
    }

    /// An empty slot's.
    static let none = SlotIdentity()
}
