#if PostgreSQL
    import Dispatch
    import Logging
    import OpenSQLStore
    import PostgresNIO
    import Synchronization

    extension PostgreSQLConnectionPool {
        /// Listens on `channel` (`LISTEN`) on a connection of its own (not one of the pool's) and
        /// calls `handler` with each notification's payload, in the order they arrive, on a serial
        /// Dispatch queue of the listener's (neither an event-loop thread nor Swift concurrency's
        /// pool: the handler may make synchronous store calls). Returns once the server listens, so
        /// a notification sent after `listen` returns is delivered.
        ///
        /// When the connection is lost, the listener connects and listens again (every half second
        /// until it succeeds); notifications sent in between are lost.
        ///
        /// - Returns: A token; `cancel()` stops listening and closes its connection.
        /// - Throws: `.connection` when the first connection can't be made.
        package func listen(channel: String, handler: @escaping @Sendable (String) -> Void) throws -> PostgreSQLListener {
            let configuration = try Self.connectionConfiguration(url, server: server)
            let listener = PostgreSQLListener(
                channel: channel, queue: DispatchQueue(label: "OpenPostgreSQLStore.listen.\(channel)"))
            let logger = self.logger
            let started = DispatchSemaphore(value: 0)
            let firstError = Mutex<(any Error)?>(nil)
            let task = Task(executorPreference: PostgreSQLEventLoops.executor()) {
                var first = true
                while !Task.isCancelled {
                    do {
                        let connection = try await PostgresConnection.connect(
                            on: PostgreSQLEventLoops.group.next(), configuration: configuration, id: 1, logger: logger)
                        listener.connection.withLock { $0 = connection }
                        defer { listener.connection.withLock { $0 = nil } }
                        do {
                            try await connection.listen(on: channel) { notifications in
                                if first {
                                    first = false
                                    started.signal()
                                }
                                for try await notification in notifications {
                                    let payload = notification.payload
                                    listener.queue.async { if !listener.isCancelled { handler(payload) } }
                                }
                            }
                        } catch {
                            try? await connection.close()
                            throw error
                        }
                        try? await connection.close()
                    } catch {
                        if first {
                            firstError.withLock { $0 = error }
                            started.signal()
                            return
                        }
                        try? await Task.sleep(for: .milliseconds(500))
                    }
                }
            }
            started.wait()
            if let error = firstError.withLock({ $0 }) {
                throw PostgreSQLServerError.from(error, server: server, sql: "LISTEN \(channel)")
            }
            listener.task.withLock { $0 = task }
            return listener
        }
    }

    /// A running `LISTEN`: `cancel()` stops it. Not cancelled by being released: keep it as long
    /// as notifications are wanted, and cancel it.
    package final class PostgreSQLListener: Sendable {
        /// The channel listened on.
        package let channel: String
        let queue: DispatchQueue
        let task = Mutex<Task<Void, Never>?>(nil)
        let connection = Mutex<PostgresConnection?>(nil)
        private let cancelled = Atomic<Bool>(false)

        init(channel: String, queue: DispatchQueue) {
            self.channel = channel
            self.queue = queue
        }

        /// Whether `cancel()` was called.
        package var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

        /// Stops listening: no handler call starts after this returns (one already running may
        /// finish). Idempotent.
        package func cancel() {
            cancelled.store(true, ordering: .releasing)
            task.withLock { $0 }?.cancel()
            // The notification sequence doesn't end on task cancellation alone: closing the
            // connection ends it.
            _ = connection.withLock { $0 }?.close() as EventLoopFuture<Void>?
        }
    }
#endif
