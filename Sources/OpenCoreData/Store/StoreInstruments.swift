import Dispatch
import Metrics
import OpenStoreCore
import Tracing

/// What a store reports to a server's observability, through whatever backends the app
/// bootstrapped (`MetricsSystem.bootstrap`, `InstrumentationSystem.bootstrap`); with none, the
/// no-op ones, at the cost of a few calls per fetch or save.
///
/// **Spans** (swift-distributed-tracing), one around each fetch, count and save of a context
/// that reaches the store, a child of the caller's `ServiceContext` (the async `perform` family
/// carries it onto the context's queue), kind `.client`, named `fetch Employee`, `count Employee`
/// or `save`, with OpenTelemetry's database attributes:
///
/// | attribute | value |
/// |---|---|
/// | `db.system.name` | `sqlite`, `postgresql` or `opencoredata.in_memory` |
/// | `db.namespace` | the SQLite file's name; PostgreSQL's `database|schema`; the in-memory store's identifier |
/// | `db.operation.name` | `fetch`, `count` or `save` |
/// | `db.collection.name` | the fetch's entity |
/// | `db.query.text` | the statements run, `; `-separated, with placeholders: never values |
/// | `db.response.returned_rows` | a fetch's result count |
/// | `error.type` | a failure's error domain and code |
///
/// **Metrics** (swift-metrics), each with the dimensions `db_system` and `db_namespace` (as
/// `db.system.name` and `db.namespace`):
/// `opencoredata_fetches_total` and the timer `opencoredata_fetch_duration_seconds` (dimension
/// `operation`: `fetch` or `count`), `opencoredata_rows_read_total` (results fetched),
/// `opencoredata_saves_total`, the timer `opencoredata_save_duration_seconds`,
/// `opencoredata_rows_written_total` (objects inserted, updated and deleted),
/// `opencoredata_save_conflicts_total` (conflicts handed to a merge policy),
/// `opencoredata_save_retries_total` (saves tried again after the policy resolved them), and
/// `opencoredata_errors_total` (dimension `operation`). The PostgreSQL store's pool adds the
/// meters `opencoredata_pool_connections_in_use` and `opencoredata_pool_connections_waiting`, and
/// `opencoredata_transaction_retries_total` (serialization failures and deadlocks run again).
///
/// The metric objects are made when the store is added: bootstrap the backends before.
final class StoreInstruments: Sendable {
    /// The operations measured.
    enum Operation: String, Sendable {
        case fetch, count, save
    }

    /// `db.system.name`.
    let system: String
    /// `db.namespace`.
    let namespace: String

    private let fetches: Counter
    private let counts: Counter
    private let fetchDuration: Timer
    private let countDuration: Timer
    private let rowsRead: Counter
    private let saves: Counter
    private let saveDuration: Timer
    private let rowsWritten: Counter
    private let conflicts: Counter
    private let retries: Counter
    private let fetchErrors: Counter
    private let countErrors: Counter
    private let saveErrors: Counter

    init(system: String, namespace: String) {
        self.system = system
        self.namespace = namespace
        let store = [("db_system", system), ("db_namespace", namespace)]
        fetches = Counter(label: "opencoredata_fetches_total", dimensions: store + [("operation", "fetch")])
        counts = Counter(label: "opencoredata_fetches_total", dimensions: store + [("operation", "count")])
        fetchDuration = Timer(label: "opencoredata_fetch_duration_seconds", dimensions: store + [("operation", "fetch")])
        countDuration = Timer(label: "opencoredata_fetch_duration_seconds", dimensions: store + [("operation", "count")])
        rowsRead = Counter(label: "opencoredata_rows_read_total", dimensions: store)
        saves = Counter(label: "opencoredata_saves_total", dimensions: store)
        saveDuration = Timer(label: "opencoredata_save_duration_seconds", dimensions: store)
        rowsWritten = Counter(label: "opencoredata_rows_written_total", dimensions: store)
        conflicts = Counter(label: "opencoredata_save_conflicts_total", dimensions: store)
        retries = Counter(label: "opencoredata_save_retries_total", dimensions: store)
        fetchErrors = Counter(label: "opencoredata_errors_total", dimensions: store + [("operation", "fetch")])
        countErrors = Counter(label: "opencoredata_errors_total", dimensions: store + [("operation", "count")])
        saveErrors = Counter(label: "opencoredata_errors_total", dimensions: store + [("operation", "save")])
    }

    /// Runs one operation inside its span, timed and counted; `rows` is what it read or wrote
    /// (a fetch's results, a save's objects).
    func measure<T>(
        _ operation: Operation, entity: String? = nil, rows: (T) -> Int, _ body: () throws -> T
    ) throws -> T {
        let started = DispatchTime.now().uptimeNanoseconds
        let name = entity.map { operation.rawValue + " " + $0 } ?? operation.rawValue
        let span = InstrumentationSystem.tracer.startSpan(name, context: ServiceContext.current ?? .topLevel, ofKind: .client)
        defer { span.end() }
        let log = span.isRecording ? StoreStatementLog() : nil
        do {
            let result = try log.map { log in try StoreStatementLog.$current.withValue(log, operation: body) } ?? body()
            let count = rows(result)
            record(operation, rows: count, nanoseconds: DispatchTime.now().uptimeNanoseconds - started)
            if let log {
                describe(span, operation, entity: entity, statements: log.statements)
                if operation != .save { span.attributes["db.response.returned_rows"] = count }
            }
            return result
        } catch {
            record(operation, rows: 0, nanoseconds: DispatchTime.now().uptimeNanoseconds - started)
            errors(operation).increment()
            if let log {
                describe(span, operation, entity: entity, statements: log.statements)
                let nsError = error as NSError
                span.attributes["error.type"] = "\(nsError.domain) \(nsError.code)"
                span.recordError(error)
                span.setStatus(SpanStatus(code: .error))
            }
            throw error
        }
    }

    /// Conflicts a save handed to its merge policy.
    func recordConflicts(_ count: Int) {
        conflicts.increment(by: count)
    }

    /// A save tried again after its merge policy resolved the conflicts.
    func recordRetry() {
        retries.increment()
    }

    private func record(_ operation: Operation, rows: Int, nanoseconds: UInt64) {
        let duration = Int64(clamping: nanoseconds)
        switch operation {
        case .fetch:
            fetches.increment()
            fetchDuration.recordNanoseconds(duration)
            if rows > 0 { rowsRead.increment(by: rows) }
        case .count:
            counts.increment()
            countDuration.recordNanoseconds(duration)
        case .save:
            saves.increment()
            saveDuration.recordNanoseconds(duration)
            if rows > 0 { rowsWritten.increment(by: rows) }
        }
    }

    private func errors(_ operation: Operation) -> Counter {
        switch operation {
        case .fetch: fetchErrors
        case .count: countErrors
        case .save: saveErrors
        }
    }

    private func describe(_ span: any Span, _ operation: Operation, entity: String?, statements: [String]) {
        span.attributes["db.system.name"] = system
        span.attributes["db.namespace"] = namespace
        span.attributes["db.operation.name"] = operation.rawValue
        if let entity { span.attributes["db.collection.name"] = entity }
        if !statements.isEmpty { span.attributes["db.query.text"] = statements.joined(separator: "; ") }
    }
}
