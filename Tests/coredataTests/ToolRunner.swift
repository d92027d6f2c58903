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

    /// Runs `coredata arguments…` with `COLUMNS` set to `columns` (tables fit it).
    static func run(_ arguments: [String], columns: Int = 200) throws -> Outcome {
        let folder = try TemporaryFolder(prefix: "coredata-run")
        let out = folder.file("stdout")
        let err = folder.file("stderr")
        FileManager.default.createFile(atPath: out.path, contents: nil)
        FileManager.default.createFile(atPath: err.path, contents: nil)
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["COLUMNS"] = String(columns)
        process.environment = environment
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        try process.run()
        process.waitUntilExit()
        return Outcome(
            status: process.terminationStatus, stdout: String(decoding: try Data(contentsOf: out), as: UTF8.self),
            stderr: String(decoding: try Data(contentsOf: err), as: UTF8.self))
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
