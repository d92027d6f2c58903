import Foundation
import OpenCoreData
import TestSupport
import Testing

/// An employee that records the lifecycle calls it receives.
final class HookedEmployee: NSManagedObject {
    nonisolated(unsafe) static var log: [String] = []

    private var tag: String { isFault ? "fault" : (primitiveValue(forKey: "name") as? String ?? "?") }

    override func willSave() { Self.log.append("\(tag):willSave") }
    override func didSave() { Self.log.append("\(tag):didSave") }
    override func prepareForDeletion() { Self.log.append("\(tag):prepareForDeletion") }
    override func willTurnIntoFault() { Self.log.append("\(tag):willTurnIntoFault") }
    override func didTurnIntoFault() { Self.log.append("\(tag):didTurnIntoFault") }
}

/// A class no model names.
final class UnclaimedObject: NSManagedObject {}

/// The lifecycle hooks where the XCTest target (AppleCodeTests) does not reach: child contexts,
/// deleted objects after their save, plain objects, `entity()` without a model.
@Suite(.serialized) struct LifecycleHookTests {
    /// A coordinator on `CompanyModel` whose employees are `HookedEmployee`s.
    static func coordinator(_ storeType: String, folder: TemporaryFolder) throws -> NSPersistentStoreCoordinator {
        let model = CompanyModel.make()
        model.entitiesByName["Employee"]?.managedObjectClassName = NSStringFromClass(HookedEmployee.self)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let url = try folder.storeURL(for: storeType, name: "Hooks.sqlite")
        try coordinator.addPersistentStore(ofType: storeType, configurationName: nil, at: url)
        return coordinator
    }

    static func context(_ coordinator: NSPersistentStoreCoordinator) -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    @Test(arguments: ContextFixture.storeTypes) func aChildContextSaveCallsTheHooksInChildAndParent(_ storeType: String) throws {
        let folder = try TemporaryFolder()
        let parent = Self.context(try Self.coordinator(storeType, folder: folder))
        let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        child.parent = parent
        HookedEmployee.log = []
        let ann = NSEntityDescription.insertNewObject(forEntityName: "Employee", into: child)
        #expect(ann is HookedEmployee)
        ann.setValue("Ann", forKey: "name")
        try child.save()
        #expect(HookedEmployee.log == ["Ann:willSave", "Ann:didSave"])
        HookedEmployee.log = []
        try parent.performAndWait { try parent.save() }
        #expect(HookedEmployee.log == ["Ann:willSave", "Ann:didSave"])
    }

    @Test(arguments: ContextFixture.storeTypes) func aDeletedObjectReadsNilOnceItsDeletionIsSaved(_ storeType: String) throws {
        let folder = try TemporaryFolder()
        let context = Self.context(try Self.coordinator(storeType, folder: folder))
        let bob = NSEntityDescription.insertNewObject(forEntityName: "Employee", into: context)
        bob.setValue("Bob", forKey: "name")
        try context.save()
        HookedEmployee.log = []
        context.delete(bob)
        try context.save()
        #expect(
            HookedEmployee.log == [
                "Bob:prepareForDeletion", "Bob:willSave", "Bob:didSave", "Bob:willTurnIntoFault", "fault:didTurnIntoFault",
            ])
        #expect(bob.isFault && bob.managedObjectContext == nil)
        #expect(bob.value(forKey: "name") == nil)
    }

    @Test(arguments: ContextFixture.storeTypes) func plainObjectsSaveAsBefore(_ storeType: String) throws {
        // Departments are plain `NSManagedObject`s: no hook to call, and the save is the same.
        let fixture = try ContextFixture(saved: false, storeType: storeType)
        try fixture.context.save()
        let fresh = fixture.freshContext()
        let departments = try fresh.fetch(NSFetchRequest<NSManagedObject>(entityName: "Department"))
        #expect(departments.compactMap { $0.value(forKey: "title") as? String }.sorted() == ["Labs", "Sales"])
    }

    @Test func entityOfAClassNoModelNamesStopsWithApplesReason() async {
        await #expect(processExitsWith: .failure) {
            _ = UnclaimedObject.entity()
        }
    }

    @Test func entityComesFromTheNewestLiveCoordinator() throws {
        let folder = try TemporaryFolder()
        let kept = try Self.coordinator(NSInMemoryStoreType, folder: folder)
        #expect(HookedEmployee.entity() === kept.managedObjectModel.entitiesByName["Employee"])
        var newer: NSPersistentStoreCoordinator? = try Self.coordinator(NSInMemoryStoreType, folder: folder)
        let newerEntity = newer?.managedObjectModel.entitiesByName["Employee"]
        #expect(HookedEmployee.entity() === newerEntity)
        // Once the newer coordinator is gone, its model no longer counts.
        newer = nil
        #expect(HookedEmployee.entity() === kept.managedObjectModel.entitiesByName["Employee"])
        #expect(newer == nil)
    }
}
