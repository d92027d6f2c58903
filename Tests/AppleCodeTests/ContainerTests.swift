import CoreData
import Foundation
import XCTest

/// The data stack as an app's tests set it up: the model file from the test bundle, an
/// in-memory store, the view context.
final class ContainerTests: XCTestCase {
    var container: NSPersistentContainer!

    override func setUpWithError() throws {
        container = try makeBookshelfContainer(.inMemory)
    }

    func testInsertSaveAndFetchTypedObjects() throws {
        let context = container.viewContext
        let author = Author(context: context)
        author.name = "Ursula"
        for (title, pages) in [("Earthsea", 183), ("The Dispossessed", 387), ("Lathe", 184)] {
            let book = Book(context: context)
            book.title = title
            book.pages = Int32(pages)
            book.author = author
        }
        try context.save()

        let request: NSFetchRequest<Book> = Book.fetchRequest()
        request.predicate = NSPredicate(format: "pages < %d", 200)
        request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
        let books = try context.fetch(request)
        XCTAssertEqual(books.map(\.title), ["Earthsea", "Lathe"])
        XCTAssertEqual(books.first?.author?.name, "Ursula")
        XCTAssertEqual(author.books?.count, 3)
    }
}

/// `NSPersistentContainer(name:)` alone, as the Xcode template writes it: the model is found by
/// name among the bundles' resources.
final class ContainerByNameTests: XCTestCase {
    func testTheModelIsFoundByName() throws {
        let container = NSPersistentContainer(name: "Bookshelf")
        XCTAssertEqual(Set(container.managedObjectModel.entitiesByName.keys), ["Author", "Book", "Ebook", "Journal"])
        let description = NSPersistentStoreDescription(url: URL(fileURLWithPath: "/dev/null"))
        container.persistentStoreDescriptions = [description]
        var loadError: Error?
        container.loadPersistentStores { _, error in loadError = error }
        XCTAssertNil(loadError)
        let ebook = Ebook(context: container.viewContext)
        ebook.title = "Earthsea"
        ebook.fileSize = 1_024
        try container.viewContext.save()
        let books = try container.viewContext.fetch(Book.fetchRequest() as NSFetchRequest<Book>)
        XCTAssertEqual(books.count, 1)
        XCTAssertEqual((books.first as? Ebook)?.fileSize, 1_024)
    }
}
