import OpenPredicate

/// The coordinators alive in the process, newest last, held weakly: `NSManagedObject.entity()`
/// looks for its class in their models, as Apple's looks in the models of loaded coordinators.
enum LiveCoordinators {
    private final class Entry {
        weak var coordinator: NSPersistentStoreCoordinator?
        init(_ coordinator: NSPersistentStoreCoordinator) { self.coordinator = coordinator }
    }

    private static let lock = NSLock()
    // Read and written under `lock` only.
    nonisolated(unsafe) private static var entries: [Entry] = []

    /// Remembers a new coordinator (and forgets those that are gone).
    static func add(_ coordinator: NSPersistentStoreCoordinator) {
        lock.lock()
        defer { lock.unlock() }
        entries.removeAll { $0.coordinator == nil }
        entries.append(Entry(coordinator))
    }

    /// The models of the live coordinators, newest first (a model used by several once).
    static func models() -> [NSManagedObjectModel] {
        lock.lock()
        let coordinators = entries.compactMap(\.coordinator)
        lock.unlock()
        var seen: Set<ObjectIdentifier> = []
        return coordinators.reversed().map(\.managedObjectModel).filter { seen.insert(ObjectIdentifier($0)).inserted }
    }
}
