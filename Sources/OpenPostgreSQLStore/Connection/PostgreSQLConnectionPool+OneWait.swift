#if PostgreSQL
    import Dispatch
    import Logging
    import Metrics
    import OpenSQLStore
    import OpenStoreCore
    import PostgresNIO
    import Synchronization

    // MARK: - One wait per call
    //
    // `withConnection` wakes the calling thread three times for one statement: when the lease is
    // granted, when the statement is answered, when the connection is back in the pool. The calls
    // here run all three in one task on an event loop, the calling thread waiting once.

    extension PostgreSQLConnectionPool {
        /// Runs one statement on a connection leased for it alone, the calling thread waiting once
        /// for the lease, the statement and the connection's return; the number of rows it
        /// inserted, updated, deleted or returned. Outside a transaction, as
        /// `PostgreSQLConnection.execute` is in `withConnection`.
        ///
        /// - Throws: `PostgreSQLServerError` as `PostgreSQLConnection.execute` does, and
        ///   `.connection` when no connection was free within `leaseTimeout`.
        @discardableResult
        package func execute(_ sql: String, _ arguments: [StoreValue] = []) throws -> Int {
            try alone(sql, arguments) { $0.query($1, logger: $2).map { $0.metadata.rows ?? 0 } }
        }

        /// Runs a query on a connection leased for it alone, the calling thread waiting once, and
        /// calls `row` for each result row as `PostgreSQLConnection.query` does (on the event loop,
        /// while the calling thread waits).
        ///
        /// - Throws: `PostgreSQLServerError` as `PostgreSQLConnection.query` does, and
        ///   `.connection` when no connection was free within `leaseTimeout`; what `row` throws.
        package func query(_ sql: String, _ arguments: [StoreValue] = [], row: (PostgreSQLResultRow) throws -> Void) throws {
            try RowHandler.handing(row) { handler in
                _ = try alone(sql, arguments) { connection, query, logger in
                    connection.query(query, logger: logger) { try handler.handle($0) }
                }
            }
        }

        private func alone<T: Sendable>(
            _ sql: String, _ arguments: [StoreValue],
            _ start: @escaping @Sendable (PostgresConnection, PostgresQuery, Logger) -> EventLoopFuture<T>
        ) throws -> T {
            let statement = try self.statement(sql, arguments)
            defer { statement.finished() }
            let query = statement.query
            do {
                return try withLeasedConnection { self.answer(query, on: $0, sql: sql, start: start) }
            } catch {
                throw PostgreSQLServerError.from(error, server: server, sql: sql)
            }
        }

        /// Leases a connection in a task on an event loop, runs `use` with it there and gives it
        /// back once the future `use` returns has completed; the calling thread waits once, for
        /// all of it. Counted in the pool's meters as `withConnection` is.
        ///
        /// - Throws: what the future fails with; `.connection` when the pool is closed or no
        ///   connection was leased within `leaseTimeout` (the task then gives the one it gets back unused); `.other` on
        ///   an event-loop thread.
        func withLeasedConnection<T: Sendable>(
            _ use: @escaping @Sendable (PostgresConnection) -> EventLoopFuture<T>
        ) throws -> T {
            guard !isClosed else {
                throw PostgreSQLServerError(.connection, message: "PostgreSQL at \(server): the database was closed")
            }
            guard !PostgreSQLEventLoops.onEventLoop else { throw PostgreSQLServerError.calledOnEventLoop(server: server) }
            let waiter = LeasedWaiter<T>(waiting: waiting)
            let task = Task(executorPreference: PostgreSQLEventLoops.executor()) { [self] in
                do {
                    let value = try await client.withConnection { connection -> T? in
                        guard waiter.leased() else { return nil }
                        inUse.increment()
                        defer { inUse.decrement() }
                        // On the connection's own event loop: its answers complete there, so the
                        // task waits where they arrive (no hop back, and never resumed from
                        // another thread before it has suspended).
                        return try await withTaskExecutorPreference(PostgreSQLEventLoops.executor(for: connection.eventLoop)) {
                            try await use(connection).get()
                        }
                    }
                    if let value { waiter.finish(.success(value)) }
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
            return try result.get()
        }
    }

    /// The calling thread of `withLeasedConnection`, waiting for the task that leases a connection and uses it;
    /// counted in the pool's `waiting` meter until a connection is leased or none will be.
    private final class LeasedWaiter<T: Sendable>: Sendable {
        private struct State {
            var leased = false
            var abandoned = false
            var result: Result<T, any Error>?
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

        func finish(_ result: Result<T, any Error>) {
            state.withLock { state in
                if !state.leased && !state.abandoned { waiting.decrement() }
                state.result = result
            }
            done.signal()
        }

        /// The task's result; nil when no connection was leased within `leaseTimeout` (the task
        /// then gives back whatever connection it gets without using it).
        func wait(leaseTimeout: Duration) -> Result<T, any Error>? {
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
#endif
