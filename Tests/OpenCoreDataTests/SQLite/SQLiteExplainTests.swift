import Foundation
import OpenCoreData
import OpenSQLStore
import OpenSQLiteStore
import OpenStoreCore
import TestSupport
import Testing

/// `NSPersistentStoreCoordinator.explain(_:in:)`: what a request runs as in an SQLite store.
@Suite struct SQLiteExplainTests {
    typealias Stack = SQLiteStoreTests.Stack

    /// A filled company store, and the file's entity numbers of Employee and Manager.
    func stack(in folder: TemporaryFolder) throws -> (Stack, [Int64]) {
        let url = folder.url.appendingPathComponent("Company.sqlite")
        let stack = try Stack(url: url)
        try stack.fill()
        let connection = try SQLiteConnection(url: url, mode: .readOnly)
        let statement = try connection.statement(
            "SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME IN ('Employee', 'Manager') ORDER BY Z_ENT")
        var numbers: [Int64] = []
        while try statement.step() { numbers.append(statement.int64(at: 0)) }
        return (stack, numbers)
    }

    func request(_ format: String, sort: String? = nil) -> NSFetchRequest<NSManagedObject> {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Employee")
        request.predicate = NSPredicate(format: format)
        request.sortDescriptors = sort.map { [NSSortDescriptor(key: $0, ascending: true)] }
        return request
    }

    @Test func compiledRequestGivesSQLValuesAndQueryPlan() throws {
        let folder = try TemporaryFolder()
        let (stack, numbers) = try stack(in: folder)
        let explanation = try stack.coordinator.explain(request("salary > 60000", sort: "name"))
        guard case .sql(let query, let queryPlan) = explanation else {
            Issue.record("not compiled: \(explanation)")
            return
        }
        #expect(query.sql.hasPrefix("SELECT t0.Z_PK, t0.Z_ENT, t0.Z_OPT, "))
        #expect(query.sql.hasSuffix(" FROM ZPERSON t0 WHERE t0.Z_ENT IN (?, ?) AND t0.ZSALARY > ? ORDER BY t0.ZNAME, t0.Z_PK"))
        #expect(query.arguments == numbers.map(StoreValue.integer) + [.integer(60_000)])
        // Sorting by a column without an index needs SQLite's temporary B-tree.
        #expect(queryPlan.contains { $0.contains("USE TEMP B-TREE FOR ORDER BY") })
        #expect(queryPlan.contains { $0.contains("t0") })
        // The statement runs as explained.
        #expect(try stack.context.fetch(request("salary > 60000", sort: "name")).map { $0.value(forKey: "name") as? String } == ["Bob", "Cy", "Dee"])
    }

    /// IDs only, counts and batches explain the statement a fetch runs for them.
    @Test func outputsChooseTheStatement() throws {
        let folder = try TemporaryFolder()
        let (stack, _) = try stack(in: folder)
        let ids = request("name == 'Ann'")
        ids.includesPropertyValues = false
        let batched = request("name == 'Ann'")
        batched.fetchBatchSize = 10
        let count = request("name == 'Ann'")
        count.resultType = .countResultType
        let expected = [
            "SELECT t0.Z_PK, t0.Z_ENT FROM ZPERSON t0 WHERE t0.Z_ENT IN (?, ?) AND t0.ZNAME = ? ORDER BY t0.Z_PK",
            "SELECT t0.Z_PK, t0.Z_ENT FROM ZPERSON t0 WHERE t0.Z_ENT IN (?, ?) AND t0.ZNAME = ? ORDER BY t0.Z_PK",
            "SELECT COUNT(*) FROM ZPERSON t0 WHERE t0.Z_ENT IN (?, ?) AND t0.ZNAME = ?",
        ]
        for (request, sql) in zip([ids, batched, count], expected) {
            guard case .sql(let query, let queryPlan) = try stack.coordinator.explain(request) else {
                Issue.record("not compiled")
                continue
            }
            #expect(query.sql == sql)
            #expect(query.arguments.last == .string("Ann"))
            #expect(!queryPlan.isEmpty)
        }
    }

    /// A part not compiled yet is explained; one Apple's SQL store refuses (a block) is the
    /// error the fetch itself gives.
    @Test func inMemoryPlansSayWhy() throws {
        let folder = try TemporaryFolder()
        let (stack, _) = try stack(in: folder)
        let median = NSFetchRequest<NSManagedObject>(entityName: "Employee")
        median.predicate = NSPredicate(format: "name.uppercaseString == 'ANN'")
        guard case .inMemory(let reason) = try stack.coordinator.explain(median) else {
            Issue.record("name.uppercaseString compiled")
            return
        }
        #expect(reason.contains("uppercaseString"), "\(reason)")
        let block = NSFetchRequest<NSManagedObject>(entityName: "Employee")
        block.predicate = NSPredicate { _, _ in true }
        let refused = try #require(throws: NSError.self) { try stack.coordinator.explain(block) }
        #expect(refused.code == 134_091)
        #expect(refused.localizedDescription.contains("block"))
    }

    @Test func badRequestsAndMissingStoresAreErrors() throws {
        let folder = try TemporaryFolder()
        let (stack, _) = try stack(in: folder)
        let unknown = try #require(throws: NSError.self) { try stack.coordinator.explain(request("wage > 3")) }
        #expect(unknown.localizedDescription.contains("wage"))
        let memory = try Stack(type: NSInMemoryStoreType, url: nil)
        let noSQLite = try #require(throws: NSError.self) { try memory.coordinator.explain(request("name == 'Ann'")) }
        #expect(noSQLite.code == NSCoreDataError)
        #expect(noSQLite.localizedDescription.contains("Employee"))
    }
}
