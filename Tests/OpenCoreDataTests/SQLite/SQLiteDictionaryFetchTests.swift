import Foundation
import OpenCoreData
import OpenSQLStore
import OpenSQLiteStore
import TestSupport
import Testing

/// `NSFetchRequest<NSDictionary>` on an `NSSQLiteStoreType` store (compiled to one `SELECT`
/// with `GROUP BY`/`HAVING`/`DISTINCT`) gives the dictionaries the in-memory store type gives.
@Suite struct SQLiteDictionaryFetchTests {
    typealias Stack = SQLiteStoreTests.Stack

    /// The dictionary requests compared, each made for the stack's model.
    static let requests: [(String, (Stack) -> NSFetchRequest<NSDictionary>)] = [
        (
            "group by department title, having, sorted",
            { stack in
                let request = NSFetchRequest<NSDictionary>(entityName: "Employee")
                request.resultType = .dictionaryResultType
                request.propertiesToFetch = [
                    "department.title", aggregate("payroll", "sum:", "salary", .decimalAttributeType),
                    aggregate("n", "count:", "name", .integer64AttributeType),
                    aggregate("mean", "average:", "salary", .doubleAttributeType),
                    aggregate("firstBorn", "min:", "born", .dateAttributeType),
                ]
                request.propertiesToGroupBy = ["department.title"]
                request.havingPredicate = NSPredicate(format: "n > 1")
                request.sortDescriptors = [NSSortDescriptor(key: "department.title", ascending: false)]
                return request
            }
        ),
        (
            "group by a to-one relationship",
            { stack in
                let request = NSFetchRequest<NSDictionary>(entityName: "Employee")
                request.resultType = .dictionaryResultType
                let department = stack.model[entity: "Employee"].relationshipsByName["department"]
                request.propertiesToFetch = [department as Any, aggregate("top", "max:", "salary", .decimalAttributeType)]
                request.propertiesToGroupBy = [department as Any]
                request.havingPredicate = NSPredicate(format: "top >= 80000")
                return request
            }
        ),
        (
            "aggregates without grouping",
            { _ in
                let request = NSFetchRequest<NSDictionary>(entityName: "Person")
                request.resultType = .dictionaryResultType
                request.predicate = NSPredicate(format: "name BEGINSWITH[cd] %@", "crepe")
                request.propertiesToFetch = [
                    aggregate("n", "count:", "name", .integer64AttributeType),
                    aggregate("latest", "max:", "born", .dateAttributeType),
                    aggregate("lowest", "min:", "name", .stringAttributeType),
                ]
                return request
            }
        ),
        (
            "attributes, a NULL date left out, a to-one and a key path through it",
            { _ in
                let request = NSFetchRequest<NSDictionary>(entityName: "Employee")
                request.resultType = .dictionaryResultType
                request.propertiesToFetch = ["name", "born", "department", "department.title"]
                request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
                return request
            }
        ),
        (
            "distinct department titles, windowed",
            { _ in
                let request = NSFetchRequest<NSDictionary>(entityName: "Employee")
                request.resultType = .dictionaryResultType
                request.propertiesToFetch = ["department.title"]
                request.returnsDistinctResults = true
                request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
                request.fetchLimit = 2
                request.fetchOffset = 1
                return request
            }
        ),
    ]

    /// A result dictionary as text, objects by their name or title, keys sorted.
    static func text(_ dictionary: NSDictionary, in context: NSManagedObjectContext) -> String {
        dictionary.allKeys.map { "\($0)" }.sorted().map { key -> String in
            var value = dictionary[key]
            if let id = value as? NSManagedObjectID {
                let object = context.object(with: id)
                value = object.value(forKey: object.entity.name == "Department" ? "title" : "name")
            }
            return "\(key)=\(value.map { "\($0) (\(type(of: $0)))" } ?? "nil")"
        }
        .joined(separator: ", ")
    }

    @Test(arguments: requests.indices)
    func sqliteAnswersAsInMemory(_ index: Int) throws {
        let (label, make) = Self.requests[index]
        let folder = try TemporaryFolder()
        let sqlite = try Stack(url: folder.url.appendingPathComponent("Company.sqlite"))
        let memory = try Stack(type: NSInMemoryStoreType, url: nil)
        try SQLiteFetchCompilationTests.fill(sqlite)
        try SQLiteFetchCompilationTests.fill(memory)
        let expected = try memory.context.fetch(make(memory)).map { Self.text($0, in: memory.context) }
        let actual = try sqlite.context.fetch(make(sqlite)).map { Self.text($0, in: sqlite.context) }
        #expect(actual == expected, "\(label)")
        #expect(!actual.isEmpty, "\(label)")
    }

    /// The grouped request's answer, derived by hand from `SQLiteFetchCompilationTests.fill`:
    /// Labs has Crèpes Suzette 70 000, crepes (no salary) and Dee 120 000; Sales has Ann 50 000
    /// and bob (no salary); two people have no department.
    @Test func groupedAnswerIsKnown() throws {
        let folder = try TemporaryFolder()
        let sqlite = try Stack(url: folder.url.appendingPathComponent("Company.sqlite"))
        try SQLiteFetchCompilationTests.fill(sqlite)
        let results = try sqlite.context.fetch(Self.requests[0].1(sqlite))
        #expect(results.map { $0["department.title"] as? String } == ["Sales", "Labs", nil])
        #expect(results.map { $0["payroll"] as? Decimal } == [50_000, 190_000, 170_000])
        #expect(results.map { $0["n"] as? Int64 } == [2, 3, 2])
        #expect(results.map { $0["mean"] as? Double } == [50_000, 95_000, 85_000])
    }
}
