import OpenPredicate

extension NSPersistentStoreCoordinator {
    /// Runs `block` later, on a serial queue of the coordinator, while no other block of the
    /// coordinator runs and its stores are not being added or removed.
    ///
    /// ```swift
    /// coordinator.perform { print(coordinator.persistentStores.count) }
    /// ```
    ///
    /// See [perform(_:)](https://developer.apple.com/documentation/coredata/nspersistentstorecoordinator/perform(_:)).
    ///
    /// - Parameter block: The work.
    @preconcurrency
    public func perform(_ block: @escaping @Sendable () -> Void) {
        performQueue.async {
            self.lock.lock()
            defer { self.lock.unlock() }
            block()
        }
    }

    /// Runs `block` now, on the caller's thread, while no other block of the coordinator runs,
    /// and returns its result (blocks may nest).
    ///
    /// See [performAndWait(_:)](https://developer.apple.com/documentation/coredata/nspersistentstorecoordinator/performandwait(_:)).
    ///
    /// - Parameter block: The work.
    /// - Returns: What `block` returns.
    /// - Throws: What `block` throws.
    @preconcurrency
    public func performAndWait<T>(_ block: @Sendable () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try block()
    }

    /// Runs `block` on the coordinator's serial queue, as `perform(_:)` does, and returns its
    /// result.
    ///
    /// See [perform(_:)](https://developer.apple.com/documentation/coredata/nspersistentstorecoordinator/perform(_:)).
    ///
    /// - Parameter block: The work.
    /// - Returns: What `block` returns.
    @preconcurrency
    public func perform<T>(_ block: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            perform { continuation.resume(returning: UncheckedBox(block())) }
        }.value
    }

    /// The throwing form of `perform(_:) async`.
    ///
    /// See [perform(_:)](https://developer.apple.com/documentation/coredata/nspersistentstorecoordinator/perform(_:)).
    ///
    /// - Parameter block: The work.
    /// - Returns: What `block` returns.
    /// - Throws: What `block` throws.
    @preconcurrency
    public func perform<T>(_ block: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            perform { continuation.resume(with: Result { try block() }.map(UncheckedBox.init)) }
        }.value
    }
}
