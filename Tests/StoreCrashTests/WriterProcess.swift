import Foundation
import OpenSQLStore
import OpenSQLiteStore

#if canImport(Glibc)
    import Glibc
#endif

/// `StoreCrashWriter` (or `ServerWorker`) running as a child process: its output lines as they
/// come, a line sent to its standard input, and a way to kill it with `SIGKILL`.
final class WriterProcess {
    let process = Process()
    private let output = Pipe()
    private let input = Pipe()
    private var buffer = Data()
    private(set) var lines: [String] = []

    /// An executable of the package beside this test bundle in the build folder.
    static func executable(_ name: String) -> URL {
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        while folder.pathExtension == "xctest" || folder.lastPathComponent == "Contents" || folder.lastPathComponent == "MacOS" {
            folder.deleteLastPathComponent()
        }
        return folder.appendingPathComponent(name)
    }

    init(_ arguments: [String], executable: String = "StoreCrashWriter") throws {
        process.executableURL = Self.executable(executable)
        process.arguments = arguments
        process.standardOutput = output
        process.standardInput = input
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    /// Writes `line` and a line feed to the process's standard input.
    func send(_ line: String) {
        input.fileHandleForWriting.write(Data((line + "\n").utf8))
    }

    /// Reads output until a line starts with `prefix` (true), the output ends, or `timeout`
    /// passes (false).
    func wait(for prefix: String, timeout: TimeInterval = 90) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if lines.contains(where: { $0.hasPrefix(prefix) }) { return true }
            let left = deadline.timeIntervalSinceNow
            guard left > 0, readSome(timeoutMilliseconds: Int32(min(left * 1000, 1000))) != 0 || process.isRunning else {
                return lines.contains(where: { $0.hasPrefix(prefix) })
            }
        }
    }

    /// Kills the process with `SIGKILL` and reads the rest of its output.
    func kill() {
        _ = Glibc.kill(process.processIdentifier, SIGKILL)
        finish()
    }

    /// Waits for the process to end and reads all of its output.
    func finish() {
        while readSome(timeoutMilliseconds: 10_000) > 0 {}
        process.waitUntilExit()
    }

    /// Reads what is there (waiting up to the timeout); returns the bytes read, 0 at the end,
    /// -1 when nothing came.
    @discardableResult
    private func readSome(timeoutMilliseconds: Int32) -> Int {
        let fd = output.fileHandleForReading.fileDescriptor
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, timeoutMilliseconds) > 0 else { return -1 }
        var chunk = [UInt8](repeating: 0, count: 4096)
        let count = read(fd, &chunk, chunk.count)
        guard count > 0 else { return 0 }
        buffer.append(contentsOf: chunk[0..<count])
        while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
            lines.append(String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self))
            buffer.removeSubrange(buffer.startIndex...newline)
        }
        return count
    }

    /// The batches whose save was acknowledged.
    var acknowledged: [Int] { lines.compactMap { $0.hasPrefix("ack ") ? Int($0.dropFirst(4)) : nil } }
    /// The `error CODE MESSAGE` line, if any.
    var errorLine: String? { lines.first { $0.hasPrefix("error ") } }
    var opened: Bool { lines.contains { $0.hasPrefix("opened") } }
}

/// What a store file holds, read with SQLite directly.
struct StoreState {
    /// Rows per batch.
    var batches: [Int: Int] = [:]
    var integrity = ""

    init(_ url: URL) throws {
        let connection = try SQLiteConnection(url: url, mode: .readWrite)
        let check = try connection.statement("PRAGMA integrity_check")
        var messages: [String] = []
        while try check.step() { messages.append(check.string(at: 0) ?? "") }
        integrity = messages.joined(separator: "; ")
        guard try connection.tableExists("ZITEM") else { return }
        let statement = try connection.statement("SELECT ZBATCH, count(*) FROM ZITEM GROUP BY ZBATCH")
        while try statement.step() { batches[Int(statement.int64(at: 0))] = Int(statement.int64(at: 1)) }
    }
}
