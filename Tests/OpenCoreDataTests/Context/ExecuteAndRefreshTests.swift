import Foundation
import OpenCoreData
import Testing

@Suite struct ExecuteAndRefreshTests {
    @Test(arguments: ContextFixture.storeTypes) func asynchronousFetchDeliversOnTheContextsQueue(_ storeType: String) async throws
    {
        let fixture = try ContextFixture(storeType: storeType)
        let request = fixture.request("Employee", "salary > 60000", sort: [("name", true)])
        let names: [String] = try await withCheckedThrowingContinuation { continuation in
            let asynchronous = NSAsynchronousFetchRequest(fetchRequest: request) { result in
                if let error = result.operationError { continuation.resume(throwing: error); return }
                continuation.resume(returning: (result.finalResult ?? []).map { $0.value(forKey: "name") as? String ?? "?" })
            }
            do {
                let result = try fixture.context.execute(asynchronous)
                #expect(result is NSAsynchronousFetchResult<NSManagedObject>)
            } catch {
                continuation.resume(throwing: error)
            }
        }
        #expect(names == ["Bob", "Cy", "Dee"])
    }

    @Test(arguments: ContextFixture.storeTypes) func otherRequestsAreRefusedByExecute(_ storeType: String) throws {
        let fixture = try ContextFixture(storeType: storeType)
        do {
            _ = try fixture.context.execute(fixture.request("Employee"))
            Issue.record("a plain fetch request was executed")
        } catch {
            #expect((error as NSError).code == NSPersistentStoreUnsupportedRequestTypeError)
        }
    }

    /// A refetch keeps what the context holds unless `shouldRefreshRefetchedObjects`; unsaved
    /// changes survive either way.
    @Test(arguments: ContextFixture.storeTypes) func shouldRefreshRefetchedObjects(_ storeType: String) throws {
        let fixture = try ContextFixture(storeType: storeType)
        let mine = fixture.context
        let ann = try #require(try mine.fetch(fixture.request("Employee", "name == 'Ann'")).first)
        let bob = try #require(try mine.fetch(fixture.request("Employee", "name == 'Bob'")).first)
        #expect(ann.value(forKey: "salary") as? Decimal == 50_000)
        bob.setValue("Robert", forKey: "name")

        let theirs = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        theirs.persistentStoreCoordinator = fixture.coordinator
        for object in try theirs.fetch(fixture.request("Employee", "name IN {'Ann', 'Bob'}")) {
            object.setValue(Decimal(1), forKey: "salary")
        }
        try theirs.save()

        let plain = try mine.fetch(fixture.request("Employee", "salary < 100000", sort: [("name", true)]))
        #expect(plain.contains { $0 === ann })
        #expect(ann.value(forKey: "salary") as? Decimal == 50_000)  // still the value it had

        let refreshing = fixture.request("Employee", "salary < 100000", sort: [("name", true)])
        refreshing.shouldRefreshRefetchedObjects = true
        let refreshed = try mine.fetch(refreshing)
        #expect(refreshed.contains { $0 === ann })
        #expect(ann.value(forKey: "salary") as? Decimal == 1)  // the store's value now
        #expect(bob.value(forKey: "name") as? String == "Robert")  // unsaved change kept
    }

    /// Faults fire from the rows their fetch read unless those rows are older than
    /// `stalenessInterval`; then the store's current values come in, another context's save
    /// included.
    @Test(arguments: ContextFixture.storeTypes) func stalenessIntervalDecidesWhereFaultsFireFrom(_ storeType: String) throws {
        let fixture = try ContextFixture(storeType: storeType)
        var contexts: [NSManagedObjectContext] = []  // objects keep no strong reference to theirs
        func fetchedFaults(_ interval: TimeInterval) throws -> [NSManagedObject] {
            let mine = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            mine.persistentStoreCoordinator = fixture.coordinator
            mine.stalenessInterval = interval
            contexts.append(mine)
            return try mine.fetch(fixture.request("Employee", "name IN {'Ann', 'Bob'}", sort: [("name", true)]))
        }
        let unlimited = try fetchedFaults(-1)
        let always = try fetchedFaults(0)
        let hour = try fetchedFaults(3600)
        let laterAlways = try fetchedFaults(-1)  // an interval set after the fetch
        #expect(unlimited.allSatisfy(\.isFault) && always.allSatisfy(\.isFault) && hour.allSatisfy(\.isFault))

        let theirs = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        theirs.persistentStoreCoordinator = fixture.coordinator
        for object in try theirs.fetch(fixture.request("Employee", "name == 'Ann'")) {
            object.setValue(Decimal(7), forKey: "salary")
        }
        try theirs.save()

        #expect(unlimited[0].value(forKey: "salary") as? Decimal == 50_000)  // the fetched row
        #expect(hour[0].value(forKey: "salary") as? Decimal == 50_000)  // fetched less than an hour ago
        #expect(always[0].value(forKey: "salary") as? Decimal == 7)  // read again from the store
        #expect(always[1].value(forKey: "salary") as? Decimal == 70_000)
        // Rows fetched while no interval was set have no known age: stale once one is.
        contexts[3].stalenessInterval = 3600
        #expect(laterAlways[0].value(forKey: "salary") as? Decimal == 7)
        #expect(contexts.count == 4)
    }
}

@Suite struct ChangedValuesTests {
    /// `changedValues()` gives new values since the last save; `changedValuesForCurrentEvent()`
    /// the old values since the context last announced its changes.
    @Test(arguments: ContextFixture.storeTypes) func currentEventHasTheOldValues(_ storeType: String) throws {
        let fixture = try ContextFixture(storeType: storeType)
        let ann = try #require(try fixture.context.fetch(fixture.request("Employee", "name == 'Ann'")).first)
        ann.setValue(Decimal(1), forKey: "salary")
        ann.setValue(Decimal(2), forKey: "salary")
        #expect(ann.changedValues()["salary"] as? Decimal == 2)
        #expect(ann.changedValuesForCurrentEvent()["salary"] as? Decimal == 50_000)
        fixture.context.processPendingChanges()
        #expect(ann.changedValuesForCurrentEvent().isEmpty)
        ann.setValue("Anne", forKey: "name")
        #expect(ann.changedValuesForCurrentEvent().keys.sorted() == ["name"])
        #expect(ann.changedValuesForCurrentEvent()["name"] as? String == "Ann")
        #expect(Set(ann.changedValues().keys) == ["salary", "name"])
    }

    /// An object inserted since the context last announced its changes had no values before
    /// this event: it reports no old ones, however often it changes. Once announced, its
    /// changes report their old values like any object's.
    @Test(arguments: ContextFixture.storeTypes) func aNewObjectHasNoOldValuesInItsFirstEvent(_ storeType: String) throws {
        let fixture = try ContextFixture(storeType: storeType)
        let entity = try #require(fixture.model.entitiesByName["Department"])
        let department = NSManagedObject(entity: entity, insertInto: fixture.context)
        department.setValue("Ops", forKey: "title")
        department.setValue("Ops 2", forKey: "title")
        #expect(department.changedValuesForCurrentEvent().isEmpty)
        #expect(department.changedValues()["title"] as? String == "Ops 2")
        fixture.context.processPendingChanges()
        department.setValue("Ops 3", forKey: "title")
        #expect(department.changedValuesForCurrentEvent().keys.sorted() == ["title"])
        #expect(department.changedValuesForCurrentEvent()["title"] as? String == "Ops 2")
        try fixture.context.save()
        department.setValue("Ops 4", forKey: "title")
        #expect(department.changedValuesForCurrentEvent()["title"] as? String == "Ops 3")
    }
}
