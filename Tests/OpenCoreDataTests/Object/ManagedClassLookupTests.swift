import Foundation
@testable import OpenCoreData
import TestSupport
import Testing

// Classes only these tests use (each by one test), so that no earlier instance in the process
// has made them known: the lookup by bare name must find them itself.

final class ClassLookupGadget: NSManagedObject {}
final class ClassLookupWidget: NSManagedObject {}
final class ClassLookupSprocket: NSManagedObject {}
/// Not a managed object: an entity naming it gets `NSManagedObject`.
final class ClassLookupPlain: NSObject {}

/// An entity's `managedObjectClassName` as Xcode writes it ("Book", with "Current Product
/// Module") finds its subclass without a prior instance: Swift on Linux finds classes only by
/// module-qualified name, so the module is read from the loaded images' type records.
@Suite struct ManagedClassLookupTests {
    static func model(_ entityName: String, className: String) -> NSManagedObjectModel {
        let entity = NSEntityDescription()
        entity.name = entityName
        entity.managedObjectClassName = className
        entity.properties = [attribute("name", .stringAttributeType)]
        let model = NSManagedObjectModel()
        model.entities = [entity]
        return model
    }

    @Test func aBareNameFindsItsModule() {
        #expect(ManagedClassRegistry.qualifiedClassNames(bareName: "ClassLookupGadget") == ["OpenCoreDataTests.ClassLookupGadget"])
        #expect(ManagedClassRegistry.managedClass(named: "ClassLookupGadget") == ClassLookupGadget.self)
        // Classes of other images too (corelibs' Foundation), whatever they are.
        #expect(ManagedClassRegistry.qualifiedClassNames(bareName: "NSLock").contains("Foundation.NSLock"))
    }

    @Test func whatIsNoManagedObjectSubclassFallsBack() {
        #expect(ManagedClassRegistry.managedClass(named: "ClassLookupNoSuchClass") == NSManagedObject.self)
        #expect(ManagedClassRegistry.qualifiedClassNames(bareName: "ClassLookupPlain") == ["OpenCoreDataTests.ClassLookupPlain"])
        #expect(ManagedClassRegistry.managedClass(named: "ClassLookupPlain") == NSManagedObject.self)
        #expect(ManagedClassRegistry.managedClass(named: "OpenCoreDataTests.ClassLookupNoSuchClass") == NSManagedObject.self)
        #expect(ManagedClassRegistry.qualifiedClassNames(bareName: "") == [])
    }

    @Test func insertNewObjectMakesTheSubclass() throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: Self.model("Sprocket", className: "ClassLookupSprocket"))
        _ = try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let object = NSEntityDescription.insertNewObject(forEntityName: "Sprocket", into: context)
        #expect(object is ClassLookupSprocket)
    }

    /// Nested: the lookup by bare name, which reads top-level classes, does not find it.
    final class ClassLookupNested: NSManagedObject {}

    /// A context remembers each entity's class, and looks again once a class is registered: an
    /// entity naming a class nobody had made gets plain objects, then the class once one
    /// instance of it has been made.
    @Test func aContextLooksAgainOnceAClassIsRegistered() throws {
        let model = Self.model("Nested", className: "ClassLookupNested")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        _ = try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let before = NSEntityDescription.insertNewObject(forEntityName: "Nested", into: context)
        #expect(type(of: before) == NSManagedObject.self)
        #expect(type(of: NSEntityDescription.insertNewObject(forEntityName: "Nested", into: context)) == NSManagedObject.self)
        _ = ClassLookupNested(entity: model[entity: "Nested"], insertInto: context)
        #expect(NSEntityDescription.insertNewObject(forEntityName: "Nested", into: context) is ClassLookupNested)
    }

    @Test(arguments: ContextFixture.storeTypes) func fetchesMakeTheSubclass(_ storeType: String) throws {
        let model = Self.model("Widget", className: "ClassLookupWidget")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let folder = try TemporaryFolder()
        _ = try coordinator.addPersistentStore(
            ofType: storeType, configurationName: nil,
            at: try folder.storeURL(for: storeType, name: "Widgets.sqlite"))
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        // Saved as plain objects: nothing has made a ClassLookupWidget yet.
        NSManagedObject(entity: model[entity: "Widget"], insertInto: context).setValue("one", forKey: "name")
        try context.save()
        context.reset()
        let fetched = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Widget"))
        #expect(fetched.count == 1 && fetched.allSatisfy { $0 is ClassLookupWidget })
        #expect(try context.fetch(NSFetchRequest<ClassLookupWidget>(entityName: "Widget")).first?.value(forKey: "name") as? String == "one")
    }
}
