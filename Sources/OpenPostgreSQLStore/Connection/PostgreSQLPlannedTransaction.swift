#if PostgreSQL
    import Dispatch
    import OpenSQLStore
    import OpenStoreCore
    import Metrics
    import PostgresNIO
    import Synchronization

    /// A statement of a transaction planned before it runs, and the answer it must have for the
    /// transaction to go on.
    struct PlannedStatement {
        enum Expectation {
            /// Any answer.
            case any
            /// An `UPDATE` or `DELETE` that changes this many rows.
            case changes(Int)
            /// A query that finds no row.
            case returnsNoRows
        }

        /// PostgreSQL's text (`$1, $2, …`, quoted names).
        let sql: String
        let arguments: [StoreValue]
        let expectation: Expectation
    }

    extension PostgreSQLConnectionPool {
        /// Runs `statements` in one transaction (`BEGIN`, the statements, `COMMIT`) on a pooled
        /// connection, one after the other on the connection's event loop, while the calling thread
        /// waits once for the end: for the connection, the statements and the connection's return
        /// to the pool (`withTransaction` wakes it for each). Each statement is sent when the one
        /// before has met its expectation.
        ///
        /// - Returns: true when committed; false when a statement's answer was not the one expected:
        ///   the transaction was rolled back.
        /// - Throws: `PostgreSQLServerError`: the statement that failed (the transaction is then
        ///   rolled back); `.commitOutcomeUnknown` when the connection was lost after `COMMIT` was
        ///   sent, `.connection` when it was lost before, or no connection was free within
        ///   `leaseTimeout`; `.other` on an event-loop thread.
        func runTransaction(_ statements: [PlannedStatement], isolation: PostgreSQLIsolation = .readCommitted) throws -> Bool {
            let begin = isolation.beginStatement
            var steps = [
                TransactionRun.Step(sql: begin, arguments: [], query: PostgresQuery(unsafeSQL: begin), expectation: .any)
            ]
            steps.reserveCapacity(statements.count + 1)
            let log = StoreStatementLog.current
            log?.record(begin)
            for statement in statements {
                log?.record(statement.sql)
                let bindings = try PostgresBindings(storeValues: statement.arguments, sql: statement.sql, server: server)
                steps.append(
                    TransactionRun.Step(
                        sql: statement.sql, arguments: statement.arguments,
                        query: PostgresQuery(unsafeSQL: statement.sql, binds: bindings), expectation: statement.expectation))
            }
            log?.record("COMMIT")
            let planned = steps
            do {
                return try withLeasedConnection { connection in
                    let run = TransactionRun(connection: connection, pool: self, steps: planned)
                    let watcher = self.closeWatcher(for: connection)
                    watcher.begin { run.connectionLost() }
                    run.outcome.futureResult.whenComplete { _ in watcher.end() }
                    run.start()
                    return run.outcome.futureResult
                }
            } catch {
                throw PostgreSQLServerError.from(error, server: server, sql: nil)
            }
        }
    }

    /// One planned transaction on its way through a connection: each statement is sent from the
    /// answer of the one before it.
    private final class TransactionRun: @unchecked Sendable {
        // @unchecked Sendable: `next`, `committing` and `finished` are touched only on the
        // connection's event loop (`start` and `connectionLost` go there first); the rest is set
        // in `init`.

        struct Step {
            let sql: String
            let arguments: [StoreValue]
            let query: PostgresQuery
            let expectation: PlannedStatement.Expectation
        }

        let outcome: EventLoopPromise<Bool>
        private let connection: PostgresConnection
        private let database: PostgreSQLConnectionPool
        private let steps: [Step]
        private let trace: SQLTrace
        private var next = 0
        private var committing = false
        private var finished = false

        init(connection: PostgresConnection, pool: PostgreSQLConnectionPool, steps: [Step]) {
            self.connection = connection
            database = pool
            self.steps = steps
            trace = pool.trace ?? SQLTrace.shared
            outcome = connection.eventLoop.makePromise(of: Bool.self)
        }

        func start() {
            connection.eventLoop.execute { self.sendNext() }
        }

        /// The connection closed: the statement running never gets its answer.
        func connectionLost() {
            connection.eventLoop.execute {
                let server = self.database.server
                self.finish(
                    .failure(
                        self.committing
                            ? PostgreSQLServerError.lostWhileCommitting(server: server, cause: nil)
                            : PostgreSQLServerError(.connection, message: "PostgreSQL at \(server): the connection was lost")))
            }
        }

        private func sendNext() {
            guard !finished else { return }
            let server = database.server
            let step: Step
            if next < steps.count {
                step = steps[next]
            } else {
                guard !connection.isClosed else {
                    return finish(.failure(PostgreSQLServerError.lostBeforeCommit(server: server)))
                }
                committing = true
                step = Step(sql: "COMMIT", arguments: [], query: "COMMIT", expectation: .any)
            }
            let started = trace.starting(step.sql, step.arguments)
            connection.query(step.query, logger: database.logger).whenComplete { result in
                if let started { self.trace.finished(rows: nil, seconds: started.secondsSince) }
                self.answered(step, result)
            }
        }

        private func answered(_ step: Step, _ result: Result<PostgresQueryResult, any Error>) {
            guard !finished else { return }
            let server = database.server
            switch result {
            case .success(let answer):
                if committing { return finish(.success(true)) }
                let rows = answer.metadata.rows ?? answer.rows.count
                let met =
                    switch step.expectation {
                    case .any: true
                    case .changes(let expected): rows == expected
                    case .returnsNoRows: rows == 0
                    }
                guard met else { return rollBack(then: .success(false)) }
                next += 1
                sendNext()
            case .failure(let error):
                let failure = PostgreSQLServerError.from(error, server: server, sql: step.sql)
                guard committing else { return rollBack(then: .failure(failure)) }
                finish(
                    .failure(
                        failure.kind == .connection
                            ? PostgreSQLServerError.lostWhileCommitting(server: server, cause: failure) : failure))
            }
        }

        /// `ROLLBACK` (unless the connection is gone: the server has rolled back), then the outcome.
        private func rollBack(then result: Result<Bool, any Error>) {
            guard !connection.isClosed else { return finish(result) }
            connection.query("ROLLBACK", logger: database.logger).whenComplete { _ in self.finish(result) }
        }

        private func finish(_ result: Result<Bool, any Error>) {
            guard !finished else { return }
            finished = true
            outcome.completeWith(result)
        }
    }
#endif
