import ArgumentParser
import CoreData

/// `coredata explain`: how the SQLite store would run a fetch request.
struct ExplainCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "explain", abstract: "Show the SQL, bound values and SQLite query plan of a fetch request.")

    @OptionGroup var fetch: FetchOptions

    func run() throws {
        throw ToolError("explain is not available yet")
    }
}
