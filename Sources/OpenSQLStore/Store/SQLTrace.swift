import Foundation
import Logging
import OpenPredicate
import OpenStoreCore

/// SQL tracing of both SQL stores, as Apple's `-com.apple.CoreData.SQLDebug N` launch argument
/// gives it, through swift-log (logger label `com.apple.CoreData.SQLDebug`, messages at `.info`,
/// so that swift-log's default handler prints them on standard error, as Apple prints them on the
/// console); or through the `Logger` a store was given (`store(logger:showsValues:)`).
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
/// `OPENCOREDATA_SQLDEBUG=N`. A store's connections may override both (`SQLiteConnection.trace`,
/// `PostgreSQLConnectionPool.trace`): a store given a `Logger`, tests and the explain tool.
/// Levels 3 (rows) and 4 (query plans) are the SQLite store's only.
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
    /// The level of the statements' messages. **Default:** `.info`.
    package var statementLevel: Logger.Level = .info
    /// The level of the other messages (bound values, row counts and times, rows, plans).
    /// **Default:** `.info`.
    package var detailLevel: Logger.Level = .info
    /// Whether bound values and row values are shown as their kind only (`bind[1] = <integer>`).
    /// **Default:** false.
    package var redactsValues = false

    package init(level: Int, logger: Logger = SQLTrace.defaultLogger) {
        self.level = level
        self.logger = logger
    }

    /// The trace of a store given `logger`: statements at `.debug`; bound values (as their kind
    /// only, unless `showsValues`), row counts and times at `.trace`. Nil when the logger's level
    /// is above `.debug` (the process-wide trace then applies).
    package static func store(logger: Logger, showsValues: Bool) -> SQLTrace? {
        let level = logger.logLevel <= .trace ? 2 : logger.logLevel <= .debug ? 1 : 0
        guard level > 0 else { return nil }
        var trace = SQLTrace(level: level, logger: logger)
        trace.statementLevel = .debug
        trace.detailLevel = .trace
        trace.redactsValues = !showsValues
        return trace
    }

    /// swift-log's logger labelled `com.apple.CoreData.SQLDebug`.
    package static let defaultLogger = Logger(label: "com.apple.CoreData.SQLDebug")

    private static let lock = NSLock()
    // Both read and written under `lock` only.
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

    package func statement(_ sql: String) {
        logger.log(level: statementLevel, "sql: \(sql)")
    }

    package func bindings(_ values: [StoreValue]) {
        for (index, value) in values.enumerated() {
            let shown = redactsValues ? "<\(Self.kind(of: value))>" : Self.describe(value)
            logger.log(level: detailLevel, "bind[\(index + 1)] = \(shown)")
        }
    }

    /// The end of a statement: its rows when known (SQLite), and its time.
    package func finished(rows: Int?, seconds: Double) {
        let time = String(format: "%.4f", seconds)
        logger.log(level: detailLevel, rows.map { "rows: \($0) in \(time) s" } ?? "done in \(time) s")
    }

    package func row(_ values: [String]) {
        logger.log(level: detailLevel, "row: \(redactsValues ? "<\(values.count) values>" : values.joined(separator: " | "))")
    }

    package func plan(_ detail: String) {
        logger.log(level: detailLevel, "plan: \(detail)")
    }

    /// What a redacted value shows: its kind.
    static func kind(of value: StoreValue) -> String {
        switch value {
        case .null: "null"
        case .bool: "bool"
        case .integer: "integer"
        case .double: "double"
        case .decimal: "decimal"
        case .string: "string"
        case .date: "date"
        case .data: "data"
        case .uuid: "uuid"
        case .url: "url"
        case .object: "object"
        case .objects: "objects"
        }
    }

    /// A bound value as the trace shows it: numbers plainly, text quoted, bytes by count.
    package static func describe(_ value: StoreValue) -> String {
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
