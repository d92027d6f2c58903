import Foundation
import OpenSQLStore
import OpenStoreCore

/// Connections that only read the store's file, beside the store's own connection, so that
/// fetches from many contexts run side by side instead of one after another.
///
/// SQLite in WAL mode lets readers and one writer work at once: each read sees the file as the
/// last `COMMIT` before it left it, never a save half done, and never waits for a writer. Apple's
/// store does the same (`NSPersistentStoreConnectionPoolMaxSizeKey`: "the number of requests a
/// store can handle concurrently").
///
/// A reader is opened when a fetch finds none idle and fewer than `limit` are open; a fetch that
/// finds `limit` readers busy waits for one. Each reader has the store's SQL functions, its
/// pragmas and its trace.
final class SQLiteReaderPool: @unchecked Sendable {
    // @unchecked Sendable: `idle`, `opened` and `waiting` are read and written only under `lock`;
    // a reader is used by one thread at a time, from `take()` until `putBack(_:)`, and a waiter's
    // `reader` is set under `lock` before its semaphore lets its thread read it.

    /// A fetch waiting for a reader, handed one by the fetch putting one back.
    private final class Waiter {
        let ready = DispatchSemaphore(value: 0)
        var reader: SQLiteConnection?
    }

    /// The most readers open at once.
    let limit: Int
    private let open: () throws -> SQLiteConnection
    private let lock = NSLock()
    private var idle: [SQLiteConnection] = []
    private var opened = 0
    /// The trace readers log to (the store's, see `SQLiteRowStore.trace`): set on a reader
    /// each time it is taken.
    private var readerTrace: SQLTrace?
    /// The fetches waiting, first come first: a reader put back goes to the first of them, so
    /// none waits behind fetches that came after it.
    private var waiting: [Waiter] = []

    /// - Parameters:
    ///   - limit: the most readers open at once (at least 1).
    ///   - open: opens a reader.
    init(limit: Int, trace: SQLTrace?, open: @escaping () throws -> SQLiteConnection) {
        self.limit = max(limit, 1)
        self.readerTrace = trace
        self.open = open
    }

    /// The trace readers log to from their next use on.
    var trace: SQLTrace? {
        get {
            lock.lock()
            defer { lock.unlock() }
            return readerTrace
        }
        set {
            lock.lock()
            readerTrace = newValue
            lock.unlock()
        }
    }

    /// Runs `body` with a reader of its own (an idle one, a new one, or the first one put back).
    func withReader<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        let (reader, trace) = try take()
        defer { putBack(reader) }
        reader.trace = trace
        return try body(reader)
    }

    /// A reader, and the trace it logs to now.
    private func take() throws -> (SQLiteConnection, SQLTrace?) {
        lock.lock()
        let trace = readerTrace
        if waiting.isEmpty, let reader = idle.popLast() {
            lock.unlock()
            return (reader, trace)
        }
        if opened < limit {
            opened += 1
            lock.unlock()
            do {
                return (try open(), trace)
            } catch {
                lock.lock()
                opened -= 1
                lock.unlock()
                throw error
            }
        }
        let waiter = Waiter()
        waiting.append(waiter)
        lock.unlock()
        waiter.ready.wait()
        // `putBack(_:)` set it before signalling `ready`.
        guard let reader = waiter.reader else { return try take() }
        return (reader, trace)
    }

    private func putBack(_ reader: SQLiteConnection) {
        // Every statement resets itself when done; one that did not would keep the reader on
        // an old snapshot of the file, so only then are they all reset.
        if reader.hasOpenTransaction { reader.resetCachedStatements() }
        lock.lock()
        guard !waiting.isEmpty else {
            idle.append(reader)
            lock.unlock()
            return
        }
        let waiter = waiting.removeFirst()
        waiter.reader = reader
        lock.unlock()
        waiter.ready.signal()
    }

    /// The number of readers open now, and of fetches waiting for one (for tests).
    var counts: (opened: Int, waiting: Int) {
        lock.lock()
        defer { lock.unlock() }
        return (opened, waiting.count)
    }
}
