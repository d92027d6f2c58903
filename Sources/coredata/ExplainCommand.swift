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

    @Flag(
        name: .long,
        help: "Print the plan as one JSON object (request, runs: sql, memory or narrowed, sql, arguments, queryPlan, reason).")
    var json = false

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
        if json {
            try Console.printJSON(jsonObject(explanation, request))
            return
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

    /// The explanation as JSON: `runs` is `sql`, `memory` or `narrowed` (SQL selects, memory
    /// decides); the statement's text, its bound values (`value` as text, `kind`; a date's
    /// `value` is seconds since 2001, with `iso8601` beside it) and the
    /// database's query plan lines where SQL runs; `reason` where memory does.
    private func jsonObject(_ explanation: FetchExplanation, _ request: NSFetchRequest<NSFetchRequestResult>) -> [String: Any] {
        var object: [String: Any] = [
            "request": ModelDescription.summary(request), "result": fetch.resultKind.rawValue,
        ]
        func add(_ query: SQLQuery, _ queryPlan: [String]) {
            object["sql"] = query.sql
            object["arguments"] = query.arguments.map { value -> [String: String] in
                let (text, kind) = Self.parts(value)
                switch value {
                case .string(let string): return ["value": string, "kind": kind]
                case .date(let date): return ["value": text, "kind": "date", "iso8601": Cell.iso8601(date)]
                default: return ["value": text, "kind": kind]
                }
            }
            object["queryPlan"] = queryPlan
        }
        switch explanation {
        case .sql(let query, let queryPlan):
            object["runs"] = "sql"
            add(query, queryPlan)
        case .inMemory(let reason):
            object["runs"] = "memory"
            object["reason"] = reason
        case .narrowed(let query, let queryPlan, let reason):
            object["runs"] = "narrowed"
            object["reason"] = reason
            add(query, queryPlan)
        }
        return object
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
        let (text, kind) = parts(value)
        return "\(text) (\(kind))"
    }

    /// A bound value as text, and its kind: (`300`, `integer`), (`"j"`, `text`).
    static func parts(_ value: StoreValue) -> (text: String, kind: String) {
        switch value {
        case .null: return ("NULL", "null")
        case .bool(let value): return ("\(value ? 1 : 0)", "boolean")
        case .integer(let value): return ("\(value)", "integer")
        case .double(let value): return ("\(value)", "real")
        case .decimal(let value): return ("\(value)", "decimal")
        case .string(let value): return (JSONWriter.quoted(value), "text")
        case .date(let value):
            return ("\(value.timeIntervalSinceReferenceDate)", "date: \(Cell.iso8601(value)), seconds since 2001")
        case .data(let value): return (Cell.data(value).tableText, "blob")
        case .uuid(let value): return (value.uuidString, "UUID")
        case .url(let value): return (value.absoluteString, "URL")
        case .object(let key): return ("\(key.primaryKey)", "primary key")
        case .objects(let keys): return (keys.map { String($0.primaryKey) }.joined(separator: ", "), "primary keys")
        }
    }
}
