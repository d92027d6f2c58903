import NIOCore
import NIOPosix
import Synchronization

/// Watches event loops for blocking: a task repeated every 10 ms on each loop records how late it
/// ran. A loop busy with a long synchronous call (a blocked event loop) shows as a late tick;
/// on a shared 2-core machine the scheduler alone makes ticks a few milliseconds late, so read
/// the maximum beside the raw server's.
final class StallTimer: Sendable {
    /// What one loop's ticks saw, in nanoseconds.
    struct Lateness: Sendable {
        var last = NIODeadline.now()
        var ticks = 0
        var maximum: Int64 = 0
        var total: Int64 = 0
        /// Ticks late by more than 10, 50 and 100 ms.
        var over10ms = 0
        var over50ms = 0
        var over100ms = 0
    }

    /// One loop's figures, touched by its ticks (on the loop) and by `report()`.
    final class Loop: Sendable {
        let lateness = Mutex(Lateness())
    }

    static let period = TimeAmount.milliseconds(10)
    private let loops: [Loop]
    private let tasks: [RepeatedTask]

    init(group: MultiThreadedEventLoopGroup) {
        let eventLoops = Array(group.makeIterator())
        let loops = eventLoops.map { _ in Loop() }
        self.loops = loops
        tasks = zip(eventLoops, loops).map { eventLoop, loop in
            eventLoop.scheduleRepeatedTask(initialDelay: Self.period, delay: Self.period) { _ in
                let now = NIODeadline.now()
                loop.lateness.withLock { stats in
                    // The next tick is scheduled `period` after this one ran.
                    let late = max(0, (now - stats.last - Self.period).nanoseconds)
                    stats.last = now
                    stats.ticks += 1
                    stats.total += late
                    stats.maximum = max(stats.maximum, late)
                    if late > 10_000_000 { stats.over10ms += 1 }
                    if late > 50_000_000 { stats.over50ms += 1 }
                    if late > 100_000_000 { stats.over100ms += 1 }
                }
            }
        }
    }

    /// One line per event loop: `stall loop=0 ticks=… max_ms=… mean_ms=… over10ms=… over50ms=… over100ms=…`.
    func report() -> String {
        loops.enumerated().map { index, loop in
            let stats = loop.lateness.withLock { $0 }
            let mean = stats.ticks == 0 ? 0 : Double(stats.total) / Double(stats.ticks) / 1e6
            return "stall loop=\(index) ticks=\(stats.ticks) max_ms=\(String(format: "%.1f", Double(stats.maximum) / 1e6))"
                + " mean_ms=\(String(format: "%.2f", mean)) over10ms=\(stats.over10ms) over50ms=\(stats.over50ms)"
                + " over100ms=\(stats.over100ms)"
        }.joined(separator: "\n")
    }
}
