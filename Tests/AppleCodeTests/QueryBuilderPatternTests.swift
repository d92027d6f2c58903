import CoreData
import Foundation
import XCTest

// What a typed query builder does with Core Data: a store description at /dev/null, the model
// merged from the test bundle, key paths joined one property at a time into Core Data key
// paths, group-by dictionary fetches that select a collection operator through an
// `NSExpressionDescription`, and object-ID fetches.

/// `lhs.rhs` as a query builder joins key-path expressions step by step.
private func join(_ lhs: NSExpression, _ rhs: String) -> NSExpression {
    NSExpression(forKeyPath: lhs.keyPath + "." + rhs)
}

final class QueryBuilderPatternTests: XCTestCase {
    private static func makeStore() throws -> NSPersistentContainer {
        let model = try XCTUnwrap(NSManagedObjectModel.mergedModel(from: [Bundle.module]))
        let container = NSPersistentContainer(name: "bookshelf", managedObjectModel: model)
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: URL(fileURLWithPath: "/dev/null"))]
        var loadError: Error?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        let context = container.viewContext
        for (name, titles) in [("Le Guin", ["Earthsea", "Lathe", "Tehanu"]), ("Banks", ["Excession"])] {
            let author = Author(context: context)
            author.name = name
            for title in titles {
                let book = Book(context: context)
                book.title = title
                book.author = author
            }
        }
        try context.save()
        return container
    }

    func testGroupedCountThroughAToManyKeyPath() throws {
        let context = try Self.makeStore().viewContext
        let count = NSExpressionDescription()
        count.name = "@count"
        count.expression = join(join(NSExpression(forKeyPath: \Author.books), "title"), "@count")
        count.resultType = .integer64
        XCTAssertEqual(count.expression?.keyPath, "books.title.@count")

        let request = NSFetchRequest<NSDictionary>(entityName: "Author")
        request.resultType = .dictionaryResultType
        request.propertiesToGroupBy = [NSExpression(forKeyPath: \Author.name).keyPath]
        request.propertiesToFetch = [NSExpression(forKeyPath: \Author.name).keyPath, count]
        request.predicate = NSPredicate(format: "%K ==[c] %@", NSExpression(forKeyPath: \Author.name).keyPath, "le guin")
        let rows = try context.fetch(request)
        XCTAssertEqual(rows.count, 1)
        XCTAssertEqual(rows.first?["name"] as? String, "Le Guin")
        XCTAssertEqual((rows.first?["@count"] as? NSNumber)?.int64Value, 3)
    }

    func testObjectIDsAndUntypedRequests() throws {
        let context = try Self.makeStore().viewContext
        let ids = NSFetchRequest<NSManagedObjectID>(entityName: "Book")
        ids.resultType = .managedObjectIDResultType
        ids.predicate = NSComparisonPredicate(
            leftExpression: NSExpression(forKeyPath: \Book.author?.name), rightExpression: NSExpression(forConstantValue: "Banks"),
            modifier: .direct, type: .equalTo)
        let found = try context.fetch(ids)
        XCTAssertEqual(found.count, 1)
        XCTAssertEqual((try context.existingObject(with: try XCTUnwrap(found.first)) as? Book)?.title, "Excession")

        let untyped = NSFetchRequest<NSFetchRequestResult>(entityName: "Book")
        untyped.sortDescriptors = [NSSortDescriptor(keyPath: \Book.title, ascending: false)]
        let titles = try context.fetch(untyped).compactMap { ($0 as? Book)?.title }
        XCTAssertEqual(titles, ["Tehanu", "Lathe", "Excession", "Earthsea"])
    }
}
