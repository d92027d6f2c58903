import Foundation
@testable import OpenCoreData
import Testing

/// An object's changed keys are bits by slot of its layout for the first 64 properties, and a
/// set for the others: either way they read back as the names changed, and a save clears them.
@Suite struct ChangedKeysTests {
    /// An entity of `count` optional string attributes `a0`, `a1`, …, in a context.
    private func context(attributes count: Int) throws -> (NSManagedObjectContext, NSEntityDescription) {
        let entity = NSEntityDescription()
        entity.name = "Wide"
        entity.properties = (0..<count).map { index in
            let attribute = NSAttributeDescription()
            attribute.name = "a\(index)"
            attribute.attributeType = .stringAttributeType
            return attribute
        }
        let model = NSManagedObjectModel()
        model.entities = [entity]
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        _ = try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return (context, try #require(model.entitiesByName["Wide"]))
    }

    @Test func namesOnBothSidesOfTheBitsReadBack() throws {
        let (context, entity) = try context(attributes: 70)
        try context.performAndWait {
            let object = NSManagedObject(entity: entity, insertInto: context)
            #expect(!object.hasChangedKeys && object.changedKeys.isEmpty)
            for name in ["a0", "a63", "a64", "a69", "a63"] { object.setValue("x", forKey: name) }
            #expect(object.changedKeys == ["a0", "a63", "a64", "a69"])
            #expect(object.isChangedKey("a63") && object.isChangedKey("a64") && !object.isChangedKey("a1"))
            #expect(!object.isChangedKey("a65") && !object.isChangedKey("nothing"))
            #expect(Set(object.changedValues().keys) == ["a0", "a63", "a64", "a69"])
            try context.save()
            #expect(!object.hasChangedKeys && object.changedKeys.isEmpty && !object.hasChanges)
            object.setValue("y", forKey: "a65")
            #expect(object.changedKeys == ["a65"] && object.isUpdated)
            // Setting the names replaces them.
            object.changedKeys = ["a2", "a66"]
            #expect(object.changedKeys == ["a2", "a66"] && !object.isChangedKey("a65"))
        }
    }
}
