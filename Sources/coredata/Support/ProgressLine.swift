import Dispatch
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A line on standard error that says how far a long step is (rows done, rate, time left),
/// redrawn in place four times a second while the step runs, when standard error is a
/// terminal; nothing at all otherwise, so that scripts and logs see only the result lines.
///
/// The step reports through Foundation's implicit `Progress` composition: `run` makes a
/// progress current for its body, and the library's `migratePersistentStore` and
/// `NSMigrationManager.migrateStore` attach theirs to it.
struct ProgressLine {
    /// What the step does, as the line starts: "copying".
    let verb: String
    /// The rows the step goes through (counted before it starts).
    let rows: Int

    /// Whether a line is drawn: standard error is a terminal.
    static var isShown: Bool { isatty(FileHandle.standardError.fileDescriptor) != 0 }

    /// Runs `body` with a progress current on this thread, drawing the line meanwhile; the
    /// line is cleared when `body` returns or throws. No line for no rows.
    func run<Result>(_ body: () throws -> Result) rethrows -> Result {
        let progress = Progress(totalUnitCount: 1)
        progress.becomeCurrent(withPendingUnitCount: 1)
        defer { progress.resignCurrent() }
        guard rows > 0, Self.isShown else { return try body() }
        let started = DispatchTime.now()
        let queue = DispatchQueue(label: "coredata.progress")
        // The first line at once, so that even a short step shows what it does.
        Console.progress(text(fraction: 0, seconds: 0))
        let timer = DispatchSource.makeTimerSource(queue: queue)
        let line = self
        timer.setEventHandler {
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
            Console.progress(line.text(fraction: progress.fractionCompleted, seconds: seconds))
        }
        timer.schedule(deadline: .now() + .milliseconds(250), repeating: .milliseconds(250))
        timer.resume()
        defer {
            // On the timer's queue: no drawing is under way, and none comes after.
            queue.sync { timer.cancel() }
            FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
        }
        return try body()
    }

    /// The line for `fraction` of the rows done after `seconds`: "copying: 42,000 of 100,000
    /// rows (42%), 10,500 rows/s, 6 s left". The rate and time left wait for the first rows.
    func text(fraction: Double, seconds: Double) -> String {
        let done = min(max(Int((fraction * Double(rows)).rounded(.down)), 0), rows)
        var text = "\(verb): \(Self.grouped(done)) of \(Self.grouped(rows)) rows (\(Int(fraction * 100))%)"
        guard done > 0, seconds > 0 else { return text + ", \(Self.duration(seconds)) so far" }
        let rate = Double(done) / seconds
        text += ", \(Self.grouped(Int(rate.rounded()))) rows/s"
        let left = Double(rows - done) / rate
        return text + ", \(Self.duration(left)) left"
    }

    /// `1234567` as "1,234,567".
    static func grouped(_ number: Int) -> String {
        let digits = String(number)
        var result = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { result.append(",") }
            result.append(digit)
        }
        return result
    }

    /// A time in whole seconds, minutes and seconds, or hours and minutes: "9 s", "2 min 5 s",
    /// "1 h 3 min".
    static func duration(_ seconds: Double) -> String {
        let whole = seconds.isFinite ? Int(min(seconds, 1e9).rounded(.up)) : 0
        switch whole {
        case ..<60: return "\(max(whole, 0)) s"
        case ..<3600: return "\(whole / 60) min \(whole % 60) s"
        default: return "\(whole / 3600) h \((whole % 3600) / 60) min"
        }
    }
}
