import Foundation
import OpenCoreData
import Testing

/// Fetched properties and fetch request expressions: requests run by the object graph.
@Suite struct FetchedPropertyTests {
    @Test(arguments: ContextFixture.storeTypes) func aFetchedPropertyRunsLazilyAndIsCachedUntilRefresh(_ storeType: String) throws
    {
        let fixture = try ContextFixture(storeType: storeType)
        let context = fixture.context
        let labs = try #require(try context.fetch(fixture.request("Department", "title == 'Labs'")).first)
        let sales = try #require(try context.fetch(fixture.request("Department", "title == 'Sales'")).first)
        let seniors = try #require(labs.value(forKey: "seniors") as? [Any])
        #expect(seniors.compactMap { ($0 as? NSManagedObject)?.value(forKey: "name") as? String } == ["Dee"])
        #expect((sales.value(forKey: "seniors") as? [Any])?.isEmpty == true)
        // A new senior in Sales: the cached value stays until the object is refreshed.
        fixture.insert("Employee", ["name": "Zoe", "salary": Decimal(150_000), "department": sales])
        try context.save()
        #expect((sales.value(forKey: "seniors") as? [Any])?.isEmpty == true)
        context.refresh(sales, mergeChanges: false)
        let refreshed = try #require(sales.value(forKey: "seniors") as? [NSManagedObject])
        #expect(refreshed.map { $0.value(forKey: "name") as? String } == ["Zoe"])
    }

    @Test func fetchedPropertyVariableReadsTheDescription() throws {
        let model = CompanyModel.make()
        let rich = NSFetchedPropertyDescription()
        rich.name = "rich"
        rich.userInfo = ["minimum": 60_000]
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Employee")
        request.predicate = NSPredicate(
            format:
                "department == $FETCH_SOURCE AND salary > $FETCHED_PROPERTY.userInfo.minimum AND $FETCHED_PROPERTY.name == 'rich'"
        )
        request.sortDescriptors = [NSSortDescriptor(key: "salary", ascending: false)]
        rich.fetchRequest = request
        let department = model[entity: "Department"]
        department.properties = department.properties + [rich]
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let sales = NSManagedObject(entity: department, insertInto: context)
        for (name, salary) in [("Ann", 50_000), ("Bob", 70_000), ("Cat", 90_000)] {
            let employee = NSManagedObject(entity: model[entity: "Employee"], insertInto: context)
            employee.setValue(name, forKey: "name")
            employee.setValue(Decimal(salary), forKey: "salary")
            employee.setValue(sales, forKey: "department")
        }
        try context.save()
        let names = (sales.value(forKey: "rich") as? [NSManagedObject])?.map { $0.value(forKey: "name") as? String }
        #expect(names == ["Cat", "Bob"], "ordered as the request sorts")
    }

    @Test(arguments: ContextFixture.storeTypes) func fetchRequestExpressionCountsAndFetches(_ storeType: String) throws {
        let fixture = try ContextFixture(storeType: storeType)
        let big = NSFetchRequest<NSFetchRequestResult>(entityName: "Employee")
        big.predicate = NSPredicate(format: "salary > 80000")
        let context = NSExpression(forConstantValue: fixture.context)
        let count = NSFetchRequestExpression.expression(
            forFetch: NSExpression(forConstantValue: big), context: context, countOnly: true)
        #expect((count.expressionValue(with: nil, context: nil) as? NSNumber)?.intValue == 2)
        let all = NSFetchRequestExpression.expression(
            forFetch: NSExpression(forConstantValue: big), context: context, countOnly: false)
        let fetched = try #require(try all.expressionValue(validating: nil, context: nil) as? [Any])
        #expect(Set(fetched.compactMap { ($0 as? NSManagedObject)?.value(forKey: "name") as? String }) == ["Cy", "Dee"])

        // Inside a predicate, through a store fetch and through evaluate(with:).
        let some = NSComparisonPredicate(
            leftExpression: count, rightExpression: NSExpression(forConstantValue: 1), modifier: .direct, type: .greaterThan)
        #expect(
            try fixture.names("Department", sort: [("title", true)], configure: { $0.predicate = some }) == ["Labs", "Sales"])
        let many = NSComparisonPredicate(
            leftExpression: count, rightExpression: NSExpression(forConstantValue: 2), modifier: .direct, type: .greaterThan)
        #expect(try fixture.names("Department", sort: [("title", true)], configure: { $0.predicate = many }) == [])
        #expect(some.evaluate(with: nil))

        // The context through a variable.
        let variable = NSFetchRequestExpression.expression(
            forFetch: NSExpression(forConstantValue: big), context: NSExpression(forVariable: "context"), countOnly: true)
        let bindings = NSMutableDictionary(dictionary: ["context": fixture.context])
        #expect((variable.expressionValue(with: nil, context: bindings) as? NSNumber)?.intValue == 2)
    }
}
