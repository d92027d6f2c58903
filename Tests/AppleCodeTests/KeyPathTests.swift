import CoreData
import Foundation
import XCTest

// Typed key paths in predicates and sort descriptors, as predicate DSLs and query builders
// build them: `NSExpression(forKeyPath: \Book.title)`, `NSSortDescriptor(keyPath:ascending:)`.

extension Book {
    /// A computed property that reads no managed property: its key path has no string form.
    var shelfLabel: String { "shelf" }
}

/// `keyPath == value`, as typed predicate builders write it.
private func equals<Root, Value>(_ keyPath: KeyPath<Root, Value>, _ value: Any) -> NSComparisonPredicate {
    NSComparisonPredicate(
        leftExpression: NSExpression(forKeyPath: keyPath), rightExpression: NSExpression(forConstantValue: value),
        modifier: .direct, type: .equalTo, options: [])
}

/// A query builder's `select(\Book.title)`, which reads the standard library's KVC string.
private func keyString<Root, Value>(_ keyPath: KeyPath<Root, Value>) -> String {
    guard let string = keyPath._kvcKeyPathString else {
        preconditionFailure("\(keyPath) is not valid for Key-Value Coding.")
    }
    return string
}

final class KeyPathTests: XCTestCase {
    func testManagedKeyPathsHaveTheirCoreDataNames() throws {
        XCTAssertEqual(NSExpression(forKeyPath: \Book.title).keyPath, "title")
        XCTAssertEqual(NSExpression(forKeyPath: \Book.pages).keyPath, "pages")
        XCTAssertEqual(NSExpression(forKeyPath: \Book.price).keyPath, "price")
        XCTAssertEqual(NSExpression(forKeyPath: \Book.published).keyPath, "published")
        XCTAssertEqual(NSExpression(forKeyPath: \Book.author).keyPath, "author")
        XCTAssertEqual(NSExpression(forKeyPath: \Book.author?.name).keyPath, "author.name")
        XCTAssertEqual(NSExpression(forKeyPath: \Book.author?.born).keyPath, "author.born")
        XCTAssertEqual(NSExpression(forKeyPath: \Author.books).keyPath, "books")
        XCTAssertEqual(NSExpression(forKeyPath: \Ebook.fileSize).keyPath, "fileSize")
        XCTAssertEqual(NSExpression(forKeyPath: \Ebook.title).keyPath, "title")
        XCTAssertEqual(try NSExpression(validatingKeyPath: \Ebook.author?.name).keyPath, "author.name")
        XCTAssertEqual(NSSortDescriptor(keyPath: \Book.rating, ascending: false).key, "rating")
        XCTAssertEqual(NSSortDescriptor(keyPath: \Book.author?.name, ascending: true).key, "author.name")
    }

    func testPlainVarsOfManagedClassesHaveTheirNames() {
        XCTAssertEqual(NSExpression(forKeyPath: \Book.isHighlighted).keyPath, "isHighlighted")
        XCTAssertEqual(NSExpression(forKeyPath: \Book.note).keyPath, "note")
        XCTAssertEqual(NSExpression(forKeyPath: \Ebook.note).keyPath, "note", "declared in the superclass")
        XCTAssertEqual(keyString(\Book.isHighlighted), "isHighlighted")
        XCTAssertEqual(keyString(\Book.title), "title", "the managed properties keep theirs")
        XCTAssertEqual(keyString(\Book.author?.name), "author.name")
    }

    func testKeyValueCodingReadsPlainVarsOfManagedClasses() throws {
        let context = try makeBookshelfContainer(.inMemory).viewContext
        let book = Book(context: context)
        book.isHighlighted = true
        book.note = "signed"
        XCTAssertEqual(book.value(forKey: "isHighlighted") as? Bool, true)
        XCTAssertEqual(book.value(forKey: "note") as? String, "signed")
        XCTAssertEqual(NSPredicate(format: "isHighlighted == YES AND note == 'signed'").evaluate(with: book), true)
    }

    func testKVCStringsOfKeyPathsSelectDictionaryColumns() throws {
        XCTAssertEqual(keyString(\Book.title), "title")
        XCTAssertEqual(keyString(\Book.author?.name), "author.name")
        XCTAssertNil((\Book.shelfLabel)._kvcKeyPathString)
        for kind in StoreKind.allCases {
            let context = try makeBookshelfContainer(kind).viewContext
            let author = Author(context: context)
            author.name = "Ann"
            for (title, pages) in [("A", 10), ("B", 20)] {
                let book = Book(context: context)
                book.title = title
                book.pages = Int32(pages)
                book.author = author
            }
            try context.save()
            let request = NSFetchRequest<NSDictionary>(entityName: "Book")
            request.resultType = .dictionaryResultType
            request.propertiesToFetch = [keyString(\Book.title), keyString(\Book.author?.name)]
            request.sortDescriptors = [NSSortDescriptor(keyPath: \Book.pages, ascending: false)]
            let rows = try context.fetch(request)
            XCTAssertEqual(rows.map { $0["title"] as? String }, ["B", "A"], "\(kind)")
            XCTAssertEqual(rows.map { $0["author.name"] as? String }, ["Ann", "Ann"], "\(kind)")
        }
    }

    func testAKeyPathWithoutAStringFormThrowsInTheValidatingTwin() {
        XCTAssertThrowsError(try NSExpression(validatingKeyPath: \Book.shelfLabel)) { error in
            XCTAssertEqual((error as NSError).domain, NSCocoaErrorDomain)
            XCTAssertTrue((error as NSError).localizedDescription.contains("Could not extract a String from KeyPath"))
        }
        XCTAssertNil(NSSortDescriptor(keyPath: \Book.shelfLabel, ascending: true).key)
    }

    func testFetchesWithTypedKeyPathsOnEveryStore() throws {
        for kind in StoreKind.allCases {
            let context = try makeShelf(kind, books: [("C", 300, "Ann"), ("A", 120, "Bo"), ("B", 200, "Ann"), ("D", 90, nil)])

            let byPages: NSFetchRequest<Book> = Book.fetchRequest()
            byPages.sortDescriptors = [NSSortDescriptor(keyPath: \Book.pages, ascending: false)]
            XCTAssertEqual(try context.fetch(byPages).map(\.title), ["C", "B", "A", "D"], "\(kind)")

            let annsBooks: NSFetchRequest<Book> = Book.fetchRequest()
            annsBooks.predicate = equals(\Book.author?.name, "Ann")
            annsBooks.sortDescriptors = [NSSortDescriptor(keyPath: \Book.title, ascending: true)]
            XCTAssertEqual(try context.fetch(annsBooks).map(\.title), ["B", "C"], "\(kind)")

            let byAuthor: NSFetchRequest<Book> = Book.fetchRequest()
            byAuthor.predicate = NSCompoundPredicate(andPredicateWithSubpredicates: [
                NSPredicate(format: "%K != nil", NSExpression(forKeyPath: \Book.author).keyPath),
                NSComparisonPredicate(
                    leftExpression: NSExpression(forKeyPath: \Book.pages),
                    rightExpression: NSExpression(forConstantValue: 150), modifier: .direct, type: .greaterThan),
            ])
            byAuthor.sortDescriptors = [
                NSSortDescriptor(keyPath: \Book.author?.name, ascending: false),
                NSSortDescriptor(keyPath: \Book.title, ascending: true),
            ]
            XCTAssertEqual(try context.fetch(byAuthor).map(\.title), ["B", "C"], "\(kind)")

            // A key path without a string form is an error, not a crash.
            let unnamed: NSFetchRequest<Book> = Book.fetchRequest()
            unnamed.sortDescriptors = [NSSortDescriptor(keyPath: \Book.shelfLabel, ascending: true)]
            XCTAssertThrowsError(try context.fetch(unnamed), "\(kind)") { error in
                XCTAssertTrue((error as NSError).localizedDescription.contains("has no string form"), "\(error)")
            }
        }
    }
}
