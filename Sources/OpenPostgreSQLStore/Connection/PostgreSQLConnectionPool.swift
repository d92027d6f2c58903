#if PostgreSQL
    import Dispatch
    import Foundation
    import Logging
    import Metrics
    import OpenSQLStore
    import OpenStoreCore
    import PostgresNIO
    import Synchronization

    /// A pool of connections to one PostgreSQL database and schema, used synchronously.
    ///
    /// ```swift
    /// let database = try PostgreSQLConnectionPool(url: PostgreSQLStoreURL(URL(string: "postgres://app@db/shop")!))
    /// let count = try database.withTransaction { session in
    ///     try session.execute("UPDATE ZITEM SET ZPRICE = $1 WHERE Z_PK = $2", [.double(9.5), .integer(1)])
    /// }
    /// database.close()
    /// ```
    ///
    /// **What runs where.** Core Data's API is synchronous: each call here blocks the calling thread
    /// until the server has answered. The I/O runs on SwiftNIO's event-loop threads (the shared
    /// `MultiThreadedEventLoopGroup`); the async parts (leasing a connection, the pool's background
    /// work, listening) run as tasks with a task-executor preference for an event loop, so nothing
    /// waits for Swift concurrency's cooperative thread pool: callers blocked on cooperative threads
    /// (synchronous fetches called from async code) can't starve the work they wait for. A call made
    /// on an event-loop thread throws (`.other`) instead of deadlocking. Statements themselves run
    /// through postgres-nio's `EventLoopFuture` API and the calling thread waits on the future;
    /// a statement alone (`execute`, `query`) or a transaction planned in full beforehand
    /// (`runTransaction`) waits once for its lease, its statements and its return to the pool.
    ///
    /// **Connections.** `PostgresClient`'s pool opens up to `poolSize` connections on demand; a
    /// connection the server closed (a restart, `pg_terminate_backend`) is dropped from the pool and
    /// the next call gets a new one. The call that was using it throws `.connection`.
    ///
    /// **Name clash:** PostgresNIO declares a protocol named `PostgreSQLConnectionPool` too. A file that
    /// imports both modules spells this one `OpenPostgreSQLStore.PostgreSQLConnectionPool`, or imports
    /// only the PostgresNIO declarations it needs (`import class NIOPosix.MultiThreadedEventLoopGroup`).
    ///
    /// Each connection's `search_path` is the URL's schema (quoted: its case is kept); `init` creates
    /// the schema when missing. Thread-safe: any thread may call any method at any time.
    package final class PostgreSQLConnectionPool: @unchecked Sendable {
        // @unchecked Sendable: its settings are set in `init` (`leaseTimeout` by the store that
        // opens it, before use); `closed` and `watchers` are `Mutex`es; the client and the meters
        // are thread-safe themselves.

        /// Where the database is.
        package let url: PostgreSQLStoreURL
        /// The URL as messages show it (password masked).
        package let server: String
        let client: PostgresClient
        /// postgres-nio's logger for each query: silent (the statements are traced through `trace`).
        let logger = Logger(label: "OpenPostgreSQLStore", factory: { _ in SwiftLogNoOpLogHandler() })
        /// The SQL trace of this pool's statements, overriding the process-wide one
        /// (`SQLTrace.shared`) when set: a store given a `Logger`.
        let trace: SQLTrace?
        /// Connections lent out now, and callers waiting for one (swift-metrics meters
        /// `opencoredata_pool_connections_in_use` and `opencoredata_pool_connections_waiting`).
        let inUse: Meter
        let waiting: Meter
        /// Transactions run again after a serialization failure or deadlock
        /// (`opencoredata_transaction_retries_total`).
        private let retries: Counter
        private let runTask: Task<Void, Never>
        /// The most connections the pool opens.
        package let poolSize: Int
        /// How long `withConnection` waits for a free connection before throwing `.connection`.
        /// **Default:** 60 seconds.
        package var leaseTimeout: Duration = .seconds(60)
        private let closed = Mutex(false)
        /// One watcher per live pooled connection (see `closeWatcher(for:)`).
        private let watchers = Mutex<[ObjectIdentifier: CloseWatcher]>([:])

        /// Opens a pool of at most `poolSize` connections (**Default:** 8) and returns once one
        /// connection works: it connects once on its own (so a wrong host, port, user or database is
        /// a clear `.connection` error now, not a hang later), creates the URL's schema if missing
        /// (`CREATE SCHEMA IF NOT EXISTS`), then starts the pool.
        ///
        /// - Parameters:
        ///   - logger: postgres-nio's background messages from `.info` up (connections failing,
        ///     closing). **Default:** none.
        ///   - trace: the SQL trace of the pool's statements (see `trace`). **Default:** none.
        /// - Throws: `PostgreSQLServerError` (`.connection` when the server can't be reached or refuses,
        ///   `.other` when called on an event-loop thread).
        package init(
            url: PostgreSQLStoreURL, poolSize: Int = 8, logger backgroundLogger: Logger? = nil, trace: SQLTrace? = nil
        ) throws(PostgreSQLServerError) {
            let server = url.redacted
            self.url = url
            self.server = server
            self.poolSize = max(1, poolSize)
            self.trace = trace
            let dimensions = [("db_system", "postgresql"), ("db_namespace", "\(url.database)|\(url.schema)")]
            inUse = Meter(label: "opencoredata_pool_connections_in_use", dimensions: dimensions)
            waiting = Meter(label: "opencoredata_pool_connections_waiting", dimensions: dimensions)
            retries = Counter(label: "opencoredata_transaction_retries_total", dimensions: dimensions)
            let logger = self.logger

            var tls = PostgresClient.Configuration.TLS.disable
            let tlsConfiguration = url.tlsConfiguration
            if let tlsConfiguration { tls = .require(tlsConfiguration) }
            var configuration = PostgresClient.Configuration(
                host: url.host, port: url.port, username: url.user, password: url.password, database: url.database, tls: tls)
            configuration.options.maximumConnections = max(1, poolSize)
            configuration.options.connectTimeout = .seconds(10)
            // A startup parameter: every pooled connection starts with this search_path.
            configuration.options.additionalStartupParameters = [("search_path", "\"\(url.schema)\"")]

            // The first connection, made directly: its errors say what is wrong.
            let firstConfiguration = try Self.connectionConfiguration(url, server: server)
            let schema = url.schema
            let createSchema = PostgresQuery(unsafeSQL: "CREATE SCHEMA IF NOT EXISTS \"\(schema)\"")
            do {
                try runBlocking(server: server) {
                    let connection = try await PostgresConnection.connect(
                        on: PostgreSQLEventLoops.group.next(), configuration: firstConfiguration, id: 0, logger: logger)
                    do {
                        if schema != "public" {
                            // Two pools creating one schema at once can both miss it; one then fails
                            // with a unique violation on the catalog, which is harmless.
                            do {
                                _ = try await connection.query(createSchema, logger: logger).get()
                            } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {}
                        }
                        try await connection.close()
                    } catch {
                        try? await connection.close()
                        throw error
                    }
                }
            } catch {
                throw PostgreSQLServerError(
                    error.kind, sqlState: error.sqlState, message: "Can't open the PostgreSQL store: \(error.message)")
            }

            // postgres-nio's own messages from `.info` up (connections failing, closing); its
            // protocol chatter at `.debug` and `.trace` would bury the SQL trace.
            var poolLogger = backgroundLogger ?? logger
            if poolLogger.logLevel < .info { poolLogger.logLevel = .info }
            let client = PostgresClient(
                configuration: configuration, eventLoopGroup: PostgreSQLEventLoops.group, backgroundLogger: poolLogger)
            self.client = client
            // The pool's background work, on an event loop like everything else. `init` returns
            // once it has started: a lease asked for before `run()` works, but postgres-nio logs a
            // warning for it.
            let started = DispatchSemaphore(value: 0)
            runTask = Task(executorPreference: PostgreSQLEventLoops.executor()) {
                started.signal()
                await client.run()
            }
            started.wait()
        }

        deinit {
            close()
        }

        /// Closes the pool: open connections are closed, later calls throw `.connection`.
        /// Idempotent; `deinit` calls it too. Doesn't wait for the connections to be closed.
        package func close() {
            let wasClosed = closed.withLock { closed in
                defer { closed = true }
                return closed
            }
            if !wasClosed { runTask.cancel() }
        }

        /// Closes the pool (see `close()`) and returns once its connections are closed: the
        /// pool's background work has ended. Statements still running end first (each holds its
        /// connection until it is answered).
        package func shutdown() async {
            close()
            await runTask.value
        }

        /// Whether `close()` was called.
        package var isClosed: Bool { closed.withLock { $0 } }

        /// Runs `body` with one pooled connection, on the calling thread, and gives the connection
        /// back when `body` returns or throws. Blocks until a connection is free (the pool holds at
        /// most `poolSize`), at most `leaseTimeout`. A `body` that calls `withConnection` again needs a second connection:
        /// with `poolSize` 1 that waits forever, so don't.
        ///
        /// - Throws: `.connection` when no connection can be had; what `body` throws.
        package func withConnection<T>(_ body: (PostgreSQLConnection) throws -> T) throws -> T {
            guard !isClosed else {
                throw PostgreSQLServerError(.connection, message: "PostgreSQL at \(server): the database was closed")
            }
            waiting.increment()
            let leased = Result { try ConnectionLease(client: client, server: server, timeout: leaseTimeout, poolSize: poolSize) }
            waiting.decrement()
            let lease = try leased.get()
            inUse.increment()
            defer {
                lease.release()
                inUse.decrement()
            }
            return try body(PostgreSQLConnection(connection: lease.connection, database: self))
        }

        /// Runs `body` in a transaction: `BEGIN [ISOLATION LEVEL …]`, `body`, `COMMIT`; `ROLLBACK`
        /// when `body` throws (and `body`'s error is rethrown).
        ///
        /// A `COMMIT` whose answer never came (the connection was lost after it was sent) throws
        /// `.commitOutcomeUnknown`: the transaction may or may not be committed, and the `COMMIT` is
        /// never sent again. A connection found closed before `COMMIT` was sent throws `.connection`:
        /// the server rolls back the transaction of a lost connection.
        ///
        /// - Parameter isolation: **Default:** `.readCommitted` (PostgreSQL's default).
        package func withTransaction<T>(
            isolation: PostgreSQLIsolation = .readCommitted, _ body: (PostgreSQLConnection) throws -> T
        ) throws -> T {
            try withConnection { session in
                try session.execute(isolation.beginStatement)
                let result: T
                do {
                    result = try body(session)
                } catch {
                    // On a lost connection there is nothing to roll back: the server did it.
                    if !session.connection.isClosed { _ = try? session.execute("ROLLBACK") }
                    throw error
                }
                try session.commit()
                return result
            }
        }

        /// Runs `transaction` (which should call `withTransaction`) and runs it again, as a new
        /// transaction, when it throws `.serializationFailure` (40001) or `.deadlock` (40P01), up to
        /// `attempts` runs in all, sleeping a random 1…(5 × 2ⁿ) ms between runs (n: runs so far).
        /// Any other error, `.commitOutcomeUnknown` included, is thrown at once.
        ///
        /// - Parameter attempts: **Default:** 5. At least 1.
        package func withRetries<T>(attempts: Int = 5, _ transaction: () throws -> T) throws -> T {
            var run = 1
            while true {
                do {
                    return try transaction()
                } catch let error as PostgreSQLServerError
                    where (error.kind == .serializationFailure || error.kind == .deadlock) && run < attempts
                {
                    retries.increment()
                    let limit = 5 << min(run, 10)
                    Thread.sleep(forTimeInterval: Double(Int.random(in: 1...limit)) / 1000)
                    run += 1
                }
            }
        }
    }

    /// A transaction's isolation level (PostgreSQL's; READ UNCOMMITTED is READ COMMITTED there).
    package enum PostgreSQLIsolation: Sendable {
        /// Each statement sees what was committed before it started. PostgreSQL's default.
        case readCommitted
        /// The transaction sees one snapshot; a concurrent update of a row it updates fails with 40001.
        case repeatableRead
        /// As if the transactions ran one after the other; conflicts fail with 40001.
        case serializable

        var beginStatement: String {
            switch self {
            case .readCommitted: "BEGIN ISOLATION LEVEL READ COMMITTED"
            case .repeatableRead: "BEGIN ISOLATION LEVEL REPEATABLE READ"
            case .serializable: "BEGIN ISOLATION LEVEL SERIALIZABLE"
            }
        }
    }

    /// One connection leased from the pool by a task on an event loop, held until `release()`.
    private final class ConnectionLease: Sendable {
        private struct State {
            var connection: PostgresConnection?
            var error: (any Error)?
            var released = false
            var releaseWaiter: CheckedContinuation<Void, Never>?
        }

        /// What the leasing task and the calling thread share.
        private final class Shared: Sendable {
            let state = Mutex(State())
            let granted = DispatchSemaphore(value: 0)
            let finished = DispatchSemaphore(value: 0)
        }

        private let shared = Shared()
        let connection: PostgresConnection

        init(client: PostgresClient, server: String, timeout: Duration, poolSize: Int) throws(PostgreSQLServerError) {
            guard !PostgreSQLEventLoops.onEventLoop else {
                throw PostgreSQLServerError.calledOnEventLoop(server: server)
            }
            let shared = self.shared
            let task = Task(executorPreference: PostgreSQLEventLoops.executor()) {
                do {
                    try await client.withConnection { connection in
                        shared.state.withLock { $0.connection = connection }
                        shared.granted.signal()
                        await withCheckedContinuation { continuation in
                            let resumeNow = shared.state.withLock { state in
                                if state.released { return true }
                                state.releaseWaiter = continuation
                                return false
                            }
                            if resumeNow { continuation.resume() }
                        }
                    }
                } catch {
                    shared.state.withLock { $0.error = error }
                    shared.granted.signal()
                }
                shared.finished.signal()
            }
            let (seconds, attoseconds) = timeout.components
            let nanoseconds = Int(min(seconds, 1_000_000)) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
            if shared.granted.wait(timeout: .now() + .nanoseconds(nanoseconds)) == .timedOut {
                // Whenever the lease comes, it goes straight back.
                let waiter = shared.state.withLock { state in
                    state.released = true
                    defer { state.releaseWaiter = nil }
                    return state.releaseWaiter
                }
                waiter?.resume()
                task.cancel()
                throw PostgreSQLServerError(
                    .connection,
                    message: "PostgreSQL at \(server): no connection became free within \(timeout) (a pool of \(poolSize))")
            }
            let (connection, error) = shared.state.withLock { ($0.connection, $0.error) }
            guard let connection else {
                shared.finished.wait()
                guard let error else {
                    throw PostgreSQLServerError(.connection, message: "PostgreSQL at \(server): no connection could be leased")
                }
                throw PostgreSQLServerError.from(error, server: server, sql: nil)
            }
            self.connection = connection
        }

        /// Gives the connection back to the pool (and waits until the pool has it).
        func release() {
            let waiter = shared.state.withLock { state in
                state.released = true
                defer { state.releaseWaiter = nil }
                return state.releaseWaiter
            }
            waiter?.resume()
            shared.finished.wait()
        }
    }

    extension PostgreSQLConnectionPool {
        /// The settings of one connection made directly (not pooled) to `url`.
        static func connectionConfiguration(_ url: PostgreSQLStoreURL, server: String) throws(PostgreSQLServerError)
            -> PostgresConnection.Configuration
        {
            var configuration = PostgresConnection.Configuration(
                host: url.host, port: url.port, username: url.user, password: url.password, database: url.database,
                tls: .disable)
            if let tls = url.tlsConfiguration {
                do {
                    configuration.tls = .require(try NIOSSLContext(configuration: tls))
                } catch {
                    throw PostgreSQLServerError(
                        .connection, message: "PostgreSQL at \(server): TLS could not be set up: \(error)")
                }
            }
            configuration.options.connectTimeout = .seconds(10)
            return configuration
        }
    }

    extension PostgreSQLStoreURL {
        /// The TLS settings of `sslmode` and `sslrootcert`; nil without TLS.
        var tlsConfiguration: TLSConfiguration? {
            guard tls != .disable else { return nil }
            var configuration = TLSConfiguration.makeClientConfiguration()
            switch tls {
            case .disable, .require: configuration.certificateVerification = .none
            case .verifyCA: configuration.certificateVerification = .noHostnameVerification
            case .verifyFull: configuration.certificateVerification = .fullVerification
            }
            if let rootCertificate { configuration.trustRoots = .file(rootCertificate) }
            return configuration
        }
    }

    /// Fails the statement a connection is running when the connection closes: postgres-nio drops
    /// a query written to a connection that has just closed without ever failing it. One watcher
    /// per connection, registered on its close once, so that statements do not each leave a
    /// callback behind for as long as the pooled connection lives.
    final class CloseWatcher: @unchecked Sendable {
        // @unchecked Sendable: `running` and `isClosed` are behind `lock`; `connection` is a weak
        // reference, which the runtime reads and clears atomically.

        /// The connection watched (a new connection at a freed one's address is not it).
        weak var connection: PostgresConnection?
        private let lock = NSLock()
        private var running: (@Sendable () -> Void)?
        private var isClosed = false

        /// Calls `fail` if the connection closes before `end()`, at once if it has closed already.
        func begin(_ fail: @escaping @Sendable () -> Void) {
            lock.lock()
            guard !isClosed else {
                lock.unlock()
                return fail()
            }
            running = fail
            lock.unlock()
        }

        func end() {
            lock.lock()
            running = nil
            lock.unlock()
        }

        fileprivate func connectionClosed() {
            lock.lock()
            isClosed = true
            let fail = running
            running = nil
            lock.unlock()
            fail?()
        }
    }

    extension PostgreSQLConnectionPool {
        /// The connection's close watcher, made and registered on its close the first time.
        func closeWatcher(for connection: PostgresConnection) -> CloseWatcher {
            let id = ObjectIdentifier(connection)
            let (watcher, isNew) = watchers.withLock { watchers -> (CloseWatcher, Bool) in
                if let watcher = watchers[id], watcher.connection === connection { return (watcher, false) }
                let watcher = CloseWatcher()
                watcher.connection = connection
                watchers[id] = watcher
                return (watcher, true)
            }
            if isNew {
                connection.closeFuture.whenComplete { [weak self] _ in
                    watcher.connectionClosed()
                    self?.watchers.withLock { watchers in
                        if watchers[id] === watcher { watchers[id] = nil }
                    }
                }
            }
            return watcher
        }
    }
#endif
