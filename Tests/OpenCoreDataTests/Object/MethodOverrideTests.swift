import Foundation
import OpenCoreData
import Testing

/// A save calls `validateValue(_:forKey:)` on every property, and `validateForInsert()`,
/// `willSave()` and `didSave()` on every object, only where a class overrides them (itself, or
/// a superclass between it and `NSManagedObject`): the base methods would do nothing more.
@Suite struct MethodOverrideTests {
    class Plain: NSManagedObject {
        @Managed var name: String?
        var note = ""
        override func validateForInsert() throws { try super.validateForInsert() }
    }

    class Checking: NSManagedObject {
        var count = 0
        override func validateValue(_ value: AutoreleasingUnsafeMutablePointer<AnyObject?>, forKey key: String) throws {
            try super.validateValue(value, forKey: key)
            count += 1
        }
    }

    final class CheckingChild: Checking {
        @Managed var title: String?
    }

    final class PlainChild: Plain {}

    class Saving: NSManagedObject {
        var calls: [String] = []
        override func willSave() { calls.append("willSave") }
        override func didSave() { calls.append("didSave") }
    }

    final class SavingChild: Saving {
        @Managed var title: String?
    }

    final class OnlyDidSave: NSManagedObject {
        override func didSave() {}
    }

    @Test func onlyClassesThatOverrideValidateValueCheckEveryProperty() {
        #expect(!NSManagedObject.testingValidatesEveryProperty)
        #expect(!Plain.testingValidatesEveryProperty)
        #expect(!PlainChild.testingValidatesEveryProperty)
        #expect(Checking.testingValidatesEveryProperty)
        #expect(CheckingChild.testingValidatesEveryProperty)
        // Asked again in turns, and twice in a row: the last class's answer is kept outside the
        // lock, and must be that class's.
        for _ in 0..<3 {
            #expect(Checking.testingValidatesEveryProperty && !Plain.testingValidatesEveryProperty)
            #expect(!PlainChild.testingValidatesEveryProperty && CheckingChild.testingValidatesEveryProperty)
            #expect(CheckingChild.testingValidatesEveryProperty && CheckingChild.testingValidatesEveryProperty)
            #expect(!Plain.testingValidatesEveryProperty && !Plain.testingValidatesEveryProperty)
        }
    }

    @Test func eachSaveMethodIsFoundOverriddenWhereItIs() {
        #expect(NSManagedObject.testingOverriddenSaveMethods == [])
        #expect(Plain.testingOverriddenSaveMethods == ["validateForInsert"])
        #expect(PlainChild.testingOverriddenSaveMethods == ["validateForInsert"])
        #expect(Checking.testingOverriddenSaveMethods == ["validateValue"])
        #expect(CheckingChild.testingOverriddenSaveMethods == ["validateValue"])
        #expect(Saving.testingOverriddenSaveMethods == ["willSave", "didSave"])
        #expect(SavingChild.testingOverriddenSaveMethods == ["willSave", "didSave"])
        #expect(OnlyDidSave.testingOverriddenSaveMethods == ["didSave"])
    }

    /// Once objects of a class that overrides `willSave()` and `didSave()` are in a context,
    /// saves call both on them: the class is noted as it registers, before its first object is
    /// inserted.
    @Test func aClassThatOverridesTheSaveMethodsHasThemCalled() throws {
        let entity = Self.entity("Shelf", titleRequired: false)
        let context = try Self.context(entities: [entity])
        try context.performAndWait {
            let shelf = SavingChild(entity: entity, insertInto: context)
            shelf.title = "Oak"
            #expect(Set(NSManagedObject.testingSaveMethodsOverriddenByAnyClass).isSuperset(of: ["willSave", "didSave"]))
            try context.save()
            #expect(shelf.calls == ["willSave", "didSave"])
        }
    }

    /// A save asks inserted objects to validate while one of them has rules: the context notes
    /// it as each is inserted, and forgets it once they are saved, rolled back or reset.
    @Test func theContextNotesInsertedObjectsWithRules() throws {
        let (loose, strict) = (Self.entity("Loose", titleRequired: false), Self.entity("Strict", titleRequired: true))
        let context = try Self.context(entities: [loose, strict])
        try context.performAndWait {
            _ = NSManagedObject(entity: loose, insertInto: context)
            #expect(!context.testingInsertsHaveRules)
            let untitled = NSManagedObject(entity: strict, insertInto: context)
            #expect(context.testingInsertsHaveRules)
            // The rule is checked: the save is refused, and nothing is forgotten.
            #expect(throws: (any Error).self) { try context.save() }
            #expect(context.testingInsertsHaveRules)
            untitled.setValue("Kept", forKey: "title")
            try context.save()
            #expect(!context.testingInsertsHaveRules)
            _ = NSManagedObject(entity: strict, insertInto: context)
            #expect(context.testingInsertsHaveRules)
            context.rollback()
            #expect(!context.testingInsertsHaveRules)
            _ = NSManagedObject(entity: strict, insertInto: context)
            context.reset()
            #expect(!context.testingInsertsHaveRules)
        }
    }

    /// An entity with one string attribute, `title`, required or not.
    static func entity(_ name: String, titleRequired: Bool) -> NSEntityDescription {
        let entity = NSEntityDescription()
        entity.name = name
        let title = NSAttributeDescription()
        title.name = "title"
        title.attributeType = .stringAttributeType
        title.isOptional = !titleRequired
        entity.properties = [title]
        return entity
    }

    /// A private-queue context on an in-memory store of a model of `entities`.
    static func context(entities: [NSEntityDescription]) throws -> NSManagedObjectContext {
        let model = NSManagedObjectModel()
        model.entities = entities
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }
}
