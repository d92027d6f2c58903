import OpenPredicate

/// Apple's top-level name of `NSManagedObjectContext.ConcurrencyType`.
///
/// See [NSManagedObjectContextConcurrencyType](https://developer.apple.com/documentation/coredata/nsmanagedobjectcontextconcurrencytype).
public typealias NSManagedObjectContextConcurrencyType = NSManagedObjectContext.ConcurrencyType

extension NSManagedObjectContext {
    /// When `perform(schedule:_:)` runs its block.
    ///
    /// See [NSManagedObjectContext.ScheduledTaskType](https://developer.apple.com/documentation/coredata/nsmanagedobjectcontext/scheduledtasktype).
    public enum ScheduledTaskType: Hashable, Sendable {
        /// At once when the caller already runs on the context's queue (inside one of its
        /// `perform` blocks), without a `processPendingChanges()` after it; otherwise enqueued.
        case immediate
        /// Later, on the context's queue, after the blocks already queued, followed by
        /// `processPendingChanges()`, as `perform(_:)` does.
        case enqueued
    }

    /// Runs `block` on the context's queue as `schedule` says, and returns its result.
    ///
    /// ```swift
    /// let count = await context.perform(schedule: .enqueued) { try? context.count(for: request) }
    /// ```
    ///
    /// **Differences from Apple:** Apple's is one `rethrows` method whose `schedule` defaults to
    /// `.immediate`; here `perform(_:)` without `schedule:` is the existing overload, which
    /// enqueues. Calls read the same.
    /// See [perform(schedule:_:)](https://developer.apple.com/documentation/coredata/nsmanagedobjectcontext/perform(schedule:_:)).
    ///
    /// - Parameters:
    ///   - schedule: `.immediate` or `.enqueued`.
    ///   - block: The work; it runs on the context's queue.
    /// - Returns: What `block` returns.
    @preconcurrency
    public func perform<T>(schedule: ScheduledTaskType, _ block: @escaping @Sendable () -> T) async -> T {
        if schedule == .immediate && isOnQueue { return block() }
        return await perform(block)
    }

    /// The throwing form of `perform(schedule:_:)`: throws what `block` throws.
    ///
    /// See [perform(schedule:_:)](https://developer.apple.com/documentation/coredata/nsmanagedobjectcontext/perform(schedule:_:)).
    ///
    /// - Parameters:
    ///   - schedule: `.immediate` or `.enqueued`.
    ///   - block: The work; it runs on the context's queue.
    /// - Returns: What `block` returns.
    /// - Throws: What `block` throws.
    @preconcurrency
    public func perform<T>(
        schedule: ScheduledTaskType, _ block: @escaping @Sendable () throws -> T
    ) async throws -> T {
        if schedule == .immediate && isOnQueue { return try block() }
        return try await perform(block)
    }
}
