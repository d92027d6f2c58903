import OpenPredicate

extension NSPersistentStoreCoordinator {
    /// Shuts the coordinator's stores down gracefully: saves that are writing finish, later ones
    /// are refused (`NSPersistentStoreSaveError`), then every store is removed and its connections
    /// are closed (the PostgreSQL store's pool: once each statement running has its answer).
    /// Fetches that reach a store after it was removed fail as with any removed store.
    func shutdown() async {
        await savesInFlight.closeAndDrain()
        for store in persistentStores {
            try? remove(store)
            await (store as? RowBackedPersistentStore)?.rows.close()
        }
    }

    /// Runs a save to the stores unless `shutdown()` has begun; `shutdown()` waits for it.
    ///
    /// - Throws: `NSPersistentStoreSaveError` after `shutdown()` began; what `body` throws.
    func whileOpen<T>(_ body: () throws -> T) throws -> T {
        guard savesInFlight.enter() else {
            throw CoreDataError.make(
                code: NSPersistentStoreSaveError,
                reason: "The persistent store coordinator is shutting down (NSPersistentContainer.shutdown()); "
                    + "the save was not made")
        }
        defer { savesInFlight.leave() }
        return try body()
    }
}

/// The saves running on a coordinator's stores, so that a shutdown lets them finish first.
final class SavesInFlight: @unchecked Sendable {
    // @unchecked Sendable: every access goes through `lock`.

    private let lock = NSLock()
    private var running = 0
    private var isClosed = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    /// Counts a save in, unless closed.
    func enter() -> Bool {
        lock.withLock {
            guard !isClosed else { return false }
            running += 1
            return true
        }
    }

    /// Counts a save out; the last one out wakes `closeAndDrain()`.
    func leave() {
        let woken: [CheckedContinuation<Void, Never>] = lock.withLock {
            running -= 1
            guard running == 0 else { return [] }
            defer { waiters = [] }
            return waiters
        }
        for waiter in woken { waiter.resume() }
    }

    /// Refuses saves from now on, and returns once the running ones have finished.
    func closeAndDrain() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let drained: Bool = lock.withLock {
                isClosed = true
                if running == 0 { return true }
                waiters.append(continuation)
                return false
            }
            if drained { continuation.resume() }
        }
    }
}
