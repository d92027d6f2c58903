import Foundation
import OpenCoreData
import TestSupport
import Testing

/// The listings of Apple's Core Data documentation, written as its readers write them, with
/// the models built in code.
@Suite struct DocumentationExampleTests {
    // MARK: - Models

    /// Employee (firstName, lastName, salary, department) and Department (name, employees).
    static func companyModel() -> NSManagedObjectModel {
        let employee = NSEntityDescription()
        employee.name = "Employee"
        let department = NSEntityDescription()
        department.name = "Department"
        let worksIn = relationship("department", to: department, maxCount: 1)
        let employees = relationship("employees", to: employee, maxCount: 0)
        inverses(worksIn, employees)
        employee.properties = [
            attribute("firstName", .stringAttributeType), attribute("lastName", .stringAttributeType),
            attribute("salary", .doubleAttributeType), worksIn,
        ]
        department.properties = [attribute("name", .stringAttributeType), employees]
        let model = NSManagedObjectModel()
        model.entities = [employee, department]
        return model
    }

    /// A context on a new store of `storeType` (an SQLite file in `folder`).
    static func context(for model: NSManagedObjectModel, _ storeType: String, in folder: TemporaryFolder) throws
        -> NSManagedObjectContext
    {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let url = try folder.storeURL(for: storeType, name: "Example.sqlite")
        try coordinator.addPersistentStore(ofType: storeType, configurationName: nil, at: url)
        let moc = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        moc.persistentStoreCoordinator = coordinator
        return moc
    }

    // MARK: - Fetching objects ("Fetching Objects" in the Core Data Programming Guide)

    @Test(arguments: ContextFixture.storeTypes) func fetchingFilteringAndSortingEmployees(_ storeType: String) throws {
        let folder = try TemporaryFolder()
        let moc = try Self.context(for: Self.companyModel(), storeType, in: folder)
        let engineering = NSEntityDescription.insertNewObject(forEntityName: "Department", into: moc)
        engineering.setValue("Engineering", forKey: "name")
        for (first, last, salary) in [
            ("Ada", "Lovelace", 90_000.0), ("Alan", "Turing", 85_000.0), ("Grace", "Hopper", 95_000.0),
            ("Ada", "Byron", 40_000.0),
        ] {
            let employee = NSEntityDescription.insertNewObject(forEntityName: "Employee", into: moc)
            employee.setValue(first, forKey: "firstName")
            employee.setValue(last, forKey: "lastName")
            employee.setValue(salary, forKey: "salary")
            employee.setValue(engineering, forKey: "department")
        }
        try moc.save()

        // Fetching managed objects.
        let employeesFetch = NSFetchRequest<NSFetchRequestResult>(entityName: "Employee")
        let fetchedEmployees = try moc.fetch(employeesFetch) as? [NSManagedObject]
        #expect(fetchedEmployees?.count == 4)

        // Filtering results.
        let firstName = "Ada"
        let filtered = NSFetchRequest<NSManagedObject>(entityName: "Employee")
        filtered.predicate = NSPredicate(format: "firstName == %@", firstName)
        #expect(try moc.fetch(filtered).count == 2)

        // Sorting: by last name, then first name.
        let sorted = NSFetchRequest<NSManagedObject>(entityName: "Employee")
        sorted.sortDescriptors = [
            NSSortDescriptor(key: "lastName", ascending: true), NSSortDescriptor(key: "firstName", ascending: true),
        ]
        #expect(
            try moc.fetch(sorted).map { $0.value(forKey: "lastName") as? String } == ["Byron", "Hopper", "Lovelace", "Turing"])

        // A salary threshold and a relationship in one predicate.
        let wellPaid = NSFetchRequest<NSManagedObject>(entityName: "Employee")
        wellPaid.predicate = NSPredicate(format: "salary > %@ AND department.name == %@", NSNumber(value: 80_000), "Engineering")
        wellPaid.sortDescriptors = [NSSortDescriptor(key: "salary", ascending: false)]
        #expect(try moc.fetch(wellPaid).map { $0.value(forKey: "firstName") as? String } == ["Grace", "Ada", "Alan"])

        // Counting.
        #expect(try moc.count(for: wellPaid) == 3)
    }

    // MARK: - Events sorted by date, with a limit

    @Test(arguments: ContextFixture.storeTypes) func latestEventsSortedByCreationDate(_ storeType: String) throws {
        let event = NSEntityDescription()
        event.name = "Event"
        event.properties = [attribute("creationDate", .dateAttributeType)]
        let model = NSManagedObjectModel()
        model.entities = [event]
        let folder = try TemporaryFolder()
        let moc = try Self.context(for: model, storeType, in: folder)
        let start = Date(timeIntervalSinceReferenceDate: 700_000_000)
        for offset in [3, 1, 4, 1.5, 9, 2, 6] {
            let newEvent = NSManagedObject(entity: event, insertInto: moc)
            newEvent.setValue(start.addingTimeInterval(offset * 3600), forKey: "creationDate")
        }
        try moc.save()

        let request = NSFetchRequest<NSManagedObject>(entityName: "Event")
        request.sortDescriptors = [NSSortDescriptor(key: "creationDate", ascending: false)]
        request.fetchLimit = 3
        let latest = try moc.fetch(request).compactMap { $0.value(forKey: "creationDate") as? Date }
        #expect(latest == [9.0, 6, 4].map { start.addingTimeInterval($0 * 3600) })

        let since = NSFetchRequest<NSManagedObject>(entityName: "Event")
        since.predicate = NSPredicate(format: "creationDate >= %@", start.addingTimeInterval(3 * 3600) as NSDate)
        #expect(try moc.count(for: since) == 4)
    }

    // MARK: - Entity inheritance: Graphic, Circle, TextArea, Line

    @Test(arguments: ContextFixture.storeTypes) func fetchingAGraphicReturnsEverySubentity(_ storeType: String) throws {
        let graphic = NSEntityDescription()
        graphic.name = "Graphic"
        graphic.properties = [attribute("name", .stringAttributeType), attribute("x", .doubleAttributeType)]
        var subentities: [NSEntityDescription] = []
        for (name, extra) in [("Circle", "radius"), ("TextArea", "text"), ("Line", "length")] {
            let entity = NSEntityDescription()
            entity.name = name
            entity.properties = [attribute(extra, name == "TextArea" ? .stringAttributeType : .doubleAttributeType)]
            subentities.append(entity)
        }
        graphic.subentities = subentities
        let model = NSManagedObjectModel()
        model.entities = [graphic] + subentities
        let folder = try TemporaryFolder()
        let moc = try Self.context(for: model, storeType, in: folder)
        for (entity, name) in [
            ("Graphic", "plain"), ("Circle", "sun"), ("TextArea", "label"), ("Line", "ruler"), ("Circle", "moon"),
        ] {
            let object = NSEntityDescription.insertNewObject(forEntityName: entity, into: moc)
            object.setValue(name, forKey: "name")
        }
        try moc.save()

        let all = NSFetchRequest<NSManagedObject>(entityName: "Graphic")
        all.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        #expect(try moc.fetch(all).map { $0.value(forKey: "name") as? String } == ["label", "moon", "plain", "ruler", "sun"])
        all.includesSubentities = false
        #expect(try moc.fetch(all).map { $0.entity.name } == ["Graphic"])
        let circles = NSFetchRequest<NSManagedObject>(entityName: "Circle")
        circles.predicate = NSPredicate(format: "name BEGINSWITH 'm'")
        #expect(try moc.fetch(circles).map { $0.value(forKey: "name") as? String } == ["moon"])
    }
}
