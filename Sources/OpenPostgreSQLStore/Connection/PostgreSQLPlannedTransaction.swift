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
            /// An `UPDATE` or `DELETE` that changes at least one row.
            case changesRows
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
            guard !isClosed else {
                throw PostgreSQLServerError(.connection, message: "PostgreSQL at \(server): the database was closed")
            }
            guard !PostgreSQLEventLoops.onEventLoop else { throw PostgreSQLServerError.calledOnEventLoop(server: server) }
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

            let waiter = LeasedWaiter(waiting: waiting)
            let task = Task(executorPreference: PostgreSQLEventLoops.executor()) { [self, steps] in
                do {
                    let committed = try await client.withConnection { connection in
                        guard waiter.leased() else { return false }
                        inUse.increment()
                        defer { inUse.decrement() }
                        let run = TransactionRun(connection: connection, pool: self, steps: steps)
                        let watcher = closeWatcher(for: connection)
                        watcher.begin { run.connectionLost() }
                        defer { watcher.end() }
                        run.start()
                        return try await run.outcome.futureResult.get()
                    }
                    waiter.finish(.success(committed))
                } catch {
                    waiter.finish(.failure(error))
                }
            }
            guard let result = waiter.wait(leaseTimeout: leaseTimeout) else {
                task.cancel()
                throw PostgreSQLServerError(
                    .connection,
                    message: "PostgreSQL at \(server): no connection became free within \(leaseTimeout) (a pool of \(poolSize))")
            }
            do {
                return try result.get()
            } catch {
                throw PostgreSQLServerError.from(error, server: server, sql: nil)
            }
        }
    }

    /// The calling thread of `runTransaction`, waiting for the task that runs the transaction;
    /// counted in the pool's `waiting` meter until a connection is leased or none will be.
    private final class LeasedWaiter: Sendable {
        private struct State {
            var leased = false
            var abandoned = false
            var result: Result<Bool, any Error>?
        }

        private let state = Mutex(State())
        private let done = DispatchSemaphore(value: 0)
        private let waiting: Meter

        init(waiting: Meter) {
            self.waiting = waiting
            waiting.increment()
        }

        /// The task has a connection: whether to use it (false when the caller stopped waiting).
        func leased() -> Bool {
            state.withLock { state in
                if !state.abandoned {
                    state.leased = true
                    waiting.decrement()
                }
                return state.leased
            }
        }

        func finish(_ result: Result<Bool, any Error>) {
            state.withLock { state in
                if !state.leased && !state.abandoned { waiting.decrement() }
                state.result = result
            }
            done.signal()
        }

        /// The task's result; nil when no connection was leased within `leaseTimeout` (the task
        /// then gives back whatever connection it gets without using it).
        func wait(leaseTimeout: Duration) -> Result<Bool, any Error>? {
            let (seconds, attoseconds) = leaseTimeout.components
            let nanoseconds = Int(min(seconds, 1_000_000)) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
            if done.wait(timeout: .now() + .nanoseconds(nanoseconds)) == .timedOut {
                let gaveUp = state.withLock { state in
                    if !state.leased && state.result == nil {
                        state.abandoned = true
                        waiting.decrement()
                    }
                    return state.abandoned
                }
                if gaveUp { return nil }
                done.wait()
            }
            return state.withLock { $0.result }
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
            var started: ContinuousClock.Instant?
            if trace.level > 0 {
                trace.statement(step.sql)
                if trace.level >= 2 {
                    trace.bindings(step.arguments)
                    started = .now
                }
            }
            connection.query(step.query, logger: database.logger).whenComplete { [started] result in
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
                    case .changesRows: rows > 0
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
