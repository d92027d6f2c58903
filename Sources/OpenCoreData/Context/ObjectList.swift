/// A list of a context's objects: its change lists (inserted, changed or deleted objects) and the
/// changes noted for its next `NSManagedObjectContextObjectsDidChange`. The objects in the order
/// they joined, each once, with membership answered by hash rather than by a scan (every change
/// to an object asks whether it is listed already, so a scan made changing many objects
/// quadratic).
///
/// Taking an object off only forgets it: the array drops it when next read whole (`objects`,
/// `take()`), or at once if it joins again, so that removing many objects costs no scan each
/// (deleting 10^5 new objects before a save removed each from a list of 10^5).
struct ObjectList: Sequence, ExpressibleByArrayLiteral {
    /// The objects in the order they joined, and those taken off since the last compaction.
    private var listed: [NSManagedObject] = []
    /// The identities of the objects on the list (the list holds them, so identities are not
    /// reused).
    private var members: Set<ObjectIdentifier> = []
    /// The identities of objects taken off but still in `listed`.
    private var removed: Set<ObjectIdentifier> = []

    init(arrayLiteral elements: NSManagedObject...) {
        for object in elements { append(object) }
    }

    var isEmpty: Bool { members.isEmpty }
    var count: Int { members.count }

    func contains(_ object: NSManagedObject) -> Bool { members.contains(ObjectIdentifier(object)) }

    /// The objects on the list, in order.
    var objects: [NSManagedObject] {
        mutating get {
            compact()
            return listed
        }
    }

    /// Adds an object at the end, unless it is listed already.
    mutating func append(_ object: NSManagedObject) {
        let id = ObjectIdentifier(object)
        guard members.insert(id).inserted else { return }
        // Taken off before: its old place goes first, so that it is listed once, at the end.
        if removed.contains(id) { compact() }
        listed.append(object)
    }

    /// Takes an object off the list; whether it was on it.
    @discardableResult
    mutating func remove(_ object: NSManagedObject) -> Bool {
        let id = ObjectIdentifier(object)
        guard members.remove(id) != nil else { return false }
        removed.insert(id)
        // Compacted once half the array is gone: its size stays within twice the list's.
        if removed.count > members.count { compact() }
        return true
    }

    /// The objects on the list, in order, and none left.
    mutating func take() -> [NSManagedObject] {
        defer { self = [] }
        return objects
    }

    /// Drops the objects taken off from the array.
    private mutating func compact() {
        guard !removed.isEmpty else { return }
        let removed = self.removed
        listed.removeAll { removed.contains(ObjectIdentifier($0)) }
        self.removed = []
    }

    func makeIterator() -> IndexingIterator<[NSManagedObject]> {
        guard !removed.isEmpty else { return listed.makeIterator() }
        return listed.filter { !removed.contains(ObjectIdentifier($0)) }.makeIterator()
    }
}
