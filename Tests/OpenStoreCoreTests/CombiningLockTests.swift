import Foundation
import OpenStoreCore
import Testing

/// `CombiningLock`, the lock a one-connection store serialises its calls with: callers are served
/// in the order they came, the holder running the bodies queued behind it.
@Suite struct CombiningLockTests {
    /// Eight threads queue one after another behind a held lock; each body records its number.
    /// They must run in the order they queued. (A pthread mutex gives no order: the woken thread
    /// races the others.)
    @Test func bodiesRunInTheOrderTheyCame() throws {
        let lock = CombiningLock()
        let order = Recorder()
        let done = DispatchGroup()
        lock.lock()
        try queueCallers(Array(0..<8), behind: lock, in: done) { number in
            lock.withLock { order.append(number) }
        }
        #expect(order.numbers.isEmpty)
        lock.unlock()
        #expect(done.wait(timeout: .now() + 30) == .success)
        #expect(order.numbers == Array(0..<8))
        #expect(lock.waitingCount == 0)
    }

    /// The holder releasing the lock serves the caller queued behind it before one who asks
    /// afterwards, and each caller gets its own body's result.
    @Test func aLaterCallerWaitsBehindTheQueue() throws {
        let lock = CombiningLock()
        let order = Recorder()
        let done = DispatchGroup()
        let first = Box()
        lock.lock()
        done.enter()
        Thread.detachNewThread {
            first.value = lock.withLock {
                order.append(1)
                return 10
            }
            done.leave()
        }
        try waitUntil { lock.waitingCount == 1 }
        lock.unlock()
        let second = lock.withLock {
            order.append(2)
            return 20
        }
        #expect(done.wait(timeout: .now() + 30) == .success)
        #expect(order.numbers == [1, 2])
        #expect(first.value == 10)
        #expect(second == 20)
    }

    /// More callers queued than the holder runs in one turn: the rest are handed the lock in turn,
    /// still in order, and every one runs once.
    @Test func aLongQueueIsHandedOnInOrder() throws {
        let lock = CombiningLock()
        let order = Recorder()
        let done = DispatchGroup()
        let callers = CombiningLock.combinedLimit * 2 + 3
        lock.lock()
        try queueCallers(Array(0..<callers), behind: lock, in: done) { number in
            lock.withLock { order.append(number) }
        }
        lock.unlock()
        #expect(done.wait(timeout: .now() + 30) == .success)
        #expect(order.numbers == Array(0..<callers))
    }

    /// An error thrown by a body run on the holder's thread reaches its own caller, typed.
    @Test func aQueuedBodysErrorReachesItsCaller() throws {
        struct Refused: Error, Equatable { var code: Int }
        let lock = CombiningLock()
        let caught = Box()
        let done = DispatchGroup()
        lock.lock()
        done.enter()
        Thread.detachNewThread {
            do throws(Refused) {
                try lock.withLock { () throws(Refused) -> Void in throw Refused(code: 7) }
            } catch {
                caught.value = error.code
            }
            done.leave()
        }
        try waitUntil { lock.waitingCount == 1 }
        lock.unlock()
        #expect(done.wait(timeout: .now() + 30) == .success)
        #expect(caught.value == 7)
    }

    /// A body run on the holder's thread records its statements in its own caller's log, not the
    /// holder's.
    @Test func aQueuedBodyKeepsItsCallersStatementLog() throws {
        let lock = CombiningLock()
        let holderLog = StoreStatementLog(), callerLog = StoreStatementLog()
        let done = DispatchGroup()
        let holding = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        done.enter()
        Thread.detachNewThread {
            StoreStatementLog.$current.withValue(holderLog) {
                lock.withLock {
                    StoreStatementLog.current?.record("holder")
                    holding.signal()
                    release.wait()
                }
            }
            done.leave()
        }
        holding.wait()
        done.enter()
        Thread.detachNewThread {
            StoreStatementLog.$current.withValue(callerLog) {
                lock.withLock { StoreStatementLog.current?.record("caller") }
            }
            done.leave()
        }
        try waitUntil { lock.waitingCount == 1 }
        release.signal()
        #expect(done.wait(timeout: .now() + 30) == .success)
        #expect(holderLog.statements == ["holder"])
        #expect(callerLog.statements == ["caller"])
    }

    /// A lock taken on one thread and released on another (as a prepared save does) frees it.
    @Test func unlockOnAnotherThread() {
        let lock = CombiningLock()
        lock.lock()
        let released = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            lock.unlock()
            released.signal()
        }
        released.wait()
        var ran = false
        lock.withLock { ran = true }
        #expect(ran)
    }

    private func waitUntil(_ condition: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(30)
        while !condition() {
            guard Date() < deadline else { throw CancellationError() }
            Thread.sleep(forTimeInterval: 0.001)
        }
    }
}

/// Starts a thread for each of `callers`, in order, each running `call` with it, and waits
/// until each is queued behind the held `lock` before starting the next; `done` is left when
/// each call returns.
private func queueCallers<Caller: Sendable>(
    _ callers: [Caller], behind lock: CombiningLock, in done: DispatchGroup, _ call: @escaping @Sendable (Caller) -> Void
) throws {
    for (index, caller) in callers.enumerated() {
        done.enter()
        Thread.detachNewThread {
            call(caller)
            done.leave()
        }
        let deadline = Date().addingTimeInterval(30)
        while lock.waitingCount < index + 1 {
            guard Date() < deadline else { throw CancellationError() }
            Thread.sleep(forTimeInterval: 0.001)
        }
    }
}

/// Numbers appended from several threads.
private final class Recorder: @unchecked Sendable {
    // @unchecked Sendable: `storage` is used only with `lock` held.
    private let lock = NSLock()
    private var storage: [Int] = []

    func append(_ number: Int) { lock.withLock { storage.append(number) } }
    var numbers: [Int] { lock.withLock { storage } }
}

/// One number set on one thread and read on another after it finished.
private final class Box: @unchecked Sendable {
    // @unchecked Sendable: set before the setting thread leaves its group, read after the wait.
    var value: Int?
}

/// Bodies given a commit: those queued together run, then the commit once, before any of their
/// callers returns.
@Suite struct CombiningLockGroupTests {
    @Test func queuedGroupedBodiesShareOneCommit() throws {
        let lock = CombiningLock()
        let events = Events()
        let done = DispatchGroup()
        let commit: () throws -> Void = { events.append("commit") }
        lock.lock()
        try queueCallers(Array(0..<3), behind: lock, in: done) { number in
            let value = try? lock.withLock(committing: commit) {
                events.append("body \(number)")
                return number * 10
            }
            events.append("returned \(value.map(String.init) ?? "nil")")
        }
        lock.unlock()
        #expect(done.wait(timeout: .now() + 30) == .success)
        let all = events.values
        #expect(Array(all.prefix(4)) == ["body 0", "body 1", "body 2", "commit"])
        #expect(Set(all.dropFirst(4)) == ["returned 0", "returned 10", "returned 20"])
    }

    /// A body that fails gets its own error; one that succeeded gets the commit's; the commit
    /// runs even when no body of the group succeeded.
    @Test func errorsOfBodiesAndOfTheCommit() throws {
        struct Refused: Error {}
        struct DiskFull: Error {}
        let lock = CombiningLock()
        let events = Events()
        let done = DispatchGroup()
        let commit: () throws -> Void = {
            events.append("commit")
            throw DiskFull()
        }
        lock.lock()
        try queueCallers(Array(0..<2), behind: lock, in: done) { number in
            do {
                try lock.withLock(committing: commit) { if number == 0 { throw Refused() } }
                events.append("\(number) saved")
            } catch {
                events.append("\(number) \(error is Refused ? "refused" : error is DiskFull ? "disk full" : "?")")
            }
        }
        lock.unlock()
        #expect(done.wait(timeout: .now() + 30) == .success)
        #expect(Set(events.values) == ["commit", "0 refused", "1 disk full"])

        // Alone, and refused: the commit still runs (it ends what the body began).
        events.clear()
        #expect(throws: Refused.self) { try lock.withLock(committing: commit) { throw Refused() } }
        #expect(events.values == ["commit"])
    }

    /// A plain body queued after grouped ones runs after their commit, and a grouped body
    /// after it opens a group of its own.
    @Test func aPlainBodyEndsTheGroup() throws {
        let lock = CombiningLock()
        let events = Events()
        let done = DispatchGroup()
        let commit: () throws -> Void = { events.append("commit") }
        lock.lock()
        let bodies: [(String, Bool)] = [("save 1", true), ("read", false), ("save 2", true)]
        try queueCallers(bodies, behind: lock, in: done) { (name, grouped) in
            if grouped {
                try? lock.withLock(committing: commit) { events.append(name) }
            } else {
                lock.withLock { events.append(name) }
            }
        }
        lock.unlock()
        #expect(done.wait(timeout: .now() + 30) == .success)
        #expect(events.values == ["save 1", "commit", "read", "save 2", "commit"])
    }
}

/// Strings appended from several threads.
private final class Events: @unchecked Sendable {
    // @unchecked Sendable: `stored` is used only with `lock` held.
    private let lock = NSLock()
    private var stored: [String] = []

    func append(_ event: String) { lock.withLock { stored.append(event) } }
    func clear() { lock.withLock { stored = [] } }
    var values: [String] { lock.withLock { stored } }
}
