#if PostgreSQL
    import Dispatch
    import Foundation
    import OpenStoreCore
    import class NIOPosix.MultiThreadedEventLoopGroup
    import OpenSQLStore
    import Synchronization
    import TestSupport
    import Testing

    @testable import OpenPostgreSQLStore

    /// The connection layer against a real server: errors, transactions, retries, lost connections,
    /// what runs where, LISTEN/NOTIFY.
    @Suite(.postgreSQLServer)
    struct PostgreSQLConnectionPoolTests {
        static func count(_ session: PostgreSQLConnection, _ table: String) throws -> Int64? {
            var count: Int64?
            try session.query("SELECT count(*) FROM \(table)") { count = $0.int64(0) }
            return count
        }

        @Test func theSchemaIsCreatedAndOnTheSearchPath() throws {
            try PostgresTestServer.withDatabase { database in
                try database.withConnection { session in
                    var schema: String?
                    try session.query("SELECT current_schema()") { schema = $0.string(0) }
                    #expect(schema == database.url.schema)
                    try session.execute("CREATE TABLE here (x int8)")
                    var found: Int64?
                    try session.query(
                        "SELECT count(*) FROM information_schema.tables WHERE table_schema = $1 AND table_name = 'here'",
                        [.string(database.url.schema)]
                    ) { found = $0.int64(0) }
                    #expect(found == 1)
                }
            }
        }

        /// A list of keys (a batch's window, the rows of a batch delete) is found through the key
        /// column's index: compared as `numeric`, every row's key was converted and the table
        /// scanned, 110 ms a window of a 10^6-row table.
        @Test func keyListsUseTheKeysIndex() throws {
            try PostgresTestServer.withDatabase { database in
                try database.withConnection { session in
                    try session.execute("CREATE TABLE k (z_pk int8 PRIMARY KEY, v int8)")
                    try session.execute("INSERT INTO k SELECT g, g * 2 FROM generate_series(1::int8, 50000) AS g")
                    try session.execute("ANALYZE k")
                    let condition = SQLDialect.postgreSQL.inKeyList("z_pk", "$1")
                    var values: [Int64] = []
                    try session.query("SELECT v FROM k WHERE \(condition) ORDER BY z_pk", [.string("[7,40000,12]")]) {
                        values.append($0.int64(0) ?? -1)
                    }
                    #expect(values == [14, 24, 80_000])
                    var plan: [String] = []
                    try session.query("EXPLAIN SELECT v FROM k WHERE \(condition)", [.string("[7,40000,12]")]) {
                        plan.append($0.string(0) ?? "")
                    }
                    #expect(plan.contains { $0.contains("Index Scan") } && !plan.contains { $0.contains("Seq Scan on k") })
                }
            }
        }

        @Test func statementErrorsHaveKindStateServerAndSQL() throws {
            try PostgresTestServer.withDatabase { database in
                try database.withConnection { session in
                    func failure(_ sql: String, _ arguments: [StoreValue] = []) -> PostgreSQLServerError? {
                        do {
                            try session.execute(sql, arguments)
                            return nil
                        } catch {
                            return error as? PostgreSQLServerError
                        }
                    }
                    let syntax = failure("SELEC 1")
                    #expect(syntax?.kind == .syntax)
                    #expect(syntax?.sqlState == "42601")
                    #expect(syntax?.message.contains("SELEC 1") == true)
                    #expect(syntax?.message.contains(database.server) == true)
                    #expect(failure("SELECT * FROM missing_table")?.kind == .undefinedTable)
                    try session.execute("CREATE TABLE u (x int8 PRIMARY KEY)")
                    try session.execute("INSERT INTO u VALUES ($1)", [.integer(1)])
                    let duplicate = failure("INSERT INTO u VALUES ($1)", [.integer(1)])
                    #expect(duplicate?.kind == .uniqueViolation)
                    #expect(duplicate?.sqlState == "23505")
                    #expect(failure("SELECT 1/0")?.kind == .other)
                    // Still usable after errors.
                    #expect(try session.execute("INSERT INTO u VALUES ($1), ($2)", [.integer(2), .integer(3)]) == 2)
                    #expect(try session.execute("UPDATE u SET x = x + 10") == 3)
                    #expect(try session.execute("SELECT * FROM u") == 3)
                }
            }
        }

        struct Stop: Error {}

        @Test func transactionsCommitOrRollBack() throws {
            try PostgresTestServer.withDatabase { database in
                try database.withConnection { try $0.execute("CREATE TABLE t (x int8)") }
                let answer = try database.withTransaction { session in
                    try session.execute("INSERT INTO t VALUES (1)")
                }
                #expect(answer == 1)
                #expect(throws: Stop.self) {
                    try database.withTransaction(isolation: .serializable) { session in
                        try session.execute("INSERT INTO t VALUES (2)")
                        throw Stop()
                    }
                }
                // A failed statement inside: the transaction rolls back, the error comes out.
                #expect(throws: PostgreSQLServerError.self) {
                    try database.withTransaction(isolation: .repeatableRead) { session in
                        try session.execute("INSERT INTO t VALUES (3)")
                        try session.execute("INSERT INTO t VALUES ('not a number')")
                    }
                }
                try database.withConnection { session in
                    #expect(try Self.count(session, "t") == 1)
                    // No transaction left open on the pooled connection.
                    var inTransaction: Int64?
                    try session.query(
                        "SELECT count(*) FROM pg_stat_activity WHERE pid = pg_backend_pid() AND state LIKE 'idle in%'"
                    ) {
                        inTransaction = $0.int64(0)
                    }
                    #expect(inTransaction == 0)
                }
            }
        }

        /// A serialization failure (40001) provoked for real by a concurrent update, then retried.
        @Test func serializationFailuresAreRetried() throws {
            try PostgresTestServer.withDatabase { database in
                try database.withConnection { session in
                    try session.execute("CREATE TABLE counter (id int8 PRIMARY KEY, v int8)")
                    try session.execute("INSERT INTO counter VALUES (1, 0)")
                }
                var runs = 0
                try database.withRetries {
                    runs += 1
                    try database.withTransaction(isolation: .repeatableRead) { session in
                        var value: Int64 = 0
                        try session.query("SELECT v FROM counter WHERE id = 1") { value = $0.int64(0) ?? 0 }
                        if runs == 1 {
                            // Another transaction (another pooled connection) changes the row in between.
                            _ = try database.withTransaction { other in
                                try other.execute("UPDATE counter SET v = v + 1 WHERE id = 1")
                            }
                        }
                        try session.execute("UPDATE counter SET v = $1 WHERE id = 1", [.integer(value + 1)])
                    }
                }
                #expect(runs == 2)
                try database.withConnection { session in
                    var value: Int64?
                    try session.query("SELECT v FROM counter") { value = $0.int64(0) }
                    #expect(value == 2)
                }
                // Without retries the failure is its kind.
                #expect {
                    try database.withRetries(attempts: 1) {
                        try database.withTransaction(isolation: .serializable) { session in
                            try session.query("SELECT v FROM counter WHERE id = 1") { _ in }
                            _ = try database.withTransaction { other in
                                try other.execute("UPDATE counter SET v = v + 1 WHERE id = 1")
                            }
                            try session.execute("UPDATE counter SET v = 0 WHERE id = 1")
                        }
                    }
                } throws: { ($0 as? PostgreSQLServerError)?.kind == .serializationFailure }
                // Other errors are not retried.
                var otherRuns = 0
                #expect(throws: PostgreSQLServerError.self) {
                    try database.withRetries {
                        otherRuns += 1
                        try database.withTransaction { try $0.execute("SELEC") }
                    }
                }
                #expect(otherRuns == 1)
            }
        }

        static func terminate(_ pid: Int64, using database: PostgreSQLConnectionPool) throws {
            try database.withConnection { session in
                var done: Int64?
                try session.query("SELECT pg_terminate_backend($1::int4, 10000)::int4", [.integer(pid)]) { done = $0.int64(0) }
                #expect(done == 1)
            }
        }

        /// The server ends a session's backend: the call that used it is a `.connection` error, the
        /// pool replaces the connection and the next call works.
        @Test func aLostConnectionIsAnErrorAndTheNextCallReconnects() throws {
            try PostgresTestServer.withDatabase(poolSize: 2) { database in
                var pid: Int64 = 0
                try database.withConnection { session in
                    try session.query("SELECT pg_backend_pid()") { pid = $0.int64(0) ?? 0 }
                    try Self.terminate(pid, using: database)
                    #expect {
                        try session.execute("SELECT 1")
                    } throws: { ($0 as? PostgreSQLServerError)?.kind == .connection }
                }
                var fresh: [Int64] = []
                for _ in 0..<4 {
                    try database.withConnection { session in
                        try session.query("SELECT pg_backend_pid()") { fresh.append($0.int64(0) ?? 0) }
                    }
                }
                #expect(fresh.count == 4)
                #expect(!fresh.contains(pid))
            }
        }

        /// COMMIT sent, answer lost: a deferred constraint trigger makes COMMIT take seconds, and
        /// another connection ends the backend while it runs. The transaction is reported as
        /// `.commitOutcomeUnknown` (here the server did roll it back, which the client can't know).
        @Test func aCommitWhoseAnswerIsLostHasAnUnknownOutcome() throws {
            try PostgresTestServer.withDatabase(poolSize: 3) { database in
                try database.withConnection { session in
                    try session.execute("CREATE TABLE t (x int8)")
                    try session.execute(
                        "CREATE FUNCTION slow_commit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(5); RETURN NULL; END $$"
                    )
                    try session.execute(
                        "CREATE CONSTRAINT TRIGGER slow AFTER INSERT ON t DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION slow_commit()"
                    )
                }
                let pid = Mutex<Int64>(0)
                let killed = DispatchSemaphore(value: 0)
                let killer = Thread {
                    defer { killed.signal() }
                    let found =
                        (try? eventually {
                            let target = pid.withLock { $0 }
                            guard target != 0 else { return false }
                            var committing = false
                            try database.withConnection { session in
                                try session.query(
                                    "SELECT 1 FROM pg_stat_activity WHERE pid = $1::int4 AND query = 'COMMIT' AND wait_event = 'PgSleep'",
                                    [.integer(target)]
                                ) { _ in committing = true }
                            }
                            return committing
                        }) ?? false
                    if found { try? Self.terminate(pid.withLock { $0 }, using: database) }
                }
                var outcome: PostgreSQLServerError?
                do {
                    try database.withTransaction { session in
                        try session.query("SELECT pg_backend_pid()") { row in pid.withLock { $0 = row.int64(0) ?? 0 } }
                        try session.execute("INSERT INTO t VALUES (1)")
                        killer.start()
                    }
                } catch {
                    outcome = error as? PostgreSQLServerError
                }
                killed.wait()
                #expect(outcome?.kind == .commitOutcomeUnknown, "\(String(describing: outcome))")
                #expect(outcome?.message.contains("may or may not") == true)
                let left = try database.withConnection { session in try Self.count(session, "t") }
                #expect(left == 0)
            }
        }

        @Test func callsOnAnEventLoopThrowInsteadOfDeadlocking() throws {
            try PostgresTestServer.withDatabase { database in
                let outcome = try MultiThreadedEventLoopGroup.singleton.next().submit { () -> String in
                    do {
                        try database.withConnection { try $0.execute("SELECT 1") }
                        return "ran"
                    } catch {
                        return "\(error)"
                    }
                }.wait()
                #expect(outcome.contains("event-loop thread"), "\(outcome)")
            }
        }

        @Test func listenDeliversNotificationsUntilCancelled() throws {
            try PostgresTestServer.withDatabase { database in
                let received = Mutex<[String]>([])
                let listener = try database.listen(channel: "changes") { payload in
                    received.withLock { $0.append(payload) }
                }
                try database.withConnection { try $0.notify(channel: "changes", payload: "one") }
                try database.withTransaction { session in
                    try session.notify(channel: "changes", payload: "two ✓")
                    try session.notify(channel: "other", payload: "not for us")
                }
                #expect(throws: Stop.self) {
                    try database.withTransaction { session in
                        try session.notify(channel: "changes", payload: "rolled back")
                        throw Stop()
                    }
                }
                #expect(eventually { received.withLock { $0.count } >= 2 })
                #expect(received.withLock { $0 } == ["one", "two ✓"])
                listener.cancel()
                listener.cancel()
                try database.withConnection { try $0.notify(channel: "changes", payload: "late") }
                Thread.sleep(forTimeInterval: 0.3)
                #expect(received.withLock { $0 } == ["one", "two ✓"])
            }
        }

        @Test func aClosedDatabaseRefusesCalls() throws {
            let url = try PostgresTestServer.freshDatabaseURL()
            let database = try PostgreSQLConnectionPool(url: url, poolSize: 1)
            try database.withConnection { try $0.execute("DROP SCHEMA \"\(url.schema)\"") }
            database.close()
            database.close()
            #expect {
                try database.withConnection { try $0.execute("SELECT 1") }
            } throws: { ($0 as? PostgreSQLServerError)?.kind == .connection }
        }
    }

#endif
