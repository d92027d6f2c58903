import CoreData
import Foundation
import TestSupport
import XCTest

/// Batch requests as apps use them: a typed request deleted or updated in the store, the IDs
/// merged into the view context, and a fetched-results controller there seeing the change.
///
/// Each case runs on the SQLite store, and on the PostgreSQL store when a test server is named.
final class BatchRequestTests: XCTestCase {
    static let sqlStoreTypes = [NSSQLiteStoreType] + (PostgresTestServer.isEnabled ? [NSPostgreSQLStoreType] : [])
    /// The stores' folders (and PostgreSQL schemas), removed when each test ends: XCTest keeps
    /// its test case objects to the end of the run.
    var folders: [TemporaryFolder] = []

    override func tearDown() {
        folders = []
        super.tearDown()
    }

    /// An empty store of the Bookshelf model.
    func makeEmptyShelf(_ storeType: String) throws -> NSPersistentContainer {
        let model = try XCTUnwrap(bookshelfModel, "Bookshelf.xcdatamodeld is missing from the test bundle")
        let folder = try TemporaryFolder()
        folders.append(folder)
        let container = NSPersistentContainer(name: "Bookshelf", managedObjectModel: model)
        let description = NSPersistentStoreDescription()
        description.type = storeType
        description.url = try folder.storeURL(for: storeType, name: "Bookshelf.sqlite")
        container.persistentStoreDescriptions = [description]
        var loadError: Error?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        return container
    }

    /// A store with six books, "Book 1"…"Book 6", of 100…600 pages, rated 1…6.
    func makeShelf(_ storeType: String) throws -> NSPersistentContainer {
        let container = try makeEmptyShelf(storeType)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            for number in 1...6 {
                let book = Book(context: context)
                book.title = "Book \(number)"
                book.pages = Int32(number * 100)
                book.rating = Double(number)
            }
            try context.save()
        }
        return container
    }

    func makeController(_ context: NSManagedObjectContext) throws -> NSFetchedResultsController<Book> {
        let request: NSFetchRequest<Book> = Book.fetchRequest()
        request.sortDescriptors = [NSSortDescriptor(keyPath: \Book.title, ascending: true)]
        let controller = NSFetchedResultsController(
            fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: nil, cacheName: nil)
        try controller.performFetch()
        return controller
    }

    func testABatchDeleteOfATypedRequestReachesTheViewContextsController() throws {
        for storeType in Self.sqlStoreTypes { try aBatchDeleteOfATypedRequestReachesTheViewContextsController(storeType) }
    }

    func aBatchDeleteOfATypedRequestReachesTheViewContextsController(_ storeType: String) throws {
        let container = try makeShelf(storeType)
        let view = container.viewContext
        let controller = try makeController(view)
        let recorder = ChangeRecorder()
        controller.delegate = recorder
        XCTAssertEqual(controller.fetchedObjects?.count, 6)

        let fetch: NSFetchRequest<NSFetchRequestResult> = Book.fetchRequest()
        fetch.predicate = NSPredicate(format: "pages < %d", 300)
        let delete = NSBatchDeleteRequest(fetchRequest: fetch)
        delete.resultType = .resultTypeObjectIDs
        let background = container.newBackgroundContext()
        let result = try background.performAndWait { try background.execute(delete) as? NSBatchDeleteResult }
        let ids = try XCTUnwrap(result?.result as? [NSManagedObjectID])
        XCTAssertEqual(ids.count, 2)

        NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSDeletedObjectsKey: ids], into: [view])
        XCTAssertEqual(controller.fetchedObjects?.map(\.title), ["Book 3", "Book 4", "Book 5", "Book 6"])
        XCTAssertTrue(recorder.events.contains("did"), "\(recorder.events)")
        XCTAssertEqual(try view.count(for: Book.fetchRequest() as NSFetchRequest<Book>), 4)
    }

    func testABatchUpdateChangesTheStoreAndMergedObjectsReadTheNewValues() throws {
        for storeType in Self.sqlStoreTypes { try aBatchUpdateChangesTheStoreAndMergedObjectsReadTheNewValues(storeType) }
    }

    func aBatchUpdateChangesTheStoreAndMergedObjectsReadTheNewValues(_ storeType: String) throws {
        let container = try makeShelf(storeType)
        let view = container.viewContext
        let controller = try makeController(view)
        // The view context holds the books, values loaded.
        XCTAssertEqual(controller.fetchedObjects?.map(\.rating), [1, 2, 3, 4, 5, 6])

        let reader = container.newBackgroundContext()
        let stale = try reader.performAndWait {
            let request: NSFetchRequest<Book> = Book.fetchRequest()
            request.predicate = NSPredicate(format: "title == %@", "Book 6")
            return try XCTUnwrap(reader.fetch(request).first)
        }
        XCTAssertEqual(reader.performAndWait { stale.rating }, 6)

        let update = NSBatchUpdateRequest(entity: Book.entity())
        update.predicate = NSPredicate(format: "pages >= %d", 400)
        update.propertiesToUpdate = [
            "rating": NSExpression(format: "rating + 0.5"), "isbn": "reviewed",
        ]
        update.resultType = .updatedObjectIDsResultType
        let background = container.newBackgroundContext()
        let result = try background.performAndWait { try background.execute(update) as? NSBatchUpdateResult }
        let ids = try XCTUnwrap(result?.result as? [NSManagedObjectID])
        XCTAssertEqual(ids.count, 3)
        XCTAssertEqual(result?.resultType, .updatedObjectIDsResultType)

        // Not merged yet: the view context still has what it read.
        XCTAssertEqual(controller.fetchedObjects?.map(\.rating), [1, 2, 3, 4, 5, 6])
        NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSUpdatedObjectsKey: ids], into: [view])
        XCTAssertEqual(controller.fetchedObjects?.map(\.rating), [1, 2, 3, 4.5, 5.5, 6.5])
        XCTAssertEqual(controller.fetchedObjects?.map { $0.isbn ?? "-" }, ["-", "-", "-", "reviewed", "reviewed", "reviewed"])

        // The update raised the rows' versions: a context that changes a book it read before
        // the update, and saves, conflicts with it.
        XCTAssertThrowsError(
            try reader.performAndWait {
                stale.pages = 7
                try reader.save()
            }
        ) { error in
            XCTAssertEqual((error as NSError).code, NSManagedObjectMergeError)
        }
    }

    func testTheCountOfABatchUpdateAndTheStatus() throws {
        for storeType in Self.sqlStoreTypes { try theCountOfABatchUpdateAndTheStatus(storeType) }
    }

    func theCountOfABatchUpdateAndTheStatus(_ storeType: String) throws {
        let container = try makeShelf(storeType)
        let context = container.newBackgroundContext()
        let update = NSBatchUpdateRequest(entityName: "Book")
        update.propertiesToUpdate = ["pages": 1]
        update.resultType = .updatedObjectsCountResultType
        let count = try context.performAndWait { try context.execute(update) as? NSBatchUpdateResult }
        XCTAssertEqual((count?.result as? NSNumber)?.intValue, 6)
        update.resultType = .statusOnlyResultType
        update.predicate = NSPredicate(format: "title == %@", "nothing")
        let status = try context.performAndWait { try context.execute(update) as? NSBatchUpdateResult }
        XCTAssertEqual(status?.result as? NSNumber, NSNumber(value: true))
        let pages = try context.performAndWait { try context.fetch(Book.fetchRequest() as NSFetchRequest<Book>).map(\.pages) }
        XCTAssertEqual(pages, [1, 1, 1, 1, 1, 1])
    }

    func testIncludesSubentitiesChoosesWhetherEbooksAreUpdated() throws {
        for storeType in Self.sqlStoreTypes { try includesSubentitiesChoosesWhetherEbooksAreUpdated(storeType) }
    }

    func includesSubentitiesChoosesWhetherEbooksAreUpdated(_ storeType: String) throws {
        let container = try makeShelf(storeType)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let ebook = Ebook(context: context)
            ebook.title = "Ebook 1"
            ebook.pages = 50
            try context.save()
        }
        let update = NSBatchUpdateRequest(entity: Book.entity())
        update.propertiesToUpdate = ["rating": 0.0]
        update.includesSubentities = false
        update.resultType = .updatedObjectsCountResultType
        XCTAssertTrue(update.includesSubentities == false && update.entityName == "Book")
        let books = try context.performAndWait { try context.execute(update) as? NSBatchUpdateResult }
        XCTAssertEqual((books?.result as? NSNumber)?.intValue, 6)
        update.includesSubentities = true
        update.propertiesToUpdate = ["title": NSExpression(format: "uppercase:(title)")]
        let all = try context.performAndWait { try context.execute(update) as? NSBatchUpdateResult }
        XCTAssertEqual((all?.result as? NSNumber)?.intValue, 7)
        let titles = try context.performAndWait {
            context.reset()
            return try context.fetch(Book.fetchRequest() as NSFetchRequest<Book>).map { "\($0.title) \($0.rating)" }.sorted()
        }
        XCTAssertEqual(
            titles, ["BOOK 1 0.0", "BOOK 2 0.0", "BOOK 3 0.0", "BOOK 4 0.0", "BOOK 5 0.0", "BOOK 6 0.0", "EBOOK 1 0.0"])
    }

    func testABatchInsertFromTypedObjectsThenAnOrdinarySave() throws {
        for storeType in Self.sqlStoreTypes { try aBatchInsertFromTypedObjectsThenAnOrdinarySave(storeType) }
    }

    func aBatchInsertFromTypedObjectsThenAnOrdinarySave(_ storeType: String) throws {
        let container = try makeEmptyShelf(storeType)
        var next = 0
        let insert = NSBatchInsertRequest(
            entity: Book.entity(),
            managedObjectHandler: { object in
                guard let book = object as? Book, next < 3 else { return true }
                next += 1
                book.title = "Imported \(next)"
                book.pages = Int32(next * 10)
                return false
            })
        insert.resultType = .objectIDs
        let context = container.newBackgroundContext()
        let ids = try XCTUnwrap(
            try context.performAndWait { try context.execute(insert) as? NSBatchInsertResult }?.result as? [NSManagedObjectID])
        XCTAssertEqual(ids.count, 3)
        let view = container.viewContext
        let controller = try makeController(view)
        XCTAssertEqual(controller.fetchedObjects?.map(\.title), ["Imported 1", "Imported 2", "Imported 3"])
        // A save afterwards gets a key of its own.
        try context.performAndWait {
            let book = Book(context: context)
            book.title = "Saved"
            try context.save()
            XCTAssertFalse(ids.contains(book.objectID))
        }
        let pages = try context.performAndWait { try context.fetch(Book.fetchRequest() as NSFetchRequest<Book>).map(\.pages) }
        XCTAssertEqual(pages.sorted(), [0, 10, 20, 30])
    }

    func testTheInMemoryStoreRefusesBatchRequestsAsApplesDoes() throws {
        let container = try makeShelf(NSInMemoryStoreType)
        let context = container.newBackgroundContext()
        let update = NSBatchUpdateRequest(entityName: "Book")
        update.propertiesToUpdate = ["pages": 1]
        XCTAssertThrowsError(try context.performAndWait { try context.execute(update) }) { error in
            XCTAssertEqual((error as NSError).code, NSPersistentStoreUnsupportedRequestTypeError)
        }
        let pages = try context.performAndWait { try context.fetch(Book.fetchRequest() as NSFetchRequest<Book>).map(\.pages) }
        XCTAssertEqual(pages.sorted(), [100, 200, 300, 400, 500, 600])
    }
}
