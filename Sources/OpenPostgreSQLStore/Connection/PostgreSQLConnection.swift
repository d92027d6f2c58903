#if PostgreSQL
    import Foundation
    import Logging
    import OpenSQLStore
    import OpenStoreCore
    import PostgresNIO

    /// One pooled connection, lent to the body of `PostgreSQLConnectionPool.withConnection` or
    /// `withTransaction`: valid only inside that body, on the thread that runs it.
    ///
    /// ```swift
    /// try database.withConnection { session in
    ///     try session.execute("INSERT INTO ZITEM (Z_PK, ZNAME) VALUES ($1, $2)", [.integer(1), .string("Pen")])
    ///     try session.query("SELECT ZNAME FROM ZITEM WHERE Z_PK = $1", [.integer(1)]) { row in
    ///         print(row.string(0) ?? "NULL")
    ///     }
    /// }
    /// ```
    ///
    /// Each call sends one statement (extended protocol: parse, bind, execute) and blocks the calling
    /// thread until the server's answer is in; values are bound parameters (`$1, $2, …`), never text
    /// in the SQL. How each `StoreValue` is bound: see `PostgresBindings.init(storeValues:sql:server:)`.
    package struct PostgreSQLConnection {
        let connection: PostgresConnection
        let database: PostgreSQLConnectionPool

        /// Runs one statement with `$1, $2, …` bound to `arguments` and returns the number of rows
        /// it inserted, updated, deleted or returned (0 for statements that report none).
        ///
        /// - Throws: `PostgreSQLServerError` naming the server and the SQL.
        @discardableResult
        package func execute(_ sql: String, _ arguments: [StoreValue] = []) throws -> Int {
            let result = try send(sql, arguments) { $0.query($1, logger: $2) }
            return result.metadata.rows ?? 0
        }

        /// Runs a query and calls `row` for each result row, in order, as the rows arrive: on the
        /// connection's event-loop thread, while the calling thread waits for the query to end
        /// (so `row` makes no store calls of its own: they would throw). The row (and the bytes it
        /// reads) is valid only during the call.
        ///
        /// - Throws: `PostgreSQLServerError` naming the server and the SQL; what `row` throws.
        package func query(_ sql: String, _ arguments: [StoreValue] = [], row: (PostgreSQLResultRow) throws -> Void) throws {
            try RowHandler.handing(row) { handler in
                _ = try send(sql, arguments) { connection, query, logger in
                    connection.query(query, logger: logger) { try handler.handle($0) }
                }
            }
        }

        /// Sends a notification: `SELECT pg_notify($1, $2)`. Inside a transaction it is delivered
        /// when the transaction commits (and not at all if it rolls back).
        package func notify(channel: String, payload: String) throws {
            try execute("SELECT pg_notify($1, $2)", [.string(channel), .string(payload)])
        }

        /// `COMMIT`, with a lost answer reported as `.commitOutcomeUnknown`.
        func commit() throws {
            if connection.isClosed { throw PostgreSQLServerError.lostBeforeCommit(server: database.server) }
            do {
                try execute("COMMIT")
            } catch let error as PostgreSQLServerError where error.kind == .connection {
                throw PostgreSQLServerError.lostWhileCommitting(server: database.server, cause: error)
            }
        }

        /// Sends one statement (`start` runs it on the connection) and waits for its end (see
        /// `PostgreSQLConnectionPool.statement(_:_:)` and `answer(_:on:sql:start:)`).
        private func send<T: Sendable>(
            _ sql: String, _ arguments: [StoreValue],
            _ start: (PostgresConnection, PostgresQuery, Logger) -> EventLoopFuture<T>
        ) throws -> T {
            let statement = try database.statement(sql, arguments)
            defer { statement.finished() }
            guard !connection.isClosed else {
                throw PostgreSQLServerError(
                    .connection, message: "PostgreSQL at \(database.server): the connection was lost (SQL: \(sql))")
            }
            do {
                return try database.answer(statement.query, on: connection, sql: sql, start: start).wait()
            } catch {
                throw PostgreSQLServerError.from(error, server: database.server, sql: sql)
            }
        }
    }

    /// Hands the rows of one query to the caller's closure as they arrive, on the event loop
    /// while the calling thread waits (so nothing here runs on two threads at once).
    final class RowHandler: @unchecked Sendable {
        // @unchecked Sendable: used by one thread at a time: the event loop while the caller
        // waits for the query, then the caller.

        // Touched for every row, by one thread at a time: no dynamic exclusivity checks.
        @exclusivity(unchecked) var body: ((PostgreSQLResultRow) throws -> Void)?
        @exclusivity(unchecked) private var types: [PostgresDataType] = []
        @exclusivity(unchecked) private var formats: [PostgresFormat] = []
        @exclusivity(unchecked) private var described = false
        /// What `body` threw.
        private(set) var error: (any Error)?

        private init(_ body: @escaping (PostgreSQLResultRow) throws -> Void) {
            self.body = body
        }

        /// Runs `send` with a handler calling `row`, which goes with this call whatever
        /// postgres-nio still holds; what `row` threw comes out rather than postgres-nio's error.
        static func handing(_ row: (PostgreSQLResultRow) throws -> Void, _ send: (RowHandler) throws -> Void) throws {
            try withoutActuallyEscaping(row) { row in
                let handler = RowHandler(row)
                defer { handler.body = nil }
                do {
                    try send(handler)
                } catch {
                    if let thrown = handler.error { throw thrown }
                    throw error
                }
            }
        }

        func handle(_ row: PostgresRow) throws {
            // The columns' types and formats once per query; the cells by index (iterating a
            // row makes a `PostgresCell` per column, with a copy of its description).
            if !described {
                for cell in row {
                    types.append(cell.dataType)
                    formats.append(cell.format)
                }
                described = true
            }
            do {
                try body?(PostgreSQLResultRow(types: types, formats: formats, row: PostgresRandomAccessRow(row)))
            } catch {
                self.error = error
                throw error
            }
        }
    }

    /// A statement about to be sent: its query with values bound, traced and logged.
    struct PreparedStatement {
        let query: PostgresQuery
        let trace: SQLTrace
        let started: ContinuousClock.Instant?

        /// Traces the statement's time (at `SQLTrace` level 2).
        func finished() {
            if let started { trace.finished(rows: nil, seconds: started.secondsSince) }
        }
    }

    extension PostgreSQLConnectionPool {
        /// `sql` with `arguments` bound, recorded in the operation's `StoreStatementLog` and traced
        /// (`SQLTrace`: the statement, its bound values; its time when `finished()`).
        ///
        /// - Throws: `.other` on an event-loop thread, or for a value PostgreSQL can't hold.
        func statement(_ sql: String, _ arguments: [StoreValue]) throws(PostgreSQLServerError) -> PreparedStatement {
            guard !PostgreSQLEventLoops.onEventLoop else {
                throw PostgreSQLServerError.calledOnEventLoop(server: server, sql: sql)
            }
            let bindings = try PostgresBindings(storeValues: arguments, sql: sql, server: server)
            StoreStatementLog.current?.record(sql)
            let trace = self.trace ?? SQLTrace.shared
            return PreparedStatement(
                query: PostgresQuery(unsafeSQL: sql, binds: bindings), trace: trace, started: trace.starting(sql, arguments))
        }

        /// Runs `start` on `connection` and gives its answer, or `.connection` when the connection
        /// closes first: postgres-nio drops a query written to a connection that has just closed
        /// without ever failing it. (A query the server answered with an error before closing has
        /// failed with that error by then.)
        func answer<T: Sendable>(
            _ query: PostgresQuery, on connection: PostgresConnection, sql: String,
            start: (PostgresConnection, PostgresQuery, Logger) -> EventLoopFuture<T>
        ) -> EventLoopFuture<T> {
            let answer = connection.eventLoop.makePromise(of: T.self)
            let lost = PostgreSQLServerError(
                .connection, message: "PostgreSQL at \(server): the connection was lost (SQL: \(sql))")
            let watcher = closeWatcher(for: connection)
            watcher.begin { answer.fail(lost) }
            start(connection, query, logger).cascade(to: answer)
            answer.futureResult.whenComplete { _ in watcher.end() }
            return answer.futureResult
        }
    }

    extension SQLTrace {
        /// Traces a statement about to be sent (and at level 2 its values); the instant its time
        /// counts from at level 2, else nil.
        func starting(_ sql: String, _ arguments: [StoreValue]) -> ContinuousClock.Instant? {
            guard level > 0 else { return nil }
            statement(sql)
            guard level >= 2 else { return nil }
            bindings(arguments)
            return .now
        }
    }

    extension ContinuousClock.Instant {
        /// The seconds from this instant to now.
        var secondsSince: Double {
            let elapsed = ContinuousClock.now - self
            return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        }
    }
#endif
