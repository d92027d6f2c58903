import Foundation
import OpenCoreData
import TestSupport
import Testing

/// A context notes whether every object inserted since its last save is of one entity, none
/// assigned a store or given a permanent ID: a save then gives them their permanent IDs as one
/// group, without a pass over them first. Each object is still checked as it takes its ID, and
/// one that does not fit is saved as it is.
@Suite struct InsertedEntityTests {
    @Test(arguments: ContextFixture.storeTypes) func aContextNotesWhetherItsInsertsShareOneEntity(_ storeType: String) throws {
        let fixture = try ContextFixture(storeType: storeType)
        let context = fixture.context
        try context.performAndWait {
            #expect(context.testingSoleInsertedEntity == nil)
            let first = fixture.insert("Employee", ["name": "Eve"])
            fixture.insert("Employee", ["name": "Fay"])
            #expect(context.testingSoleInsertedEntity == "Employee")
            // A subentity is another entity.
            let manager = fixture.insert("Manager", ["name": "Gil"])
            #expect(context.testingSoleInsertedEntity == nil)
            // Deleting the odd one out does not make the rest one entity again (the note only
            // widens until the list is emptied).
            context.delete(manager)
            #expect(context.testingSoleInsertedEntity == nil)
            try context.save()
            #expect(context.testingSoleInsertedEntity == nil && !first.objectID.isTemporaryID)

            let assigned = fixture.insert("Employee", ["name": "Hal"])
            #expect(context.testingSoleInsertedEntity == "Employee")
            context.assign(assigned, to: fixture.store)
            #expect(context.testingSoleInsertedEntity == nil)
            context.rollback()

            let obtained = fixture.insert("Department", ["title": "Ops"])
            #expect(context.testingSoleInsertedEntity == "Department")
            try context.obtainPermanentIDs(for: [obtained])
            #expect(context.testingSoleInsertedEntity == nil)
            context.reset()
            #expect(context.testingSoleInsertedEntity == nil)
            fixture.insert("Department", ["title": "Ops"])
            #expect(context.testingSoleInsertedEntity == "Department")
        }
    }

    /// A save told that every inserted object is an employee, when some are departments and
    /// one has its permanent ID already, saves each under its own entity, and that one under
    /// the ID it had.
    @Test(arguments: ContextFixture.storeTypes) func objectsThatDoNotFitTheNoteAreSavedAsTheyAre(_ storeType: String) throws {
        let fixture = try ContextFixture(storeType: storeType)
        let context = fixture.context
        let (objects, keptID) = try context.performAndWait {
            var objects: [NSManagedObject] = []
            for index in 0..<40 {
                objects.append(fixture.insert("Employee", ["name": "E\(index)", "salary": Decimal(index)]))
                if index % 10 == 3 { objects.append(fixture.insert("Department", ["title": "D\(index)"])) }
            }
            let early = fixture.insert("Employee", ["name": "Early"])
            try context.obtainPermanentIDs(for: [early])
            objects.append(early)
            objects.append(fixture.insert("Employee", ["name": "Last"]))
            context.testingClaimSoleInsertedEntity(fixture.model[entity: "Employee"])
            try context.save()
            return (objects, early.objectID)
        }
        let ids = context.performAndWait { objects.map(\.objectID) }
        #expect(ids.allSatisfy { !$0.isTemporaryID })
        #expect(Set(ids).count == ids.count)
        #expect(ids[ids.count - 2] == keptID)
        for (object, id) in zip(objects, ids) {
            #expect(id.entity.name == context.performAndWait { object.entity.name })
        }
        // A fresh context reads every row back under its ID.
        let fresh = fixture.freshContext()
        try fresh.performAndWait {
            let employees = try fresh.count(for: NSFetchRequest<NSManagedObject>(entityName: "Employee"))
            let departments = try fresh.count(for: NSFetchRequest<NSManagedObject>(entityName: "Department"))
            #expect(employees == 4 + 42 && departments == 2 + 4)
            for (object, id) in zip(objects, ids) {
                let stored = try fresh.existingObject(with: id)
                let name = context.performAndWait { object.entity.name == "Department" ? "title" : "name" }
                let expected = context.performAndWait { object.value(forKey: name) as? String }
                #expect(stored.value(forKey: name) as? String == expected)
            }
        }
    }
}
