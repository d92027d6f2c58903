import CoreData
import Foundation
import XCTest

// Foundation's `#Predicate` on Core Data fetches, as code since 2023 writes them:
// `request.predicate = NSPredicate(#Predicate<Book> { $0.pages > 100 })`.

final class SwiftPredicateConversionTests: XCTestCase {
    /// The converted predicate's format, and the same format string's (printed the same way).
    private func assertConverts<Input: NSObject>(
        _ predicate: Predicate<Input>, to format: String, _ arguments: Any?..., line: UInt = #line
    ) {
        let converted = NSPredicate(predicate)
        XCTAssertNotNil(converted, "not converted", line: line)
        XCTAssertEqual(
            converted?.predicateFormat,
            NSPredicate(format: format, argumentArray: arguments.map { $0 ?? NSNull() }).predicateFormat,
            line: line)
    }

    func testComparisonsLogicAndConstants() {
        let title = "Dune"
        assertConverts(#Predicate<Book> { $0.pages > 100 }, to: "pages > 100")
        assertConverts(#Predicate<Book> { $0.pages <= 100 || $0.rating >= 4.5 }, to: "pages <= 100 OR rating >= 4.5")
        assertConverts(#Predicate<Book> { $0.title == title && !($0.pages < 10) }, to: "title == %@ AND NOT pages < 10", title)
        assertConverts(#Predicate<Book> { $0.title != "A" }, to: "title != %@", "A")
        assertConverts(#Predicate<Book> { $0.isbn == nil }, to: "isbn == nil")
        assertConverts(#Predicate<Book> { $0.author != nil }, to: "author != nil")
    }

    func testKeyPathsThroughToOneRelationships() {
        assertConverts(#Predicate<Book> { $0.author?.name == "Ann" }, to: "author.name == %@", "Ann")
        assertConverts(#Predicate<Book> { $0.author!.name == "Ann" }, to: "author.name == %@", "Ann")
    }

    func testStringsAndCapturedSequences() {
        let titles = ["A", "C"]
        assertConverts(#Predicate<Book> { titles.contains($0.title) }, to: "title IN %@", titles)
        assertConverts(#Predicate<Book> { $0.title.contains("un") }, to: "title CONTAINS %@", "un")
        assertConverts(#Predicate<Book> { $0.title.starts(with: "Du") }, to: "title BEGINSWITH %@", "Du")
    }

    func testToManyRelationships() {
        assertConverts(#Predicate<Author> { $0.books!.count > 1 }, to: "books.@count > 1")
        assertConverts(
            #Predicate<Author> { $0.books!.contains { $0.pages > 150 } }, to: "SUBQUERY(books, $v1, $v1.pages > 150).@count != 0")
        assertConverts(
            #Predicate<Author> { $0.books!.allSatisfy { $0.pages > 150 } },
            to: "SUBQUERY(books, $v1, NOT ($v1.pages > 150)).@count == 0")
    }

    func testExpressionsWithoutAPredicateFormAreNil() {
        XCTAssertNil(NSPredicate(#Predicate<Book> { $0.pages + 1 > 10 }))
        XCTAssertNil(NSPredicate(#Predicate<Book> { ($0.isbn ?? "") == "x" }))
        XCTAssertNil(NSPredicate(#Predicate<Book> { $0.title.count > 3 }))
    }

    func testConvertedPredicatesFetchAsTheirFormatStringsOnEveryStore() throws {
        for kind in StoreKind.allCases {
            let context = try makeBookshelfContainer(kind).viewContext
            let ann = Author(context: context)
            ann.name = "Ann"
            let bo = Author(context: context)
            bo.name = "Bo"
            for (title, pages, author) in [("Dune", 300, ann), ("Emma", 120, bo), ("Ulysses", 200, ann), ("Beloved", 90, nil)] {
                let book = Book(context: context)
                book.title = title
                book.pages = Int32(pages)
                book.author = author
            }
            try context.save()

            let cases: [(Predicate<Book>, String, [Any])] = [
                (#Predicate<Book> { $0.pages > 100 && $0.author?.name == "Ann" }, "pages > 100 AND author.name == %@", ["Ann"]),
                (
                    #Predicate<Book> { $0.author == nil || $0.title.starts(with: "E") }, "author == nil OR title BEGINSWITH %@",
                    ["E"]
                ),
                (#Predicate<Book> { ["Emma", "Dune"].contains($0.title) }, "title IN %@", [["Emma", "Dune"]]),
            ]
            for (predicate, format, arguments) in cases {
                let converted: NSFetchRequest<Book> = Book.fetchRequest()
                converted.predicate = NSPredicate(predicate)
                converted.sortDescriptors = [NSSortDescriptor(SortDescriptor(\Book.title))]
                let formatted: NSFetchRequest<Book> = Book.fetchRequest()
                formatted.predicate = NSPredicate(format: format, argumentArray: arguments)
                formatted.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
                let titles = try context.fetch(converted).map(\.title)
                XCTAssertFalse(titles.isEmpty, "\(kind): \(format)")
                XCTAssertEqual(titles, try context.fetch(formatted).map(\.title), "\(kind): \(format)")
            }

            let authors: NSFetchRequest<Author> = Author.fetchRequest()
            authors.predicate = NSPredicate(#Predicate<Author> { $0.books!.contains { $0.pages > 250 } })
            XCTAssertEqual(try context.fetch(authors).map(\.name), ["Ann"], "\(kind)")
            authors.predicate = NSPredicate(#Predicate<Author> { $0.books!.count == 1 })
            XCTAssertEqual(try context.fetch(authors).map(\.name), ["Bo"], "\(kind)")
        }
    }
}
