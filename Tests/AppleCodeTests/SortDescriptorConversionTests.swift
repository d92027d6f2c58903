import CoreData
import Foundation
import XCTest

// Foundation's `SortDescriptor` on Core Data fetches, as code since 2021 writes them:
// `request.sortDescriptors = [NSSortDescriptor(SortDescriptor(\Book.pages, order: .reverse))]`.

/// A plain `NSObject` subclass, sorted in memory.
private final class Shelf: NSObject {
    let label: String
    let rank: Int
    init(_ label: String, _ rank: Int) {
        self.label = label
        self.rank = rank
    }
}

/// A class that is not `final`: its `var`s are read through the class's accessors (their key
/// paths are named from the runtime's metadata); a computed property's has no name.
private class Crate: NSObject {
    var weight: Int
    var shipping: Int { weight * 2 }
    init(_ weight: Int) { self.weight = weight }
}

final class SortDescriptorConversionTests: XCTestCase {
    func testConvertedDescriptorsKeepKeyOrderAndSelector() {
        let byTitle = NSSortDescriptor(SortDescriptor(\Book.title))
        XCTAssertEqual(byTitle.key, "title")
        XCTAssertTrue(byTitle.ascending)
        XCTAssertEqual(byTitle.selector, "compare:")

        let byPages = NSSortDescriptor(SortDescriptor(\Book.pages, order: .reverse))
        XCTAssertEqual(byPages.key, "pages")
        XCTAssertFalse(byPages.ascending)
        XCTAssertEqual(byPages.selector, "compare:")

        XCTAssertEqual(NSSortDescriptor(SortDescriptor(\Book.author?.name)).key, "author.name")
        XCTAssertEqual(NSSortDescriptor(SortDescriptor(\Shelf.label, comparator: .lexical)).key, "label")
        // The same descriptor as the key path one: equal, and reversed alike.
        XCTAssertEqual(byPages, NSSortDescriptor(keyPath: \Book.pages, ascending: false))
        XCTAssertEqual((byPages.reversedSortDescriptor as? NSSortDescriptor)?.ascending, true)
    }

    func testConvertedDescriptorsSortInMemory() {
        let shelves = [Shelf("b", 2), Shelf("a", 3), Shelf("c", 1)]
        let byRank = shelves.sorted(using: [NSSortDescriptor(SortDescriptor(\Shelf.rank, order: .reverse))])
        XCTAssertEqual(byRank.map(\.label), ["a", "b", "c"])
        let byLabel = NSArray(array: shelves).sortedArray(using: [NSSortDescriptor(SortDescriptor(\Shelf.label))])
        XCTAssertEqual(byLabel.compactMap { ($0 as? Shelf)?.label }, ["a", "b", "c"])

        XCTAssertEqual(NSSortDescriptor(SortDescriptor(\Crate.weight, order: .reverse)).key, "weight")
        // No string form: a nil key, sorted through the key path.
        let byShipping = NSSortDescriptor(SortDescriptor(\Crate.shipping))
        XCTAssertNil(byShipping.key)
        XCTAssertEqual([Crate(3), Crate(1), Crate(2)].sorted(using: [byShipping]).map(\.weight), [1, 2, 3])
    }

    func testConvertedDescriptorsFetchAsTheirKeysDoOnEveryStore() throws {
        for kind in StoreKind.allCases {
            let context = try makeShelf(kind, books: [("C", 300, "Ann"), ("A", 120, "Bo"), ("B", 200, "Ann"), ("D", 120, nil)])

            let converted: NSFetchRequest<Book> = Book.fetchRequest()
            converted.sortDescriptors = [
                NSSortDescriptor(SortDescriptor(\Book.pages, order: .reverse)), NSSortDescriptor(SortDescriptor(\Book.title)),
            ]
            let keyed: NSFetchRequest<Book> = Book.fetchRequest()
            keyed.sortDescriptors = [
                NSSortDescriptor(key: "pages", ascending: false), NSSortDescriptor(key: "title", ascending: true),
            ]
            XCTAssertEqual(try context.fetch(converted).map(\.title), ["C", "B", "A", "D"], "\(kind)")
            XCTAssertEqual(try context.fetch(converted).map(\.title), try context.fetch(keyed).map(\.title), "\(kind)")

            let byAuthor: NSFetchRequest<Book> = Book.fetchRequest()
            byAuthor.predicate = NSPredicate(format: "author != nil")
            byAuthor.sortDescriptors = [
                NSSortDescriptor(SortDescriptor(\Book.author?.name, order: .reverse)),
                NSSortDescriptor(SortDescriptor(\Book.title)),
            ]
            XCTAssertEqual(try context.fetch(byAuthor).map(\.title), ["A", "B", "C"], "\(kind)")
        }
    }
}
