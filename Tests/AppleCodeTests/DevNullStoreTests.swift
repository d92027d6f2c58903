import CoreData
import Foundation
import XCTest

/// Apple's idiom for a fresh SQLite store in tests: a store description whose URL is
/// `/dev/null`. Each container gets its own empty in-memory database.
final class DevNullStoreTests: XCTestCase {
    static let model: NSManagedObjectModel = {
        let note = NSEntityDescription()
        note.name = "Note"
        let title = NSAttributeDescription()
        title.name = "title"
        title.attributeType = .stringAttributeType
        note.properties = [title]
        let model = NSManagedObjectModel()
        model.entities = [note]
        return model
    }()

    func makeContainer() throws -> NSPersistentContainer {
        let container = NSPersistentContainer(name: "Notes", managedObjectModel: Self.model)
        let description = NSPersistentStoreDescription()
        description.type = NSSQLiteStoreType
        description.url = URL(fileURLWithPath: "/dev/null")
        container.persistentStoreDescriptions = [description]
        var loadError: Error?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        return container
    }

    func testADevNullStoreIsAnSQLiteStoreThatSavesAndFetches() throws {
        let container = try makeContainer()
        let context = container.viewContext
        XCTAssertEqual(container.persistentStoreCoordinator.persistentStores.first?.type, NSSQLiteStoreType)
        for title in ["b", "a", "c"] {
            let note = NSEntityDescription.insertNewObject(forEntityName: "Note", into: context)
            note.setValue(title, forKey: "title")
        }
        try context.save()

        let request = NSFetchRequest<NSManagedObject>(entityName: "Note")
        request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
        request.predicate = NSPredicate(format: "title != %@", "c")
        let fresh = container.newBackgroundContext()
        let titles = try fresh.performAndWait { try fresh.fetch(request).map { $0.value(forKey: "title") as? String } }
        XCTAssertEqual(titles, ["a", "b"])
    }

    func testEachDevNullStoreIsItsOwnEmptyDatabase() throws {
        let first = try makeContainer()
        let note = NSEntityDescription.insertNewObject(forEntityName: "Note", into: first.viewContext)
        note.setValue("kept", forKey: "title")
        try first.viewContext.save()

        let second = try makeContainer()
        let request = NSFetchRequest<NSManagedObject>(entityName: "Note")
        XCTAssertEqual(try second.viewContext.count(for: request), 0)
        XCTAssertEqual(try first.viewContext.count(for: request), 1)
        XCTAssertTrue(FileManager.default.fileExists(atPath: "/dev/null"))
    }
}
