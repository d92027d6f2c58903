/// What a context's changes did, as its observers inside the library (fetched results
/// controllers) get them: on the context's queue, after each `NSManagedObjectContextObjectsDidChange`,
/// merge, rollback, reset and save.
struct ContextChanges {
    // Lists rather than sets: a set of objects hashes each one through `NSObject` (a dynamic
    // `hash` and, on every collision, `isEqual(_:)` with its argument boxed), which cost a save
    // of 10^5 inserted objects more than its rows' statements. An object may be in more than
    // one list, or twice in one; observers key objects by identity.

    /// Objects newly inserted into the context (or registered by a merge).
    var inserted: [NSManagedObject] = []
    /// Objects whose values may differ: changed, refreshed, merged (loaded or still faults) or
    /// rolled back.
    var updated: [NSManagedObject] = []
    /// Objects deleted or gone from the context.
    var deleted: [NSManagedObject] = []
    /// IDs a merged save updated that the context had not registered.
    var updatedElsewhere: [NSManagedObjectID] = []
    /// `reset()`: every object is gone.
    var invalidatedAll = false
    /// A save gave inserted objects permanent IDs.
    var idsChanged = false
}

/// Follows a context's changes (see `ContextChanges`); held weakly by the context.
protocol ContextChangeObserver: AnyObject {
    func contextDidChange(_ changes: ContextChanges)
}

/// A weak reference to an observer.
struct WeakChangeObserver {
    weak var observer: ContextChangeObserver?
}
