import CoreData

/// A failure the tool reports itself: one line naming the culprit.
struct ToolError: Error, CustomStringConvertible {
    let message: String

    init(_ message: String) {
        self.message = message
    }

    var description: String { message }

    /// Wraps an error of the library (an `NSError` in `NSCocoaErrorDomain`) with what the tool
    /// was doing, keeping its message on one line.
    static func wrapping(_ error: Error, _ context: String) -> ToolError {
        if let error = error as? ToolError { return error }
        return ToolError("\(context): \(Console.oneLine((error as NSError).localizedDescription))")
    }
}

/// Writing to the terminal: results on stdout, progress and errors on stderr.
enum Console {
    /// Writes `text` and a newline to stdout.
    static func print(_ text: String = "") {
        Swift.print(text)
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

    /// The width tables must fit: `COLUMNS` from the environment, or 100.
    static var width: Int {
        if let columns = ProcessInfo.processInfo.environment["COLUMNS"], let value = Int(columns), value >= 20 {
            return value
        }
        return 100
    }
}
