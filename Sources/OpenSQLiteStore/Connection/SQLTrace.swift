import Logging
import OpenPredicate
import OpenSQLStore
import OpenStoreCore

/// SQL tracing, as Apple's `-com.apple.CoreData.SQLDebug N` launch argument gives it, through
/// swift-log (logger label `com.apple.CoreData.SQLDebug`, messages at `.info`, so that swift-log's
/// default handler prints them on standard error, as Apple prints them on the console).
///
/// | level | what is logged, each level adding to the one before |
/// |---|---|
/// | 0 | nothing (the default) |
/// | 1 | every statement's SQL when it starts running, and the statements of `execute` (`BEGIN`, `COMMIT`, DDL) |
/// | 2 | the values bound to it (`bind[1] = 30`), and when it ends its row count and time |
/// | 3 | each result row's column values |
/// | 4 | SQLite's `EXPLAIN QUERY PLAN` rows for each statement that starts, with the same values |
///
/// Switched on by, first one found: `level` set in code (`SQLTrace.level = 2`, or the public
/// `NSPersistentStoreCoordinator.sqlDebugLevel`); the launch argument
/// `-com.apple.CoreData.SQLDebug N` in `CommandLine.arguments`; the environment variable
/// `OPENCOREDATA_SQLDEBUG=N`. A connection may override both (`SQLiteConnection.trace`), which
/// is how tests and the explain tool capture one store's statements.
///
/// When tracing is off, a statement checks one integer when it starts; nothing is logged,
/// formatted or timed.
///
/// **Differences from Apple:** the messages are ours (`sql: …`, `bind[1] = …`, `rows: 42 in
/// 0.0012 s`, `plan: SCAN t0`), not Apple's `CoreData: sql: …` / `CoreData: details: SQLite
/// bind[0] = …` lines.
package struct SQLTrace: Sendable {
    /// How much is logged (0 to 4).
    package var level: Int
    package var logger: Logger

    package init(level: Int, logger: Logger = SQLTrace.defaultLogger) {
        self.level = level
        self.logger = logger
    }

    /// swift-log's logger labelled `com.apple.CoreData.SQLDebug`.
    package static let defaultLogger = Logger(label: "com.apple.CoreData.SQLDebug")

    private static let lock = NSLock()
    nonisolated(unsafe) private static var configured: SQLTrace?
    nonisolated(unsafe) private static var fromLaunch: SQLTrace?

    /// The process-wide trace: the one set in code, else the launch argument's or environment
    /// variable's (read once). Setting nil returns to the launch settings.
    package static var shared: SQLTrace {
        get {
            lock.lock()
            defer { lock.unlock() }
            if let configured { return configured }
            if let fromLaunch { return fromLaunch }
            let launch = SQLTrace(
                level: level(arguments: CommandLine.arguments, environment: ProcessInfo.processInfo.environment))
            fromLaunch = launch
            return launch
        }
        set {
            lock.lock()
            configured = newValue
            lock.unlock()
        }
    }

    /// The process-wide level (see `shared`).
    package static var level: Int {
        get { shared.level }
        set {
            var trace = shared
            trace.level = newValue
            shared = trace
        }
    }

    /// Forgets the level and logger set in code.
    package static func resetToLaunchSettings() {
        lock.lock()
        configured = nil
        lock.unlock()
    }

    /// The level that launch arguments or the environment ask for: `-com.apple.CoreData.SQLDebug
    /// N` (the argument after the flag), else `OPENCOREDATA_SQLDEBUG=N`; 0 when neither is there
    /// or the value is not a number. Levels are clamped to 0…4.
    package static func level(arguments: [String], environment: [String: String]) -> Int {
        var value: Int?
        if let flag = arguments.lastIndex(of: "-com.apple.CoreData.SQLDebug"), flag + 1 < arguments.count {
            value = Int(arguments[flag + 1])
        }
        if value == nil, let text = environment["OPENCOREDATA_SQLDEBUG"] {
            value = Int(text.trimmingCharacters(in: .whitespaces))
        }
        return min(max(value ?? 0, 0), 4)
    }

    // MARK: - Messages

    func statement(_ sql: String) {
        logger.info("sql: \(sql)")
    }

    func bindings(_ values: [StoreValue]) {
        for (index, value) in values.enumerated() {
            logger.info("bind[\(index + 1)] = \(Self.describe(value))")
        }
    }

    func finished(rows: Int, seconds: Double) {
        logger.info("rows: \(rows) in \(String(format: "%.4f", seconds)) s")
    }

    func row(_ values: [String]) {
        logger.info("row: \(values.joined(separator: " | "))")
    }

    func plan(_ detail: String) {
        logger.info("plan: \(detail)")
    }

    /// A bound value as the trace shows it: numbers plainly, text quoted, bytes by count.
    static func describe(_ value: StoreValue) -> String {
        switch value {
        case .null: "NULL"
        case .bool(let bool): bool ? "1" : "0"
        case .integer(let integer): String(integer)
        case .double(let double): "\(double)"
        case .decimal(let decimal): "\(decimal)"
        case .string(let string): "'" + string + "'"
        case .date(let date): "\(date.timeIntervalSinceReferenceDate)"
        case .data(let data): "<\(data.count) bytes>"
        case .uuid(let uuid): uuid.uuidString
        case .url(let url): "'" + url.absoluteString + "'"
        case .object(let key): String(key.primaryKey)
        case .objects(let keys): "<\(keys.count) objects>"
        }
    }
}
