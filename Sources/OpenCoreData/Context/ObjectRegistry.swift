import Foundation
import OpenStoreCore
import Synchronization

/// A context's objects by ID: an open-addressing hash table of the objects themselves, each
/// found by its ID's origin and row key, so that a fetched row's object is found from the row's
/// key without making an ID, and no ID is compared through `isEqual(_:)`.
///
/// An entry holds the object and the ID it was registered under, as a scope number (the ID's
/// origin and entity, numbered by the registry) and a primary key: 20 bytes, where a
/// `[NSManagedObjectID: NSManagedObject]` bucket would take 16 and an ID 48 more. Entries are
/// kept densely, in registration order (a removal moves the last one into the hole), and found
/// through an index of 4-byte slots, each an entry's number (0 for none): 28 bytes an object at
/// 10^6 objects, where slots holding the entries themselves would take 42. A lookup compares the
/// IDs kept in the entries and never touches an object. Linear probing, the index at most 3/4
/// full; a removal shifts the slots after it back, so lookups never meet a tombstone. The
/// registry keeps the origins it numbered alive, so comparing them by identity is exact.
///
/// Objects are found by the ID they had when registered: change an object's ID only between
/// removing it and registering it again (as saves do).
///
/// **Batch tables.** The objects a fetch of many rows of one entity of one store makes (a
/// batched fetch, or one whose rows come in key order: no sort descriptors) are uniqued by a
/// `BatchTable` of the fetch's rows instead (`batchObjects(origin:keys:inKeyOrder:make:)`): 8
/// bytes a row rather than an entry's 28, and no hashing. Lookups try the hash table, then the
/// batch tables of the ID's origin and entity whose keys span the ID's; an object is in one or
/// the other, never both. Not while the registry retains its objects.
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
    // @unchecked Sendable: every table is read and written under `lock` (see above). Every stored
    // property below is read and written only while `lock` is held, so Swift's dynamic exclusivity
    // checks (a thread-local access set, on every fetched row) are left out.

    /// A futex lock: taking it uncontended is one atomic exchange (an `NSLock` is a pthread
    /// mutex call each way, on every fetched row).
    private let lock = Mutex<Void>(())
    // An entry keeps the ID its object was registered under, as a scope number (its origin and
    // entity, see `scope(_:_:)`) and a primary key: lookups compare those and never touch an
    // object, which may be in its `deinit` on another thread (a reference taken to it then could
    // turn out to be the last, and free it inside the lock).
    /// The hash index: for each slot, the number of the entry there plus one; 0 marks an empty slot.
    @exclusivity(unchecked) private var index: [UInt32] = []
    /// The scope of each entry's ID (never 0).
    @exclusivity(unchecked) private var scopes: [UInt32] = []
    /// The primary key (for a temporary ID, its number) of each entry's ID.
    @exclusivity(unchecked) private var primaryKeys: [Int64] = []
    /// The object of each entry, unretained (retained while `retains`).
    @exclusivity(unchecked) private var objects: [Unmanaged<NSManagedObject>] = []
    /// Scope numbers by origin and entity number, from 1; the origins are kept alive, so that
    /// their identities stay theirs.
    @exclusivity(unchecked) private var scopeNumbers: [ScopeName: UInt32] = [:]
    @exclusivity(unchecked) private var scopeOrigins: [IDOrigin] = []
    /// The largest primary key registered in each scope so far, by scope number less one (kept
    /// when entries leave): keys above it are not registered (see `movesAtOnce(count:to:entityID:keys:)`).
    @exclusivity(unchecked) private var scopeMaxKeys: [Int64] = []
    /// The batch tables that hold objects (see "Batch tables" above).
    @exclusivity(unchecked) private var tables: [BatchTable] = []
    /// The scope last looked up (a fetch's rows share one), and the one before it (a save
    /// moves each new object from its temporary scope to its store's, one after the other).
    @exclusivity(unchecked) private var lastScope: (name: ScopeName, number: UInt32)?
    @exclusivity(unchecked) private var previousScope: (name: ScopeName, number: UInt32)?
    /// Counts changes of the table's layout, so that a registration after `make` knows whether
    /// the slot it found is still the right one.
    @exclusivity(unchecked) private var layoutChanges = 0
    /// Whether slots hold a strong reference to their objects.
    @exclusivity(unchecked) private var retains: Bool
    /// What `retainsObjects` was set to.
    @exclusivity(unchecked) private var retainsRequested = false
    /// Whether the context is gone (see `orphan()`).
    @exclusivity(unchecked) private var isOrphaned = false
    /// `swiftTryRetain`, read once.
    private let tryRetainFunction = swiftTryRetain

    init() {
        retains = tryRetainFunction == nil
    }

    deinit {
        guard retains else { return }
        for object in objects { object.release() }
    }

    /// The number of batch tables holding objects (see "Batch tables" above).
    var tableCount: Int { lock.withLock { _ in tables.count } }

    /// The number of registered objects.
    var count: Int { lock.withLock { _ in objects.count + tables.reduce(0) { $0 + $1.liveCount } } }

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
                    let (oldScopes, oldKeys, oldObjects) = (scopes, primaryKeys, objects)
                    clearTable(size: index.count)
                    for entry in oldObjects.indices where tryRetain(oldObjects[entry]) {
                        insert(oldObjects[entry], SlotKey(scope: oldScopes[entry], primaryKey: oldKeys[entry]))
                    }
                    // The batch tables' objects join the hash table, which retains them.
                    for table in tables {
                        table.forEachObject { position, object in
                            guard tryRetain(object) else { return }
                            let key = ObjectKey(entityID: table.entityID, primaryKey: table.primaryKey(at: position))
                            insert(object, find(table.origin, key).key)
                        }
                        table.releaseAll()
                    }
                    tables = []
                } else {
                    released = objects
                }
            }
            for object in released { object.release() }
        }
    }

    /// The object registered for `id`; setting registers an object under it (replacing the one
    /// there) or, with nil, removes it.
    subscript(id: NSManagedObjectID) -> NSManagedObject? {
        get { self[id.origin, id.rowKey] }
        set { self[id.origin, id.rowKey] = newValue }
    }

    /// The object registered for a row of the store whose IDs have `origin` (or for a temporary
    /// identity); setting registers an object under it (replacing the one there) or, with nil,
    /// removes it.
    subscript(origin: IDOrigin, key: ObjectKey) -> NSManagedObject? {
        get {
            let retained: Unmanaged<NSManagedObject>? = lock.withLock { _ in
                guard let object = registered(origin, key) else { return nil }
                return tryRetain(object) ? object : nil
            }
            return retained?.takeRetainedValue()
        }
        set {
            var released: Unmanaged<NSManagedObject>?
            lock.withLock { _ in
                if let newValue {
                    released = register(Unmanaged.passUnretained(newValue), origin, key)
                    return
                }
                let (found, slot, _) = find(origin, key)
                if found {
                    released = remove(at: slot)
                } else if let (table, position) = tableEntry(origin, key) {
                    // An object a batch table holds leaves it.
                    releaseSlot(of: table, at: position)
                }
            }
            released?.release()
        }
    }

    /// Moves `object` from the identity `old` to `new` (an inserted object's temporary identity
    /// to its permanent one, as `self[old] = nil; self[new] = object` would): its entry stays
    /// where it is, with its key and index slot changed, and is neither released nor retained.
    func reregister(
        _ object: NSManagedObject, from old: (origin: IDOrigin, key: ObjectKey), to new: (origin: IDOrigin, key: ObjectKey)
    ) {
        let moved: Bool = lock.withLock { _ in
            let (found, slot, _) = find(old.origin, old.key)
            guard found, objects[Int(index[slot]) - 1].toOpaque() == Unmanaged.passUnretained(object).toOpaque(),
                !find(new.origin, new.key).found, tableEntry(new.origin, new.key) == nil
            else { return false }
            let entry = Int(index[slot]) - 1
            vacate(slot)
            let key = find(new.origin, new.key)
            setKey(key.key, ofEntry: entry)
            index[key.slot] = UInt32(truncatingIfNeeded: entry + 1)
            layoutChanges &+= 1
            return true
        }
        guard !moved else { return }
        self[old.origin, old.key] = nil
        self[new.origin, new.key] = object
    }

    /// Whether `move(_:to:entityID:keys:)` will move `count` objects to `keys` (ascending) of
    /// `entityID` under `origin` at once, so that the caller need not move them one by one with
    /// `reregister(_:from:to:)`: when they are a quarter of the registered objects or more, and
    /// the keys lie above every key registered under the origin and entity so far (none is
    /// taken then: a store hands out new keys above those it handed out before).
    func movesAtOnce(count: Int, to origin: IDOrigin, entityID: Int, keys: [Int64]) -> Bool {
        lock.withLock { _ in canMoveAtOnce(count: count, to: origin, entityID: entityID, keys: keys) }
    }

    /// Registers each of `moving` under the key at its position in `keys`, of `entityID` under
    /// `origin`, wherever it was registered before (as `reregister(_:from:to:)` would each, or
    /// the subscript for an object not registered).
    ///
    /// When `movesAtOnce(count:to:entityID:keys:)` says so, each object's entry is found from
    /// the one before (objects register in the order they are inserted, and a save moves them
    /// in that order), its key changed in place, and the index rebuilt once: a pass over the
    /// entries in memory order, where moving each object would probe the index twice and shift
    /// the slots after its old one, each a cache miss at random among 10^5 objects. The
    /// objects themselves are not read.
    func move(_ moving: [Unmanaged<NSManagedObject>], to origin: IDOrigin, entityID: Int, keys: [Int64]) {
        precondition(moving.count == keys.count, "One key for each object moved")
        var released: [Unmanaged<NSManagedObject>] = []
        lock.withLock { _ in
            let atOnce = canMoveAtOnce(count: moving.count, to: origin, entityID: entityID, keys: keys)
            let scope = scope(origin, entityID, adding: true) ?? 0
            // Each object's entry (-1 for none): the one after the last object's; else, for the
            // first, found by a scan, and for the others through a table of every entry.
            var entries: [Int] = []
            entries.reserveCapacity(moving.count)
            var byAddress: [UnsafeMutableRawPointer: Int]?
            var next = objects.count - moving.count
            for (position, object) in moving.enumerated() {
                let address = object.toOpaque()
                if !(objects.indices.contains(next) && objects[next].toOpaque() == address) {
                    if position == 0 {
                        next = objects.firstIndex { $0.toOpaque() == address } ?? -1
                    } else {
                        if byAddress == nil {
                            byAddress = Dictionary(
                                objects.indices.map { (objects[$0].toOpaque(), $0) }, uniquingKeysWith: { first, _ in first })
                        }
                        next = byAddress?[address] ?? -1
                    }
                }
                entries.append(next)
                if next >= 0 { next += 1 }
            }
            // An object listed twice would take two entries' keys: one by one then.
            if atOnce, byAddress == nil || Set(entries.filter { $0 >= 0 }).count == entries.count(where: { $0 >= 0 }) {
                for (position, entry) in entries.enumerated() {
                    let key = SlotKey(scope: scope, primaryKey: keys[position])
                    if entry >= 0 {
                        setKey(key, ofEntry: entry)
                    } else {
                        if retains { _ = moving[position].retain() }
                        scopes.append(key.scope)
                        primaryKeys.append(key.primaryKey)
                        objects.append(moving[position])
                        noteKey(key)
                    }
                }
                var size = max(index.count, 8)
                while objects.count > size / 4 * 3 { size *= 2 }
                resize(to: size)
                return
            }
            // One by one (the registry changed since `movesAtOnce`): the entries by address,
            // kept right as removals move the last entry into the hole.
            var entryOf =
                byAddress
                ?? Dictionary(objects.indices.map { (objects[$0].toOpaque(), $0) }, uniquingKeysWith: { first, _ in first })
            for (position, object) in moving.enumerated() {
                let address = object.toOpaque()
                if let entry = entryOf.removeValue(forKey: address), entry < objects.count,
                    objects[entry].toOpaque() == address
                {
                    let mask = index.count - 1
                    var slot = home(ofEntry: entry, mask: mask)
                    while Int(index[slot]) != entry + 1 { slot = (slot + 1) & mask }
                    if let object = remove(at: slot) { released.append(object) }
                    if entry < objects.count { entryOf[objects[entry].toOpaque()] = entry }
                }
                let key = ObjectKey(entityID: entityID, primaryKey: keys[position])
                if let replaced = register(object, origin, key) { released.append(replaced) }
                let (_, slot, _) = find(origin, key)
                entryOf[address] = Int(index[slot]) - 1
            }
        }
        for object in released { object.release() }
    }

    /// Every registered object, in no particular order.
    var values: [NSManagedObject] {
        let retained: [Unmanaged<NSManagedObject>] = lock.withLock { _ in
            var retained: [Unmanaged<NSManagedObject>] = []
            retained.reserveCapacity(objects.count)
            for object in objects where tryRetain(object) { retained.append(object) }
            for table in tables {
                table.forEachObject { _, object in if tryRetain(object) { retained.append(object) } }
            }
            return retained
        }
        return retained.map { $0.takeRetainedValue() }
    }

    /// The object registered for a row of the store whose IDs have `origin`, or the one `make`
    /// returns, registered: one probe where reading then writing would probe twice (unless the
    /// table changed meanwhile). `created` tells which.
    func object(origin: IDOrigin, key: ObjectKey, orRegister make: () -> NSManagedObject) -> (
        object: NSManagedObject, created: Bool
    ) {
        let (existing, slot, slotKey, changes): (Unmanaged<NSManagedObject>?, Int, SlotKey, Int) = lock.withLock { _ in
            reserve(objects.count + 1)
            let (found, slot, slotKey) = find(origin, key)
            if found, case let object = objects[Int(index[slot]) - 1], tryRetain(object) { return (object, slot, slotKey, 0) }
            if !found, let (table, position) = tableEntry(origin, key), let object = table.object(at: position),
                tryRetain(object)
            {
                return (object, slot, slotKey, 0)
            }
            return (nil, slot, slotKey, layoutChanges)
        }
        if let existing { return (existing.takeRetainedValue(), false) }
        // Made outside the lock: a subclass's initializer may do anything, release objects too.
        let made = make()
        let object = Unmanaged.passUnretained(made)
        var released: Unmanaged<NSManagedObject>?
        lock.withLock { _ in
            if retains { _ = object.retain() }
            if layoutChanges == changes, index[slot] == 0 {
                // The slot found is still the key's, and empty.
                append(object, slotKey, at: slot)
            } else {
                let (found, slot, _) = find(origin, key)
                if found {
                    // Held by an object being freed: this one takes its entry.
                    let entry = Int(index[slot]) - 1
                    if retains { released = objects[entry] }
                    objects[entry] = object
                } else {
                    insert(object, slotKey)
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
            for position in keys.indices {
                if let object = registered(origin, keys[position]), tryRetain(object) { found[position] = object }
            }
        }
        var result: [NSManagedObject] = []
        result.reserveCapacity(keys.count)
        var created = [Bool](repeating: false, count: keys.count)
        var madeCount = 0
        for position in keys.indices {
            if let object = found[position] {
                result.append(object.takeRetainedValue())
            } else {
                result.append(make(position))
                created[position] = true
                madeCount += 1
            }
        }
        found = []
        guard madeCount > 0 else { return (result, created) }
        var released: [Unmanaged<NSManagedObject>] = []
        var duplicates: [(index: Int, object: Unmanaged<NSManagedObject>)] = []
        lock.withLock { _ in
            reserve(objects.count + madeCount)
            for position in keys.indices where created[position] {
                let object = Unmanaged.passUnretained(result[position])
                let (isFound, slot, slotKey) = find(origin, keys[position])
                guard isFound else {
                    if retains { _ = object.retain() }
                    append(object, slotKey, at: slot)
                    continue
                }
                let entry = Int(index[slot]) - 1
                let occupant = objects[entry]
                if tryRetain(occupant) {
                    // The key came earlier in `keys`: its object stands for this one too (put in
                    // after unlocking, as dropping the one made here may free it).
                    duplicates.append((position, occupant))
                } else {
                    // Held by an object being freed: this one takes its entry.
                    if retains {
                        _ = object.retain()
                        released.append(occupant)
                    }
                    objects[entry] = object
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
            if isOrphaned { return nil }
            // By index rather than `for in`, which retains the array and each table in turn.
            for tableIndex in tables.indices {
                let table = tables[tableIndex]
                guard table.origin === origin, table.entityID == key.entityID,
                    let position = table.position(of: object, primaryKey: key.primaryKey)
                else { continue }
                releaseSlot(of: table, at: position)
                return nil
            }
            guard !index.isEmpty, let scope = scope(origin, key.entityID, adding: false) else { return nil }
            // Found by the object's identity, probing from its ID's home slot.
            let mask = index.count - 1
            var slot = SlotKey(scope: scope, primaryKey: key.primaryKey).home & mask
            while index[slot] != 0 {
                if objects[Int(index[slot]) - 1].toOpaque() == object.toOpaque() { return remove(at: slot) }
                slot = (slot + 1) & mask
            }
            return nil
        }
        released?.release()
    }

    /// The context is gone: the registry forgets its objects (letting go of them if it kept them
    /// alive), and objects that leave it from now on find nothing to do. Objects keep the
    /// registry through their base (see `HomeBase`), so it may outlive its context; a retaining
    /// registry would otherwise keep its objects, and they it, for good.
    func orphan() {
        var released: [Unmanaged<NSManagedObject>] = []
        lock.withLock { _ in
            isOrphaned = true
            if retains { released = objects }
            for table in tables { table.releaseAll() }
            tables = []
            clearTable(size: 0)
        }
        for object in released { object.release() }
    }

    /// Empties the table, and returns its objects (those not being freed).
    func removeAll() -> [NSManagedObject] {
        let taken: [Unmanaged<NSManagedObject>] = lock.withLock { _ in
            var taken: [Unmanaged<NSManagedObject>] = []
            taken.reserveCapacity(objects.count)
            // A retained object's reference passes to the caller.
            for object in objects where retains || tryRetain(object) { taken.append(object) }
            for table in tables {
                table.forEachObject { _, object in if tryRetain(object) { taken.append(object) } }
                table.releaseAll()
            }
            tables = []
            clearTable(size: 0)
            return taken
        }
        return taken.map { $0.takeRetainedValue() }
    }

    /// The fewest rows a batch table is made for: fewer take little room in the hash table.
    static let batchTableMinimumRows = 256
    /// The most batch tables holding objects at once: a lookup the hash table does not answer
    /// searches each table of its origin and entity, so their number stays small.
    static let batchTableLimit = 16

    /// Makes the objects of one fetch's rows `keys` of the store whose IDs have `origin` (see
    /// "Batch tables" above): each the registered one, or the one `make` returns for its
    /// position in `keys` and its key, uniqued by a new batch table of the rows, which is
    /// returned with them. `keys` is emptied once the table holds the rows (so that both are not
    /// kept while the objects are made). Nil, with `keys` untouched, when a batch table cannot hold the
    /// rows (see `BatchTable.init`), there are fewer than `batchTableMinimumRows`, the registry
    /// holds `batchTableLimit` tables already, or it retains its objects; with `inKeyOrder`, also
    /// when the keys are not in ascending order. `reused`: the positions whose object was not
    /// made for them (registered before, or a key listed earlier).
    func batchObjects(
        origin: IDOrigin, keys: inout [ObjectKey], inKeyOrder: Bool = false, make: (Int, ObjectKey) -> NSManagedObject
    ) -> (
        objects: [NSManagedObject], table: BatchTable, reused: Set<Int>
    )? {
        guard keys.count >= Self.batchTableMinimumRows, lock.withLock({ _ in !retains && tables.count < Self.batchTableLimit }),
            let table = BatchTable(origin: origin, keys: keys, inKeyOrder: inKeyOrder)
        else { return nil }
        keys = []
        let count = table.count
        // The rows whose objects exist already (few, usually), and the later slots of a key
        // listed twice (each gets the object of the key's first slot).
        var existing: [Int: Unmanaged<NSManagedObject>] = [:]
        var repeats: [Int: Int] = [:]
        if let order = table.order {
            for rank in order.indices.dropFirst() where table.slots[Int(order[rank])] == table.slots[Int(order[rank - 1])] {
                repeats[Int(order[rank])] = repeats[Int(order[rank - 1])] ?? Int(order[rank - 1])
            }
        }
        let changes: Int = lock.withLock { _ in
            if !objects.isEmpty || !tables.isEmpty {
                for position in 0..<count where repeats.isEmpty || repeats[position] == nil {
                    let key = ObjectKey(entityID: table.entityID, primaryKey: table.primaryKey(at: position))
                    if let object = registered(origin, key), tryRetain(object) { existing[position] = object }
                }
            }
            return layoutChanges
        }
        // Usually no row has an object yet: no lookup per row then.
        let allNew = existing.isEmpty && repeats.isEmpty
        var result: [NSManagedObject] = []
        result.reserveCapacity(count)
        for position in 0..<count {
            if allNew {
                result.append(make(position, ObjectKey(entityID: table.entityID, primaryKey: table.primaryKey(at: position))))
            } else if let object = existing[position] {
                result.append(object.takeRetainedValue())
            } else if let first = repeats[position] {
                result.append(result[first])
            } else {
                // Made outside the lock: a subclass's initializer may do anything.
                result.append(make(position, ObjectKey(entityID: table.entityID, primaryKey: table.primaryKey(at: position))))
            }
        }
        var raced: [(position: Int, object: Unmanaged<NSManagedObject>)] = []
        // The objects' addresses, read from the array's storage without a reference taken each.
        result.withUnsafeBytes { addresses in
            lock.withLock { _ in
                for position in 0..<count where allNew || (existing[position] == nil && repeats[position] == nil) {
                    // Registered meanwhile (by an initializer): that object stands for the row.
                    if layoutChanges != changes,
                        let object = registered(
                            origin, ObjectKey(entityID: table.entityID, primaryKey: table.primaryKey(at: position))),
                        tryRetain(object)
                    {
                        raced.append((position, object))
                        continue
                    }
                    table.adopt(
                        address: addresses.load(fromByteOffset: position * MemoryLayout<UInt>.stride, as: UInt.self), at: position
                    )
                }
                if table.liveCount > 0 {
                    tables.append(table)
                    // A registration that found its row free before this must look again.
                    layoutChanges &+= 1
                }
            }
        }
        for (position, object) in raced { result[position] = object.takeRetainedValue() }
        return (result, table, Set(existing.keys).union(repeats.keys).union(raced.map(\.position)))
    }

    /// The objects for one fetch's rows `keys` of the store whose IDs have `origin`: uniqued by
    /// a batch table where one can hold them (`batchObjects(origin:keys:inKeyOrder:make:)`, which
    /// then empties `keys`), else one entry each (`objects(origin:keys:orRegister:)`). `created`
    /// tells which were made by `make` (given each its position in `keys` and its key: the object
    /// at a position `created` marks is the one `make` returned for it); `table` is the batch
    /// table, if one uniques them.
    func fetchedObjects(
        origin: IDOrigin, keys: inout [ObjectKey], inKeyOrder: Bool, make: (Int, ObjectKey) -> NSManagedObject
    ) -> (objects: [NSManagedObject], created: [Bool], table: BatchTable?) {
        if let made = batchObjects(origin: origin, keys: &keys, inKeyOrder: inKeyOrder, make: make) {
            var created = [Bool](repeating: true, count: made.objects.count)
            for position in made.reused { created[position] = false }
            return (made.objects, created, made.table)
        }
        let keys = keys
        let (objects, created) = objects(origin: origin, keys: keys) { make($0, keys[$0]) }
        return (objects, created, nil)
    }

    /// The object a batch table holds at `position`, else the one registered for its row.
    func object(in table: BatchTable, at position: Int) -> NSManagedObject? {
        // The address crosses the lock's closure (a table is not `Sendable`).
        let retained: UInt? = lock.withLock { _ in
            let key = ObjectKey(entityID: table.entityID, primaryKey: table.primaryKey(at: position))
            guard let object = table.object(at: position) ?? registered(table.origin, key), tryRetain(object) else {
                return nil
            }
            return UInt(bitPattern: object.toOpaque())
        }
        guard let retained, let address = UnsafeRawPointer(bitPattern: retained) else { return nil }
        return Unmanaged<NSManagedObject>.fromOpaque(address).takeRetainedValue()
    }

    // MARK: - The table (callers hold `lock`)

    /// Registers `object` under (`origin`, `key`), replacing the object there; returns the one
    /// replaced when entries retain their objects, to release after unlocking.
    private func register(
        _ object: Unmanaged<NSManagedObject>, _ origin: IDOrigin, _ key: ObjectKey
    ) -> Unmanaged<NSManagedObject>? {
        let (found, slot, slotKey) = find(origin, key)
        guard found else {
            // An object a batch table holds leaves it: the new one takes its place.
            if let (table, position) = tableEntry(origin, key) { releaseSlot(of: table, at: position) }
            if retains { _ = object.retain() }
            insert(object, slotKey)
            return nil
        }
        let entry = Int(index[slot]) - 1
        guard objects[entry].toOpaque() != object.toOpaque() else { return nil }
        let replaced = objects[entry]
        objects[entry] = object
        guard retains else { return nil }
        _ = object.retain()
        return replaced
    }

    /// See `movesAtOnce(count:to:entityID:keys:)`.
    private func canMoveAtOnce(count: Int, to origin: IDOrigin, entityID: Int, keys: [Int64]) -> Bool {
        guard count * 4 >= objects.count, let first = keys.first,
            !tables.contains(where: { $0.origin === origin && $0.entityID == entityID }),
            let scope = scope(origin, entityID, adding: true), first > scopeMaxKeys[Int(scope) - 1]
        else { return false }
        return zip(keys, keys.dropFirst()).allSatisfy { $0 < $1 }
    }

    /// The object registered under (`origin`, `key`), in the hash table or a batch table (not
    /// retained).
    @inline(__always)
    private func registered(_ origin: IDOrigin, _ key: ObjectKey) -> Unmanaged<NSManagedObject>? {
        let (found, slot, _) = find(origin, key)
        if found { return objects[Int(index[slot]) - 1] }
        guard let (table, position) = tableEntry(origin, key) else { return nil }
        return table.object(at: position)
    }

    /// The batch table holding the object of (`origin`, `key`), and where.
    @inline(__always)
    private func tableEntry(_ origin: IDOrigin, _ key: ObjectKey) -> (BatchTable, Int)? {
        guard !tables.isEmpty else { return nil }
        for table in tables where table.origin === origin && table.entityID == key.entityID {
            if let position = table.live(key.primaryKey) { return (table, position) }
        }
        return nil
    }

    /// A batch table lets go of the object at `position`; a table left with none leaves the
    /// registry (its batch, if any, still reads its rows' keys).
    private func releaseSlot(of table: BatchTable, at position: Int) {
        table.release(at: position)
        if table.liveCount == 0 { tables.removeAll { $0 === table } }
    }

    /// Retains an object unless its `deinit` has begun (its strong count reached zero).
    @inline(__always)
    private func tryRetain(_ object: Unmanaged<NSManagedObject>) -> Bool {
        guard let tryRetainFunction else {
            _ = object.retain()
            return true
        }
        return tryRetainFunction(object.toOpaque()) != nil
    }

    /// The scope number of an origin and an entity number: made on first use when `adding`,
    /// else nil for one never registered.
    @inline(__always)
    private func scope(_ origin: IDOrigin, _ entityID: Int, adding: Bool) -> UInt32? {
        let name = ScopeName(origin: ObjectIdentifier(origin), entityID: entityID)
        if let lastScope, lastScope.name == name { return lastScope.number }
        let number: UInt32
        if let previousScope, previousScope.name == name {
            number = previousScope.number
        } else if let known = scopeNumbers[name] {
            number = known
        } else {
            guard adding else { return nil }
            scopeOrigins.append(origin)
            scopeMaxKeys.append(.min)
            number = UInt32(truncatingIfNeeded: scopeOrigins.count)
            scopeNumbers[name] = number
        }
        previousScope = lastScope
        lastScope = (name, number)
        return number
    }

    /// The index slot of the object registered under (`origin`, `key`) if `found`, else the
    /// empty slot where it would go; and what the entry keeps of the key.
    ///
    /// Compares the IDs the entries were registered under, never the objects.
    @inline(__always)
    private func find(_ origin: IDOrigin, _ key: ObjectKey) -> (found: Bool, slot: Int, key: SlotKey) {
        let slotKey = SlotKey(scope: scope(origin, key.entityID, adding: true) ?? 0, primaryKey: key.primaryKey)
        guard !index.isEmpty else { return (false, 0, slotKey) }
        let mask = index.count - 1
        var slot = slotKey.home & mask
        while true {
            let number = Int(index[slot])
            if number == 0 { return (false, slot, slotKey) }
            if primaryKeys[number - 1] == slotKey.primaryKey, scopes[number - 1] == slotKey.scope {
                return (true, slot, slotKey)
            }
            slot = (slot + 1) & mask
        }
    }

    /// Makes room for `capacity` entries: the index at most 3/4 full, the entries growing
    /// at least twofold (one fetch's rows at once, exactly).
    private func reserve(_ capacity: Int) {
        var size = max(index.count, 8)
        while capacity > size / 4 * 3 { size *= 2 }
        if size != index.count { resize(to: size) }
        if capacity > objects.capacity {
            let entries = max(capacity, objects.count * 2)
            scopes.reserveCapacity(entries)
            primaryKeys.reserveCapacity(entries)
            objects.reserveCapacity(entries)
        }
    }

    private func insert(_ object: Unmanaged<NSManagedObject>, _ key: SlotKey) {
        reserve(objects.count + 1)
        let mask = index.count - 1
        var slot = key.home & mask
        while index[slot] != 0 { slot = (slot + 1) & mask }
        append(object, key, at: slot)
    }

    /// Adds an entry, found from the empty index `slot` (where probing for its key ends).
    private func append(_ object: Unmanaged<NSManagedObject>, _ key: SlotKey, at slot: Int) {
        scopes.append(key.scope)
        primaryKeys.append(key.primaryKey)
        objects.append(object)
        noteKey(key)
        index[slot] = UInt32(truncatingIfNeeded: objects.count)
        layoutChanges &+= 1
    }

    /// Gives an entry another key (its index slot is the caller's to move).
    @inline(__always)
    private func setKey(_ key: SlotKey, ofEntry entry: Int) {
        scopes[entry] = key.scope
        primaryKeys[entry] = key.primaryKey
        noteKey(key)
    }

    /// Notes a key registered in its scope (see `scopeMaxKeys`).
    @inline(__always)
    private func noteKey(_ key: SlotKey) {
        let scope = Int(key.scope) - 1
        if scopeMaxKeys.indices.contains(scope), key.primaryKey > scopeMaxKeys[scope] {
            scopeMaxKeys[scope] = key.primaryKey
        }
    }

    /// The index slot where probing for an entry's key starts.
    @inline(__always)
    private func home(ofEntry entry: Int, mask: Int) -> Int {
        SlotKey(scope: scopes[entry], primaryKey: primaryKeys[entry]).home & mask
    }

    /// Empties an index slot and moves back the slots after it that would no longer be found,
    /// then moves the last entry into the removed one's place; returns the object to release
    /// (after unlocking) when entries retain their objects.
    private func remove(at removed: Int) -> Unmanaged<NSManagedObject>? {
        let entry = Int(index[removed]) - 1
        let object = objects[entry]
        let mask = index.count - 1
        vacate(removed)
        let last = objects.count - 1
        if entry != last {
            // The last entry fills the hole: its index slot now names the hole.
            var lastSlot = home(ofEntry: last, mask: mask)
            while Int(index[lastSlot]) != last + 1 { lastSlot = (lastSlot + 1) & mask }
            index[lastSlot] = UInt32(truncatingIfNeeded: entry + 1)
            scopes[entry] = scopes[last]
            primaryKeys[entry] = primaryKeys[last]
            objects[entry] = objects[last]
        }
        scopes.removeLast()
        primaryKeys.removeLast()
        objects.removeLast()
        layoutChanges &+= 1
        return retains ? object : nil
    }

    /// Empties an index slot and moves back the slots after it that would no longer be found.
    private func vacate(_ removed: Int) {
        let mask = index.count - 1
        var hole = removed
        var slot = removed
        while true {
            slot = (slot + 1) & mask
            let number = Int(index[slot])
            if number == 0 { break }
            // The slot's entry may move into the hole unless its home lies after the hole (in
            // probing order) up to the slot itself.
            let home = home(ofEntry: number - 1, mask: mask)
            let homeAfterHole = hole <= slot ? (home > hole && home <= slot) : (home > hole || home <= slot)
            if !homeAfterHole {
                index[hole] = index[slot]
                hole = slot
            }
        }
        index[hole] = 0
    }

    private func clearTable(size: Int) {
        index = Array(repeating: 0, count: size)
        scopes = []
        primaryKeys = []
        objects = []
        layoutChanges &+= 1
    }

    /// Rebuilds the index at `size` slots; the entries stay where they are.
    private func resize(to size: Int) {
        index = Array(repeating: 0, count: size)
        let mask = size - 1
        for entry in objects.indices {
            var slot = home(ofEntry: entry, mask: mask)
            while index[slot] != 0 { slot = (slot + 1) & mask }
            index[slot] = UInt32(truncatingIfNeeded: entry + 1)
        }
        layoutChanges &+= 1
    }
}

/// The Swift runtime's "retain unless deinitializing" (`swift_tryRetain`, what loading a `weak`
/// reference uses): +1 and the object for one whose strong count has not reached zero, nil
/// (nothing retained) for one whose `deinit` has begun. Swift does not spell it, so it is looked
/// up once by name; nil where the runtime does not export it (the registry then keeps its
/// objects alive, as it did before it held them weakly).
private let swiftTryRetain = runtimeFunction(
    named: "swift_tryRetain", as: (@convention(c) (UnsafeMutableRawPointer) -> UnsafeMutableRawPointer?).self)

/// An origin and an entity number, which the registry numbers (its scopes).
private struct ScopeName: Hashable {
    let origin: ObjectIdentifier
    let entityID: Int
}

/// What a registry slot keeps of an ID: its scope number and its primary key.
private struct SlotKey {
    let scope: UInt32
    let primaryKey: Int64

    /// Where probing for the key starts (before masking to the table's size).
    var home: Int {
        @inline(__always) get {
            var mixed = UInt64(bitPattern: primaryKey) &* 0x9E37_79B9_7F4A_7C15
            mixed ^= UInt64(scope) &* 0xC2B2_AE3D_27D4_EB4F
            return Int(truncatingIfNeeded: mixed ^ (mixed >> 29))
        }
    }
}
