import Foundation
import OpenCoreData
import TestSupport
import Testing

/// `NSBatchDeleteRequest` on the SQL stores: the rows deleted in the store, delete rules applied,
/// results merged into a context, history; the in-memory store refuses it as Apple's does.
struct BatchDeleteTests {
    static let sqlStoreTypes = [NSSQLiteStoreType] + (PostgresTestServer.isEnabled ? [NSPostgreSQLStoreType] : [])

    /// Departments (employees: cascade), employees (a mentor, nullify both ways; projects,
    /// many-to-many; a badge, cascade; laptops, deny), rooms whose bookings must have a room.
    static func model() -> NSManagedObjectModel {
        let department = entity("Department")
        let employee = entity("Employee")
        let project = entity("Project")
        let badge = entity("Badge")
        let laptop = entity("Laptop")
        let room = entity("Room")
        let booking = entity("Booking")

        let employees = relationship("employees", to: employee, maxCount: 0, deleteRule: .cascadeDeleteRule)
        let worksIn = relationship("department", to: department, maxCount: 1)
        inverses(employees, worksIn)
        let mentor = relationship("mentor", to: employee, maxCount: 1)
        let mentees = relationship("mentees", to: employee, maxCount: 0)
        inverses(mentor, mentees)
        let projects = relationship("projects", to: project, maxCount: 0)
        let members = relationship("members", to: employee, maxCount: 0)
        inverses(projects, members)
        let ownBadge = relationship("badge", to: badge, maxCount: 1, deleteRule: .cascadeDeleteRule)
        let owner = relationship("owner", to: employee, maxCount: 1)
        inverses(ownBadge, owner)
        let laptops = relationship("laptops", to: laptop, maxCount: 0, deleteRule: .denyDeleteRule)
        let user = relationship("user", to: employee, maxCount: 1)
        inverses(laptops, user)
        let bookings = relationship("bookings", to: booking, maxCount: 0)
        let bookedRoom = relationship("room", to: room, maxCount: 1, optional: false)
        inverses(bookings, bookedRoom)

        department.properties = [attribute("title", .stringAttributeType), employees]
        employee.properties = [
            attribute("name", .stringAttributeType), attribute("salary", .integer64AttributeType), worksIn, mentor, mentees,
            projects, ownBadge, laptops,
        ]
        project.properties = [attribute("title", .stringAttributeType), members]
        badge.properties = [attribute("code", .stringAttributeType), owner]
        laptop.properties = [attribute("serial", .stringAttributeType), user]
        room.properties = [attribute("name", .stringAttributeType), bookings]
        booking.properties = [attribute("day", .integer64AttributeType), bookedRoom]
        let model = NSManagedObjectModel()
        model.entities = [department, employee, project, badge, laptop, room, booking]
        return model
    }

    static func entity(_ name: String) -> NSEntityDescription {
        let entity = NSEntityDescription()
        entity.name = name
        return entity
    }

    /// A container on a fresh store of `storeType`, with Sales (Ann, Bob, Cy) and Labs (Dee, Eve);
    /// Ann mentors Bob and Dee; Ann and Dee work on Apollo, Bob on Gemini; Ann, Bob and Dee have
    /// badges; Eve has a laptop.
    struct Office {
        let container: NSPersistentContainer
        let folder: TemporaryFolder

        init(_ storeType: String, history: Bool = false) throws {
            folder = try TemporaryFolder()
            container = NSPersistentContainer(name: "Office", managedObjectModel: BatchDeleteTests.model())
            let description = NSPersistentStoreDescription()
            description.url = try folder.storeURL(for: storeType, name: "Office.sqlite")
            description.type = storeType
            if history { description.setOption(true as NSNumber, forKey: NSPersistentHistoryTrackingKey) }
            container.persistentStoreDescriptions = [description]
            var loadError: Error?
            container.loadPersistentStores { _, error in loadError = error }
            if let loadError { throw loadError }
            let context = container.newBackgroundContext()
            try context.performAndWait {
                @discardableResult func insert(_ entity: String, _ values: [String: Any]) -> NSManagedObject {
                    let object = NSEntityDescription.insertNewObject(forEntityName: entity, into: context)
                    for (key, value) in values { object.setValue(value, forKey: key) }
                    return object
                }
                let sales = insert("Department", ["title": "Sales"])
                let labs = insert("Department", ["title": "Labs"])
                let ann = insert("Employee", ["name": "Ann", "salary": 50, "department": sales])
                let bob = insert("Employee", ["name": "Bob", "salary": 60, "department": sales, "mentor": ann])
                insert("Employee", ["name": "Cy", "salary": 70, "department": sales])
                let dee = insert("Employee", ["name": "Dee", "salary": 80, "department": labs, "mentor": ann])
                let eve = insert("Employee", ["name": "Eve", "salary": 90, "department": labs])
                insert("Project", ["title": "Apollo", "members": Set([ann, dee])])
                insert("Project", ["title": "Gemini", "members": Set([bob])])
                for (code, holder) in [("A1", ann), ("B2", bob), ("D4", dee)] {
                    insert("Badge", ["code": code, "owner": holder])
                }
                insert("Laptop", ["serial": "L-1", "user": eve])
                let hall = insert("Room", ["name": "Hall"])
                insert("Room", ["name": "Attic"])
                insert("Booking", ["day": 1, "room": hall])
                try context.save()
            }
        }

        /// The sorted values of `key` of every object of `entity`, read in a new context.
        func values(_ entity: String, _ key: String) throws -> [String] {
            let context = container.newBackgroundContext()
            return try context.performAndWait {
                try context.fetch(NSFetchRequest<NSManagedObject>(entityName: entity)).map { "\($0.value(forKey: key) ?? "nil")" }
                    .sorted()
            }
        }

        /// `name: mentor` of each employee, and `title: members` of each project, read in a new context.
        func links() throws -> [String] {
            let context = container.newBackgroundContext()
            return try context.performAndWait {
                let employees = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Employee")).map { employee in
                    let mentor = (employee.value(forKey: "mentor") as? NSManagedObject)?.value(forKey: "name") as? String
                    return "\(employee.value(forKey: "name") ?? ""): \(mentor ?? "-")"
                }
                let projects = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Project")).map { project in
                    let members = (project.value(forKey: "members") as? Set<NSManagedObject> ?? []).compactMap {
                        $0.value(forKey: "name") as? String
                    }
                    return "\(project.value(forKey: "title") ?? ""): \(members.sorted().joined(separator: ","))"
                }
                return employees.sorted() + projects.sorted()
            }
        }

        /// The error `request` fails with; nil if it succeeds.
        func failure(of request: NSPersistentStoreRequest) -> NSError? {
            do {
                let context = container.newBackgroundContext()
                _ = try context.performAndWait { try context.execute(request) }
                return nil
            } catch {
                return error as NSError
            }
        }

        func execute(_ request: NSBatchDeleteRequest) throws -> NSBatchDeleteResult? {
            let context = container.newBackgroundContext()
            return try context.performAndWait { try context.execute(request) as? NSBatchDeleteResult }
        }

        func execute(_ request: NSBatchUpdateRequest) throws -> NSBatchUpdateResult? {
            let context = container.newBackgroundContext()
            return try context.performAndWait { try context.execute(request) as? NSBatchUpdateResult }
        }
    }

    @Test(arguments: sqlStoreTypes)
    func theObjectsAFetchRequestMatchesAreDeleted(storeType: String) throws {
        let office = try Office(storeType)
        let fetch = NSFetchRequest<NSFetchRequestResult>(entityName: "Employee")
        fetch.predicate = NSPredicate(format: "salary < %d AND name != %@", 75, "Cy")
        let request = NSBatchDeleteRequest(fetchRequest: fetch)
        request.resultType = .resultTypeCount
        let result = try #require(try office.execute(request))
        #expect(result.resultType == .resultTypeCount)
        // Ann and Bob, and by cascade their badges.
        #expect((result.result as? NSNumber)?.intValue == 4)
        #expect(try office.values("Employee", "name") == ["Cy", "Dee", "Eve"])
        #expect(try office.values("Badge", "code") == ["D4"])
        // Dee's mentor (Ann) is nullified; the join rows of Ann and Bob are gone.
        #expect(try office.links() == ["Cy: -", "Dee: -", "Eve: -", "Apollo: Dee", "Gemini: "])
        #expect(try office.values("Department", "title") == ["Labs", "Sales"])
    }

    @Test(arguments: sqlStoreTypes)
    func theDeletedIDsMergeIntoAViewContext(storeType: String) throws {
        let office = try Office(storeType)
        let view = office.container.viewContext
        let byName = NSFetchRequest<NSManagedObject>(entityName: "Employee")
        byName.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        let controller = NSFetchedResultsController(
            fetchRequest: byName, managedObjectContext: view, sectionNameKeyPath: nil, cacheName: nil)
        try view.performAndWait { try controller.performFetch() }
        let before = view.performAndWait { controller.fetchedObjects?.count }
        #expect(before == 5)
        let fetch = NSFetchRequest<NSFetchRequestResult>(entityName: "Employee")
        fetch.predicate = NSPredicate(format: "name IN %@", ["Bob", "Cy"])
        let request = NSBatchDeleteRequest(fetchRequest: fetch)
        request.resultType = .resultTypeObjectIDs
        let ids = try #require(try office.execute(request)?.result as? [NSManagedObjectID])
        // Bob and Cy, and Bob's badge.
        #expect(ids.count == 3)
        #expect(Set(ids.map { $0.entity.name ?? "" }) == ["Employee", "Badge"])
        NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSDeletedObjectsKey: ids], into: [view])
        let names = view.performAndWait { controller.fetchedObjects?.compactMap { $0.value(forKey: "name") as? String } }
        #expect(names == ["Ann", "Dee", "Eve"])
    }

    @Test(arguments: sqlStoreTypes)
    func cascadesReachTheDestinationsOfDestinations(storeType: String) throws {
        let office = try Office(storeType)
        let context = office.container.newBackgroundContext()
        let sales = try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Department")
            request.predicate = NSPredicate(format: "title == %@", "Sales")
            return try #require(try context.fetch(request).first).objectID
        }
        let request = NSBatchDeleteRequest(objectIDs: [sales, sales])
        request.resultType = .resultTypeObjectIDs
        let ids = try #require(try office.execute(request)?.result as? [NSManagedObjectID])
        // Sales, Ann, Bob, Cy, and the badges of Ann and Bob.
        #expect(ids.count == 6)
        #expect(try office.values("Department", "title") == ["Labs"])
        #expect(try office.values("Employee", "name") == ["Dee", "Eve"])
        #expect(try office.values("Badge", "code") == ["D4"])
        #expect(try office.links() == ["Dee: -", "Eve: -", "Apollo: Dee", "Gemini: "])
    }

    /// Projects: their one relationship is a many-to-many (nullify), so deleting them reaches no
    /// other row; their join rows go with them.
    @Test(arguments: sqlStoreTypes)
    func aPurgeWhoseRulesReachNothingDeletesTheMatchedRowsAndTheirJoinRows(storeType: String) throws {
        let office = try Office(storeType)
        let request = NSBatchDeleteRequest(fetchRequest: NSFetchRequest<NSFetchRequestResult>(entityName: "Project"))
        request.resultType = .resultTypeCount
        #expect((try office.execute(request)?.result as? NSNumber)?.intValue == 2)
        #expect(try office.values("Project", "title") == [])
        #expect(try office.links() == ["Ann: -", "Bob: Ann", "Cy: -", "Dee: Ann", "Eve: -"])
        let context = office.container.newBackgroundContext()
        let projectsOfAnn = try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Employee")
            request.predicate = NSPredicate(format: "name == %@", "Ann")
            return (try #require(try context.fetch(request).first).value(forKey: "projects") as? Set<NSManagedObject>)?.count
        }
        #expect(projectsOfAnn == 0)
    }

    @Test(arguments: sqlStoreTypes)
    func aDenyRuleRefusesTheWholeRequest(storeType: String) throws {
        let office = try Office(storeType)
        let fetch = NSFetchRequest<NSFetchRequestResult>(entityName: "Employee")
        fetch.predicate = NSPredicate(format: "salary > %d", 75)  // Dee, and Eve, who has a laptop
        let failure = office.failure(of: NSBatchDeleteRequest(fetchRequest: fetch))
        #expect(failure?.code == NSValidationRelationshipDeniedDeleteError)
        #expect(failure?.localizedDescription.contains("laptops") == true, "\(String(describing: failure))")
        #expect(try office.values("Employee", "name") == ["Ann", "Bob", "Cy", "Dee", "Eve"])
        #expect(try office.values("Badge", "code") == ["A1", "B2", "D4"])
    }

    @Test(arguments: sqlStoreTypes)
    func aMandatoryInverseToOneRefusesTheRequest(storeType: String) throws {
        let office = try Office(storeType)
        let failure = office.failure(
            of: NSBatchDeleteRequest(fetchRequest: NSFetchRequest<NSFetchRequestResult>(entityName: "Room")))
        #expect(failure?.code == NSPersistentStoreSaveError)
        #expect(
            failure?.localizedDescription.contains("Batch delete failed due to mandatory OTO nullify inverse on Booking/room")
                == true,
            "\(String(describing: failure))")
        #expect(try office.values("Room", "name") == ["Attic", "Hall"])
        // A room without bookings goes.
        let empty = NSFetchRequest<NSFetchRequestResult>(entityName: "Room")
        empty.predicate = NSPredicate(format: "bookings.@count == 0")
        let result = try office.execute(NSBatchDeleteRequest(fetchRequest: empty))
        #expect((result?.result as? NSNumber)?.boolValue == true)
        #expect(try office.values("Room", "name") == ["Hall"])
    }

    @Test(arguments: sqlStoreTypes)
    func objectIDsOfTwoEntitiesAreRefused(storeType: String) throws {
        let office = try Office(storeType)
        let context = office.container.newBackgroundContext()
        let ids = try context.performAndWait {
            try ["Employee", "Project"].map {
                try #require(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: $0)).first).objectID
            }
        }
        #expect(office.failure(of: NSBatchDeleteRequest(objectIDs: ids)) != nil)
        #expect(try office.values("Employee", "name").count == 5)
        #expect(try office.values("Project", "title").count == 2)
    }

    /// A predicate no SQL store runs (a block) is refused, as Apple's SQLite store refuses it,
    /// whether the delete is one statement (projects) or walks the rules first (employees).
    @Test(arguments: sqlStoreTypes)
    func aPredicateNoSQLStoreRunsIsRefused(storeType: String) throws {
        let office = try Office(storeType)
        for entity in ["Project", "Employee"] {
            let fetch = NSFetchRequest<NSFetchRequestResult>(entityName: entity)
            fetch.predicate = NSPredicate { _, _ in true }
            let failure = office.failure(of: NSBatchDeleteRequest(fetchRequest: fetch))
            #expect(failure?.code == NSPersistentStoreUnsupportedRequestTypeError, "\(entity): \(String(describing: failure))")
        }
        #expect(try office.values("Project", "title") == ["Apollo", "Gemini"])
        #expect(try office.values("Employee", "name").count == 5)
    }

    @Test func theInMemoryStoreRefusesAsApplesDoes() throws {
        let office = try Office(NSInMemoryStoreType)
        let failure = office.failure(
            of: NSBatchDeleteRequest(fetchRequest: NSFetchRequest<NSFetchRequestResult>(entityName: "Project")))
        #expect(failure?.code == NSPersistentStoreUnsupportedRequestTypeError)
        #expect(try office.values("Project", "title") == ["Apollo", "Gemini"])
    }

    @Test(arguments: sqlStoreTypes)
    func persistentHistoryRecordsTheDeletesAndTheNullifiedRows(storeType: String) throws {
        let office = try Office(storeType, history: true)
        let fetch = NSFetchRequest<NSFetchRequestResult>(entityName: "Employee")
        fetch.predicate = NSPredicate(format: "name == %@", "Ann")
        _ = try office.execute(NSBatchDeleteRequest(fetchRequest: fetch))
        let context = office.container.newBackgroundContext()
        let changes = try context.performAndWait {
            let transactions = try context.allHistoryTransactions()
            #expect(transactions.count == 2)
            return try #require(transactions.last?.changes).map { change in
                "\(change.changeType == .delete ? "delete" : change.changeType == .update ? "update" : "insert") "
                    + (change.changedObjectID.entity.name ?? "")
                    + (change.updatedProperties.map { " " + $0.map(\.name).sorted().joined(separator: ",") } ?? "")
            }.sorted()
        }
        // Ann and her badge; Bob and Dee lose their mentor.
        #expect(changes == ["delete Badge", "delete Employee", "update Employee mentor", "update Employee mentor"])
    }
}

extension NSManagedObjectContext {
    /// Every persistent-history transaction of the context's stores, oldest first; call it on
    /// the context's queue.
    func allHistoryTransactions() throws -> [NSPersistentHistoryTransaction] {
        let result = try execute(NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?))
        return try #require((result as? NSPersistentHistoryResult)?.result as? [NSPersistentHistoryTransaction])
    }
}
