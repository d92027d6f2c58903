import Foundation

/// Watches the rows of the fetches run in its scope as stores read them, and stops them when
/// cancelled: what `NSAsynchronousFetchRequest`'s progress counts and cancels.
///
/// ```swift
/// let watch = FetchProgress { rows in progress.completedUnitCount += Int64(rows); return !progress.isCancelled }
/// let output = try FetchProgress.$current.withValue(watch) { try store.execute(plan) }
/// ```
///
/// A store reports the rows it reads (`arrived(_:)`) every `reportInterval` rows and at the end
/// of a statement; when the watcher says stop, `arrived(_:)` throws `FetchCancelledError` and
/// the store ends the statement there. Outside a scope, `current` is nil and stores report
/// nothing.
package final class FetchProgress: @unchecked Sendable {
    // @unchecked Sendable: `watch` runs on the thread reading the rows, one statement at a time.

    /// The watcher of the fetches run now, on this task or thread.
    @TaskLocal package static var current: FetchProgress?

    /// How many rows a store reads between reports.
    package static let reportInterval = 256

    private let watch: (Int) -> Bool

    /// - Parameter watch: called with the number of rows read since the last call; returns
    ///   false to stop the fetch.
    package init(_ watch: @escaping (Int) -> Bool) {
        self.watch = watch
    }

    /// Reports `rows` more rows read.
    /// - Throws: `FetchCancelledError` when the watcher stops the fetch.
    package func arrived(_ rows: Int) throws {
        guard watch(rows) else { throw FetchCancelledError() }
    }
}

/// A fetch its `FetchProgress` stopped; nothing of it was kept.
package struct FetchCancelledError: Error {
    package init() {}
}

/// Counts the rows of one statement for the current `FetchProgress`, reporting them in runs of
/// `FetchProgress.reportInterval`.
///
/// ```swift
/// var counter = FetchRowCounter()
/// let watched = counter.isWatching   // a local test a row: nothing to count most of the time
/// while try statement.step() { if watched { try counter.count() }; … }
/// try counter.finish()
/// ```
package struct FetchRowCounter {
    // Inlinable: stores call `count()` once a row, across modules.
    @usableFromInline let progress = FetchProgress.current
    @usableFromInline var pending = 0

    package init() {}

    /// Whether a `FetchProgress` watches the rows (else `count()` does nothing).
    @inlinable
    package var isWatching: Bool { progress != nil }

    /// One more row read.
    @inlinable
    package mutating func count() throws {
        guard let progress else { return }
        pending += 1
        if pending == FetchProgress.reportInterval {
            pending = 0
            try progress.arrived(FetchProgress.reportInterval)
        }
    }

    /// The statement's last rows; call once, after the last row.
    package mutating func finish() throws {
        guard let progress else { return }
        let rows = pending
        pending = 0
        try progress.arrived(rows)
    }
}
