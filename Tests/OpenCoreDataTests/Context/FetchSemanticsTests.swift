import Foundation
import OpenCoreData
import Testing

/// Fetch semantics on the in-memory store, point by point.
@Suite struct FetchSemanticsTests {
    @Test(arguments: ContextFixture.storeTypes) func predicateSortLimitOffset(_ storeType: String) throws {
        let fixture = try ContextFixture(storeType: storeType)
        #expect(try fixture.names("Employee") == ["Ann", "Bob", "Cy", "Dee"])
        #expect(try fixture.names("Employee", "salary > 60000", sort: [("salary", false)]) == ["Dee", "Cy", "Bob"])
        #expect(try fixture.names("Employee", configure: { $0.fetchLimit = 2 }) == ["Ann", "Bob"])
        #expect(
            try fixture.names(
                "Employee",
                configure: {
                    $0.fetchOffset = 1; $0.fetchLimit = 2
                }) == ["Bob", "Cy"])
        #expect(try fixture.names("Employee", configure: { $0.fetchOffset = 4 }) == [])
        #expect(
            try fixture.names("Employee", sort: [("department.title", true), ("name", false)]) == ["Dee", "Cy", "Bob", "Ann"])
    }

    @Test(arguments: ContextFixture.storeTypes) func subentities(_ storeType: String) throws {
        let fixture = try ContextFixture(storeType: storeType)
        #expect(try fixture.names("Person") == ["Ann", "Bob", "Cy", "Dee"])
        #expect(try fixture.names("Employee", configure: { $0.includesSubentities = false }) == ["Ann", "Bob", "Cy"])
        #expect(try fixture.names("Manager") == ["Dee"])
        let dee = try #require(try fixture.context.fetch(fixture.request("Person", "name == 'Dee'")).first)
        #expect(dee.entity.name == "Manager")
    }

    @Test(arguments: ContextFixture.storeTypes) func resultTypes(_ storeType: String) throws {
        let fixture = try ContextFixture(storeType: storeType)
        let ids = NSFetchRequest<NSManagedObjectID>(entityName: "Employee")
        ids.resultType = .managedObjectIDResultType
        ids.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        let fetchedIDs = try fixture.context.fetch(ids)
        #expect(fetchedIDs.count == 4 && fetchedIDs.allSatisfy { !$0.isTemporaryID })
        #expect(fixture.context.object(with: fetchedIDs[0]).value(forKey: "name") as? String == "Ann")

        #expect(try fixture.context.count(for: fixture.request("Employee", "salary >= 70000")) == 3)
        let limited = fixture.request("Employee")
        limited.fetchLimit = 2
        #expect(try fixture.context.count(for: limited) == 2)

        let dictionaries = NSFetchRequest<NSDictionary>(entityName: "Employee")
        dictionaries.resultType = .dictionaryResultType
        dictionaries.propertiesToFetch = ["name", "salary"]
        dictionaries.sortDescriptors = [NSSortDescriptor(key: "salary", ascending: false)]
        dictionaries.fetchLimit = 2
        let rows = try fixture.context.fetch(dictionaries)
        #expect(rows.map { $0["name"] as? String } == ["Dee", "Cy"])
        #expect(rows.first?["salary"] as? Decimal == 120_000)
    }

    @Test(arguments: ContextFixture.storeTypes) func groupedDictionaries(_ storeType: String) throws {
        let fixture = try ContextFixture(storeType: storeType)
        let request = NSFetchRequest<NSDictionary>(entityName: "Employee")
        request.resultType = .dictionaryResultType
        let total = aggregate("total", "sum:", "salary", .decimalAttributeType)
        let title = NSExpressionDescription()
        title.name = "title"
        title.expression = NSExpression(forKeyPath: "department.title")
        title.expressionResultType = .stringAttributeType
        request.propertiesToFetch = [title, total]
        request.propertiesToGroupBy = [title]
        request.havingPredicate = NSPredicate(format: "total > 150000")
        let rows = try fixture.context.fetch(request)
        #expect(rows.count == 1)
        #expect(rows.first?["title"] as? String == "Labs")
        #expect(rows.first?["total"] as? Decimal == 210_000)
    }

    @Test(arguments: ContextFixture.storeTypes) func pendingChanges(_ storeType: String) throws {
        let fixture = try ContextFixture(storeType: storeType)
        let context = fixture.context
        // An unsaved insert that matches is returned.
        fixture.insert("Employee", ["name": "Eve", "salary": Decimal(80_000)])
        #expect(try fixture.names("Employee", "salary > 60000") == ["Bob", "Cy", "Dee", "Eve"])
        // Updated objects match on their current values, both ways.
        let ann = try #require(try context.fetch(fixture.request("Employee", "name == 'Ann'")).first)
        ann.setValue(Decimal(65_000), forKey: "salary")
        let bob = try #require(try context.fetch(fixture.request("Employee", "name == 'Bob'")).first)
        bob.setValue(Decimal(10_000), forKey: "salary")
        #expect(try fixture.names("Employee", "salary > 60000") == ["Ann", "Cy", "Dee", "Eve"])
        // Deleted objects are left out.
        context.delete(try #require(try context.fetch(fixture.request("Employee", "name == 'Cy'")).first))
        #expect(try fixture.names("Employee", "salary > 60000") == ["Ann", "Dee", "Eve"])
        #expect(try fixture.names("Employee", "salary > 60000", configure: { $0.fetchLimit = 2 }) == ["Ann", "Dee"])
        #expect(try context.count(for: fixture.request("Employee", "salary > 60000")) == 3)
        // Without pending changes: the store's answer.
        #expect(
            try fixture.names("Employee", "salary > 60000", configure: { $0.includesPendingChanges = false }) == [
                "Bob", "Cy", "Dee",
            ])
        // Dictionary results reflect the store only.
        let dictionaries = NSFetchRequest<NSDictionary>(entityName: "Employee")
        dictionaries.resultType = .dictionaryResultType
        dictionaries.propertiesToFetch = ["name"]
        #expect(try context.fetch(dictionaries).count == 4)
    }

    /// Pending objects are placed among the store's sorted rows by their current values: a
    /// changed sort key moves its object, inserted ones land where they sort, ties keep stored
    /// rows first, and the window applies after the merge.
    @Test(arguments: ContextFixture.storeTypes) func pendingChangesMergeInSortOrder(_ storeType: String) throws {
        let fixture = try ContextFixture(storeType: storeType)
        let bySalary = [("salary", false)]
        #expect(try fixture.names("Employee", sort: bySalary) == ["Dee", "Cy", "Bob", "Ann"])
        let ann = try #require(try fixture.context.fetch(fixture.request("Employee", "name == 'Ann'")).first)
        ann.setValue(Decimal(100_000), forKey: "salary")
        fixture.insert("Employee", ["name": "Eve", "salary": Decimal(80_000)])
        fixture.insert("Employee", ["name": "Fay", "salary": Decimal(70_000)])
        #expect(try fixture.names("Employee", sort: bySalary) == ["Dee", "Ann", "Cy", "Eve", "Bob", "Fay"])
        fixture.context.delete(try #require(try fixture.context.fetch(fixture.request("Employee", "name == 'Cy'")).first))
        #expect(try fixture.names("Employee", sort: bySalary) == ["Dee", "Ann", "Eve", "Bob", "Fay"])
        #expect(
            try fixture.names(
                "Employee", sort: bySalary,
                configure: {
                    $0.fetchOffset = 1; $0.fetchLimit = 3
                }) == ["Ann", "Eve", "Bob"])
        #expect(try fixture.names("Employee", "salary < 90000", sort: bySalary) == ["Eve", "Bob", "Fay"])
    }

    @Test(arguments: ContextFixture.storeTypes) func uniquingKeepsUnsavedValues(_ storeType: String) throws {
        let fixture = try ContextFixture(storeType: storeType)
        let first = try fixture.context.fetch(fixture.request("Employee", "name == 'Ann'"))
        let ann = try #require(first.first)
        ann.setValue("Anne", forKey: "name")
        let again = try fixture.context.fetch(fixture.request("Employee", "salary == 50000"))
        #expect(again.first === ann)
        #expect(again.first?.value(forKey: "name") as? String == "Anne")
        // Refreshing refetched objects loads the store's values into unchanged objects.
        let bob = try #require(try fixture.context.fetch(fixture.request("Employee", "name == 'Bob'")).first)
        #expect(bob.value(forKey: "name") as? String == "Bob")
    }

    @Test(arguments: ContextFixture.storeTypes) func faults(_ storeType: String) throws {
        let fixture = try ContextFixture(storeType: storeType)
        let other = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        other.persistentStoreCoordinator = fixture.coordinator
        let faults = try other.fetch(fixture.request("Employee", sort: [("name", true)]))
        #expect(faults.allSatisfy { $0.isFault })
        #expect(faults[0].value(forKey: "name") as? String == "Ann")
        #expect(!faults[0].isFault && faults[1].isFault)
        let loaded = fixture.request("Employee")
        loaded.returnsObjectsAsFaults = false
        let third = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        third.persistentStoreCoordinator = fixture.coordinator
        #expect(try third.fetch(loaded).allSatisfy { !$0.isFault })
    }

    @Test(arguments: ContextFixture.storeTypes) func predicatesThroughRelationships(_ storeType: String) throws {
        let fixture = try ContextFixture(storeType: storeType)
        #expect(try fixture.names("Employee", "department.title == 'Sales'") == ["Ann", "Bob"])
        #expect(try fixture.names("Department", "ANY employees.salary > 100000", sort: [("title", true)]) == ["Labs"])
        #expect(try fixture.names("Department", "employees.@count == 2", sort: [("title", true)]) == ["Labs", "Sales"])
        #expect(
            try fixture.names("Department", "SUBQUERY(employees, $e, $e.salary < 60000).@count > 0", sort: [("title", true)]) == [
                "Sales"
            ])
        let sales = try #require(try fixture.context.fetch(fixture.request("Department", "title == 'Sales'")).first)
        #expect(
            try fixture.names("Employee", configure: { $0.predicate = NSPredicate(format: "department == %@", sales) }) == [
                "Ann", "Bob",
            ])
        #expect(
            try fixture.names("Employee", configure: { $0.predicate = NSPredicate(format: "department == %@", sales.objectID) })
                == ["Ann", "Bob"])
        let people = try fixture.context.fetch(fixture.request("Employee", "name IN {'Ann', 'Cy'}"))
        #expect(
            try fixture.names("Person", configure: { $0.predicate = NSPredicate(format: "self IN %@", people) }) == ["Ann", "Cy"])
    }

    /// A decimal attribute lives as a double in an SQLite file. A value read back finds its
    /// object again, whether compared as the decimal read or as a double literal, on both
    /// stores: the conversions go through the digits (corelibs' `NSDecimalNumber.doubleValue`
    /// misses the nearest double for most values, and `Decimal(0.1)` is 0.1000000000000000512).
    @Test(arguments: ContextFixture.storeTypes) func decimalsCompareAsTheyRead(_ storeType: String) throws {
        let fixture = try ContextFixture(storeType: storeType)
        for (name, salary) in [("Eve", "925.5674713864153"), ("Fay", "0.1"), ("Gus", "3.3333333332999993")] {
            fixture.insert("Employee", ["name": name, "salary": Decimal(string: salary) as Any])
        }
        try fixture.context.save()
        let reader = fixture.freshContext()
        for (name, literal) in [("Eve", "925.5674713864153"), ("Fay", "0.1"), ("Gus", "3.3333333332999993")] {
            let read = try #require(try reader.fetch(fixture.request("Employee", "name == '\(name)'")).first)
            let salary = try #require(read.value(forKey: "salary") as? Decimal)
            #expect(salary == Decimal(string: literal), "\(storeType) \(name)")
            for format in ["salary == %@", "salary >= %@ AND salary <= %@"] {
                let request = fixture.request("Employee")
                request.predicate = NSPredicate(format: format, argumentArray: [salary, salary])
                #expect(try reader.fetch(request).map { $0.value(forKey: "name") as? String } == [name], "\(storeType) \(format)")
            }
            #expect(try reader.count(for: fixture.request("Employee", "salary > \(literal) AND salary < \(literal) + 1")) == 0)
            #expect(
                try reader.fetch(fixture.request("Employee", "salary == \(literal)")).map { $0.value(forKey: "name") as? String }
                    == [name], "\(storeType) \(literal)")
        }
    }

    @Test(arguments: ContextFixture.storeTypes) func unknownKeysAreErrors(_ storeType: String) throws {
        let fixture = try ContextFixture(storeType: storeType)
        #expect(throws: (any Error).self) { try fixture.context.fetch(fixture.request("Employee", "nmae == 'x'")) }
        #expect(throws: (any Error).self) { try fixture.context.fetch(fixture.request("Nobody")) }
    }
}
