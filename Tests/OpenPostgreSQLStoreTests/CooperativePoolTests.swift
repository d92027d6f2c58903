#if PostgreSQL
    import Dispatch
    import Foundation
    import OpenStoreCore
    import Synchronization
    import TestSupport
    import XCTest

    @testable import OpenPostgreSQLStore

    /// Synchronous calls never need Swift concurrency's cooperative pool: with as many async tasks
    /// as the pool has threads blocked in synchronous calls (they wait for an advisory lock the
    /// test holds), four threads still get their work done.
    ///
    /// An XCTest case, not a Swift Testing one: it takes every cooperative thread of the process
    /// for a while, which would stall the Swift Testing tests running beside it (they run on those
    /// threads), while XCTest runs its cases one at a time, apart from them, on the main thread.
    final class CooperativePoolTests: XCTestCase {
        func testThreadsProgressWhileAsyncTasksBlockInSyncCalls() throws {
            guard PostgresTestServer.isEnabled else {
                throw XCTSkip("no PostgreSQL test server (OPENCOREDATA_POSTGRES_URL)")
            }
            let blockers = max(2, ProcessInfo.processInfo.activeProcessorCount)
            try PostgresTestServer.withDatabase(poolSize: blockers + 8) { database in
                // Advisory locks are per database, not per schema: a key of this run's own.
                let key = StoreValue.integer(Int64.random(in: 1...Int64.max))
                let lockHeld = DispatchSemaphore(value: 0)
                let releaseLock = DispatchSemaphore(value: 0)
                let holder = Thread {
                    _ = try? database.withConnection { session in
                        try session.execute("SELECT pg_advisory_lock($1)", [key])
                        lockHeld.signal()
                        releaseLock.wait()
                        try session.execute("SELECT pg_advisory_unlock($1)", [key])
                    }
                }
                holder.start()
                XCTAssertEqual(lockHeld.wait(timeout: .now() + 30), .success)
                let blocked = (0..<blockers).map { _ in
                    Task {
                        // A synchronous call inside an async task: blocks this cooperative thread.
                        try database.withConnection { session in
                            try session.execute("SELECT pg_advisory_lock($1)", [key])
                            try session.execute("SELECT pg_advisory_unlock($1)", [key])
                        }
                    }
                }
                // At least two of them are waiting for the lock, blocking cooperative threads (on a
                // 2-core machine: all of them).
                let waiting = try eventually {
                    var count: Int64 = 0
                    try database.withConnection { session in
                        try session.query(
                            """
                            SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND objsubid = 1
                              AND ((classid::int8 << 32) | objid::int8) = $1
                            """, [key]
                        ) {
                            count = $0.int64(0) ?? 0
                        }
                    }
                    return count >= min(2, blockers)
                }
                XCTAssertTrue(waiting, "two tasks wait for the lock")

                let done = DispatchSemaphore(value: 0)
                let results = Mutex<[Int64]>([])
                for thread in 0..<4 {
                    Thread {
                        defer { done.signal() }
                        for step in 0..<25 {
                            let value = Int64(thread * 100 + step)
                            let got = try? database.withTransaction { session in
                                var got: Int64?
                                try session.query("SELECT $1::int8 * 2", [.integer(value)]) { got = $0.int64(0) }
                                return got
                            }
                            if let got = got ?? nil { results.withLock { $0.append(got) } }
                        }
                    }.start()
                }
                var finished = 0
                for _ in 0..<4 where done.wait(timeout: .now() + 60) == .success { finished += 1 }
                XCTAssertEqual(finished, 4)
                XCTAssertEqual(
                    results.withLock { $0.sorted() }, (0..<4).flatMap { t in (0..<25).map { Int64(t * 100 + $0) * 2 } })
                releaseLock.signal()
                for task in blocked {
                    let semaphore = DispatchSemaphore(value: 0)
                    let outcome = Mutex<Bool>(false)
                    Task {
                        let ok = (try? await task.value) != nil
                        outcome.withLock { $0 = ok }
                        semaphore.signal()
                    }
                    XCTAssertEqual(semaphore.wait(timeout: .now() + 60), .success)
                    XCTAssertTrue(outcome.withLock { $0 })
                }
            }
        }
    }
#endif
