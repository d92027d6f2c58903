import ArgumentParser
import CoreData

/// `coredata`: query any Core Data store from a terminal, or run the built-in demo.
///
/// Every failure ends the same way: one line on stderr, `coredata: error: …`, naming the culprit,
/// and a non-zero exit status (64 for a command line the parser refuses, 1 for anything else:
/// a predicate that does not parse, an unknown entity or key path, a missing or foreign file).
@main
struct CoreDataTool: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "coredata",
        abstract: "Query Core Data stores (Apple's SQLite layout) and models from the command line.",
        discussion: """
            Start with `coredata demo`: it builds a sample store and runs a tour of fetch requests.
            Stores are opened read-only unless `--write` is given.
            """,
        subcommands: [
            DemoCommand.self, FetchCommand.self, CountCommand.self, ExplainCommand.self, ModelCommand.self,
            StoresCommand.self, CheckCommand.self, CopyCommand.self,
        ])

    /// Parses the command line and runs the command, turning every error into one line on stderr.
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            let code = exitCode(for: error)
            // Help and version requests are "errors" that print their text and exit 0.
            if code == .success { exit(withError: error) }
            let message: String
            if let failure = error as? ToolError {
                message = failure.message
            } else if let nsError = error as NSError?, nsError.domain == NSCocoaErrorDomain {
                message = nsError.localizedDescription
            } else {
                message = Self.message(for: error)
            }
            Console.error(message)
            Foundation.exit(code.rawValue)
        }
    }
}
