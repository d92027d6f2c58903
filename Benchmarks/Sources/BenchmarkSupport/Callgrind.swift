// Child processes, and instruction counts from a child run under callgrind: what the fetch and
// save benchmarks share to put instructions beside their times.

import Foundation

/// The path of the program `name` on PATH, if it is there.
public func executableOnPath(_ name: String) -> String? {
    (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map { "\($0)/\(name)" }.first {
        FileManager.default.isExecutableFile(atPath: $0)
    }
}

/// Runs `executable` with `arguments` and this process's environment plus `extra`; its standard
/// output when it exits with status 0, else nil.
public func childOutput(_ executable: String, _ arguments: [String], environment extra: [String: String] = [:]) -> String? {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(extra) { $1 }
    let pipe = Pipe()
    process.standardOutput = pipe
    do { try process.run() } catch {
        FileHandle.standardError.write("\(executable): \(error)\n".data(using: .utf8) ?? Data())
        return nil
    }
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return process.terminationStatus == 0 ? output : nil
}

/// Runs this program again with `arguments` under callgrind (`--instr-atstart=no`: it counts
/// only what the child brackets with the Probes client requests), and reads back each dump's
/// total by its trigger, the name the child gave `probes_callgrind_dump`. Returns the child's
/// output (nil when it failed) and the totals; `dumps` is where the dump files go (a temporary
/// folder, removed, when nil).
public func callgrindCounts(
    arguments: [String], environment extra: [String: String], dumps kept: URL? = nil
) -> (output: String?, counts: [String: Double]) {
    guard let valgrind = executableOnPath("valgrind") else { return (nil, [:]) }
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("callgrind-\(UUID().uuidString)")
    let dumps = kept ?? scratch
    try? FileManager.default.createDirectory(at: dumps, withIntermediateDirectories: true)
    try? FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: scratch) }
    // Valgrind 3.19 gives up on the DWARF 5 debug information Swift 6 writes: the child runs a
    // copy without it (its symbol table, which names the functions, is kept).
    var program = CommandLine.arguments[0]
    let stripped = scratch.appendingPathComponent("program-nodebug").path
    if let objcopy = executableOnPath("objcopy"), childOutput(objcopy, ["--strip-debug", program, stripped]) != nil {
        program = stripped
    }
    let output = childOutput(
        valgrind,
        ["--tool=callgrind", "--quiet", "--instr-atstart=no", "--callgrind-out-file=\(dumps.path)/callgrind.out.%p", program]
            + arguments,
        environment: extra)
    // Each dump names what it counted in its trigger: "Client Request: <name>".
    var counts: [String: Double] = [:]
    for file in (try? FileManager.default.contentsOfDirectory(atPath: dumps.path)) ?? [] where file.hasPrefix("callgrind.out") {
        guard let text = try? String(contentsOfFile: "\(dumps.path)/\(file)", encoding: .utf8) else { continue }
        var trigger: String?
        var total: Double?
        for line in text.split(separator: "\n") {
            if line.hasPrefix("desc: Trigger: Client Request: ") {
                trigger = String(line.dropFirst("desc: Trigger: Client Request: ".count))
            } else if line.hasPrefix("totals:") || (total == nil && line.hasPrefix("summary:")) {
                total = line.split(separator: " ").dropFirst().first.flatMap { Double($0) }
            }
        }
        if let trigger, let total { counts[trigger] = total }
    }
    return (output, counts)
}
