import ArgumentParser
import CoreData

/// `coredata`: query any Core Data store from a terminal, or run the built-in demo.
///
/// Every failure ends the same way: one line on stderr, `coredata: error: …`, naming the culprit,
/// and a non-zero exit status (`ExitStatus`): 1 when `check` finds problems, 2 for a command line
/// the parser refuses, 3 when the command cannot open or run what it was given (a missing or
/// foreign file, a predicate that does not parse, an unknown entity or key path).
@main
struct CoreDataTool: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "coredata",
        abstract: "Query Core Data stores (Apple's SQLite layout) and models from the command line.",
        discussion: """
            Start with `coredata demo`: it builds a sample store and runs a tour of fetch requests.
            Stores are opened read-only unless `--write` is given.

            Exit status: 0 done; 1 `check` found problems; 2 the command line is wrong; 3 the \
            command could not open or run what it was given. `coredata --generate-completion-script \
            bash` (or zsh, fish) prints a shell completion script.
            """,
        version: ToolVersion.text,
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
            // The parser's own refusals (ArgumentParser's status 64) are usage errors.
            let status = (error as? ToolError)?.status ?? (code == .validationFailure ? ExitStatus.usage : ExitStatus.cannotRun)
            let message: String
            if let failure = error as? ToolError {
                message = failure.message
            } else if let nsError = error as NSError?, nsError.domain == NSCocoaErrorDomain {
                message = nsError.localizedDescription
            } else {
                message = Self.message(for: error)
            }
            Console.error(message)
            Foundation.exit(status)
        }
    }
}
