import Foundation
import Testing

/// `swift run coredata demo`, the README's first command, run as a user runs it: a process, its
/// output and its exit status.
@Suite struct DemoCommandTests {
    /// The `coredata` executable beside this test bundle in the build folder.
    static var executable: URL {
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        while folder.pathExtension == "xctest" || folder.lastPathComponent == "Contents" || folder.lastPathComponent == "MacOS" {
            folder.deleteLastPathComponent()
        }
        return folder.appendingPathComponent("coredata")
    }

    static func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test func demoRunsTheTour() throws {
        let (status, output) = try Self.run(["demo"])
        #expect(status == 0)
        #expect(output.contains("salary > 50000 AND lastName BEGINSWITH[c] \"j\"\n    → Ada, Chen"))
        #expect(output.contains("lastName BEGINSWITH[cd] \"crepes\"\n    → Bo"))
        #expect(output.contains("Sorted by department.name, then salary descending:\n  Dara, Ada, Chen, Bo, Eli"))
        #expect(output.contains("sum:(salaries) = 305750"))
        #expect(output.contains("Unable to parse the format string \"salary > AND name == 'x'\" at line 1, column 10"))
    }

    @Test func unknownCommandIsAUsageError() throws {
        let (status, output) = try Self.run(["nonsense"])
        #expect(status == 2)
        #expect(output.contains("usage: coredata demo"))
    }
}
