import Foundation
import OpenCoreData
import Testing

/// Child contexts: the parent is the child's store.
@Suite struct ParentContextTests {
    static func child(of parent: NSManagedObjectContext) -> NSManagedObjectContext {
        let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        child.parent = parent
        return child
    }

    static func names(_ context: NSManagedObjectContext, _ fixture: ContextFixture, _ format: String? = nil) throws -> [String] {
        try context.fetch(fixture.request("Employee", format, sort: [("name", true)])).compactMap {
            $0.value(forKey: "name") as? String
        }
    }

    @Test(arguments: ContextFixture.storeTypes) func aChildSavesIntoItsParentNotTheStore(_ storeType: String) throws {
        let fixture = try ContextFixture(storeType: storeType)
        let parent = fixture.context
        let child = Self.child(of: parent)
        #expect(child.parent === parent && child.persistentStoreCoordinator === fixture.coordinator)
        let sales = try #require(try child.fetch(fixture.request("Department", "title == 'Sales'")).first)
        let eve = NSManagedObject(entity: fixture.model[entity: "Employee"], insertInto: child)
        eve.setValue("Eve", forKey: "name")
        eve.setValue(sales, forKey: "department")
        #expect(try Self.names(child, fixture) == ["Ann", "Bob", "Cy", "Dee", "Eve"])
        #expect(try Self.names(parent, fixture) == ["Ann", "Bob", "Cy", "Dee"])

        try child.save()
        #expect(!child.hasChanges && parent.hasChanges)
        let pushed = try #require(parent.insertedObjects.first)
        #expect(pushed.objectID == eve.objectID && pushed.objectID.isTemporaryID && pushed !== eve)
        #expect(pushed.value(forKey: "name") as? String == "Eve")
        let parentSales = try #require(pushed.value(forKey: "department") as? NSManagedObject)
        #expect(parentSales.managedObjectContext === parent && parentSales.objectID == sales.objectID)
        #expect((parentSales.value(forKey: "employees") as? Set<NSManagedObject>)?.contains(pushed) == true)
        #expect(try Self.names(parent, fixture) == ["Ann", "Bob", "Cy", "Dee", "Eve"])
        // Nothing reached the store yet.
        let other = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        other.persistentStoreCoordinator = fixture.coordinator
        #expect(try other.count(for: fixture.request("Employee")) == 4)

        try parent.save()
        #expect(!parent.hasChanges && !pushed.objectID.isTemporaryID)
        #expect(try other.count(for: fixture.request("Employee", "department.title == 'Sales'")) == 3)
    }

    /// An object inserted and deleted in a child before its save reaches the parent in no
    /// relationship (before, the parent's department held a fault for its temporary ID, which a
    /// later cascade could not fire).
    @Test(arguments: ContextFixture.storeTypes) func aForgottenInsertDoesNotReachTheParent(_ storeType: String) throws {
        let fixture = try ContextFixture(storeType: storeType)
        let parent = fixture.context
        let sales = try ContextFixture.department("Sales", in: parent)
        let child = Self.child(of: parent)
        let eve = NSManagedObject(entity: fixture.model[entity: "Employee"], insertInto: child)
        eve.setValue("Eve", forKey: "name")
        eve.setValue(child.object(with: sales.objectID), forKey: "department")
        child.delete(eve)
        try child.save()
        #expect(ContextFixture.names(sales.value(forKey: "employees")) == ["Ann", "Bob"])
        parent.delete(sales)
        try parent.save()
        #expect(try Self.names(parent, fixture) == ["Cy", "Dee"])
    }

    @Test(arguments: ContextFixture.storeTypes) func updatesAndDeletesArePushedToo(_ storeType: String) throws {
        let fixture = try ContextFixture(storeType: storeType)
        let parent = fixture.context
        let child = Self.child(of: parent)
        let ann = try #require(try child.fetch(fixture.request("Employee", "name == 'Ann'")).first)
        ann.setValue(Decimal(99_000), forKey: "salary")
        let bob = try #require(try child.fetch(fixture.request("Employee", "name == 'Bob'")).first)
        child.delete(bob)
        #expect(try Self.names(child, fixture, "salary > 60000") == ["Ann", "Cy", "Dee"])
        #expect(try Self.names(parent, fixture, "salary > 60000") == ["Bob", "Cy", "Dee"])
        try child.save()
        // Ann, and Sales, which lost Bob (the delete rule ran in the child).
        #expect(parent.updatedObjects.compactMap(\.entity.name).sorted() == ["Department", "Employee"])
        #expect(
            parent.updatedObjects.contains { $0.objectID == ann.objectID && $0.value(forKey: "salary") as? Decimal == 99_000 })
        #expect(parent.deletedObjects.map(\.objectID) == [bob.objectID])
        #expect(try Self.names(parent, fixture, "salary > 60000") == ["Ann", "Cy", "Dee"])
        try parent.save()
        let other = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        other.persistentStoreCoordinator = fixture.coordinator
        #expect(try Self.names(other, fixture, "salary > 60000") == ["Ann", "Cy", "Dee"])
    }

    @Test(arguments: ContextFixture.storeTypes) func aChildSeesItsParentsUnsavedChangesUnderTheSameIDs(_ storeType: String) throws
    {
        let fixture = try ContextFixture(storeType: storeType)
        let parent = fixture.context
        let fay = fixture.insert("Employee", ["name": "Fay", "salary": Decimal(10)])
        let cy = try #require(try parent.fetch(fixture.request("Employee", "name == 'Cy'")).first)
        cy.setValue("Cyd", forKey: "name")
        let child = Self.child(of: parent)
        #expect(try Self.names(child, fixture) == ["Ann", "Bob", "Cyd", "Dee", "Fay"])
        let childFay = child.object(with: fay.objectID)
        #expect(childFay !== fay && childFay.objectID.isTemporaryID && childFay.value(forKey: "name") as? String == "Fay")
        #expect(try child.existingObject(with: cy.objectID).value(forKey: "name") as? String == "Cyd")
        // The child's own change on top of the parent's.
        childFay.setValue("Faye", forKey: "name")
        #expect(try Self.names(child, fixture, "name BEGINSWITH 'F'") == ["Faye"])
        #expect(fay.value(forKey: "name") as? String == "Fay")
        try child.save()
        #expect(fay.value(forKey: "name") as? String == "Faye")
    }

    @Test(arguments: ContextFixture.storeTypes) func permanentIDsComeFromTheRoot(_ storeType: String) throws {
        let fixture = try ContextFixture(storeType: storeType)
        let parent = fixture.context
        let child = Self.child(of: parent)
        let gus = NSManagedObject(entity: fixture.model[entity: "Employee"], insertInto: child)
        gus.setValue("Gus", forKey: "name")
        try child.obtainPermanentIDs(for: [gus])
        #expect(!gus.objectID.isTemporaryID && gus.objectID.persistentStore === fixture.store)
        try child.save()
        #expect(parent.registeredObject(for: gus.objectID)?.value(forKey: "name") as? String == "Gus")
        try parent.save()
        #expect(try parent.count(for: fixture.request("Employee", "name == 'Gus'")) == 1)
    }
}
