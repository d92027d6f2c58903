import Foundation
import OpenCoreData
import Testing

@Suite struct SaveTests {
    @Test(arguments: ContextFixture.storeTypes) func savingGivesPermanentIDsAndClearsChanges(_ storeType: String) throws {
        let fixture = try ContextFixture(saved: false, storeType: storeType)
        let context = fixture.context
        #expect(context.hasChanges && context.insertedObjects.count == 6)
        let ann = try #require(
            context.insertedObjects.first { $0.entity.name == "Employee" && $0.value(forKey: "name") as? String == "Ann" })
        #expect(ann.objectID.isTemporaryID && ann.isInserted)
        try context.save()
        #expect(!context.hasChanges && !ann.isInserted && !ann.objectID.isTemporaryID)
        #expect(
            ann.objectID.uriRepresentation().absoluteString.hasPrefix("x-coredata://\(fixture.store.identifier ?? "")/Employee/p")
        )
        #expect(fixture.coordinator.managedObjectID(forURIRepresentation: ann.objectID.uriRepresentation()) == ann.objectID)
        ann.setValue(Decimal(1), forKey: "salary")
        #expect(ann.isUpdated && context.updatedObjects == [ann])
        #expect(ann.changedValues()["salary"] as? Decimal == 1)
        #expect(ann.committedValues(forKeys: ["salary"])["salary"] as? Decimal == 50_000)
        try context.save()
        #expect(!ann.isUpdated)
        // Another context sees the saved value.
        let other = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        other.persistentStoreCoordinator = fixture.coordinator
        #expect(try other.existingObject(with: ann.objectID).value(forKey: "salary") as? Decimal == 1)
    }

    @Test(arguments: ContextFixture.storeTypes) func inversesStayInStep(_ storeType: String) throws {
        let fixture = try ContextFixture(storeType: storeType)
        let context = fixture.context
        let sales = try #require(try context.fetch(fixture.request("Department", "title == 'Sales'")).first)
        let labs = try #require(try context.fetch(fixture.request("Department", "title == 'Labs'")).first)
        let ann = try #require(try context.fetch(fixture.request("Employee", "name == 'Ann'")).first)
        #expect((sales.value(forKey: "employees") as? Set<NSManagedObject>)?.count == 2)
        ann.setValue(labs, forKey: "department")
        #expect((sales.value(forKey: "employees") as? Set<NSManagedObject>)?.contains(ann) == false)
        #expect((labs.value(forKey: "employees") as? Set<NSManagedObject>)?.contains(ann) == true)
        try context.save()
        #expect(try fixture.names("Employee", "department.title == 'Labs'") == ["Ann", "Cy", "Dee"])
        #expect(try fixture.names("Department", "employees.@count == 1", sort: [("title", true)]) == ["Sales"])
    }

    @Test(arguments: ContextFixture.storeTypes) func deleteRules(_ storeType: String) throws {
        let fixture = try ContextFixture(storeType: storeType)
        let context = fixture.context
        // Cascade: deleting a department deletes its employees.
        let sales = try #require(try context.fetch(fixture.request("Department", "title == 'Sales'")).first)
        context.delete(sales)
        try context.save()
        #expect(try fixture.names("Employee") == ["Cy", "Dee"])
        // Nullify: deleting an employee removes it from its department.
        let cy = try #require(try context.fetch(fixture.request("Employee", "name == 'Cy'")).first)
        let labs = try #require(try context.fetch(fixture.request("Department", "title == 'Labs'")).first)
        context.delete(cy)
        try context.save()
        #expect((labs.value(forKey: "employees") as? Set<NSManagedObject>)?.count == 1)
        #expect(try fixture.names("Department", "employees.@count == 1", sort: [("title", true)]) == ["Labs"])
    }

    /// An object inserted and deleted before a save is forgotten, but its relationships still
    /// follow their rules at the save: it leaves no trace in an inverse, and an inserted
    /// department deleted again still cascades to the saved employee moved into it.
    @Test(arguments: ContextFixture.storeTypes) func deleteRulesOfForgottenInserts(_ storeType: String) throws {
        let fixture = try ContextFixture(storeType: storeType)
        let context = fixture.context
        let sales = try ContextFixture.department("Sales", in: context)
        let eve = fixture.insert("Employee", ["name": "Eve", "department": sales])
        context.delete(eve)
        #expect(!context.insertedObjects.contains(eve) && !context.deletedObjects.contains(eve))
        try context.save()
        #expect(ContextFixture.names(sales.value(forKey: "employees")) == ["Ann", "Bob"])
        let temporary = fixture.insert("Department", ["title": "Temporary"])
        try ContextFixture.employee("Cy", in: context).setValue(temporary, forKey: "department")
        context.delete(temporary)
        try context.save()
        #expect(try fixture.names("Employee") == ["Ann", "Bob", "Dee"])
        #expect(ContextFixture.names(try ContextFixture.department("Labs", in: context).value(forKey: "employees")) == ["Dee"])
    }

    @Test(arguments: ContextFixture.storeTypes) func aFailedSaveChangesNothing(_ storeType: String) throws {
        let fixture = try ContextFixture(storeType: storeType)
        let context = fixture.context
        fixture.insert("Employee", ["salary": Decimal(1)])  // no name: required
        let ann = try #require(try context.fetch(fixture.request("Employee", "name == 'Ann'")).first)
        ann.setValue(Decimal(2), forKey: "salary")
        do {
            try context.save()
            Issue.record("a save without a required value succeeded")
        } catch {
            #expect((error as NSError).code == NSValidationMissingMandatoryPropertyError)
            #expect(error.localizedDescription == "name is a required value.")
        }
        #expect(context.hasChanges && context.insertedObjects.count == 1 && ann.isUpdated)
        let other = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        other.persistentStoreCoordinator = fixture.coordinator
        #expect(try other.count(for: fixture.request("Employee")) == 4)
        #expect(
            try other.fetch(fixture.request("Employee", "name == 'Ann'")).first?.value(forKey: "salary") as? Decimal == 50_000)
        context.rollback()
        #expect(!context.hasChanges && ann.value(forKey: "salary") as? Decimal == 50_000)
    }

    @Test(arguments: ContextFixture.storeTypes) func wrongTypesAreRefused(_ storeType: String) throws {
        let fixture = try ContextFixture(storeType: storeType)
        let object = fixture.insert("Employee", ["name": "Zed"])
        #expect(throws: (any Error).self) { try object.setValue(validating: "lots", forKey: "salary") }
        #expect(throws: (any Error).self) { try object.setValue(validating: 1, forKey: "nope") }
        #expect(throws: (any Error).self) { try object.setValue(validating: object, forKey: "department") }
    }
}
