import Foundation

/// Where `blocking(_:)` keeps the body's result until the waiting thread reads it.
private final class ResultBox<T>: @unchecked Sendable {
    // @unchecked Sendable: written once by the task before it signals, read after the wait.
    var result: Result<T, Error>?
}

/// Runs `body` on the concurrency pool and blocks this (non-event-loop) thread until it ends:
/// benchmarks time synchronous code, and postgres-nio's API is async.
public func blocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let box = ResultBox<T>()
    let done = DispatchSemaphore(value: 0)
    Task {
        do { box.result = .success(try await body()) } catch { box.result = .failure(error) }
        done.signal()
    }
    done.wait()
    guard let result = box.result else { throw CancellationError() }
    return try result.get()
}
