import CoreData
import Foundation
import TestSupport
import XCTest

// Entities only this file uses, with their classes as Xcode generates them; the model names each
// class by its bare name, as Xcode writes it with "Current Product Module".

public class Bookmark: NSManagedObject {
    @nonobjc public class func fetchRequest() -> NSFetchRequest<Bookmark> {
        NSFetchRequest<Bookmark>(entityName: "Bookmark")
    }

    @Managed public var page: Int32
    @Managed public var note: String?
}

public class Highlight: NSManagedObject {
    @nonobjc public class func fetchRequest() -> NSFetchRequest<Highlight> {
        NSFetchRequest<Highlight>(entityName: "Highlight")
    }

    @Managed public var text: String?
}

public class Sticker: NSManagedObject {
    @nonobjc public class func fetchRequest() -> NSFetchRequest<Sticker> {
        NSFetchRequest<Sticker>(entityName: "Sticker")
    }

    @Managed public var label: String?
}

/// Memory and class look-up as an app's tests check them: fetched objects the app no longer
/// holds are freed, changed ones are kept until saved, and the model's classes come back from
/// `insertNewObject(forEntityName:into:)` and fetches.
final class ObjectLifetimeTests: XCTestCase {
    static let model: NSManagedObjectModel = {
        let model = NSManagedObjectModel()
        model.entities = [
            entity("Bookmark", properties: [attribute("page", .integer32AttributeType), attribute("note", .stringAttributeType)]),
            entity("Highlight", properties: [attribute("text", .stringAttributeType)]),
            entity("Sticker", properties: [attribute("label", .stringAttributeType)]),
        ]
        return model
    }()

    var storeFolder: URL!

    override func setUpWithError() throws {
        storeFolder = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: storeFolder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try FileManager.default.removeItem(at: storeFolder)
    }

    func makeContainer(_ storeType: String) throws -> NSPersistentContainer {
        let container = NSPersistentContainer(name: "Bookmarks", managedObjectModel: Self.model)
        let description = NSPersistentStoreDescription(url: storeFolder.appendingPathComponent("Bookmarks.sqlite"))
        description.type = storeType
        container.persistentStoreDescriptions = [description]
        var loadError: Error?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        return container
    }

    func saveBookmarks(_ count: Int, in context: NSManagedObjectContext) throws {
        try context.performAndWait {
            for page in 0..<count {
                let bookmark = Bookmark(context: context)
                bookmark.page = Int32(page)
            }
            try context.save()
        }
    }

    func testFetchedBookmarksAreFreedWhenTheAppDropsThem() throws {
        for storeType in [NSInMemoryStoreType, NSSQLiteStoreType] {
            let container = try makeContainer(storeType)
            let context = container.newBackgroundContext()
            try saveBookmarks(1_000, in: context)
            context.performAndWait { XCTAssertEqual(context.registeredObjects.count, 0, storeType) }

            weak var firstBookmark: Bookmark?
            func readBookmarks() throws {
                let request: NSFetchRequest<Bookmark> = Bookmark.fetchRequest()
                let bookmarks = try context.fetch(request)
                XCTAssertEqual(bookmarks.count, 1_000)
                XCTAssertEqual(context.registeredObjects.count, 1_000)
                firstBookmark = bookmarks.first
            }
            try context.performAndWait { try readBookmarks() }
            XCTAssertNil(firstBookmark, storeType)
            context.performAndWait { XCTAssertEqual(context.registeredObjects.count, 0, storeType) }
        }
    }

    func testChangedBookmarksAreKeptUntilSaved() throws {
        for storeType in [NSInMemoryStoreType, NSSQLiteStoreType] {
            let container = try makeContainer(storeType)
            let context = container.viewContext
            try saveBookmarks(100, in: context)

            weak var changedBookmark: Bookmark?
            weak var unchangedBookmark: Bookmark?
            func annotate() throws {
                let request: NSFetchRequest<Bookmark> = Bookmark.fetchRequest()
                request.sortDescriptors = [NSSortDescriptor(key: "page", ascending: true)]
                let bookmarks = try context.fetch(request)
                bookmarks[10].note = "Read again"
                changedBookmark = bookmarks[10]
                unchangedBookmark = bookmarks[11]
            }
            try annotate()
            XCTAssertNil(unchangedBookmark, storeType)
            XCTAssertEqual(changedBookmark?.note, "Read again", storeType)
            XCTAssertTrue(context.hasChanges)
            XCTAssertEqual(context.updatedObjects.count, 1)

            try context.save()
            XCTAssertNil(changedBookmark, storeType)
            let request: NSFetchRequest<Bookmark> = Bookmark.fetchRequest()
            request.predicate = NSPredicate(format: "note == %@", "Read again")
            XCTAssertEqual(try context.fetch(request).map(\.page), [10], storeType)
        }
    }

    func testRetainsRegisteredObjectsKeepsEveryBookmark() throws {
        let container = try makeContainer(NSSQLiteStoreType)
        let context = container.newBackgroundContext()
        try saveBookmarks(200, in: context)
        context.retainsRegisteredObjects = true

        weak var firstBookmark: Bookmark?
        try context.performAndWait {
            let request: NSFetchRequest<Bookmark> = Bookmark.fetchRequest()
            firstBookmark = try context.fetch(request).first
        }
        XCTAssertNotNil(firstBookmark)
        context.performAndWait { XCTAssertEqual(context.registeredObjects.count, 200) }
    }

    func testInsertNewObjectReturnsTheModelsClass() throws {
        let container = try makeContainer(NSInMemoryStoreType)
        let context = container.viewContext
        // The first Highlight of the process: nothing has made the class known before.
        let highlight = NSEntityDescription.insertNewObject(forEntityName: "Highlight", into: context) as! Highlight
        highlight.text = "Call me Ishmael."
        try context.save()
        let request: NSFetchRequest<Highlight> = Highlight.fetchRequest()
        XCTAssertEqual(try context.fetch(request).first?.text, "Call me Ishmael.")
    }

    func testFetchReturnsTheModelsClassForAStoreWrittenEarlier() throws {
        // An earlier run of the app wrote the store; this run fetches before making any Sticker.
        do {
            let earlier = try makeContainer(NSSQLiteStoreType)
            let sticker = NSManagedObject(entity: earlier.managedObjectModel.entitiesByName["Sticker"]!, insertInto: earlier.viewContext)
            sticker.setValue("Favourite", forKey: "label")
            try earlier.viewContext.save()
        }
        let container = try makeContainer(NSSQLiteStoreType)
        let request: NSFetchRequest<Sticker> = Sticker.fetchRequest()
        let stickers = try container.viewContext.fetch(request)
        XCTAssertEqual(stickers.map(\.label), ["Favourite"])
    }
}
