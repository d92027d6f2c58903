import Foundation
import OpenCoreData
import Testing

/// Collects the notifications of one name from one object.
final class NotificationRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var received: [Notification] = []
    private var token: NSObjectProtocol?

    init(_ name: Notification.Name, from object: AnyObject?) {
        token = NotificationCenter.default.addObserver(forName: name, object: object, queue: nil) { [weak self] note in
            guard let self else { return }
            self.lock.lock()
            self.received.append(note)
            self.lock.unlock()
        }
    }

    var notifications: [Notification] {
        lock.lock()
        defer { lock.unlock() }
        return received
    }

    func objects(_ key: String, in index: Int) -> Set<NSManagedObject> {
        notifications[index].userInfo?[key] as? Set<NSManagedObject> ?? []
    }

    deinit {
        if let token { NotificationCenter.default.removeObserver(token) }
    }
}

@Suite struct MergingTests {
    /// A second private-queue context on the fixture's coordinator.
    func secondContext(_ fixture: ContextFixture, merging: Bool) -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = fixture.coordinator
        context.automaticallyMergesChangesFromParent = merging
        return context
    }

    @Test(arguments: ContextFixture.storeTypes) func automaticMergeRefreshesObjectsAndKeepsTheirOwnChanges(_ storeType: String)
        throws
    {
        let fixture = try ContextFixture(storeType: storeType)
        let other = secondContext(fixture, merging: true)
        let born = Date(timeIntervalSince1970: 1_000_000)
        let annInOther = try other.performAndWait {
            let ann = try ContextFixture.employee("Ann", in: other)
            #expect(ann.value(forKey: "salary") as? Decimal == 50_000)
            ann.setValue(born, forKey: "born")  // an unsaved change of its own, to another key
            return ann
        }
        let ann = try ContextFixture.employee("Ann", in: fixture.context)
        ann.setValue(Decimal(60_000), forKey: "salary")
        try fixture.context.save()

        other.performAndWait {
            // The same instance, not refetched, shows the saved value ...
            #expect(annInOther.value(forKey: "salary") as? Decimal == 60_000)
            #expect(annInOther.committedValues(forKeys: ["salary"])["salary"] as? Decimal == 60_000)
            // ... and keeps its own unsaved change.
            #expect(annInOther.value(forKey: "born") as? Date == born)
            #expect(annInOther.isUpdated && Set(annInOther.changedValues().keys) == ["born"])
            #expect(other.registeredObject(for: ann.objectID) === annInOther)
        }
    }

    @Test(arguments: ContextFixture.storeTypes) func withoutAutomaticMergingLoadedObjectsKeepTheirValues(_ storeType: String)
        throws
    {
        let fixture = try ContextFixture(storeType: storeType)
        let other = secondContext(fixture, merging: false)
        let annInOther = try other.performAndWait {
            let ann = try ContextFixture.employee("Ann", in: other)
            _ = ann.value(forKey: "salary")
            return ann
        }
        let ann = try ContextFixture.employee("Ann", in: fixture.context)
        ann.setValue(Decimal(60_000), forKey: "salary")
        try fixture.context.save()
        other.performAndWait { #expect(annInOther.value(forKey: "salary") as? Decimal == 50_000) }

        // Turned on later, it merges the next save; turned off, it stops.
        other.automaticallyMergesChangesFromParent = true
        ann.setValue(Decimal(61_000), forKey: "salary")
        try fixture.context.save()
        other.performAndWait { #expect(annInOther.value(forKey: "salary") as? Decimal == 61_000) }
        other.automaticallyMergesChangesFromParent = false
        ann.setValue(Decimal(62_000), forKey: "salary")
        try fixture.context.save()
        other.performAndWait { #expect(annInOther.value(forKey: "salary") as? Decimal == 61_000) }
    }

    @Test(arguments: ContextFixture.storeTypes) func insertedObjectsAreRegisteredAndDeletedOnesLeave(_ storeType: String) throws {
        let fixture = try ContextFixture(storeType: storeType)
        let other = secondContext(fixture, merging: true)
        let bobInOther = try other.performAndWait {
            let bob = try ContextFixture.employee("Bob", in: other)
            bob.setValue(Decimal(1), forKey: "salary")  // an unsaved change, lost with the object
            return bob
        }
        let didChange = NotificationRecorder(.NSManagedObjectContextObjectsDidChange, from: other)
        let eve = fixture.insert("Employee", ["name": "Eve", "salary": Decimal(10)])
        fixture.context.delete(try ContextFixture.employee("Bob", in: fixture.context))
        try fixture.context.save()

        other.performAndWait {
            let eveInOther = other.registeredObject(for: eve.objectID)
            #expect(eveInOther?.isFault == true)
            #expect(eveInOther?.value(forKey: "name") as? String == "Eve")
            #expect(bobInOther.isDeleted && bobInOther.managedObjectContext == nil)
            #expect(other.registeredObject(for: bobInOther.objectID) == nil)
            #expect(!other.hasChanges && other.updatedObjects.isEmpty)
        }
        let merged = try #require(didChange.notifications.last)
        #expect((merged.userInfo?[NSInsertedObjectsKey] as? Set<NSManagedObject>)?.map(\.objectID) == [eve.objectID])
        #expect((merged.userInfo?[NSDeletedObjectsKey] as? Set<NSManagedObject>) == [bobInOther])
        #expect(try other.performAndWait { try other.count(for: fixture.request("Employee")) } == 4)
    }

    @Test(arguments: ContextFixture.storeTypes) func mergeChangesFromAGivenNotification(_ storeType: String) throws {
        let fixture = try ContextFixture(storeType: storeType)
        let other = secondContext(fixture, merging: false)
        let saves = NotificationRecorder(.NSManagedObjectContextDidSave, from: fixture.context)
        let annInOther = try other.performAndWait {
            let ann = try ContextFixture.employee("Ann", in: other)
            _ = ann.value(forKey: "name")
            return ann
        }
        let ann = try ContextFixture.employee("Ann", in: fixture.context)
        ann.setValue("Anna", forKey: "name")
        try fixture.context.save()
        let save = try #require(saves.notifications.first)

        let didChange = NotificationRecorder(.NSManagedObjectContextObjectsDidChange, from: other)
        let didMerge = NotificationRecorder(NSManagedObjectContext.didMergeChangesObjectIDsNotification, from: other)
        other.performAndWait {
            #expect(annInOther.value(forKey: "name") as? String == "Ann")
            other.mergeChanges(fromContextDidSave: save)
            #expect(annInOther.value(forKey: "name") as? String == "Anna")
        }
        #expect(didChange.notifications.count == 1)
        #expect(didChange.objects(NSRefreshedObjectsKey, in: 0) == [annInOther])
        #expect(didMerge.notifications.first?.userInfo?[NSRefreshedObjectIDsKey] as? Set<NSManagedObjectID> == [ann.objectID])
    }

    @Test func savesOfAnotherCoordinatorAreNotMerged() throws {
        let first = try ContextFixture()
        let second = try ContextFixture()
        let other = secondContext(second, merging: true)
        let annInOther = try other.performAndWait {
            let ann = try ContextFixture.employee("Ann", in: other)
            _ = ann.value(forKey: "salary")
            return ann
        }
        let ann = try ContextFixture.employee("Ann", in: first.context)
        ann.setValue(Decimal(99), forKey: "salary")
        try first.context.save()
        other.performAndWait { #expect(annInOther.value(forKey: "salary") as? Decimal == 50_000) }
    }

    // MARK: - Objects-did-change

    @Test(arguments: ContextFixture.storeTypes) func processPendingChangesAnnouncesChangesSinceTheLastAnnouncement(
        _ storeType: String
    ) throws {
        let fixture = try ContextFixture(storeType: storeType)
        let context = fixture.context
        let ann = try ContextFixture.employee("Ann", in: context)
        let bob = try ContextFixture.employee("Bob", in: context)
        let recorder = NotificationRecorder(NSManagedObjectContext.didChangeObjectsNotification, from: context)

        let eve = fixture.insert("Employee", ["name": "Eve"])
        let ghost = fixture.insert("Employee", ["name": "Ghost"])
        context.delete(ghost)  // inserted and deleted before the announcement: never announced
        ann.setValue(Decimal(1), forKey: "salary")
        context.delete(bob)
        context.processPendingChanges()
        #expect(recorder.notifications.count == 1)
        #expect(recorder.objects(NSInsertedObjectsKey, in: 0) == [eve])
        #expect(recorder.objects(NSUpdatedObjectsKey, in: 0) == [ann])
        #expect(recorder.objects(NSDeletedObjectsKey, in: 0) == [bob])

        context.processPendingChanges()  // nothing new
        #expect(recorder.notifications.count == 1)

        // The end of a performAndWait block announces its changes.
        context.performAndWait { ann.setValue(Decimal(2), forKey: "salary") }
        #expect(recorder.notifications.count == 2)
        #expect(recorder.objects(NSUpdatedObjectsKey, in: 1) == [ann])
        #expect(recorder.notifications[1].userInfo?[NSInsertedObjectsKey] == nil)

        // A rolled-back change is not announced.
        let cy = try ContextFixture.employee("Cy", in: context)
        cy.setValue(Decimal(3), forKey: "salary")
        context.rollback()
        context.processPendingChanges()
        #expect(recorder.notifications.count == 2)
    }

    @Test(arguments: ContextFixture.storeTypes) func saveAnnouncesPendingChangesBeforeItsDidSave(_ storeType: String) throws {
        let fixture = try ContextFixture(storeType: storeType)
        let context = fixture.context
        let order = OrderRecorder(context)
        let ann = try ContextFixture.employee("Ann", in: context)
        ann.setValue(Decimal(5), forKey: "salary")
        try context.save()
        #expect(
            order.names == [
                "NSObjectsChangedInManagingContextNotification", Notification.Name.NSManagedObjectContextDidSave.rawValue,
            ])
    }

    /// A save's did-save lists every object it inserted: those its first announcement listed,
    /// and those inserted while it ran (here by a will-save observer), which a later
    /// announcement lists.
    @Test(arguments: ContextFixture.storeTypes) func didSaveListsEveryInsertedObject(_ storeType: String) throws {
        let fixture = try ContextFixture(storeType: storeType)
        let context = fixture.context
        let changes = NotificationRecorder(.NSManagedObjectContextObjectsDidChange, from: context)
        let saves = NotificationRecorder(.NSManagedObjectContextDidSave, from: context)
        let first = [fixture.insert("Department", ["title": "A"]), fixture.insert("Department", ["title": "B"])]
        try context.save()
        #expect(changes.objects(NSInsertedObjectsKey, in: 0) == Set(first))
        #expect(saves.objects(NSInsertedObjectsKey, in: 0) == Set(first))
        // Inserted during the save, after its first announcement.
        let entity = fixture.model[entity: "Department"]
        var late: NSManagedObject?
        let token = NotificationCenter.default.addObserver(
            forName: .NSManagedObjectContextWillSave, object: context, queue: nil
        ) { _ in
            if late == nil { late = NSManagedObject(entity: entity, insertInto: context) }
        }
        defer { NotificationCenter.default.removeObserver(token) }
        let second = fixture.insert("Department", ["title": "C"])
        try context.save()
        let lateObject = try #require(late)
        #expect(saves.objects(NSInsertedObjectsKey, in: 1) == [second, lateObject])
        #expect(!lateObject.isInserted && !lateObject.objectID.isTemporaryID)
    }

    // MARK: - Settings

    @Test func mergePolicies() throws {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        #expect(context.mergePolicy as AnyObject === NSErrorMergePolicy)
        #expect((context.mergePolicy as? NSMergePolicy)?.mergeType == .errorMergePolicyType)
        context.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
        #expect((context.mergePolicy as? NSMergePolicy)?.mergeType == .mergeByPropertyObjectTrumpMergePolicyType)
        context.mergePolicy = NSMergePolicy(merge: .overwriteMergePolicyType)
        #expect((context.mergePolicy as? NSMergePolicy) == NSMergePolicy.overwrite)

        let table: [(AnyObject, NSMergePolicy, NSMergePolicyType, UInt)] = [
            (NSErrorMergePolicy, .error, .errorMergePolicyType, 0),
            (NSMergeByPropertyStoreTrumpMergePolicy, .mergeByPropertyStoreTrump, .mergeByPropertyStoreTrumpMergePolicyType, 1),
            (NSMergeByPropertyObjectTrumpMergePolicy, .mergeByPropertyObjectTrump, .mergeByPropertyObjectTrumpMergePolicyType, 2),
            (NSOverwriteMergePolicy, .overwrite, .overwriteMergePolicyType, 3),
            (NSRollbackMergePolicy, .rollback, .rollbackMergePolicyType, 4),
        ]
        for (global, shared, type, raw) in table {
            #expect(global === shared)
            #expect(shared.mergeType == type && type.rawValue == raw)
        }
    }

    @Test func defaultsAndNames() {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        #expect(context.stalenessInterval == -1)
        #expect(!context.automaticallyMergesChangesFromParent)
        context.stalenessInterval = 0
        #expect(context.stalenessInterval == 0)
        #expect(
            Notification.Name.NSManagedObjectContextObjectsDidChange.rawValue == "NSObjectsChangedInManagingContextNotification")
        #expect(NSManagedObjectContext.didChangeObjectsNotification == .NSManagedObjectContextObjectsDidChange)
        #expect(NSManagedObjectContext.didSaveObjectsNotification == .NSManagedObjectContextDidSave)
        #expect(
            [NSRefreshedObjectsKey, NSInsertedObjectIDsKey, NSDeletedObjectIDsKey] == [
                "refreshed", "inserted_objectIDs", "deleted_objectIDs",
            ])
    }
}

/// Records the names of a context's change and save notifications, in order.
final class OrderRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var received: [String] = []
    private var tokens: [NSObjectProtocol] = []

    init(_ context: NSManagedObjectContext) {
        for name in [Notification.Name.NSManagedObjectContextObjectsDidChange, .NSManagedObjectContextDidSave] {
            tokens.append(
                NotificationCenter.default.addObserver(forName: name, object: context, queue: nil) { [weak self] note in
                    guard let self else { return }
                    self.lock.lock()
                    self.received.append(note.name.rawValue)
                    self.lock.unlock()
                })
        }
    }

    var names: [String] {
        lock.lock()
        defer { lock.unlock() }
        return received
    }

    deinit {
        for token in tokens { NotificationCenter.default.removeObserver(token) }
    }
}
