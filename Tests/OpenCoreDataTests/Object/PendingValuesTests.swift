import Foundation
@testable import OpenCoreData
import Testing

/// A fired fault keeps its fetched row as its values until something needs them whole
/// (`NSManagedObject+PendingValues`): reading attributes and to-one relationships decodes one
/// value at a time, and every other path (changes, to-many relationships, saves, refreshes) sees
/// the same values as if the row had been decoded when the fault fired.
@Suite struct PendingValuesTests {
    @Test(arguments: ContextFixture.storeTypes)
    func readsDecodeOneValueAndMakeNoOtherObject(_ storeType: String) throws {
        let fixture = try ContextFixture(storeType: storeType)
        let context = fixture.freshContext()
        let bob = try ContextFixture.employee("Bob", in: context)
        #expect(bob.isFault)
        #expect(bob.value(forKey: "name") as? String == "Bob")
        #expect(bob.primitiveValue(forKey: "salary") as? Decimal == 70_000)
        #expect(bob.value(forKey: "born") == nil)
        #expect(!bob.isFault && bob.valuesArePending)
        // The department is made only when read: no object for a destination nobody reads.
        #expect(context.registeredObjects == [bob])
        let sales = try #require(bob.value(forKey: "department") as? NSManagedObject)
        #expect(bob.valuesArePending)
        #expect(context.registeredObjects == [bob, sales])
        #expect(sales.value(forKey: "title") as? String == "Sales")
        // The same destination object every time, and the one a fetch gives.
        #expect(bob.value(forKey: "department") as? NSManagedObject === sales)
        let departments = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Department"))
        #expect(departments.contains { $0 === sales })
    }

    @Test(arguments: ContextFixture.storeTypes)
    func aChangeDecodesTheRowAndKeepsEveryOtherValue(_ storeType: String) throws {
        let fixture = try ContextFixture(storeType: storeType)
        let context = fixture.freshContext()
        let ann = try ContextFixture.employee("Ann", in: context)
        #expect(ann.value(forKey: "salary") as? Decimal == 50_000)
        ann.setValue(Decimal(55_000), forKey: "salary")
        #expect(!ann.valuesArePending)
        #expect(ann.value(forKey: "name") as? String == "Ann")
        #expect((ann.value(forKey: "department") as? NSManagedObject)?.value(forKey: "title") as? String == "Sales")
        #expect(ann.changedValues().keys.sorted() == ["salary"])
        #expect(ann.committedValues(forKeys: ["salary", "name"])["salary"] as? Decimal == 50_000)
        #expect(ann.committedValues(forKeys: ["salary", "name"])["name"] as? String == "Ann")
        try context.save()
        let rereading = fixture.freshContext()
        let reread = try ContextFixture.employee("Ann", in: rereading)
        #expect(reread.value(forKey: "salary") as? Decimal == 55_000)
        #expect((reread.value(forKey: "department") as? NSManagedObject)?.value(forKey: "title") as? String == "Sales")
    }

    @Test(arguments: ContextFixture.storeTypes)
    func objectsThatAreOnlyReadCarryNoExtras(_ storeType: String) throws {
        let fixture = try ContextFixture(storeType: storeType)
        let context = fixture.freshContext()
        let bob = try ContextFixture.employee("Bob", in: context)
        _ = bob.value(forKey: "name")
        _ = (bob.value(forKey: "department") as? NSManagedObject)?.value(forKey: "employees")
        #expect(bob.extras == nil && !bob.hasChanges)
        bob.setValue("Robert", forKey: "name")
        #expect(bob.extras?.committed != nil && bob.changedKeys == ["name"] && bob.isChangedKey("name"))
        #expect(bob.committedValues(forKeys: ["name"])["name"] as? String == "Bob")
        try context.save()
        // Saved: the current values are the committed ones again, kept once.
        #expect(bob.extras?.committed == nil && bob.changedKeys.isEmpty && !bob.hasChanges)
        #expect(bob.committedValues(forKeys: ["name"])["name"] as? String == "Robert")
        // An inserted object has nothing committed until it is saved, and in its first event
        // no extras at all: its changed keys are bits in its state.
        let eve = fixture.insert("Employee", ["name": "Eve"])
        #expect(eve.committed.keys.isEmpty && eve.values.keys.contains("name"))
        #expect(eve.extras == nil && eve.changedKeys == ["name"] && !eve.isChangedKey("salary"))
    }

    @Test(arguments: ContextFixture.storeTypes)
    func toManyAndInverseChangesSeeThePendingValues(_ storeType: String) throws {
        let fixture = try ContextFixture(storeType: storeType)
        let context = fixture.freshContext()
        let cy = try ContextFixture.employee("Cy", in: context)
        #expect(cy.value(forKey: "name") as? String == "Cy")
        let labs = try #require(cy.value(forKey: "department") as? NSManagedObject)
        let sales = try #require(try ContextFixture.employee("Ann", in: context).value(forKey: "department") as? NSManagedObject)
        // Moving Cy reads the old destination from Cy's pending row to update both inverses.
        cy.setValue(sales, forKey: "department")
        #expect(ContextFixture.names(sales.value(forKey: "employees")) == ["Ann", "Bob", "Cy"])
        #expect(ContextFixture.names(labs.value(forKey: "employees")) == ["Dee"])
        try context.save()
        let again = fixture.freshContext()
        #expect(
            (try ContextFixture.employee("Cy", in: again).value(forKey: "department") as? NSManagedObject)?.value(forKey: "title")
                as? String == "Sales")
    }

    @Test(arguments: ContextFixture.storeTypes)
    func refreshingDropsThePendingRowAndRereadsTheStore(_ storeType: String) throws {
        let fixture = try ContextFixture(storeType: storeType)
        let context = fixture.freshContext()
        let bob = try ContextFixture.employee("Bob", in: context)
        #expect(bob.value(forKey: "salary") as? Decimal == 70_000)
        // Another context changes Bob in the store.
        let other = fixture.freshContext()
        try ContextFixture.employee("Bob", in: other).setValue(Decimal(71_000), forKey: "salary")
        try other.save()
        #expect(bob.value(forKey: "salary") as? Decimal == 70_000)  // still the row it fetched
        context.refresh(bob, mergeChanges: false)
        #expect(bob.isFault && !bob.valuesArePending)
        #expect(bob.value(forKey: "salary") as? Decimal == 71_000)
    }

    @Test(arguments: ContextFixture.storeTypes)
    func objectIDsOfOneStoreShareTheirOrigin(_ storeType: String) throws {
        let fixture = try ContextFixture(storeType: storeType)
        let context = fixture.freshContext()
        let ids = try context.fetch(NSFetchRequest<NSManagedObjectID>(entityName: "Employee").asIDs())
        #expect(ids.count == 4)
        #expect(ids.allSatisfy { $0.origin === ids[0].origin && $0.persistentStore === fixture.store })
        #expect(Set(ids.map(\.entity.name)) == ["Employee", "Manager"])
        // An ID made again for the same row is equal, hashes alike, and finds the registered object.
        let bob = try ContextFixture.employee("Bob", in: context)
        let again = try #require(fixture.coordinator.managedObjectID(forURIRepresentation: bob.objectID.uriRepresentation()))
        #expect(again == bob.objectID && again.hash == bob.objectID.hash && again !== bob.objectID)
        #expect(context.object(with: again) === bob)
        #expect(context.registeredObject(for: again) === bob)
    }
}

extension NSFetchRequest {
    /// The request with `managedObjectIDResultType`.
    fileprivate func asIDs() -> Self {
        resultType = .managedObjectIDResultType
        return self
    }
}
