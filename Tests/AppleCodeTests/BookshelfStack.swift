import CoreData
import Foundation
import TestSupport
import XCTest

/// The stores every case of these tests runs on, as apps' tests set them up.
enum StoreKind: CaseIterable {
    case inMemory
    case sqlite
}

/// The Bookshelf model from the test bundle, loaded once (entities may belong to one model only).
let bookshelfModel: NSManagedObjectModel? = Bundle.module.url(forResource: "Bookshelf", withExtension: "xcdatamodeld")
    .flatMap(NSManagedObjectModel.init(contentsOf:))

/// A container for the Bookshelf model on a fresh store of `kind`: an in-memory store, or an
/// SQLite file in a new temporary folder.
func makeBookshelfContainer(_ kind: StoreKind, file: StaticString = #filePath, line: UInt = #line) throws -> NSPersistentContainer
{
    let model = try XCTUnwrap(bookshelfModel, "Bookshelf.xcdatamodeld is missing from the test bundle", file: file, line: line)
    return try makeContainer(named: "Bookshelf", model: model, kind)
}

/// A container named `name` for `model` on a fresh store of `kind`: an in-memory store, or an
/// SQLite file in a new temporary folder.
func makeContainer(named name: String, model: NSManagedObjectModel, _ kind: StoreKind) throws -> NSPersistentContainer {
    let container = NSPersistentContainer(name: name, managedObjectModel: model)
    let description = NSPersistentStoreDescription()
    switch kind {
    case .inMemory:
        description.type = NSInMemoryStoreType
    case .sqlite:
        let folder = try ExitRemovedFolders.make(prefix: name)
        description.type = NSSQLiteStoreType
        description.url = folder.appendingPathComponent("\(name).sqlite")
    }
    container.persistentStoreDescriptions = [description]
    var loadError: Error?
    container.loadPersistentStores { _, error in loadError = error }
    if let loadError { throw loadError }
    return container
}

/// A shelf for fetch tests on a fresh store of `kind`: the authors Ann and Bo, and `books`
/// (title, pages, and the author's name or nil), saved.
func makeShelf(_ kind: StoreKind, books: [(title: String, pages: Int, author: String?)]) throws -> NSManagedObjectContext {
    let context = try makeBookshelfContainer(kind).viewContext
    var authors: [String: Author] = [:]
    for name in ["Ann", "Bo"] {
        let author = Author(context: context)
        author.name = name
        authors[name] = author
    }
    for (title, pages, author) in books {
        let book = Book(context: context)
        book.title = title
        book.pages = Int32(pages)
        book.author = author.flatMap { authors[$0] }
    }
    try context.save()
    return context
}
