import CoreData
import XCTest

@testable import SwiftData

/// Swift predicates over models convert to the predicates their format strings give.
final class SwiftPredicateTests: XCTestCase {
    private func format<T: PersistentModel>(_ predicate: Predicate<T>) throws -> String {
        let request: NSFetchRequest<NSManagedObject> = try FetchDescriptor(predicate: predicate)
            .request(entity: NSEntityDescription(), resultType: .managedObjectResultType)
        return try XCTUnwrap(request.predicate).predicateFormat
    }

    func testConversionsPrintAsTheirFormatStrings() throws {
        let start = Date(timeIntervalSinceReferenceDate: 0)
        let names = ["Oslo work", "Rome"]
        let business = Trip.Kind.business
        let cases: [(String, String)] = [
            (
                try format(#Predicate<Trip> { $0.destination == "Lisbon" }),
                NSPredicate(format: "destination == 'Lisbon'").predicateFormat
            ),
            (
                try format(#Predicate<Trip> { $0.startDate > start && $0.budget == nil }),
                NSPredicate(format: "startDate > %@ AND budget == nil", start as NSDate).predicateFormat
            ),
            (
                try format(#Predicate<Trip> { trip in trip.items.contains { $0.weight >= 2 } }),
                NSPredicate(format: "SUBQUERY(items, $v1, $v1.weight >= 2).@count != 0").predicateFormat
            ),
            (
                try format(#Predicate<Item> { $0.trip?.destination == "Oslo" }),
                NSPredicate(format: "trip.destination == 'Oslo'").predicateFormat
            ),
            (try format(#Predicate<Trip> { $0.items.count > 1 }), NSPredicate(format: "items.@count > 1").predicateFormat),
            (try format(#Predicate<Trip> { names.contains($0.name) }), NSPredicate(format: "name IN %@", names).predicateFormat),
            (try format(#Predicate<Trip> { $0.kind == business }), NSPredicate(format: "kind == 'business'").predicateFormat),
            (
                try format(#Predicate<Item> { !$0.isPacked || $0.title.starts(with: "Ca") }),
                NSPredicate(format: "NOT (isPacked == YES) OR title BEGINSWITH 'Ca'").predicateFormat
            ),
        ]
        for (converted, expected) in cases { XCTAssertEqual(converted, expected) }
    }

    func testIdentifiersAndModelsCompareAsObjects() throws {
        let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        let oslo = Trip(name: "Oslo", destination: "Oslo", startDate: .now, endDate: .now)
        let rome = Trip(name: "Rome", destination: "Rome", startDate: .now, endDate: .now)
        oslo.items = [Item(title: "Map", weight: 1), Item(title: "Hat", weight: 1)]
        rome.items = [Item(title: "Fan", weight: 1)]
        context.insert(oslo)
        context.insert(rome)
        try context.save()

        let id = oslo.persistentModelID
        let byID = #Predicate<Item> { $0.trip?.persistentModelID == id }
        XCTAssertEqual(Set(try context.fetch(FetchDescriptor(predicate: byID)).map(\.title)), ["Map", "Hat"])
        let tripByID = #Predicate<Trip> { $0.persistentModelID == id }
        XCTAssertEqual(try context.fetch(FetchDescriptor(predicate: tripByID)).map(\.name), ["Oslo"])
        let business = Trip.Kind.business
        rome.kind = business
        XCTAssertEqual(
            try context.fetch(FetchDescriptor(predicate: #Predicate<Trip> { $0.kind == business })).map(\.name), ["Rome"])
    }
}
