import Foundation
@testable import OpenCoreData
import TestSupport
import Testing

/// Derived attributes are computed when a context saves, on both store types: a count of a
/// to-many, a to-one's attribute, a function of an attribute.
@Suite struct DerivedAttributeTests {
    static func model() -> NSManagedObjectModel {
        let book = NSEntityDescription(), page = NSEntityDescription()
        book.name = "Book"
        page.name = "Page"
        func derived(_ name: String, _ type: NSAttributeType, _ format: String) -> NSDerivedAttributeDescription {
            let attribute = NSDerivedAttributeDescription()
            attribute.name = name
            attribute.attributeType = type
            attribute.derivationExpression = NSExpression(format: format)
            return attribute
        }
        let pages = relationship("pages", to: page, maxCount: 0), pageBook = relationship("book", to: book, maxCount: 1)
        inverses(pages, pageBook)
        book.properties = [
            attribute("title", .stringAttributeType), derived("pagesCount", .integer64AttributeType, "pages.@count"),
            derived("searchTitle", .stringAttributeType, "lowercase:(title)"),
            derived("numbersTotal", .integer64AttributeType, "pages.@sum.number"), pages,
        ]
        page.properties = [
            attribute("number", .integer32AttributeType), derived("bookTitle", .stringAttributeType, "book.title"), pageBook,
        ]
        let model = NSManagedObjectModel()
        model.entities = [book, page]
        return model
    }

    /// A store of the model (a file in `folder` for SQLite), a context on it, and a new book
    /// "Mort" inserted there.
    static func library(_ storeType: String, in folder: TemporaryFolder) throws -> (
        NSManagedObjectModel, NSPersistentStoreCoordinator, NSManagedObjectContext, NSManagedObject
    ) {
        let model = Self.model()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        _ = try coordinator.addPersistentStore(
            ofType: storeType, configurationName: nil,
            at: try folder.storeURL(for: storeType, name: "Books.sqlite"))
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let book = NSManagedObject(entity: try #require(model.entitiesByName["Book"]), insertInto: context)
        book.setValue("Mort", forKey: "title")
        return (model, coordinator, context, book)
    }

    @Test(arguments: ContextFixture.storeTypes) func derivedValuesAreComputedOnSave(_ storeType: String) throws {
        let folder = try TemporaryFolder()
        let (model, coordinator, context, book) = try Self.library(storeType, in: folder)
        for number in 1...3 {
            let page = NSManagedObject(entity: try #require(model.entitiesByName["Page"]), insertInto: context)
            page.setValue(number, forKey: "number")
            page.setValue(book, forKey: "book")
        }
        try context.save()

        var readers: [NSManagedObjectContext] = []  // objects do not keep their context alive
        func fresh() throws -> (book: NSManagedObject, pages: [NSManagedObject]) {
            let other = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            other.persistentStoreCoordinator = coordinator
            readers.append(other)
            let book = try #require(try other.fetch(NSFetchRequest<NSManagedObject>(entityName: "Book")).first)
            return (book, try other.fetch(NSFetchRequest<NSManagedObject>(entityName: "Page")))
        }
        var read = try fresh()
        #expect((read.book.value(forKey: "pagesCount") as? NSNumber)?.intValue == 3)
        #expect(read.book.value(forKey: "searchTitle") as? String == "mort")
        #expect(read.pages.map { $0.value(forKey: "bookTitle") as? String } == ["Mort", "Mort", "Mort"])

        // A new page changes the book's relationship, so the book's count is computed again;
        // a new title changes the book's own derived value.
        let page = NSManagedObject(entity: try #require(model.entitiesByName["Page"]), insertInto: context)
        page.setValue(book, forKey: "book")
        book.setValue("MORT II", forKey: "title")
        try context.save()
        read = try fresh()
        #expect((read.book.value(forKey: "pagesCount") as? NSNumber)?.intValue == 4)
        #expect(read.book.value(forKey: "searchTitle") as? String == "mort ii")
        let counted = NSFetchRequest<NSManagedObject>(entityName: "Book")
        counted.predicate = NSPredicate(format: "pagesCount == 4")
        #expect(try context.count(for: counted) == 1)
        #expect(readers.count == 2)
    }

    /// A derived attribute that reads a relationship follows changes on its other side, as
    /// Apple's triggers keep it in the file: the pages of a renamed book get its new title, the
    /// book of a renumbered page its new total, though neither the pages nor the book changed.
    @Test(arguments: ContextFixture.storeTypes) func derivedValuesFollowRelatedObjects(_ storeType: String) throws {
        let folder = try TemporaryFolder()
        let (model, coordinator, context, book) = try Self.library(storeType, in: folder)
        let pages = try (1...3).map { number in
            let page = NSManagedObject(entity: try #require(model.entitiesByName["Page"]), insertInto: context)
            page.setValue(number, forKey: "number")
            page.setValue(book, forKey: "book")
            return page
        }
        try context.save()
        book.setValue("Eric", forKey: "title")
        pages[0].setValue(10, forKey: "number")
        try context.save()
        let reader = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        reader.persistentStoreCoordinator = coordinator
        let titles = try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "Page")).map {
            $0.value(forKey: "bookTitle") as? String
        }
        #expect(titles == ["Eric", "Eric", "Eric"])
        let read = try #require(try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "Book")).first)
        #expect((read.value(forKey: "numbersTotal") as? NSNumber)?.intValue == 15)
        #expect(!context.hasChanges)
    }

    /// A model built in code can derive from a key its entity does not have (a model file with
    /// one is refused when it loads): the save throws, naming the entity, the attribute and the
    /// key, and keeps the context's changes, instead of stopping the process when key-value
    /// coding meets the unknown key.
    @Test(arguments: ContextFixture.storeTypes) func aDerivationOfAMissingKeyThrowsAtSave(_ storeType: String) throws {
        // A custom function's receiver is read from the object too (`FUNCTION(missing, 'y')`
        // once passed the check and stopped the process at save), and a subquery's collection.
        for format in [
            "lowercase:(missing)", "missing.@count", "pages.@sum.missing", "FUNCTION(missing, 'uppercaseString')",
            "FUNCTION(missing, 'stringByAppendingString:', 'x')", "SUBQUERY(missing, $p, $p.number > 1).@count",
            "SUBQUERY(pages, $p, $p.missing > 1).@count", "TERNARY(missing > 1, 1, 2)",
        ] {
            let model = Self.model()
            let book = try #require(model.entitiesByName["Book"])
            let broken = NSDerivedAttributeDescription()
            broken.name = "broken"
            broken.attributeType = .integer64AttributeType
            broken.derivationExpression = NSExpression(format: format)
            book.properties += [broken]
            let folder = try TemporaryFolder()
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
            _ = try coordinator.addPersistentStore(
                ofType: storeType, configurationName: nil,
                at: try folder.storeURL(for: storeType, name: "Books.sqlite"))
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            let object = NSManagedObject(entity: book, insertInto: context)
            let page = NSManagedObject(entity: try #require(model.entitiesByName["Page"]), insertInto: context)
            page.setValue(object, forKey: "book")
            #expect {
                try context.save()
            } throws: { error in
                let error = error as NSError
                return error.code == NSManagedObjectValidationError
                    && error.localizedDescription.contains("Book.broken")
                    && error.localizedDescription.contains("'missing', which is not a property of entity")
            }
            #expect(context.hasChanges && context.insertedObjects.count == 2, "\(format)")
        }
    }
}
