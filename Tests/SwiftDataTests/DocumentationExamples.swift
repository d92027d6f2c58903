import SwiftData
import XCTest

// The Swift code blocks of the SwiftData catalog (Sources/SwiftData/SwiftData.docc), pasted
// unchanged: CoreDataSourceTests' `everySwiftBlockIsHere` checks that each still appears here,
// character for character, and the test below runs them.

/// SwiftData.md's models (nested, beside the trip planner's own `Trip` and `Item`).
enum DocumentationExample {
    @Model
    final class Trip {
        @Attribute(.unique) var name: String
        var startDate: Date
        @Relationship(deleteRule: .cascade, inverse: \Item.trip) var items: [Item] = []

        init(name: String, startDate: Date) {
            self.name = name
            self.startDate = startDate
        }
    }

    @Model
    final class Item {
        var title: String
        var trip: Trip?
        init(title: String) { self.title = title }
    }

    /// SwiftData.md's first example.
    static func overview() throws -> [Trip] {
        let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        let trip = Trip(name: "Lisbon", startDate: .now)
        trip.items.append(Item(title: "Camera"))
        context.insert(trip)                      // the item is inserted with it
        try context.save()

        let soon = Date.now.addingTimeInterval(30 * 86_400)
        let descriptor = FetchDescriptor<Trip>(
            predicate: #Predicate { $0.startDate < soon }, sortBy: [SortDescriptor(\.startDate)])
        let trips = try context.fetch(descriptor)
        return trips
    }
}

final class DocumentationExampleTests: XCTestCase {
    func testTheOverviewFindsTheTripWithItsItem() throws {
        let trips = try DocumentationExample.overview()
        XCTAssertEqual(trips.map(\.name), ["Lisbon"])
        XCTAssertEqual(trips.first?.items.map(\.title), ["Camera"])
        XCTAssertEqual(trips.first?.items.first?.trip?.name, "Lisbon")
    }
}
