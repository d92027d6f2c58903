import Foundation
import OpenCoreData
import Testing

/// A container whose default store lives in a folder of its own.
final class ElsewhereContainer: NSPersistentContainer {
    override class func defaultDirectoryURL() -> URL { URL(fileURLWithPath: "/tmp/elsewhere") }
}

@Suite struct NSPersistentContainerTests {
    func inMemoryContainer(_ name: String = "Company") -> NSPersistentContainer {
        let container = NSPersistentContainer(name: name, managedObjectModel: CompanyModel.make())
        let description = NSPersistentStoreDescription()
        description.type = NSInMemoryStoreType
        container.persistentStoreDescriptions = [description]
        return container
    }

    func load(_ container: NSPersistentContainer) -> [(NSPersistentStoreDescription, NSError?)] {
        var calls: [(NSPersistentStoreDescription, NSError?)] = []
        container.loadPersistentStores { calls.append(($0, $1 as NSError?)) }
        return calls
    }

    @Test func aContainerWithAModel() {
        let model = CompanyModel.make()
        let container = NSPersistentContainer(name: "Company", managedObjectModel: model)
        #expect(container.name == "Company")
        #expect(container.managedObjectModel === model && container.persistentStoreCoordinator.managedObjectModel === model)
        let description = container.persistentStoreDescriptions.first
        #expect(container.persistentStoreDescriptions.count == 1)
        #expect(description?.type == NSSQLiteStoreType)
        #expect(description?.url == NSPersistentContainer.defaultDirectoryURL().appendingPathComponent("Company.sqlite"))
        #expect(
            NSPersistentContainer.defaultDirectoryURL()
                == FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first)
        let elsewhere = ElsewhereContainer(name: "Notes", managedObjectModel: CompanyModel.make())
        #expect(elsewhere.persistentStoreDescriptions.first?.url?.path == "/tmp/elsewhere/Notes.sqlite")
    }

    @Test func loadingTheDefaultSQLiteStoreReportsOnce() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("container-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let container = NSPersistentContainer(name: "Company", managedObjectModel: CompanyModel.make())
        container.persistentStoreDescriptions.first?.url = folder.appendingPathComponent("Company.sqlite")
        let calls = load(container)
        #expect(calls.count == 1)
        #expect(calls.first?.0 === container.persistentStoreDescriptions.first)
        #expect(calls.first?.1 == nil)
        #expect(container.persistentStoreCoordinator.persistentStores.map(\.type) == [NSSQLiteStoreType])
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("Company.sqlite").path))
    }

    @Test func loadingInMemoryStores() throws {
        let container = inMemoryContainer()
        let work = NSPersistentStoreDescription()
        work.type = NSInMemoryStoreType
        work.configuration = "Work"
        container.persistentStoreDescriptions.append(work)
        let calls = load(container)
        #expect(calls.count == 2 && calls.allSatisfy { $0.1 == nil })
        #expect(
            container.persistentStoreCoordinator.persistentStores.map(\.configurationName) == [
                "PF_DEFAULT_CONFIGURATION_NAME", "Work",
            ])
    }

    @Test func contexts() {
        let container = inMemoryContainer()
        let view = container.viewContext
        #expect(view === container.viewContext)
        #expect(view.concurrencyType == .mainQueueConcurrencyType)
        #expect(view.persistentStoreCoordinator === container.persistentStoreCoordinator)
        #expect(!view.automaticallyMergesChangesFromParent)
        let background = container.newBackgroundContext()
        #expect(background !== container.newBackgroundContext() && background !== view)
        #expect(background.concurrencyType == .privateQueueConcurrencyType)
        #expect(background.persistentStoreCoordinator === container.persistentStoreCoordinator)
    }

    @Test func backgroundTasks() async throws {
        let container = inMemoryContainer()
        #expect(load(container).allSatisfy { $0.1 == nil })
        let model = container.managedObjectModel
        // The callback form runs later, on the new context's queue.
        let saved: Bool = await withCheckedContinuation { continuation in
            container.performBackgroundTask { context in
                let department = NSManagedObject(
                    entity: model.entitiesByName["Department"] ?? NSEntityDescription(), insertInto: context)
                department.setValue("Sales", forKey: "title")
                continuation.resume(returning: (try? context.save()) != nil)
            }
        }
        #expect(saved)
        // The async form returns the block's result and rethrows its error.
        let titles = try await container.performBackgroundTask { context in
            try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Department")).compactMap {
                $0.value(forKey: "title") as? String
            }
        }
        #expect(titles == ["Sales"])
        await #expect(throws: NSError.self) {
            try await container.performBackgroundTask { context in
                try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "NoSuchEntity"))
            }
        }
        let count = await container.performBackgroundTask { _ in 42 }  // no `try` for a block that cannot throw
        #expect(count == 42)
    }

    @Test func backgroundSavesMergeIntoAMergingContext() throws {
        let container = inMemoryContainer()
        #expect(load(container).allSatisfy { $0.1 == nil })
        let reader = container.newBackgroundContext()
        reader.automaticallyMergesChangesFromParent = true
        let writer = container.newBackgroundContext()
        let sales = try writer.performAndWait {
            let sales = NSManagedObject(entity: container.managedObjectModel[entity: "Department"], insertInto: writer)
            sales.setValue("Sales", forKey: "title")
            try writer.save()
            return sales
        }
        let salesInReader = try reader.performAndWait {
            let object = try reader.existingObject(with: sales.objectID)
            #expect(object.value(forKey: "title") as? String == "Sales")
            return object
        }
        try writer.performAndWait {
            sales.setValue("Sales EMEA", forKey: "title")
            try writer.save()
        }
        reader.performAndWait { #expect(salesInReader.value(forKey: "title") as? String == "Sales EMEA") }
    }

    @Test func theViewContextMergesBackgroundSavesOnTheMainQueue() async throws {
        let container = inMemoryContainer()
        #expect(load(container).allSatisfy { $0.1 == nil })
        let view = container.viewContext
        view.automaticallyMergesChangesFromParent = true
        let model = container.managedObjectModel
        let id = try await container.performBackgroundTask { context in
            let sales = NSManagedObject(entity: model[entity: "Department"], insertInto: context)
            sales.setValue("Sales", forKey: "title")
            try context.save()
            return sales.objectID
        }
        let salesInView = try await view.perform { try view.existingObject(with: id) }
        try await container.performBackgroundTask { context in
            try context.existingObject(with: id).setValue("Sales EMEA", forKey: "title")
            try context.save()
        }
        // The merge was queued on the main queue before this block.
        let title = await view.perform { salesInView.value(forKey: "title") as? String }
        #expect(title == "Sales EMEA")
    }

    @Test func aModelFoundByName() {
        // Tiny.xcdatamodeld is in this test target's resource bundle (a `*.resources` folder next
        // to the test executable); its current version is "Tiny 2" (Note and Tag).
        let container = NSPersistentContainer(name: "Tiny")
        #expect(container.managedObjectModel.entitiesByName.keys.sorted() == ["Note", "Tag"])
        // Extra.xcdatamodel, an unversioned model file, is found too.
        #expect(NSPersistentContainer(name: "Extra").managedObjectModel.entitiesByName.keys.sorted() == ["Setting"])
    }

    @Test func aMissingModelIsReportedByLoadPersistentStores() {
        let container = NSPersistentContainer(name: "NoSuchModel")
        #expect(container.managedObjectModel.entities.isEmpty)
        let description = NSPersistentStoreDescription()
        description.type = NSInMemoryStoreType
        container.persistentStoreDescriptions = [description, description.copy() as? NSPersistentStoreDescription ?? description]
        let calls = load(container)
        #expect(calls.count == 2)
        #expect(calls.allSatisfy { $0.1?.code == NSFileReadNoSuchFileError })
        #expect(calls.first?.1?.localizedDescription.contains("No model named 'NoSuchModel'") == true)
        #expect(container.persistentStoreCoordinator.persistentStores.isEmpty)
    }
}
