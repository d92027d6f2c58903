import CoreData
import Foundation
import XCTest

/// Managed properties declared in an extension, as Xcode's `+CoreDataProperties.swift` files
/// declare them.
final class ExtensionPropertiesTests: XCTestCase {
    func testPropertiesDeclaredInAnExtensionReadWriteFetchAndSort() throws {
        for kind in StoreKind.allCases {
            let context = try makeBookshelfContainer(kind).viewContext
            for (index, text) in ["b", "c", "a"].enumerated() {
                let entry = Journal(context: context)
                XCTAssertEqual(entry.createdAt, Date(timeIntervalSinceReferenceDate: 0), "awakeFromInsert set it")
                entry.text = text
                entry.updatedAt = Date(timeIntervalSinceReferenceDate: Double(index))
            }
            try context.save()

            let request: NSFetchRequest<Journal> = Journal.fetchRequest()
            request.predicate = NSComparisonPredicate(
                leftExpression: NSExpression(forKeyPath: \Journal.text), rightExpression: NSExpression(forConstantValue: "a"),
                modifier: .direct, type: .notEqualTo)
            request.sortDescriptors = [NSSortDescriptor(keyPath: \Journal.updatedAt, ascending: false)]
            let entries = try context.fetch(request)
            XCTAssertEqual(entries.map(\.text), ["c", "b"], "\(kind)")
            XCTAssertEqual(entries.map(\.body), ["c", "b"], "\(kind): @Managed(\"text\") reads text")
            XCTAssertEqual(NSExpression(forKeyPath: \Journal.body).keyPath, "text")

            let first = try XCTUnwrap(entries.first)
            first.body = "z"
            XCTAssertEqual(first.value(forKey: "text") as? String, "z")
            XCTAssertTrue(first.changedValues().keys.contains("text"))
        }
    }
}
