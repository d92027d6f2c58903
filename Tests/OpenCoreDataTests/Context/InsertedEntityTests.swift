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

    /// A child context that gives its objects permanent IDs after saving them into its parent
    /// gives the parent's copies those IDs too: the parent no longer takes its inserted objects
    /// to be without one, and saves each under the ID it took.
    @Test(arguments: ContextFixture.storeTypes) func aParentsInsertsGivenIDsByAChildAreNoted(_ storeType: String) throws {
        let fixture = try ContextFixture(storeType: storeType)
        let parent = fixture.context
        let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        child.parent = parent
        let ids = try child.performAndWait {
            let objects = (0..<3).map { index in
                let object = NSManagedObject(entity: fixture.model[entity: "Employee"], insertInto: child)
                object.setValue("C\(index)", forKey: "name")
                return object
            }
            try child.save()
            try child.obtainPermanentIDs(for: objects)
            return objects.map(\.objectID)
        }
        try parent.performAndWait {
            #expect(ids.allSatisfy { !$0.isTemporaryID })
            #expect(parent.testingSoleInsertedEntity == nil)
            #expect(Set(parent.insertedObjects.map(\.objectID)) == Set(ids))
            try parent.save()
        }
        let fresh = fixture.freshContext()
        try fresh.performAndWait {
            for (index, id) in ids.enumerated() {
                let stored = try fresh.existingObject(with: id)
                #expect(stored.value(forKey: "name") as? String == "C\(index)")
            }
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

/// A save's `NSManagedObjectContextDidSave` lists every object it inserted, whether its
/// objects-did-change announced all of them (its set is posted again then), some were
/// announced before the save, or `willSave()` inserted more after the announcement.
@Suite struct DidSaveInsertedSetTests {
    /// Inserts a note beside itself at its first `willSave()`.
    final class Noting: NSManagedObject {
        nonisolated(unsafe) static var notes: [NSManagedObject] = []
        override func willSave() {
            guard isInserted, !Self.notes.contains(where: { $0 === self }) else { return }
            Self.notes.append(self)
            guard let context = managedObjectContext,
                let entity = NSEntityDescription.entity(forEntityName: "Department", in: context)
            else { return }
            let note = NSManagedObject(entity: entity, insertInto: context)
            note.setValue("Note", forKey: "title")
            Self.notes.append(note)
        }
    }

    enum Scenario: CaseIterable, Sendable {
        case allAnnouncedAtTheSave, someAnnouncedBefore, insertedByWillSave
    }

    @Test(arguments: ContextFixture.storeTypes, Scenario.allCases)
    func theDidSaveListsEveryInsertedObject(_ storeType: String, _ scenario: Scenario) throws {
        let fixture = try ContextFixture(storeType: storeType)
        let context = fixture.context
        let saves = NotificationRecorder(.NSManagedObjectContextDidSave, from: context)
        let changes = NotificationRecorder(.NSManagedObjectContextObjectsDidChange, from: context)
        var expected = try context.performAndWait {
            var objects: [NSManagedObject] = []
            for index in 0..<30 {
                objects.append(fixture.insert("Employee", ["name": "E\(index)"]))
                if scenario == .someAnnouncedBefore && index == 9 { context.processPendingChanges() }
            }
            if scenario == .insertedByWillSave {
                let entity = fixture.model[entity: "Department"]
                let noting = Noting(entity: entity, insertInto: context)
                noting.setValue("Noting", forKey: "title")
                objects.append(noting)
            }
            try context.save()
            return Set(objects.map(ObjectIdentifier.init))
        }
        if scenario == .insertedByWillSave {
            let notes = Noting.notes.filter {
                $0.managedObjectContext === context && $0.value(forKey: "title") as? String == "Note"
            }
            #expect(notes.count == 1)
            expected.formUnion(notes.map(ObjectIdentifier.init))
        }
        let save = try #require(saves.notifications.last)
        let inserted = save.userInfo?[NSInsertedObjectsKey] as? Set<NSManagedObject> ?? []
        #expect(Set(inserted.map(ObjectIdentifier.init)) == expected)
        #expect(inserted.allSatisfy { !$0.objectID.isTemporaryID })
        // Each announcement listed the objects inserted since the one before (the note, after
        // `willSave()`, by the save's last).
        let announced = changes.notifications.indices.map { changes.objects(NSInsertedObjectsKey, in: $0).count }
        let counts: [Scenario: [Int]] = [
            .allAnnouncedAtTheSave: [30], .someAnnouncedBefore: [10, 20], .insertedByWillSave: [31, 1],
        ]
        #expect(announced.filter { $0 > 0 } == counts[scenario])
    }
}
