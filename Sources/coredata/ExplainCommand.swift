import ArgumentParser
import CoreData
import OpenCoreData
import OpenSQLStore
import OpenSQLiteStore
import OpenStoreCore

/// `coredata explain`: how an SQL store (SQLite or PostgreSQL) would run a fetch request, without
/// running it.
struct ExplainCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "explain",
        abstract: "Show the SQL, bound values and query plan of a fetch request, or why it runs in memory.",
        discussion: """
            Takes the options of `fetch`. The request is checked and planned as a fetch plans it; \
            nothing is read but the schema.
            """)

    @OptionGroup var fetch: FetchOptions

    func run() throws {
        let session = try FetchSession(fetch)
        let request = session.request
        let explanation: FetchExplanation
        do {
            guard let coordinator = session.context.persistentStoreCoordinator else { throw ToolError("no coordinator") }
            explanation = try coordinator.explain(request)
        } catch {
            throw ToolError.wrapping(error, "can't plan the fetch of \(request.entityName ?? "")")
        }
        Console.print("\(ModelDescription.summary(request)) (\(fetch.resultKind.rawValue))")
        switch explanation {
        case .sql(let query, let queryPlan):
            printStatement(query, queryPlan)
        case .inMemory(let reason):
            Console.print("Runs in memory, not in SQL: \(reason)")
            Console.print("(the store reads every row of the store and evaluates the request in memory)")
        case .narrowed(let query, let queryPlan, let reason):
            Console.print("Runs in memory, over the rows SQL selects: \(reason)")
            Console.print("(SQL keeps the rows that can match; memory tests them, then sorts and limits)")
            printStatement(query, queryPlan)
        }
    }

    private func printStatement(_ query: SQLQuery, _ queryPlan: [String]) {
        Console.print("SQL:\n  \(query.sql)")
        Console.print("Bound values:")
        if query.arguments.isEmpty { Console.print("  (none)") }
        for (index, value) in query.arguments.enumerated() {
            Console.print("  \(index + 1). \(Self.describe(value))")
        }
        Console.print(
            fetch.store.lowercased().hasPrefix("postgres") ? "Query plan (EXPLAIN):" : "Query plan (EXPLAIN QUERY PLAN):")
        for line in queryPlan { Console.print("  \(line)") }
    }

    /// A bound value with its kind: `300 (integer)`, `"j" (text)`.
    static func describe(_ value: StoreValue) -> String {
        switch value {
        case .null: return "NULL"
        case .bool(let value): return "\(value ? 1 : 0) (boolean)"
        case .integer(let value): return "\(value) (integer)"
        case .double(let value): return "\(value) (real)"
        case .decimal(let value): return "\(value) (decimal)"
        case .string(let value): return "\(JSONFormatter.quoted(value)) (text)"
        case .date(let value):
            return "\(value.timeIntervalSinceReferenceDate) (date: \(Cell.iso8601(value)), seconds since 2001)"
        case .data(let value): return "\(Cell.data(value).tableText) (blob)"
        case .uuid(let value): return "\(value.uuidString) (UUID)"
        case .url(let value): return "\(value.absoluteString) (URL)"
        case .object(let key): return "\(key.primaryKey) (primary key)"
        case .objects(let keys): return "\(keys.map { String($0.primaryKey) }.joined(separator: ", ")) (primary keys)"
        }
    }
}
