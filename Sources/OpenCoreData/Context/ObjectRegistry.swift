/// A context's objects by ID, as a dictionary whose keys compare without `isEqual(_:)`.
///
/// `[NSManagedObjectID: NSManagedObject]` compares keys through `NSObject`'s `==`, which boxes
/// the other ID in `Any?` and casts it back in `isEqual(_:)` — several times per lookup, since
/// Swift's dictionary compares the key of every bucket it probes. Fetches look up every object
/// they return, so the keys here are the IDs wrapped with a direct comparison (same answers as
/// `isEqual(_:)`).
struct ObjectRegistry: ExpressibleByDictionaryLiteral {
    typealias Key = NSManagedObjectID
    typealias Value = NSManagedObject

    struct Entry: Hashable {
        let id: NSManagedObjectID
        static func == (a: Entry, b: Entry) -> Bool { a.id === b.id || a.id.isSameID(as: b.id) }
        func hash(into hasher: inout Hasher) { hasher.combine(id.hash) }
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

    /// Every registered object, in no particular order.
    var values: Dictionary<Entry, NSManagedObject>.Values { objects.values }

    var count: Int { objects.count }

    mutating func reserveCapacity(_ capacity: Int) { objects.reserveCapacity(capacity) }

    /// The object registered for `id`, or the one `make` returns, registered: one lookup where
    /// reading then writing would hash and probe twice. `created` tells which.
    mutating func object(for id: NSManagedObjectID, orRegister make: () -> NSManagedObject) -> (
        object: NSManagedObject, created: Bool
    ) {
        var created = false
        let object = { (registered: inout NSManagedObject?) -> NSManagedObject in
            if let registered { return registered }
            created = true
            let made = make()
            registered = made
            return made
        }(&objects[Entry(id: id)])
        return (object, created)
    }
}
