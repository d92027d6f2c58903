/// One of a context's change lists (inserted, changed or deleted objects): the objects in the
/// order they joined, each once, with membership answered by hash rather than by a scan (every
/// change to an object asks whether it is listed already, so a scan made changing many objects
/// quadratic).
struct ObjectList: Sequence, ExpressibleByArrayLiteral {
    private(set) var objects: [NSManagedObject] = []
    /// The identities of `objects` (the list holds them, so identities are not reused).
    private var members: Set<ObjectIdentifier> = []

    init(arrayLiteral elements: NSManagedObject...) {
        for object in elements { append(object) }
    }

    var isEmpty: Bool { objects.isEmpty }
    var count: Int { objects.count }

    func contains(_ object: NSManagedObject) -> Bool { members.contains(ObjectIdentifier(object)) }

    /// Adds an object at the end, unless it is listed already.
    mutating func append(_ object: NSManagedObject) {
        if members.insert(ObjectIdentifier(object)).inserted { objects.append(object) }
    }

    /// Takes an object off the list (nothing to do, and no scan, when it is not listed).
    mutating func remove(_ object: NSManagedObject) {
        guard members.remove(ObjectIdentifier(object)) != nil else { return }
        objects.removeAll { $0 === object }
    }

    func makeIterator() -> IndexingIterator<[NSManagedObject]> { objects.makeIterator() }
}
