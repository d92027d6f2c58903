import Foundation
import Logging

/// Log messages kept in memory, in order, from any thread: what an SQL trace says, for tests
/// that assert the statements a fetch runs and the values it binds.
///
/// ```swift
/// let capture = LogCapture()
/// connection.trace = SQLTrace(level: 2, logger: capture.logger)
/// _ = try context.fetch(request)
/// #expect(capture.statements.count == 1)
/// ```
public final class LogCapture: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [(level: Logger.Level, message: String)] = []

    /// An empty capture.
    public init() {}

    /// Every message so far.
    public var messages: [String] { entries.map(\.message) }

    /// Every message so far, with its level.
    public var entries: [(level: Logger.Level, message: String)] {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }

    /// The SQL of the statements run, in order (the trace's `sql: ` messages).
    public var statements: [String] { messages.filter { $0.hasPrefix("sql: ") }.map { String($0.dropFirst(5)) } }

    /// Adds a message.
    public func append(_ message: String, level: Logger.Level = .info) {
        lock.lock()
        stored.append((level, message))
        lock.unlock()
    }

    /// Forgets the messages so far.
    public func clear() {
        lock.lock()
        stored = []
        lock.unlock()
    }

    /// A logger that keeps every message, down to `trace`, in this capture.
    public var logger: Logger { logger(level: .trace) }

    /// A logger that keeps the messages of `level` and above in this capture.
    public func logger(level: Logger.Level) -> Logger {
        var logger = Logger(label: "test") { _ in Handler(capture: self) }
        logger.logLevel = level
        return logger
    }

    private struct Handler: LogHandler {
        let capture: LogCapture
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) { capture.append(event.message.description, level: event.level) }
    }
}
