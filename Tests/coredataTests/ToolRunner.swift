import CoreData
import TestSupport
import Testing

/// Runs the built `coredata` executable as a user does: a process, its stdout, stderr and status.
enum ToolRunner {
    struct Outcome {
        let status: Int32
        let stdout: String
        let stderr: String
        var stderrLines: [Substring] { stderr.split(separator: "\n") }
    }

    /// The `coredata` executable beside this test bundle in the build folder.
    static var executable: URL {
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        while folder.pathExtension == "xctest" || folder.lastPathComponent == "Contents" || folder.lastPathComponent == "MacOS" {
            folder.deleteLastPathComponent()
        }
        return folder.appendingPathComponent("coredata")
    }

    /// Runs `coredata arguments…` with `COLUMNS` set to `columns` (tables fit it); with
    /// `terminal`, its standard error is a terminal (a pseudo-terminal this process reads).
    static func run(_ arguments: [String], columns: Int = 200, terminal: Bool = false) throws -> Outcome {
        let folder = try TemporaryFolder(prefix: "coredata-run")
        let out = folder.file("stdout")
        let err = folder.file("stderr")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["COLUMNS"] = String(columns)
        process.environment = environment
        process.standardOutput = try FileHandle(forWritingTo: out)
        let pty = terminal ? try PseudoTerminal() : nil
        process.standardError = try pty?.terminal ?? FileHandle(forWritingTo: err)
        try process.run()
        let read = pty?.readUntilClosed()
        process.waitUntilExit()
        return Outcome(
            status: process.terminationStatus, stdout: String(decoding: try Data(contentsOf: out), as: UTF8.self),
            stderr: try read.map { String(decoding: $0(), as: UTF8.self) }
                ?? String(decoding: try Data(contentsOf: err), as: UTF8.self))
    }

    /// A new empty temporary folder, removed when the tests end.
    static func temporaryFolder(_ name: String) throws -> URL {
        try ExitRemovedFolders.make(prefix: "coredata-\(name)")
    }

    /// `../shared/realworld/stores/<name>` copied into a temporary folder (Apple's WAL stores
    /// must never be opened in place), or nil when `../shared` is not beside the package.
    static func realWorldStore(_ name: String) throws -> URL? {
        guard let stores = RealWorld.stores, FileManager.default.fileExists(atPath: stores.appendingPathComponent(name).path)
        else {
            print("skipped: ../shared/realworld/stores/\(name) is missing (the real-world stores live beside the package)")
            return nil
        }
        return try RealWorld.copyStore(name, into: temporaryFolder("realworld"))
    }
}

/// A pseudo-terminal: `terminal` is given to the child as its standard error, which then is a
/// terminal (`isatty`); what it writes is read from the other end.
final class PseudoTerminal {
    let controller: Int32
    let terminal: FileHandle

    /// Opens a new pair through `/dev/ptmx`, as `posix_openpt`, `unlockpt` and `ptsname` do
    /// (which Swift's Glibc module leaves out).
    init() throws {
        controller = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        var unlock: Int32 = 0
        var number: UInt32 = 0
        // TIOCSPTLCK and TIOCGPTN (Linux).
        guard controller >= 0, ioctl(controller, UInt(0x4004_5431), &unlock) == 0,
            ioctl(controller, UInt(0x8004_5430), &number) == 0
        else {
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "no pseudo-terminal (/dev/ptmx)"])
        }
        let descriptor = open("/dev/pts/\(number)", O_RDWR | O_NOCTTY)
        guard descriptor >= 0 else {
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "can't open /dev/pts/\(number)"])
        }
        terminal = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    }

    /// Closes this process's copy of the terminal (the child has its own) and reads on another
    /// thread until the child closes it; the function returns what was read, once it is.
    func readUntilClosed() -> () -> Data {
        try? terminal.close()
        let box = Box()
        let thread = Thread { [controller] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = read(controller, &buffer, buffer.count)
                guard count > 0 else { break }
                box.data.append(contentsOf: buffer[0..<count])
            }
            box.done.signal()
        }
        thread.start()
        return {
            box.done.wait()
            return box.data
        }
    }

    deinit { close(controller) }

    private final class Box: @unchecked Sendable {
        var data = Data()
        let done = DispatchSemaphore(value: 0)
    }
}
