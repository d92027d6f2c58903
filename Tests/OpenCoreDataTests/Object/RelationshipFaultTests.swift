import Foundation
import OpenCoreData
import Testing

/// A fetched object's to-many relationship stays a fault until it is read, as Apple's does: no
/// object is made for a member nobody reads, and every path that needs the members (reads,
/// inverse changes, saves, child contexts, merges) sees them all.
@Suite struct RelationshipFaultTests {
    @Test(arguments: ContextFixture.storeTypes)
    func membersAreMadeOnlyWhenTheRelationshipIsRead(_ storeType: String) throws {
        let fixture = try ContextFixture(storeType: storeType)
        let context = fixture.freshContext()
        let sales = try ContextFixture.department("Sales", in: context)
        #expect(sales.value(forKey: "title") as? String == "Sales")
        #expect(context.registeredObjects == [sales])
        // Apple's description names a relationship fault without reading it.
        #expect(sales.description.contains("employees = <relationship fault"))
        #expect(context.registeredObjects == [sales])
        #expect(ContextFixture.names(sales.value(forKey: "employees")) == ["Ann", "Bob"])
        #expect(context.registeredObjects.count == 3)
        #expect(sales.committedValues(forKeys: ["employees"])["employees"] as? Set<NSManagedObject> == sales.value(forKey: "employees") as? Set<NSManagedObject>)
    }

    @Test(arguments: ContextFixture.storeTypes)
    func savingAnObjectWithAnUnreadToManyKeepsItsMembers(_ storeType: String) throws {
        let fixture = try ContextFixture(storeType: storeType)
        let context = fixture.freshContext()
        let sales = try ContextFixture.department("Sales", in: context)
        sales.setValue("Sales & Marketing", forKey: "title")
        let managerRequest = NSFetchRequest<NSManagedObject>(entityName: "Manager")
        let dee = try #require(try context.fetch(managerRequest).first)
        dee.setValue("Dee D.", forKey: "name")  // `reports`: ordered, no inverse (a join table)
        try context.save()
        let reread = fixture.freshContext()
        #expect(ContextFixture.names(try ContextFixture.department("Sales & Marketing", in: reread).value(forKey: "employees")) == ["Ann", "Bob"])
        #expect(ContextFixture.names(try #require(try reread.fetch(managerRequest).first).value(forKey: "reports")) == ["Cy"])
    }

    @Test(arguments: ContextFixture.storeTypes)
    func membersChangedThroughInversesBeforeTheRelationshipIsRead(_ storeType: String) throws {
        let fixture = try ContextFixture(storeType: storeType)
        let context = fixture.freshContext()
        let sales = try ContextFixture.department("Sales", in: context)
        let labs = try ContextFixture.department("Labs", in: context)
        _ = (sales.value(forKey: "title"), labs.value(forKey: "title"))  // loaded, employees unread
        let employees = NSFetchRequest<NSManagedObject>(entityName: "Employee")
        employees.predicate = NSPredicate(format: "name IN %@", ["Ann", "Cy"])
        for employee in try context.fetch(employees) {
            if employee.value(forKey: "name") as? String == "Ann" {
                employee.setValue(labs, forKey: "department")
            } else {
                context.delete(employee)
            }
        }
        #expect(ContextFixture.names(sales.value(forKey: "employees")) == ["Bob"])
        #expect(ContextFixture.names(labs.value(forKey: "employees")) == ["Ann", "Cy", "Dee"])
        try context.save()
        #expect(ContextFixture.names(labs.value(forKey: "employees")) == ["Ann", "Dee"])
        let reread = fixture.freshContext()
        #expect(ContextFixture.names(try ContextFixture.department("Labs", in: reread).value(forKey: "employees")) == ["Ann", "Dee"])
        #expect(ContextFixture.names(try ContextFixture.department("Sales", in: reread).value(forKey: "employees")) == ["Bob"])
    }

    @Test(arguments: ContextFixture.storeTypes)
    func aChildReadsMembersItsParentHasNotRead(_ storeType: String) throws {
        let fixture = try ContextFixture(storeType: storeType)
        let parent = fixture.freshContext()
        let sales = try ContextFixture.department("Sales", in: parent)
        _ = sales.value(forKey: "title")
        let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        child.parent = parent
        try child.performAndWait {
            let childSales = child.object(with: sales.objectID)
            #expect(ContextFixture.names(childSales.value(forKey: "employees")) == ["Ann", "Bob"])
            let bob = try #require((childSales.value(forKey: "employees") as? Set<NSManagedObject>)?.first { $0.value(forKey: "name") as? String == "Bob" })
            child.delete(bob)
            try child.save()
        }
        #expect(ContextFixture.names(sales.value(forKey: "employees")) == ["Ann"])
    }

    @Test(arguments: ContextFixture.storeTypes)
    func hasFaultTellsWhetherReadingWouldFire(_ storeType: String) throws {
        let fixture = try ContextFixture(storeType: storeType)
        let context = fixture.freshContext()
        let sales = try ContextFixture.department("Sales", in: context)
        #expect(sales.isFault && sales.hasFault(forRelationshipNamed: "employees"))
        _ = sales.value(forKey: "title")
        #expect(!sales.isFault && sales.hasFault(forRelationshipNamed: "employees"))
        #expect(context.registeredObjects == [sales])  // asking fired nothing
        let employees = try #require(sales.value(forKey: "employees") as? Set<NSManagedObject>)
        #expect(!sales.hasFault(forRelationshipNamed: "employees"))
        let ann = try #require(employees.first { $0.value(forKey: "name") as? String == "Ann" })
        #expect(ann.hasFault(forRelationshipNamed: "department") == false)  // Sales is loaded
        #expect(!sales.hasFault(forRelationshipNamed: "title") && !sales.hasFault(forRelationshipNamed: "nothing"))
    }

    @Test(arguments: ContextFixture.storeTypes)
    func objectIDsForARelationshipMakeNoObjects(_ storeType: String) throws {
        let fixture = try ContextFixture(storeType: storeType)
        let expected = try fixture.context.fetch(fixture.request("Employee", "department.title == 'Sales'")).map(\.objectID)
        let dee = try #require(try fixture.context.fetch(fixture.request("Manager")).first)
        let cy = try #require(dee.value(forKey: "reports") as? NSOrderedSet).array.compactMap { ($0 as? NSManagedObject)?.objectID }

        let context = fixture.freshContext()
        let sales = try ContextFixture.department("Sales", in: context)
        #expect(Set(sales.objectIDs(forRelationshipNamed: "employees")) == Set(expected))  // from a fault
        #expect(context.registeredObjects == [sales] && sales.isFault)
        _ = sales.value(forKey: "title")
        #expect(Set(sales.objectIDs(forRelationshipNamed: "employees")) == Set(expected))  // unread to-many
        #expect(context.registeredObjects == [sales])
        let manager = try #require(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Manager")).first)
        #expect(manager.objectIDs(forRelationshipNamed: "reports") == cy)
        #expect(manager.objectIDs(forRelationshipNamed: "department") == [try ContextFixture.department("Labs", in: context).objectID])
        #expect(throws: NSError.self) { try sales.objectIDs(validatingRelationshipNamed: "title") }
    }
}
