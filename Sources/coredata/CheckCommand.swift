import ArgumentParser
import CoreData
import OpenCoreData
import OpenSQLStore
import OpenSQLiteStore

/// `coredata check`: whether a store file is sound and its to-one keys name rows that exist.
struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check a store: SQLite's integrity check and every to-one key (dangling or of the wrong entity).",
        discussion: """
            Opens the store read-only with the model and prints one line per problem: a to-one key \
            that names no row of its destination, or a row of another entity (an app reading such a \
            relationship gets a deleted object with nil values, as Apple's inaccessible faults). Prints "ok" and \
            exits 0 when there is none; exits 1 otherwise (3 when the store cannot be opened).
            """)

    @Option(
        name: .long, help: "The model (.xcdatamodeld, .xcdatamodel or contents file; default: the model the store caches).")
    var model: String?

    @Option(name: .long, help: "A Core Data SQLite store file.")
    var store: String

    @Flag(name: .long, help: "Print the findings as one JSON object (integrity, danglingToOneKeys, problems).")
    var json = false

    func run() throws {
        let model = try StoreOpener.model(at: model, orCachedIn: store)
        let context = try StoreOpener.context(model: model, storePath: store, write: false)
        guard let store = context.persistentStoreCoordinator?.persistentStores.first else {
            throw ToolError("can't open the store \(self.store)")
        }
        let report: (integrity: [String], danglingKeys: [DanglingToOneKey])?
        do {
            report = try store.checkFile()
        } catch {
            throw ToolError.wrapping(error, "can't check the store \(self.store)")
        }
        guard let report else { throw ToolError("the store \(self.store) is not an SQLite store") }
        let integrity = report.integrity == ["ok"] ? [] : report.integrity
        let problems = integrity.count + report.danglingKeys.count
        if json {
            try printJSON(integrity: integrity, danglingKeys: report.danglingKeys, problems: problems)
        } else {
            for line in integrity { Console.print("integrity: \(line)") }
            for key in report.danglingKeys { Console.print("dangling to-one key: \(key)") }
        }
        guard problems == 0 else {
            throw ToolError("\(problems) problem(s) in the store \(self.store)", status: ExitStatus.findings)
        }
        if !json { Console.print("ok") }
    }

    /// The findings as one JSON object: SQLite's integrity messages (empty when sound), each
    /// dangling to-one key with its parts, and how many problems there are in all.
    private func printJSON(integrity: [String], danglingKeys: [DanglingToOneKey], problems: Int) throws {
        let keys: [[String: Any]] = danglingKeys.map {
            [
                "entity": $0.entity, "primaryKey": $0.primaryKey, "relationship": $0.relationship,
                "destination": $0.destination, "key": $0.key, "problem": $0.problem,
            ]
        }
        try Console.printJSON(["integrity": integrity, "danglingToOneKeys": keys, "problems": problems])
    }
}
