#if PostgreSQL
    import Dispatch
    import OpenSQLStore
    import PostgresNIO
    import Synchronization

    // MARK: - What runs where
    //
    // Core Data's API is synchronous, postgres-nio's is async. A synchronous call here blocks the
    // calling thread on a semaphore while the async work runs as a task whose jobs all run on one of
    // NIO's event-loop threads (`EventLoopTaskExecutor`, a task-executor preference), never on Swift
    // concurrency's cooperative pool. So a caller that blocks cooperative threads (a fetch called
    // from async tasks on a 2-core machine blocks both of them) can't starve the I/O it waits for:
    // the I/O never needs a cooperative thread. The pool's own background task (`PostgresClient.run`)
    // runs on an event loop the same way.
    //
    // The one thing that would deadlock is a blocking call made ON an event-loop thread (the thread
    // that must deliver the answer would be the one waiting for it): such a call throws instead.

    /// A `TaskExecutor` that runs every job on one NIO event loop, so that tasks preferring it make
    /// progress without Swift concurrency's cooperative thread pool. (swift-nio 2.101 makes event
    /// loops serial executors for actors only, not task executors.)
    final class EventLoopTaskExecutor: TaskExecutor, @unchecked Sendable {
        // @unchecked Sendable: it holds only its event loop, which is thread-safe (`execute` from
        // any thread).

        let eventLoop: any EventLoop

        init(_ eventLoop: any EventLoop) {
            self.eventLoop = eventLoop
        }

        func enqueue(_ job: consuming ExecutorJob) {
            let job = UnownedJob(job)
            eventLoop.execute {
                job.runSynchronously(on: self.asUnownedTaskExecutor())
            }
        }
    }

    /// The event loops the layer runs on (NIO's shared group) and their task executors, one per loop.
    enum PostgreSQLEventLoops {
        static let group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton

        private static let executors: [EventLoopTaskExecutor] = group.makeIterator().map { EventLoopTaskExecutor($0) }
        private static let next = Atomic<Int>(0)

        /// A task executor, round robin over the group's loops.
        static func executor() -> EventLoopTaskExecutor {
            let index = next.add(1, ordering: .relaxed).oldValue
            return executors[index % executors.count]
        }

        /// The task executor of `loop` (one of the group's), so that a task awaiting the
        /// connection's futures runs on the thread that completes them.
        static func executor(for loop: any EventLoop) -> EventLoopTaskExecutor {
            executors.first { $0.eventLoop === loop } ?? executor()
        }

        /// Whether the calling thread is one of NIO's event-loop threads.
        static var onEventLoop: Bool { MultiThreadedEventLoopGroup.currentEventLoop != nil }
    }

    /// The result of an async operation a blocked thread waits for.
    private final class BlockingResult<T: Sendable>: Sendable {
        let semaphore = DispatchSemaphore(value: 0)
        let value = Mutex<Result<T, any Error>?>(nil)
    }

    /// Runs `operation` as a task on an event loop (see "What runs where" above) and blocks the
    /// calling thread until it finishes. Throws, without running anything, when called on an
    /// event-loop thread; `server` names the server in that message.
    func runBlocking<T: Sendable>(
        server: String, _ operation: @escaping @Sendable () async throws -> T
    ) throws(PostgreSQLServerError) -> T {
        guard !PostgreSQLEventLoops.onEventLoop else {
            throw PostgreSQLServerError.calledOnEventLoop(server: server)
        }
        let box = BlockingResult<T>()
        Task(executorPreference: PostgreSQLEventLoops.executor()) {
            let result: Result<T, any Error>
            do { result = .success(try await operation()) } catch { result = .failure(error) }
            box.value.withLock { $0 = result }
            box.semaphore.signal()
        }
        box.semaphore.wait()
        switch box.value.withLock({ $0 }) {
        case .success(let value)?: return value
        case .failure(let error)?: throw PostgreSQLServerError.from(error, server: server, sql: nil)
        case nil: throw PostgreSQLServerError(.other, message: "PostgreSQL at \(server): an operation ended without a result")
        }
    }
#endif
