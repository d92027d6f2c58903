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
