import CoreData

#if canImport(Glibc)
    import Glibc
#endif

/// A failure the tool reports itself: one line naming the culprit, and the exit status it ends
/// with (see `CoreDataTool`).
struct ToolError: Error, CustomStringConvertible {
    let message: String
    /// **Default:** `ExitStatus.cannotRun`.
    let status: Int32

    init(_ message: String, status: Int32 = ExitStatus.cannotRun) {
        self.message = message
        self.status = status
    }

    var description: String { message }

    /// Wraps an error of the library (an `NSError` in `NSCocoaErrorDomain`) with what the tool
    /// was doing, keeping its message on one line.
    static func wrapping(_ error: Error, _ context: String) -> ToolError {
        if let error = error as? ToolError { return error }
        return ToolError("\(context): \(Console.oneLine((error as NSError).localizedDescription))")
    }
}

/// The tool's exit statuses.
enum ExitStatus {
    /// Done, and nothing found that the command reports as a problem.
    static let success: Int32 = 0
    /// Done, with findings: `check` found problems.
    static let findings: Int32 = 1
    /// The command line is wrong: an unknown option, a missing or malformed argument.
    static let usage: Int32 = 2
    /// The command could not open what it was given or could not run: a missing or foreign file,
    /// a model that does not load, a predicate that does not parse, an unknown entity.
    static let cannotRun: Int32 = 3
}

/// Writing to the terminal: results on stdout, progress and errors on stderr.
enum Console {
    /// Writes `text` and a newline to stdout.
    static func print(_ text: String = "") {
        Swift.print(text)
    }

    /// Writes `text` as it is to stdout (buffered as C's `stdout` is: by line on a terminal).
    static func write(_ text: String) {
        Swift.print(text, terminator: "")
    }

    /// Writes a JSON value (dictionaries, arrays, strings, numbers, `NSNull`) to stdout as one
    /// line, keys sorted, for scripts (`jq`).
    static func printJSON(_ value: Any) throws {
        let data: Data
        do {
            data = try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .withoutEscapingSlashes])
        } catch {
            throw ToolError.wrapping(error, "can't write JSON")
        }
        print(String(decoding: data, as: UTF8.self))
    }

    /// Writes one error line to stderr: `coredata: error: <message>`.
    static func error(_ message: String) {
        FileHandle.standardError.write(Data("coredata: error: \(oneLine(message))\n".utf8))
    }

    /// Writes one warning line to stderr: `coredata: warning: <message>`.
    static func warning(_ message: String) {
        FileHandle.standardError.write(Data("coredata: warning: \(oneLine(message))\n".utf8))
    }

    /// Writes one line of information to stderr: `coredata: <message>`.
    static func note(_ message: String) {
        FileHandle.standardError.write(Data("coredata: \(oneLine(message))\n".utf8))
    }

    /// Writes a progress line to stderr, overwritten in place when stderr is a terminal.
    static func progress(_ text: String, done: Bool = false) {
        if isatty(2) != 0 {
            FileHandle.standardError.write(Data("\r\u{1B}[K\(text)\(done ? "\n" : "")".utf8))
        } else if done {
            FileHandle.standardError.write(Data("\(text)\n".utf8))
        }
    }

    /// `text` with its line breaks turned into spaces (and runs of spaces collapsed), so that an
    /// error always fits one line.
    static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
    }

    /// The width tables must fit: `COLUMNS` from the environment, else the terminal's width when
    /// standard output is a terminal, else 100.
    static var width: Int {
        if let columns = ProcessInfo.processInfo.environment["COLUMNS"], let value = Int(columns), value >= 20 {
            return value
        }
        return terminalWidth.map { max($0, 20) } ?? 100
    }

    /// The width of the terminal standard output goes to; nil when it is not a terminal.
    private static var terminalWidth: Int? {
        #if canImport(Glibc)
            guard isatty(STDOUT_FILENO) == 1 else { return nil }
            var size = winsize()
            guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
            return Int(size.ws_col)
        #else
            return nil
        #endif
    }
}
