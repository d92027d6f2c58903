import Foundation
import OpenCoreData
import Testing

/// `fetchBatchSize`, `includesPropertyValues` and `relationshipKeyPathsForPrefetching`, counted
/// in store calls through the in-memory store's test hook.
@Suite struct FetchBatchingTests {
    /// A second context on the fixture's coordinator (so nothing is registered or cached yet)
    /// and the store with its counters at zero.
    static func freshContext(_ fixture: ContextFixture) -> NSManagedObjectContext {
        let context = fixture.freshContext()
        fixture.store.resetTestingStoreCalls()
        return context
    }

    @Test func batchesLoadOneWindowPerStoreCall() throws {
        let fixture = try ContextFixture()
        let context = Self.freshContext(fixture)
        let request = fixture.request("Employee", sort: [("name", true)])
        request.fetchBatchSize = 2
        let employees = try context.fetch(request)
        // The whole request was evaluated (every ID is known) in one call; no data yet.
        #expect(employees.count == 4 && employees.allSatisfy(\.isFault))
        #expect(fixture.store.testingStoreCalls == (1, 0, 0))
        // Touching element 0 loads the window 0..<2 in one call; element 1 costs nothing more.
        #expect(employees[0].value(forKey: "name") as? String == "Ann")
        #expect(fixture.store.testingStoreCalls == (1, 0, 1))
        #expect(employees[1].value(forKey: "name") as? String == "Bob")
        #expect(fixture.store.testingStoreCalls == (1, 0, 1))
        // The next window: one more call, whichever element is touched first.
        #expect(employees[3].value(forKey: "name") as? String == "Dee")
        #expect(employees[2].value(forKey: "name") as? String == "Cy")
        #expect(fixture.store.testingStoreCalls == (1, 0, 2))
    }

    /// Two windows keep their values; older ones turn back into faults (unless changed) and
    /// reload as a window when touched again.
    @Test func olderWindowsTurnBackIntoFaults() throws {
        let fixture = try ContextFixture()
        let context = Self.freshContext(fixture)
        let request = fixture.request("Employee", sort: [("name", true)])
        request.fetchBatchSize = 1
        let employees = try context.fetch(request)
        #expect(employees[0].value(forKey: "name") as? String == "Ann")
        employees[1].setValue("Bobby", forKey: "name")
        #expect(employees[2].value(forKey: "name") as? String == "Cy")
        #expect(fixture.store.testingStoreCalls == (1, 0, 3))
        // Ann's window was loaded longest ago: a fault again. Bob has changes: kept.
        #expect(employees[0].isFault)
        #expect(!employees[1].isFault && employees[1].value(forKey: "name") as? String == "Bobby")
        #expect(!employees[2].isFault)
        #expect(employees[3].value(forKey: "name") as? String == "Dee")
        #expect(employees[0].value(forKey: "name") as? String == "Ann")
        #expect(fixture.store.testingStoreCalls == (1, 0, 5))
        #expect(employees[2].isFault && employees[1].value(forKey: "name") as? String == "Bobby")
    }

    @Test func batchesWithPendingChangesAndALimit() throws {
        let fixture = try ContextFixture()
        let context = Self.freshContext(fixture)
        let eve = NSManagedObject(entity: fixture.model[entity: "Employee"], insertInto: context)
        eve.setValue("Eve", forKey: "name")
        let request = fixture.request("Employee", sort: [("name", false)])
        request.fetchBatchSize = 3
        request.fetchLimit = 4
        let employees = try context.fetch(request)
        #expect(employees.map { $0.value(forKey: "name") as? String } == ["Eve", "Dee", "Cy", "Bob"])
        // Sorting with pending changes reads every candidate: one call loads their rows.
        #expect(fixture.store.testingStoreCalls == (1, 0, 1))
    }

    @Test func withoutPropertyValuesOnlyIDsAreFetched() throws {
        let fixture = try ContextFixture()
        let context = Self.freshContext(fixture)
        let request = fixture.request("Employee", "salary > 60000", sort: [("salary", true)])
        request.includesPropertyValues = false
        request.returnsObjectsAsFaults = false  // ignored: there is no data to fill them with
        let employees = try context.fetch(request)
        #expect(employees.count == 3 && employees.allSatisfy(\.isFault))
        #expect(fixture.store.testingStoreCalls == (1, 0, 0))
        // Each fault fetches its own data when it fires.
        #expect(employees[0].value(forKey: "name") as? String == "Bob")
        #expect(fixture.store.testingStoreCalls == (1, 1, 0))
        #expect(employees[2].value(forKey: "salary") as? Decimal == 120_000)
        #expect(fixture.store.testingStoreCalls == (1, 2, 0))
    }

    @Test func prefetchingLoadsEachStepInOneCall() throws {
        let fixture = try ContextFixture()
        let context = Self.freshContext(fixture)
        let request = fixture.request("Employee", "name == 'Ann'")
        request.relationshipKeyPathsForPrefetching = ["department.employees"]
        let ann = try #require(try context.fetch(request).first)
        // The fetch, then one call for the departments and one for their employees.
        #expect(fixture.store.testingStoreCalls == (1, 0, 2))
        fixture.store.resetTestingStoreCalls()
        let sales = try #require(ann.value(forKey: "department") as? NSManagedObject)
        #expect(sales.value(forKey: "title") as? String == "Sales")
        let staff = try #require(sales.value(forKey: "employees") as? Set<NSManagedObject>)
        #expect(Set(staff.compactMap { $0.value(forKey: "name") as? String }) == ["Ann", "Bob"])
        #expect(fixture.store.testingStoreCalls == (0, 0, 0), "every fault filled from the prefetched rows")
    }

    @Test func prefetchingThroughToManyFirst() throws {
        let fixture = try ContextFixture()
        let context = Self.freshContext(fixture)
        let request = fixture.request("Manager")
        request.relationshipKeyPathsForPrefetching = ["reports.department", "department"]
        let dee = try #require(try context.fetch(request).first)
        #expect(fixture.store.testingStoreCalls == (1, 0, 2), "Labs was loaded by the first path")
        fixture.store.resetTestingStoreCalls()
        let reports = try #require(dee.value(forKey: "reports") as? NSOrderedSet)
        let cy = try #require(reports.firstObject as? NSManagedObject)
        #expect(cy.value(forKey: "name") as? String == "Cy")
        #expect((cy.value(forKey: "department") as? NSManagedObject)?.value(forKey: "title") as? String == "Labs")
        #expect(fixture.store.testingStoreCalls == (0, 0, 0))
    }

    @Test func prefetchingWithBatchesPrefetchesPerWindow() throws {
        let fixture = try ContextFixture()
        let context = Self.freshContext(fixture)
        let request = fixture.request("Employee", sort: [("name", true)])
        request.fetchBatchSize = 2
        request.relationshipKeyPathsForPrefetching = ["department"]
        let employees = try context.fetch(request)
        #expect(fixture.store.testingStoreCalls == (1, 0, 0))
        #expect((employees[0].value(forKey: "department") as? NSManagedObject)?.value(forKey: "title") as? String == "Sales")
        #expect(fixture.store.testingStoreCalls == (1, 0, 2), "the window's rows, then its departments")
    }

    @Test func aPrefetchPathThatIsNotARelationshipIsAnError() throws {
        let fixture = try ContextFixture()
        let request = fixture.request("Employee")
        request.relationshipKeyPathsForPrefetching = ["department.title"]
        let error = #expect(throws: NSError.self) { try fixture.context.fetch(request) }
        #expect(error?.localizedDescription.contains("department.title") == true)
    }
}
