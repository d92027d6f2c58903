import Foundation

/// The lock a store with one connection serialises its calls with: callers are served in the
/// order they came, and the caller holding the lock runs the work of those waiting behind it.
///
/// ```swift
/// let lock = CombiningLock()
/// let count = try lock.withLock { try connection.count(…) }   // may run on the holder's thread
/// ```
///
/// Under a server's load dozens of threads wait for the connection at once. A plain mutex wakes
/// them in no order, so a request can lose the race again and again while later ones pass it: the
/// median stays low and the tail grows (three times a serial queue's 99th percentile, measured).
/// A lock handed to waiters in turn is fair but slow: every hand-off waits for the next thread to
/// be scheduled, with the connection idle meanwhile. This lock does what a serial queue does
/// instead. `withLock(_:)` queues its body; the thread holding the lock, once its own body is done,
/// runs the queued bodies in order (up to `combinedLimit` of them) and wakes each caller with its
/// result, then hands the lock to the next caller waiting. The connection stays busy, and no
/// caller waits behind one who came later.
///
/// Bodies given a commit (`withLock(committing:_:)`, a store's saves) are grouped: the holder runs
/// those queued next to each other, then the commit once, and only then wakes their callers. A
/// SQLite store so makes many saves durable with one `COMMIT` and one `fsync` where each would
/// wait for its own (group commit).
///
/// A body may therefore run on another thread than its caller's, while the caller waits. The
/// caller's `StoreStatementLog.current` goes with it; a body must not depend on other
/// thread-local state. `lock()` and `unlock()` hold the lock across calls (a prepared save holds
/// it until it commits or rolls back), and may be called on different threads.
package final class CombiningLock: @unchecked Sendable {
    // @unchecked Sendable: `isLocked` and `waiters`, and each waiter's `work` and `state`, are
    // read and written only with `mutex` held; a waiter's condition is used only with `mutex`.
    // A queued body runs while its caller waits, and its result is read after the caller is woken
    // under `mutex`.

    private final class Waiter {
        enum State { case waiting, done, granted }

        let condition: UnsafeMutablePointer<pthread_cond_t> = .allocate(capacity: 1)
        /// The caller's body, for the holder to run; true when it succeeded. Nil for a caller of
        /// `lock()`.
        var work: (() -> Bool)?
        /// A grouped body's commit (see `withLock(committing:_:)`), and what sets its result to
        /// the commit's error.
        var commit: (() throws -> Void)?
        var fail: ((any Error) -> Void)?
        var state = State.waiting

        init(work: (() -> Bool)?, commit: (() throws -> Void)? = nil, fail: ((any Error) -> Void)? = nil) {
            self.work = work
            self.commit = commit
            self.fail = fail
            condition.initialize(to: pthread_cond_t())
            pthread_cond_init(condition, nil)
        }

        deinit {
            pthread_cond_destroy(condition)
            condition.deallocate()
        }
    }

    /// How many queued bodies the holder runs before handing the lock on: its own caller's result
    /// waits meanwhile.
    package static let combinedLimit = 8

    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var isLocked = false
    /// Waiting callers, first come first (as many as there are threads: removing the first is cheap).
    private var waiters: [Waiter] = []

    package init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// How many callers wait for the lock now (tests watch the queue with it).
    package var waitingCount: Int {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return waiters.count
    }

    /// Runs `body` with the lock held: at once if it is free, else after everyone who asked
    /// before, on this thread or on the holder's.
    package func withLock<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        pthread_mutex_lock(mutex)
        if !isLocked {
            isLocked = true
            pthread_mutex_unlock(mutex)
            defer { unlock() }
            return try body()
        }
        var result: Result<T, E>?
        let log = StoreStatementLog.current
        let progress = FetchProgress.current
        withoutActuallyEscaping(body) { body in
            enqueueAndWait(
                Waiter(work: {
                    result = Self.carrying(log, progress) { Result(catching: body) }
                    return true
                }))
        }
        if let result { return try result.get() }
        // Handed the lock (the holder had run its share): run the body here, then serve the queue.
        defer { unlock() }
        return try body()
    }

    /// Runs `body` with the lock held, as `withLock(_:)` does, grouped with the bodies queued
    /// next to it that were given a commit too: their effects are made durable by one call of
    /// `commit` after the last of them, and no caller returns before it. A store's saves share
    /// one transaction and one `COMMIT` so (group commit): each body writes in a savepoint of
    /// its own, and one that fails undoes only its own writes.
    ///
    /// Every grouped body of one lock must be given the same `commit`. `commit` runs even when
    /// every body of the group failed (it ends whatever transaction they began); when it throws,
    /// each caller whose body succeeded gets its error.
    package func withLock<T>(committing commit: @escaping () throws -> Void, _ body: () throws -> T) throws -> T {
        pthread_mutex_lock(mutex)
        if !isLocked {
            isLocked = true
            pthread_mutex_unlock(mutex)
            return try runGroup(commit: commit, body)
        }
        var result: Result<T, any Error>?
        let log = StoreStatementLog.current
        let progress = FetchProgress.current
        withoutActuallyEscaping(body) { body in
            enqueueAndWait(
                Waiter(
                    work: {
                        let outcome = Self.carrying(log, progress) { Result(catching: body) }
                        result = outcome
                        if case .success = outcome { return true }
                        return false
                    },
                    commit: commit,
                    fail: { result = .failure($0) }))
        }
        if let result { return try result.get() }
        return try runGroup(commit: commit, body)
    }

    /// Queues `waiter` and waits until its body ran or the lock was handed to it; `mutex` is
    /// held on entry and released on return. The waiter's closures (holding the caller's
    /// non-escaping body) are dropped before it returns.
    private func enqueueAndWait(_ waiter: Waiter) {
        waiters.append(waiter)
        while waiter.state == .waiting { pthread_cond_wait(waiter.condition, mutex) }
        waiter.work = nil
        waiter.fail = nil
        pthread_mutex_unlock(mutex)
    }

    /// Runs `run` with `StoreStatementLog.current` and `FetchProgress.current` bound to the
    /// caller's `log` and `progress` (a body run on the holder's thread records its statements
    /// where its caller traces, and reports its rows to its caller's progress).
    private static func carrying<R>(_ log: StoreStatementLog?, _ progress: FetchProgress?, _ run: () -> R) -> R {
        if progress != nil || FetchProgress.current != nil {
            return FetchProgress.$current.withValue(progress) { logging(log, run) }
        }
        return logging(log, run)
    }

    private static func logging<R>(_ log: StoreStatementLog?, _ run: () -> R) -> R {
        if log == nil && StoreStatementLog.current == nil { return run() }
        return StoreStatementLog.$current.withValue(log, operation: run)
    }

    /// As the holder: runs its own grouped `body`, then the grouped bodies queued behind it (up to
    /// `combinedLimit`), then `commit` once; wakes their callers and serves the queue.
    private func runGroup<T>(commit: () throws -> Void, _ body: () throws -> T) throws -> T {
        let own = Result(catching: body)
        var pending: [Waiter] = []
        pthread_mutex_lock(mutex)
        var combined = 0
        while combined < Self.combinedLimit, let next = waiters.first, next.commit != nil, let work = next.work {
            waiters.removeFirst()
            pthread_mutex_unlock(mutex)
            let succeeded = work()
            pthread_mutex_lock(mutex)
            combined += 1
            if succeeded {
                pending.append(next)
            } else {
                next.state = .done
                pthread_cond_signal(next.condition)
            }
        }
        pthread_mutex_unlock(mutex)
        let committed = Result(catching: commit)
        pthread_mutex_lock(mutex)
        for waiter in pending {
            if case .failure(let error) = committed { waiter.fail?(error) }
            waiter.state = .done
            pthread_cond_signal(waiter.condition)
        }
        pthread_mutex_unlock(mutex)
        unlock()
        let value = try own.get()
        try committed.get()
        return value
    }

    /// Takes the lock for this caller, waiting behind everyone who asked before.
    package func lock() {
        pthread_mutex_lock(mutex)
        guard isLocked else {
            isLocked = true
            pthread_mutex_unlock(mutex)
            return
        }
        enqueueAndWait(Waiter(work: nil))
    }

    /// Runs the bodies queued behind the holder, in order (up to `combinedLimit`), then hands the
    /// lock to the next caller waiting, or frees it. A grouped body is handed the lock: it opens
    /// a group of its own.
    package func unlock() {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        var combined = 0
        while let next = waiters.first {
            waiters.removeFirst()
            if combined < Self.combinedLimit, next.commit == nil, let work = next.work {
                pthread_mutex_unlock(mutex)
                _ = work()
                pthread_mutex_lock(mutex)
                combined += 1
                next.state = .done
            } else {
                next.state = .granted
                pthread_cond_signal(next.condition)
                return
            }
            pthread_cond_signal(next.condition)
        }
        isLocked = false
    }
}
