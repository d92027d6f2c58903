import Foundation
import OpenCoreData
import TestSupport
import Testing

/// `NSBatchUpdateRequest` on the SQL stores (the Office store of `BatchDeleteTests`): values and
/// expressions written in the store, versions raised, history recorded, bad input refused before
/// anything is written.
struct BatchUpdateTests {
    typealias Office = BatchDeleteTests.Office

    static func request(_ predicate: String?, _ properties: [AnyHashable: Any]) -> NSBatchUpdateRequest {
        let request = NSBatchUpdateRequest(entityName: "Employee")
        request.predicate = predicate.map { NSPredicate(format: $0) }
        request.propertiesToUpdate = properties
        return request
    }

    @Test(arguments: BatchDeleteTests.sqlStoreTypes)
    func constantsAndExpressionsAreWrittenToTheMatchedRows(storeType: String) throws {
        let office = try Office(storeType)
        let request = Self.request(
            "salary >= 60 AND department.title == 'Sales'",
            ["salary": NSExpression(format: "salary * 2 + 1"), "name": NSExpression(format: "uppercase:(name)")])
        request.resultType = .updatedObjectsCountResultType
        #expect((try office.execute(request)?.result as? NSNumber)?.intValue == 2)
        // On PostgreSQL, `uppercase:` (Foundation's rules) is computed row by row in memory.
        #expect(try office.values("Employee", "name") == ["Ann", "BOB", "CY", "Dee", "Eve"])
        #expect(try office.values("Employee", "salary") == ["121", "141", "50", "80", "90"])
    }

    @Test(arguments: BatchDeleteTests.sqlStoreTypes)
    func nilAndNSNullClearAValueAndAnExpressionConstantIsAValue(storeType: String) throws {
        let office = try Office(storeType)
        _ = try office.execute(
            Self.request("name == 'Ann'", ["salary": NSNull(), "name": NSExpression(forConstantValue: "Ada")]))
        _ = try office.execute(Self.request("name == 'Bob'", ["salary": NSExpression(forConstantValue: nil)]))
        #expect(try office.values("Employee", "name") == ["Ada", "Bob", "Cy", "Dee", "Eve"])
        #expect(try office.values("Employee", "salary") == ["70", "80", "90", "nil", "nil"])
    }

    @Test(arguments: BatchDeleteTests.sqlStoreTypes)
    func theIDsAreThoseOfTheRowsUpdatedAndTheirVersionsRise(storeType: String) throws {
        let office = try Office(storeType)
        // A context that read every employee before the update.
        let context = office.container.newBackgroundContext()
        let employees = try context.performAndWait {
            let employees = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Employee"))
            for employee in employees { _ = employee.value(forKey: "name") }
            return employees
        }
        let request = Self.request("salary > 75", ["salary": 1])
        request.resultType = .updatedObjectIDsResultType
        let ids = try #require(try office.execute(request)?.result as? [NSManagedObjectID])
        #expect(
            Set(ids)
                == Set(
                    context.performAndWait {
                        employees.filter { (($0.value(forKey: "salary") as? NSNumber)?.intValue ?? 0) > 75 }.map(\.objectID)
                    }))
        #expect(ids.count == 2)
        // Saving changes to all five conflicts with exactly the two rows the update wrote, each
        // one version further on.
        let conflicts: [NSMergeConflict] = context.performAndWait {
            for employee in employees { employee.setValue("renamed", forKey: "name") }
            do {
                try context.save()
                return []
            } catch {
                return (error as NSError).userInfo["conflictList"] as? [NSMergeConflict] ?? []
            }
        }
        #expect(Set(conflicts.map(\.sourceObject.objectID)) == Set(ids))
        for conflict in conflicts { #expect(conflict.newVersionNumber == conflict.oldVersionNumber + 1) }
    }

    /// A predicate the store can't compute in SQL (a division by a key path) is run as a fetch
    /// first; the rows it finds are updated by key.
    @Test(arguments: BatchDeleteTests.sqlStoreTypes)
    func aPredicateComputedInMemoryChoosesTheRowsByKey(storeType: String) throws {
        let office = try Office(storeType)
        let request = Self.request("1000 / salary > 15", ["name": "low"])
        request.resultType = .updatedObjectsCountResultType
        #expect((try office.execute(request)?.result as? NSNumber)?.intValue == 2)
        #expect(try office.values("Employee", "name") == ["Cy", "Dee", "Eve", "low", "low"])
    }

    @Test(arguments: BatchDeleteTests.sqlStoreTypes)
    func badInputIsRefusedBeforeAnythingIsWritten(storeType: String) throws {
        let office = try Office(storeType)
        // A predicate no SQL store runs, as Apple's refuses it.
        let blockPredicate = Self.request(nil, ["salary": 1])
        blockPredicate.predicate = NSPredicate { _, _ in true }
        let cases: [(NSBatchUpdateRequest, Int, String)] = [
            (Self.request(nil, ["salary": "lots"]), NSManagedObjectValidationError, "salary"),
            (Self.request(nil, ["salary": 1, "age": 3]), NSPersistentStoreUnsupportedRequestTypeError, "age"),
            (Self.request(nil, ["department": NSNull()]), NSPersistentStoreUnsupportedRequestTypeError, "department"),
            (
                Self.request(nil, ["salary": NSExpression(format: "department.title")]),
                NSPersistentStoreUnsupportedRequestTypeError,
                "salary"
            ),
            (Self.request(nil, ["salary": NSExpression(format: "name")]), NSPersistentStoreUnsupportedRequestTypeError, "salary"),
            // Refused on every store, though PostgreSQL would compute `uppercase:` row by row.
            (
                Self.request(nil, ["name": NSExpression(format: "uppercase:(department.title)")]),
                NSPersistentStoreUnsupportedRequestTypeError, "relationships"
            ),
            (Self.request(nil, [:]), NSCoreDataError, "propertiesToUpdate"),
            (NSBatchUpdateRequest(entityName: "Nobody"), NSCoreDataError, "Nobody"),
            (Self.request("nosuchkey == 1", ["salary": 1]), NSCoreDataError, "nosuchkey"),
            (blockPredicate, NSPersistentStoreUnsupportedRequestTypeError, "block"),
        ]
        for (request, code, named) in cases {
            if request.propertiesToUpdate == nil && request.entityName == "Nobody" { request.propertiesToUpdate = ["x": 1] }
            let failure = office.failure(of: request)
            #expect(failure?.code == code, "\(request.propertiesToUpdate ?? [:]): \(String(describing: failure))")
            #expect(failure?.localizedDescription.contains(named) == true, "\(String(describing: failure))")
        }
        #expect(try office.values("Employee", "salary") == ["50", "60", "70", "80", "90"])
    }

    @Test(arguments: BatchDeleteTests.sqlStoreTypes)
    func persistentHistoryRecordsTheUpdatedProperties(storeType: String) throws {
        let office = try Office(storeType, history: true)
        // `uppercase:` takes the row-by-row path on PostgreSQL: the same history either way.
        _ = try office.execute(
            Self.request(
                "salary < 65", ["salary": NSExpression(format: "salary + 5"), "name": NSExpression(format: "uppercase:(name)")]))
        let context = office.container.newBackgroundContext()
        let changes = try context.performAndWait {
            let transactions = try context.allHistoryTransactions()
            #expect(transactions.count == 2)
            return try #require(transactions.last?.changes).map { change in
                "\(change.changeType == .update ? "update" : "other") \(change.changedObjectID.entity.name ?? "")"
                    + (change.updatedProperties.map { " " + $0.map(\.name).sorted().joined(separator: ",") } ?? "")
            }
        }
        #expect(changes == ["update Employee name,salary", "update Employee name,salary"])
    }

    /// Another coordinator of the same store (another process, another server) hears of a batch
    /// request as of a save: it writes history, and the store's remote-change check posts
    /// `NSPersistentStoreRemoteChange` with a token that covers it.
    @Test(arguments: BatchDeleteTests.sqlStoreTypes)
    func anotherCoordinatorHearsOfABatchRequest(storeType: String) throws {
        let office = try Office(storeType, history: true)
        let url = try #require(office.container.persistentStoreDescriptions.first?.url)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: office.container.managedObjectModel)
        let store = try coordinator.addPersistentStore(
            ofType: storeType, configurationName: nil, at: url,
            options: [NSPersistentHistoryTrackingKey: true, NSPersistentStoreRemoteChangeNotificationPostOptionKey: true])
        defer { try? coordinator.remove(store) }
        let before = coordinator.currentPersistentHistoryToken(fromStores: nil)
        let received = PersistentHistoryFileTests.Received()
        let observer = NotificationCenter.default.addObserver(
            forName: .NSPersistentStoreRemoteChange, object: coordinator, queue: nil
        ) { received.add($0) }
        defer { NotificationCenter.default.removeObserver(observer) }
        _ = try office.execute(Self.request("salary > 75", ["salary": 1]))
        // The hook checks now (on PostgreSQL the store's NOTIFY may have woken the check first).
        _ = store.testingCheckForRemoteChanges()
        let deadline = Date().addingTimeInterval(30)
        while received.count < 1 && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        let notification = try #require(received.first)
        let token = try #require(notification.userInfo?[NSPersistentHistoryTokenKey] as? NSPersistentHistoryToken)
        #expect(token == coordinator.currentPersistentHistoryToken(fromStores: nil))
        #expect(token != before)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let changes = try context.performAndWait {
            let result = try context.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: before))
            let transactions = try #require((result as? NSPersistentHistoryResult)?.result as? [NSPersistentHistoryTransaction])
            return transactions.flatMap { $0.changes ?? [] }.map { $0.updatedProperties?.map(\.name) ?? [] }
        }
        #expect(changes == [["salary"], ["salary"]])
    }
}
