import OpenStoreCore

/// A context's objects by ID, as a dictionary keyed by what an ID is made of — its origin's
/// identity and its row key — so that a fetched row's object is found from the row's key without
/// making an ID first, and keys compare without `isEqual(_:)`.
///
/// `[NSManagedObjectID: NSManagedObject]` would compare keys through `NSObject`'s `==`, which
/// boxes the other ID in `Any?` and casts it back in `isEqual(_:)` — several times per lookup,
/// since Swift's dictionary compares the key of every bucket it probes. The IDs of one store share
/// one origin (`IDOrigin`), which each registered object's ID keeps alive, so an origin's
/// identity is never reused while an entry names it.
struct ObjectRegistry: ExpressibleByDictionaryLiteral {
    typealias Key = NSManagedObjectID
    typealias Value = NSManagedObject

    struct Entry: Hashable {
        let origin: ObjectIdentifier
        let key: ObjectKey

        @inline(__always)
        init(origin: IDOrigin, key: ObjectKey) {
            self.origin = ObjectIdentifier(origin)
            self.key = key
        }

        @inline(__always)
        init(id: NSManagedObjectID) { self.init(origin: id.origin, key: id.rowKey) }

        func hash(into hasher: inout Hasher) {
            hasher.combine(Int(truncatingIfNeeded: key.primaryKey) &* 0x9E37_79B9 &+ key.entityID)
        }
    }

    private var objects: [Entry: NSManagedObject] = [:]

    init(dictionaryLiteral elements: (NSManagedObjectID, NSManagedObject)...) {
        objects.reserveCapacity(elements.count)
        for (id, object) in elements { objects[Entry(id: id)] = object }
    }

    subscript(id: NSManagedObjectID) -> NSManagedObject? {
        get { objects[Entry(id: id)] }
        set { objects[Entry(id: id)] = newValue }
    }

    /// The object registered for a row of the store whose IDs have `origin`.
    subscript(origin: IDOrigin, key: ObjectKey) -> NSManagedObject? { objects[Entry(origin: origin, key: key)] }

    /// Every registered object, in no particular order.
    var values: Dictionary<Entry, NSManagedObject>.Values { objects.values }

    var count: Int { objects.count }

    mutating func reserveCapacity(_ capacity: Int) { objects.reserveCapacity(capacity) }

    /// The object registered for a row of the store whose IDs have `origin`, or the one `make`
    /// returns, registered: one lookup where reading then writing would hash and probe twice.
    /// `created` tells which.
    mutating func object(origin: IDOrigin, key: ObjectKey, orRegister make: () -> NSManagedObject) -> (
        object: NSManagedObject, created: Bool
    ) {
        var created = false
        let object = { (registered: inout NSManagedObject?) -> NSManagedObject in
            if let registered { return registered }
            created = true
            let made = make()
            registered = made
            return made
        }(&objects[Entry(origin: origin, key: key)])
        return (object, created)
    }
}
