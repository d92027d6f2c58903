import SwiftData
import TestSupport
import XCTest

/// The trip planner on each store, written as a SwiftData app's tests are.
final class TripPlannerTests: XCTestCase {
    enum Store: CaseIterable {
        case inMemory, sqlite, postgreSQL

        /// The stores this run tests: PostgreSQL where a test server is named (always under CI).
        static var tested: [Store] { PostgresTestServer.isEnabled ? allCases : [.inMemory, .sqlite] }
    }

    private var folder: TemporaryFolder!

    override func setUpWithError() throws {
        folder = try TemporaryFolder(prefix: "SwiftDataTests")
    }

    override func tearDown() {
        folder = nil
    }

    /// A configuration of a new, empty store.
    private func configuration(_ store: Store) throws -> ModelConfiguration {
        switch store {
        case .inMemory: return ModelConfiguration(isStoredInMemoryOnly: true)
        case .sqlite: return ModelConfiguration(url: folder.file("Trips-\(UUID().uuidString).store"))
        case .postgreSQL:
            let url = try PostgresTestServer.freshStoreURL()
            folder.onRemove { PostgresTestServer.destroy(url) }
            return ModelConfiguration(url: url)
        }
    }

    private func makeContainer(_ store: Store) throws -> ModelContainer {
        try ModelContainer(for: Trip.self, configurations: configuration(store))
    }

    private func day(_ day: Int) -> Date { Date(timeIntervalSinceReferenceDate: Double(day) * 86_400) }

    private func insertTrips(into context: ModelContext) -> [Trip] {
        let trips = [
            Trip(name: "Lisbon spring", destination: "Lisbon", startDate: day(10), endDate: day(14)),
            Trip(name: "Oslo work", destination: "Oslo", startDate: day(3), endDate: day(5)),
            Trip(name: "Lisbon autumn", destination: "Lisbon", startDate: day(200), endDate: day(210)),
        ]
        trips[1].kind = .business
        trips[2].budget = 1_200
        for trip in trips { context.insert(trip) }
        trips[0].items = [Item(title: "Camera", weight: 3), Item(title: "Guide", weight: 1)]
        trips[1].items.append(Item(title: "Laptop", weight: 2))
        return trips
    }

    func testInsertSaveAndFetchInAnotherContext() throws {
        for store in Store.tested {
            let container = try makeContainer(store)
            let context = ModelContext(container)
            _ = insertTrips(into: context)
            XCTAssertTrue(context.hasChanges, "\(store)")
            try context.save()
            XCTAssertFalse(context.hasChanges, "\(store)")

            let other = ModelContext(container)
            let trips = try other.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.startDate)]))
            XCTAssertEqual(trips.map(\.name), ["Oslo work", "Lisbon spring", "Lisbon autumn"], "\(store)")
            XCTAssertEqual(trips.map(\.kind), [.business, .leisure, .leisure], "\(store)")
            XCTAssertEqual(trips.map(\.budget), [nil, nil, 1_200], "\(store)")
            XCTAssertEqual(trips.map(\.days), [2, 4, 10], "\(store)")
            XCTAssertEqual(Set(trips[1].items.map(\.title)), ["Camera", "Guide"], "\(store)")
            XCTAssertEqual(trips[1].items.first?.trip?.name, "Lisbon spring", "the inverse is set (\(store))")
            XCTAssertTrue(trips[0] === other.fetch1(name: "Oslo work"), "one instance per stored object (\(store))")
            XCTAssertTrue(trips[0].modelContext === other, "\(store)")
        }
    }

    func testPredicatesSortsLimitsAndCounts() throws {
        for store in Store.tested {
            let context = ModelContext(try makeContainer(store))
            _ = insertTrips(into: context)
            try context.save()

            let lisbon = #Predicate<Trip> { $0.destination == "Lisbon" }
            var descriptor = FetchDescriptor(predicate: lisbon, sortBy: [SortDescriptor(\Trip.startDate, order: .reverse)])
            XCTAssertEqual(try context.fetch(descriptor).map(\.name), ["Lisbon autumn", "Lisbon spring"], "\(store)")
            XCTAssertEqual(try context.fetchCount(descriptor), 2, "\(store)")
            descriptor.fetchLimit = 1
            XCTAssertEqual(try context.fetch(descriptor).map(\.name), ["Lisbon autumn"], "\(store)")
            descriptor.fetchOffset = 1
            XCTAssertEqual(try context.fetch(descriptor).map(\.name), ["Lisbon spring"], "\(store)")

            let start = day(5)
            let later = #Predicate<Trip> { $0.startDate > start && $0.budget == nil }
            XCTAssertEqual(try context.fetch(FetchDescriptor(predicate: later)).map(\.name), ["Lisbon spring"], "\(store)")

            let heavy = #Predicate<Trip> { trip in trip.items.contains { $0.weight >= 2 } }
            XCTAssertEqual(
                Set(try context.fetch(FetchDescriptor(predicate: heavy)).map(\.name)), ["Lisbon spring", "Oslo work"], "\(store)")

            let packedItems = #Predicate<Item> { $0.trip?.destination == "Oslo" }
            XCTAssertEqual(try context.fetch(FetchDescriptor(predicate: packedItems)).map(\.title), ["Laptop"], "\(store)")

            let names = ["Oslo work", "Nowhere"]
            XCTAssertEqual(
                try context.fetchCount(FetchDescriptor(predicate: #Predicate<Trip> { names.contains($0.name) })), 1, "\(store)")

            let ids = try context.fetchIdentifiers(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]))
            XCTAssertEqual(ids.count, 3, "\(store)")
            XCTAssertEqual((context.model(for: ids[0]) as? Trip)?.name, "Lisbon autumn", "\(store)")
            XCTAssertEqual(ids.map(\.entityName), ["Trip", "Trip", "Trip"], "\(store)")
        }
    }

    func testUnsupportedPredicateThrows() throws {
        let context = ModelContext(try makeContainer(.inMemory))
        let arithmetic = #Predicate<Item> { $0.weight * 2 > 3 }
        XCTAssertThrowsError(try context.fetch(FetchDescriptor(predicate: arithmetic))) { error in
            XCTAssertEqual(error as? SwiftDataError, .unsupportedPredicate)
        }
    }

    func testPendingChangesAndRollback() throws {
        for store in Store.tested {
            let context = ModelContext(try makeContainer(store))
            let trips = insertTrips(into: context)
            XCTAssertEqual(try context.fetchCount(FetchDescriptor<Trip>()), 3, "unsaved inserts are fetched (\(store))")
            var descriptor = FetchDescriptor<Trip>()
            descriptor.includePendingChanges = false
            XCTAssertEqual(try context.fetch(descriptor).count, 0, "\(store)")
            try context.save()
            trips[0].destination = "Porto"
            XCTAssertTrue(trips[0].hasChanges, "\(store)")
            XCTAssertEqual(context.changedModelsArray.count, 1, "\(store)")
            context.rollback()
            XCTAssertEqual(trips[0].destination, "Lisbon", "\(store)")
            XCTAssertFalse(context.hasChanges, "\(store)")
        }
    }

    func testCascadeDeleteAndDeleteWithPredicate() throws {
        for store in Store.tested {
            let context = ModelContext(try makeContainer(store))
            let trips = insertTrips(into: context)
            try context.save()
            XCTAssertEqual(try context.fetchCount(FetchDescriptor<Item>()), 3, "\(store)")

            context.delete(trips[0])
            XCTAssertTrue(trips[0].isDeleted, "\(store)")
            try context.save()
            XCTAssertEqual(try context.fetchCount(FetchDescriptor<Item>()), 1, "the trip's items are deleted with it (\(store))")

            try context.delete(model: Trip.self, where: #Predicate { $0.destination == "Oslo" })
            try context.save()
            XCTAssertEqual(try context.fetch(FetchDescriptor<Trip>()).map(\.name), ["Lisbon autumn"], "\(store)")
            XCTAssertEqual(try context.fetchCount(FetchDescriptor<Item>()), 0, "\(store)")
        }
    }

    func testUniqueAttributeUpserts() throws {
        for store in Store.tested {
            let container = try makeContainer(store)
            let context = ModelContext(container)
            _ = insertTrips(into: context)
            try context.save()

            let again = Trip(name: "Oslo work", destination: "Bergen", startDate: day(4), endDate: day(6))
            context.insert(again)
            try context.save()
            let other = ModelContext(container)
            let trips = try other.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.name == "Oslo work" }))
            XCTAssertEqual(trips.map(\.destination), ["Bergen"], "the stored trip of that name is updated (\(store))")
            XCTAssertEqual(try other.fetchCount(FetchDescriptor<Trip>()), 3, "\(store)")
        }
    }

    func testEnumerateInBatches() throws {
        for store in Store.tested {
            let context = ModelContext(try makeContainer(store))
            for index in 0..<25 { context.insert(Item(title: "Item \(index)", weight: index)) }
            try context.save()
            var weights: [Int] = []
            try context.enumerate(FetchDescriptor<Item>(sortBy: [SortDescriptor(\.weight)]), batchSize: 10) { item in
                weights.append(item.weight)
            }
            XCTAssertEqual(weights, Array(0..<25), "\(store)")
        }
    }

    func testTransactionSavesOrRollsBack() throws {
        for store in Store.tested {
            let container = try makeContainer(store)
            let context = ModelContext(container)
            try context.transaction {
                context.insert(Item(title: "Tent", weight: 8))
            }
            XCTAssertEqual(try ModelContext(container).fetchCount(FetchDescriptor<Item>()), 1, "\(store)")
            struct Stop: Error {}
            XCTAssertThrowsError(
                try context.transaction {
                    context.insert(Item(title: "Stove", weight: 4))
                    throw Stop()
                })
            XCTAssertFalse(context.hasChanges, "\(store)")
            XCTAssertEqual(try ModelContext(container).fetchCount(FetchDescriptor<Item>()), 1, "\(store)")
        }
    }

    func testCodableValuesAndToOneRelationships() throws {
        for store in Store.tested {
            let container = try makeContainer(store)
            let context = ModelContext(container)
            let trip = Trip(name: "Rome", destination: "Rome", startDate: day(1), endDate: day(3))
            let hotel = Accommodation(placeName: "Hotel Sole")
            hotel.address = Address(street: "Via Roma 1", city: "Rome")
            let photo = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
            hotel.photo = photo
            trip.accommodation = hotel
            context.insert(trip)
            XCTAssertTrue(hotel.modelContext === context, "a related model is inserted with its trip (\(store))")
            try context.save()

            let fetched = try ModelContext(container).fetch(FetchDescriptor<Accommodation>())
            XCTAssertEqual(fetched.map(\.address), [Address(street: "Via Roma 1", city: "Rome")], "\(store)")
            XCTAssertEqual(fetched.first?.trip?.name, "Rome", "\(store)")
            XCTAssertEqual(fetched.first?.photo, photo, "\(store)")
        }
    }
}

extension ModelContext {
    fileprivate func fetch1(name: String) -> Trip? {
        try? fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.name == name })).first
    }
}
