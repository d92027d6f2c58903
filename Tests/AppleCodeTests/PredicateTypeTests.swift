import CoreData
import Foundation
import XCTest

// Predicate and sort classes named as types in a file that imports Foundation, XCTest and
// CoreData, as predicate and query-builder libraries write them.

/// A helper of the kind predicate DSLs write: it takes and returns the classes by name.
private func comparison(_ keyPath: String, _ type: NSComparisonPredicate.Operator, _ value: Any) -> NSComparisonPredicate {
    let left: NSExpression = NSExpression(forKeyPath: keyPath)
    let right: CoreData.NSExpression = NSExpression(forConstantValue: value)
    return NSComparisonPredicate(leftExpression: left, rightExpression: right, modifier: .direct, type: type, options: [])
}

extension NSPredicate {
    /// A convenience initializer as apps add them.
    convenience init(titled title: String) {
        self.init(format: "title == %@", title)
    }
}

extension NSSortDescriptor {
    /// A convenience initializer as apps add them.
    convenience init(byTitleAscending ascending: Bool) {
        self.init(key: "title", ascending: ascending)
    }
}

final class PredicateTypeTests: XCTestCase {
    private let rows: [[String: Any]] = [
        ["title": "Kyle", "pages": 120], ["title": "Ann", "pages": 300], ["title": "Bo", "pages": 90],
    ]

    func testClassesNamedAsTypesAreCoreDatas() {
        let predicate: NSPredicate = comparison("pages", .greaterThan, 100)
        XCTAssertEqual(predicate.predicateFormat, "pages > 100")
        XCTAssertEqual(rows.filtered(using: predicate).count, 2)
        let parsed = NSPredicate(format: "title BEGINSWITH %@", "K")
        XCTAssertTrue(parsed is NSComparisonPredicate)
        let left = (parsed as? NSComparisonPredicate)?.leftExpression
        XCTAssertEqual(left?.keyPath, "title")
        XCTAssertEqual(left?.expressionType, .keyPath)
    }

    func testCompoundPredicatesBuiltInCodePrintAndEvaluateAsApples() {
        let notKyle = NSCompoundPredicate(type: .not, subpredicates: [NSPredicate(format: "title == %@", "Kyle")])
        XCTAssertEqual(notKyle.predicateFormat, #"NOT title == "Kyle""#)
        XCTAssertEqual(rows.filtered(using: notKyle).compactMap { $0["title"] as? String }, ["Ann", "Bo"])
        let both = NSCompoundPredicate(andPredicateWithSubpredicates: [notKyle, comparison("pages", .lessThan, 200)])
        XCTAssertEqual(both.predicateFormat, #"NOT title == "Kyle" AND pages < 200"#)
        XCTAssertEqual(both.compoundPredicateType, .and)
        XCTAssertEqual(both.subpredicates.count, 2)
        XCTAssertEqual(rows.filtered(using: both).compactMap { $0["title"] as? String }, ["Bo"])
        let either = NSCompoundPredicate(orPredicateWithSubpredicates: [])
        XCTAssertFalse(either.evaluate(with: rows[0]))
    }

    func testConvenienceInitializersInExtensions() {
        let predicate = NSPredicate(titled: "Bo")
        XCTAssertEqual(predicate.predicateFormat, #"title == "Bo""#)
        XCTAssertEqual(rows.filtered(using: predicate).count, 1)
        let descriptor = NSSortDescriptor(byTitleAscending: false)
        XCTAssertEqual(descriptor.key, "title")
        XCTAssertFalse(descriptor.ascending)
        XCTAssertEqual(rows.sorted(using: [descriptor]).compactMap { $0["title"] as? String }, ["Kyle", "Bo", "Ann"])
    }

    func testFoundationCollectionsTakeTheseClasses() {
        let array = rows as NSArray
        XCTAssertEqual(array.filtered(using: NSPredicate(format: "pages >= 120")).count, 2)
        let sorted = array.sortedArray(using: [NSSortDescriptor(key: "pages", ascending: true)])
        XCTAssertEqual(sorted.compactMap { ($0 as? [String: Any])?["title"] as? String }, ["Bo", "Kyle", "Ann"])
    }
}
