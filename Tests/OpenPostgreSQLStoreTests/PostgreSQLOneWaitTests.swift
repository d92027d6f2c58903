#if PostgreSQL
    import Dispatch
    import Foundation
    import OpenStoreCore
    import class NIOPosix.MultiThreadedEventLoopGroup
    import Synchronization
    import TestSupport
    import Testing

    @testable import OpenPostgreSQLStore

    /// The pool's calls that wait once: a statement on a connection leased for it alone
    /// (`execute`, `query`), and `runTransaction`, a save's statements planned first, then run in
    /// one go on the event loop, each sent once the one before has met its expectation.
    @Suite(.postgreSQLServer)
    struct PostgreSQLOneWaitTests {
        static func statement(
            _ sql: String, _ arguments: [StoreValue] = [], _ expectation: PlannedStatement.Expectation = .any
        ) -> PlannedStatement {
            PlannedStatement(sql: sql, arguments: arguments, expectation: expectation)
        }

        /// The rows of `t`, as `x: y`, in order.
        static func rows(_ database: PostgreSQLConnectionPool) throws -> [String] {
            try database.withConnection { session in
                var rows: [String] = []
                try session.query("SELECT x, y FROM t ORDER BY x") { rows.append("\($0.int64(0) ?? -1): \($0.string(1) ?? "NULL")") }
                return rows
            }
        }

        /// How many times `nextval('calls')` ran: sequences move on whether or not their
        /// transaction commits, so they show which statements were sent.
        static func calls(_ database: PostgreSQLConnectionPool) throws -> Int64 {
            try database.withConnection { session in
                var value: Int64 = 0
                try session.query("SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM calls") { value = $0.int64(0) ?? -1 }
                return value
            }
        }

        static func withTable<T>(poolSize: Int = 8, _ body: (PostgreSQLConnectionPool) throws -> T) throws -> T {
            try PostgresTestServer.withDatabase(poolSize: poolSize) { database in
                try database.withConnection { session in
                    try session.execute("CREATE TABLE t (x int8 PRIMARY KEY, y text)")
                    try session.execute("CREATE SEQUENCE calls")
                    try session.execute("INSERT INTO t VALUES (1, 'one')")
                }
                return try body(database)
            }
        }

        @Test func aStatementAloneGivesItsAnswer() throws {
            try Self.withTable { database in
                #expect(try database.execute("INSERT INTO t VALUES ($1, $2), ($3, $4)", [.integer(2), .string("two"), .integer(3), .null]) == 2)
                var rows: [String] = []
                try database.query("SELECT x, y FROM t WHERE x >= $1 ORDER BY x", [.integer(2)]) { row in
                    rows.append("\(row.int64(0) ?? -1): \(row.string(1) ?? "NULL")")
                }
                #expect(rows == ["2: two", "3: NULL"])
                #expect(try database.execute("DELETE FROM t WHERE x > $1", [.integer(1)]) == 2)
                var failure: PostgreSQLServerError?
                do { try database.execute("SELEC 1") } catch { failure = error as? PostgreSQLServerError }
                #expect(failure?.kind == .syntax)
                #expect(failure?.message.contains("SELEC 1") == true)
                // What the row closure throws comes out as it is; the connection goes back usable.
                struct Stop: Error {}
                #expect(throws: Stop.self) { try database.query("SELECT x FROM t") { _ in throw Stop() } }
                #expect(try Self.rows(database) == ["1: one"])
            }
        }

        /// 16 threads, 20 statements each, on a pool of 2: every answer is its own.
        @Test func manyThreadsShareASmallPool() throws {
            try Self.withTable(poolSize: 2) { database in
                let wrong = Mutex(0)
                let done = DispatchGroup()
                for thread in 0..<16 {
                    done.enter()
                    Thread {
                        defer { done.leave() }
                        for step in 0..<20 {
                            let asked = Int64(thread * 100 + step)
                            var answer: Int64?
                            try? database.query("SELECT $1::int8 + 0", [.integer(asked)]) { answer = $0.int64(0) }
                            if answer != asked { wrong.withLock { $0 += 1 } }
                        }
                    }.start()
                }
                done.wait()
                #expect(wrong.withLock { $0 } == 0)
            }
        }

        @Test func theStatementsRunInOrderAndCommit() throws {
            try Self.withTable { database in
                let log = StoreStatementLog()
                let committed = try StoreStatementLog.$current.withValue(log) {
                    try database.runTransaction([
                        Self.statement("SELECT x FROM t WHERE y = $1", [.string("two")], .returnsNoRows),
                        Self.statement("INSERT INTO t VALUES ($1, $2), ($3, $4)", [.integer(2), .string("two"), .integer(3), .string("three")]),
                        Self.statement("UPDATE t SET y = $1 WHERE x = $2", [.string("uno"), .integer(1)], .changes(1)),
                        Self.statement("DELETE FROM t WHERE x = $1", [.integer(3)], .changes(1)),
                        Self.statement("UPDATE t SET y = y || '!' WHERE x > $1", [.integer(100)]),
                    ])
                }
                #expect(committed)
                #expect(try Self.rows(database) == ["1: uno", "2: two"])
                #expect(log.statements.first == "BEGIN ISOLATION LEVEL READ COMMITTED")
                #expect(log.statements.last == "COMMIT")
                #expect(log.statements.count == 7)
            }
        }

        @Test(arguments: [
            ("an UPDATE that finds no row", "UPDATE t SET y = 'x' WHERE x = 42", PlannedStatement.Expectation.changes(1)),
            ("a DELETE that finds no row", "DELETE FROM t WHERE x = 42", .changes(1)),
            ("a query that finds a row", "SELECT x FROM t WHERE x = 1", .returnsNoRows),
        ])
        func anAnswerNotAsExpectedRollsBackAndStops(_ case: String, sql: String, expectation: PlannedStatement.Expectation) throws {
            try Self.withTable { database in
                let committed = try database.runTransaction([
                    Self.statement("INSERT INTO t VALUES (5, 'five')"),
                    Self.statement("SELECT nextval('calls')"),
                    Self.statement(sql, [], expectation),
                    Self.statement("SELECT nextval('calls')"),
                    Self.statement("INSERT INTO t VALUES (6, 'six')"),
                ])
                #expect(!committed, "\(`case`)")
                #expect(try Self.rows(database) == ["1: one"], "rolled back")
                #expect(try Self.calls(database) == 1, "nothing after it was sent")
                // The connection went back to the pool in a usable state.
                let again = try database.runTransaction([Self.statement("INSERT INTO t VALUES (7, 'seven')")])
                #expect(again)
                #expect(try Self.rows(database) == ["1: one", "7: seven"])
            }
        }

        @Test func aStatementThatFailsThrowsItsErrorAndRollsBack() throws {
            try Self.withTable(poolSize: 1) { database in
                var failure: PostgreSQLServerError?
                do {
                    _ = try database.runTransaction([
                        Self.statement("INSERT INTO t VALUES (5, 'five')"),
                        Self.statement("INSERT INTO t VALUES ($1, $2)", [.integer(1), .string("again")]),
                        Self.statement("SELECT nextval('calls')"),
                    ])
                } catch {
                    failure = error as? PostgreSQLServerError
                }
                #expect(failure?.kind == .uniqueViolation)
                #expect(failure?.message.contains("INSERT INTO t VALUES ($1, $2)") == true, "\(String(describing: failure))")
                #expect(try Self.rows(database) == ["1: one"])
                #expect(try Self.calls(database) == 0)
                // The only connection is back, out of the failed transaction.
                let committed = try database.runTransaction([Self.statement("INSERT INTO t VALUES (5, 'five')")])
                #expect(committed)
                #expect(try Self.rows(database) == ["1: one", "5: five"])
            }
        }

        @Test func valuesPostgreSQLCannotHoldThrowBeforeAnythingIsSent() throws {
            try Self.withTable { database throws in
                var failure: PostgreSQLServerError?
                do {
                    _ = try database.runTransaction([
                        Self.statement("SELECT nextval('calls')"),
                        Self.statement("INSERT INTO t VALUES (5, $1)", [.string("nul \u{0} inside")]),
                    ])
                } catch {
                    failure = error as? PostgreSQLServerError
                }
                #expect(failure?.message.contains("NUL character") == true, "\(String(describing: failure))")
                #expect(try Self.calls(database) == 0)
            }
        }

        /// The pool's only connection is busy for longer than the lease timeout: the call gives up
        /// with `.connection`, and the connection it was to get goes back to the pool unused.
        @Test func noFreeConnectionWithinTheLeaseTimeoutThrows() throws {
            try Self.withTable(poolSize: 1) { database in
                database.leaseTimeout = .milliseconds(300)
                let holding = DispatchSemaphore(value: 0)
                let release = DispatchSemaphore(value: 0)
                let holder = Thread {
                    _ = try? database.withConnection { _ in
                        holding.signal()
                        release.wait()
                    }
                }
                holder.start()
                holding.wait()
                var failures: [PostgreSQLServerError?] = []
                do {
                    _ = try database.runTransaction([Self.statement("SELECT nextval('calls')")])
                } catch {
                    failures.append(error as? PostgreSQLServerError)
                }
                do {
                    try database.query("SELECT nextval('calls')") { _ in }
                } catch {
                    failures.append(error as? PostgreSQLServerError)
                }
                release.signal()
                #expect(failures.count == 2)
                for failure in failures {
                    #expect(failure?.kind == .connection)
                    #expect(failure?.message.contains("no connection became free") == true, "\(String(describing: failure))")
                }
                database.leaseTimeout = .seconds(60)
                let committed = try database.runTransaction([Self.statement("SELECT nextval('calls')")])
                #expect(committed)
                #expect(try Self.calls(database) == 1, "the abandoned calls never ran")
            }
        }

        @Test func onAnEventLoopItThrowsInsteadOfDeadlocking() throws {
            try Self.withTable { database in
                let outcome = try MultiThreadedEventLoopGroup.singleton.next().submit { () -> String in
                    do {
                        return "\(try database.runTransaction([Self.statement("SELECT 1")]))"
                    } catch {
                        return "\(error)"
                    }
                }.wait()
                #expect(outcome.contains("event-loop thread"), "\(outcome)")
            }
        }

        /// COMMIT sent, answer lost (a deferred trigger makes COMMIT sleep; the backend is ended
        /// meanwhile): `.commitOutcomeUnknown`, never sent again.
        @Test func aCommitWhoseAnswerIsLostHasAnUnknownOutcome() throws {
            try Self.withTable(poolSize: 1) { database in
                try database.withConnection { session in
                    try session.execute(
                        "CREATE FUNCTION slow_commit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(5); RETURN NULL; END $$"
                    )
                    try session.execute(
                        "CREATE CONSTRAINT TRIGGER slow AFTER INSERT ON t DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION slow_commit()"
                    )
                }
                // A pool of one: the transaction runs on this backend.
                let pid = try database.withConnection { session in
                    var pid: Int64 = 0
                    try session.query("SELECT pg_backend_pid()") { pid = $0.int64(0) ?? 0 }
                    return pid
                }
                let killer = Thread {
                    let url = database.url
                    guard let other = try? PostgreSQLConnectionPool(url: url, poolSize: 1) else { return }
                    defer { other.close() }
                    let committing =
                        (try? eventually {
                            var found = false
                            try other.withConnection { session in
                                try session.query(
                                    "SELECT 1 FROM pg_stat_activity WHERE pid = $1::int4 AND query = 'COMMIT' AND wait_event = 'PgSleep'",
                                    [.integer(pid)]
                                ) { _ in found = true }
                            }
                            return found
                        }) ?? false
                    if committing { try? PostgreSQLConnectionPoolTests.terminate(pid, using: other) }
                }
                killer.start()
                var outcome: PostgreSQLServerError?
                do {
                    _ = try database.runTransaction([Self.statement("INSERT INTO t VALUES (9, 'nine')")])
                } catch {
                    outcome = error as? PostgreSQLServerError
                }
                #expect(outcome?.kind == .commitOutcomeUnknown, "\(String(describing: outcome))")
                #expect(outcome?.message.contains("may or may not") == true)
                // (The pool's one connection is the one ended: a new pool reads.)
                let reader = try PostgreSQLConnectionPool(url: database.url, poolSize: 1)
                defer { reader.close() }
                #expect(try Self.rows(reader) == ["1: one"])
            }
        }
    }
#endif
