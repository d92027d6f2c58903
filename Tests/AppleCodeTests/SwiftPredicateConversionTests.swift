import CoreData
import Foundation
import TestSupport
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

    func testAnEmptyStringConvertsToWhatItsFormatStringMatches() throws {
        let empty = NSPredicate(#Predicate<Book> { $0.title.contains("") })
        XCTAssertEqual(empty?.predicateFormat, #"title CONTAINS """#)
        let book = Book(context: try makeBookshelfContainer(.inMemory).viewContext)
        book.title = "Dune"
        XCTAssertEqual(empty?.evaluate(with: book), NSPredicate(format: "title CONTAINS %@", "").evaluate(with: book))
        XCTAssertEqual(empty?.evaluate(with: book), false)
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
            let context = try makeShelf(
                kind, books: [("Dune", 300, "Ann"), ("Emma", 120, "Bo"), ("Ulysses", 200, "Ann"), ("Beloved", 90, nil)])

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

/// Random Swift predicates over `Book`, built from the expressions `#Predicate` makes: each
/// converted predicate must keep what the Swift predicate keeps, evaluated in memory and
/// fetched from each store, from a fixed seed.
final class RandomSwiftPredicateConversionTests: XCTestCase {
    typealias Condition = PredicateCondition
    typealias Book = AppleCodeTests.Book

    private static let titles = ["Dune", "Emma", "Ulysses", "Beloved", "Middlemarch", "Dracula", "Ivanhoe", "Persuasion"]
    /// Not the empty string: `"Dune".contains("")` is true in Swift, and `CONTAINS ""` (what it
    /// converts to, as Apple's conversion gives) matches nothing (see
    /// `testAnEmptyStringConvertsToWhatItsFormatStringMatches`).
    private static let fragments = ["e", "Du", "ma", "x", "Em", "an", "D", "ss"]

    func testRandomPredicatesKeepWhatTheSwiftPredicateKeeps() throws {
        for kind in StoreKind.allCases {
            var random = SplitMix64(seed: 2023)
            let context = try makeBookshelfContainer(kind).viewContext
            let ann = Author(context: context)
            ann.name = "Ann"
            for title in Self.titles {
                let book = Book(context: context)
                book.title = title
                book.pages = Int32.random(in: 50...400, using: &random)
                book.rating = Double(Int.random(in: 0...10, using: &random)) / 2
                book.author = Bool.random(using: &random) ? ann : nil
            }
            try context.save()
            let all: NSFetchRequest<Book> = Book.fetchRequest()
            let books = try context.fetch(all)
            for round in 0..<150 {
                let predicate = Predicate<Book> { book in Self.condition(book, depth: 3, &random) }
                guard let converted = NSPredicate(predicate) else {
                    XCTFail("\(kind) round \(round): not converted")
                    continue
                }
                let kept = try Set(books.filter { try predicate.evaluate($0) }.map(\.title))
                XCTAssertEqual(Set(books.filter { converted.evaluate(with: $0) }.map(\.title)), kept, "\(kind): \(converted)")
                let request: NSFetchRequest<Book> = Book.fetchRequest()
                request.predicate = converted
                XCTAssertEqual(Set(try context.fetch(request).map(\.title)), kept, "\(kind): \(converted)")
            }
        }
    }

    private static func condition(_ book: PredicateExpressions.Variable<Book>, depth: Int, _ random: inout SplitMix64)
        -> Condition
    {
        if depth > 0, Int.random(in: 0..<3, using: &random) == 0 {
            let left = condition(book, depth: depth - 1, &random)
            switch Int.random(in: 0..<3, using: &random) {
            case 0: return PredicateConditions.both(left, condition(book, depth: depth - 1, &random))
            case 1: return PredicateConditions.either(left, condition(book, depth: depth - 1, &random))
            default: return PredicateConditions.not(left)
            }
        }
        let pages = PredicateExpressions.KeyPath(root: book, keyPath: \Book.pages)
        let rating = PredicateExpressions.KeyPath(root: book, keyPath: \Book.rating)
        let title = PredicateExpressions.KeyPath(root: book, keyPath: \Book.title)
        let limit = PredicateExpressions.Value(Int32.random(in: 40...410, using: &random))
        let operators: [PredicateExpressions.ComparisonOperator] = [
            .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual,
        ]
        let op = operators[Int.random(in: 0..<4, using: &random)]
        switch Int.random(in: 0..<8, using: &random) {
        case 0: return PredicateExpressions.Comparison(lhs: pages, rhs: limit, op: op)
        case 1:
            return PredicateExpressions.Comparison(
                lhs: rating, rhs: PredicateExpressions.Value(Double.random(in: 0...5, using: &random)), op: op)
        case 2:
            return PredicateExpressions.Equal(
                lhs: title, rhs: PredicateExpressions.Value(titles.randomElement(using: &random) ?? ""))
        case 3:
            return PredicateExpressions.NotEqual(
                lhs: title, rhs: PredicateExpressions.Value(titles.randomElement(using: &random) ?? ""))
        case 4:
            return PredicateExpressions.CollectionContainsCollection(
                base: title, other: PredicateExpressions.Value(fragments.randomElement(using: &random) ?? ""))
        case 5:
            return PredicateExpressions.SequenceStartsWith(
                base: title, prefix: PredicateExpressions.Value(fragments.randomElement(using: &random) ?? ""))
        case 6:
            let chosen = Array(titles.shuffled(using: &random).prefix(3))
            return PredicateExpressions.SequenceContains(sequence: PredicateExpressions.Value(chosen), element: title)
        default:
            let author = PredicateExpressions.KeyPath(root: book, keyPath: \Book.author)
            return Bool.random(using: &random)
                ? PredicateExpressions.Equal(lhs: author, rhs: PredicateExpressions.NilLiteral<Author>())
                : PredicateExpressions.NotEqual(lhs: author, rhs: PredicateExpressions.NilLiteral<Author>())
        }
    }
}
