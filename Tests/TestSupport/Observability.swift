import Foundation
import InMemoryTracing
import Metrics
import MetricsTestKit
import Tracing

/// The process's swift-metrics and swift-distributed-tracing backends for tests: bootstrapped
/// once (both systems allow one bootstrap per process), before the first store the tests look
/// at is added (a store makes its metric objects when it is added).
///
/// Spans are recorded only under a `ServiceContext` marked by `traced(_:)`, so the other tests
/// running in the same process make no recorded spans; metrics are told apart by their
/// `db_namespace` dimension (each test's store file or schema).
///
/// ```swift
/// let (spans, result) = try Observability.traced { try context.fetch(request) }
/// #expect(spans.map(\.operationName) == ["fetch Employee"])
/// ```
public enum Observability {
    /// The metrics every store of the process reports to.
    public static let metrics: TestMetrics = {
        let metrics = TestMetrics()
        MetricsSystem.bootstrap(metrics)
        InstrumentationSystem.bootstrap(tracer)
        return metrics
    }()

    static let tracer = MarkedTracer()

    /// Bootstraps both systems (idempotent); call before adding the stores a test looks at.
    public static func bootstrap() {
        _ = metrics
    }

    /// Runs `body` under a root span `test` of a new trace whose spans are recorded, and returns
    /// the finished spans of that trace (the root span last) with `body`'s result.
    public static func traced<T>(_ body: () throws -> T) rethrows -> (spans: [FinishedInMemorySpan], result: T) {
        bootstrap()
        let mark = UUID().uuidString
        var context = ServiceContext.topLevel
        context[TraceMark.self] = mark
        let result = try InstrumentationSystem.tracer.withSpan("test", context: context) { _ in try body() }
        return (tracer.finishedSpans(marked: mark), result)
    }

    /// `traced(_:)` for async work.
    public static func traced<T>(_ body: () async throws -> T) async rethrows -> (spans: [FinishedInMemorySpan], result: T) {
        bootstrap()
        let mark = UUID().uuidString
        var context = ServiceContext.topLevel
        context[TraceMark.self] = mark
        let result = try await InstrumentationSystem.tracer.withSpan("test", context: context) { _ in try await body() }
        return (tracer.finishedSpans(marked: mark), result)
    }
}

/// The mark of a test's trace.
enum TraceMark: ServiceContextKey {
    typealias Value = String
}

/// An in-memory tracer that records only spans under a marked context (see `Observability`);
/// every other span is a no-op one.
final class MarkedTracer: Tracer, Sendable {
    private let recorder = InMemoryTracer()

    func finishedSpans(marked mark: String) -> [FinishedInMemorySpan] {
        recorder.finishedSpans.filter { $0.context[TraceMark.self] == mark }
    }

    func startSpan<Instant: TracerInstant>(
        _ operationName: String, context: @autoclosure () -> ServiceContext, ofKind kind: SpanKind,
        at instant: @autoclosure () -> Instant, function: String, file fileID: String, line: UInt
    ) -> MarkedSpan {
        let parent = context()
        guard parent[TraceMark.self] != nil else { return .skipped(NoOpTracer.NoOpSpan(context: parent)) }
        return .recorded(
            recorder.startSpan(
                operationName, context: parent, ofKind: kind, at: instant(), function: function, file: fileID, line: line))
    }

    func activeSpan(identifiedBy context: ServiceContext) -> MarkedSpan? {
        recorder.activeSpan(identifiedBy: context).map(MarkedSpan.recorded)
    }

    func forceFlush() {}

    func inject<Carrier, Inject: Injector>(_ context: ServiceContext, into carrier: inout Carrier, using injector: Inject)
    where Inject.Carrier == Carrier {}

    func extract<Carrier, Extract: Extractor>(_ carrier: Carrier, into context: inout ServiceContext, using extractor: Extract)
    where Extract.Carrier == Carrier {}
}

/// A span of `MarkedTracer`: recorded, or not.
enum MarkedSpan: Span {
    case recorded(InMemorySpan)
    case skipped(NoOpTracer.NoOpSpan)

    private var span: any Span {
        switch self {
        case .recorded(let span): span
        case .skipped(let span): span
        }
    }

    var context: ServiceContext { span.context }
    var isRecording: Bool { span.isRecording }

    var operationName: String {
        get { span.operationName }
        nonmutating set {
            if case .recorded(let span) = self { span.operationName = newValue }
        }
    }

    var attributes: SpanAttributes {
        get { span.attributes }
        nonmutating set {
            if case .recorded(let span) = self { span.attributes = newValue }
        }
    }

    func setStatus(_ status: SpanStatus) { span.setStatus(status) }
    func addEvent(_ event: SpanEvent) { span.addEvent(event) }
    func addLink(_ link: SpanLink) { span.addLink(link) }

    func recordError<Instant: TracerInstant>(
        _ error: Error, attributes: SpanAttributes, at instant: @autoclosure () -> Instant
    ) {
        span.recordError(error, attributes: attributes, at: instant())
    }

    func end<Instant: TracerInstant>(at instant: @autoclosure () -> Instant) {
        span.end(at: instant())
    }
}
