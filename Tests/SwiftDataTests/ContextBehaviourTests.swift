import SwiftData
import XCTest

/// What a context reports and does beside fetching: change lists, autosave, partial fetches.
final class ContextBehaviourTests: XCTestCase {
    private func makeContainer() throws -> ModelContainer {
        try ModelContainer(for: Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
    }

    private func trip(_ name: String) -> Trip {
        Trip(name: name, destination: name, startDate: Date(timeIntervalSinceReferenceDate: 0), endDate: .now)
    }

    func testChangeListsFollowInsertsChangesAndDeletes() throws {
        let context = ModelContext(try makeContainer())
        let lisbon = trip("Lisbon")
        let oslo = trip("Oslo")
        XCTAssertNil(lisbon.modelContext)
        XCTAssertFalse(lisbon.hasChanges, "a model never inserted has no changes to save")
        context.insert(lisbon)
        context.insert(oslo)
        XCTAssertEqual(Set(context.insertedModelsArray.compactMap { ($0 as? Trip)?.name }), ["Lisbon", "Oslo"])
        XCTAssertTrue(lisbon.hasChanges)
        try context.save()
        XCTAssertTrue(context.insertedModelsArray.isEmpty)
        XCTAssertFalse(lisbon.hasChanges)

        oslo.budget = 300
        context.delete(lisbon)
        XCTAssertEqual(context.changedModelsArray.compactMap { ($0 as? Trip)?.name }, ["Oslo"])
        XCTAssertEqual(context.deletedModelsArray.compactMap { ($0 as? Trip)?.name }, ["Lisbon"])
        try context.save()
        XCTAssertEqual(try context.fetch(FetchDescriptor<Trip>()).map(\.name), ["Oslo"])
        XCTAssertEqual(try context.fetch(FetchDescriptor<Trip>()).first?.budget, 300)
    }

    func testTheIdentifierOfAnInsertedModelBecomesPermanentAtSave() throws {
        let context = ModelContext(try makeContainer())
        let lisbon = trip("Lisbon")
        let unsaved = lisbon.persistentModelID
        XCTAssertEqual(unsaved, lisbon.persistentModelID, "a model never inserted keeps one identifier")
        XCTAssertNil(unsaved.storeIdentifier)
        context.insert(lisbon)
        let temporary = lisbon.persistentModelID
        XCTAssertNotEqual(temporary, unsaved)
        try context.save()
        XCTAssertNotEqual(lisbon.persistentModelID, temporary)
        XCTAssertNotNil(lisbon.persistentModelID.storeIdentifier)
        XCTAssertEqual(lisbon.persistentModelID.entityName, "Trip")
    }

    @MainActor
    func testTheMainContextSavesByItself() async throws {
        let container = try makeContainer()
        let main = container.mainContext
        XCTAssertTrue(main === container.mainContext, "one main context")
        XCTAssertTrue(main.autosaveEnabled)
        main.insert(trip("Lisbon"))
        XCTAssertTrue(main.hasChanges)
        for _ in 0..<100 where main.hasChanges { await Task.yield() }
        XCTAssertFalse(main.hasChanges, "the scheduled save ran")
        XCTAssertEqual(try ModelContext(container).fetchCount(FetchDescriptor<Trip>()), 1)

        let other = ModelContext(container)
        XCTAssertFalse(other.autosaveEnabled, "a new context does not save by itself")
        other.insert(trip("Oslo"))
        for _ in 0..<10 { await Task.yield() }
        XCTAssertTrue(other.hasChanges)
    }

    func testPartialFetchesAndPrefetchingReadTheSameValues() throws {
        let container = try makeContainer()
        let context = ModelContext(container)
        let lisbon = trip("Lisbon")
        lisbon.items = [Item(title: "Camera", weight: 3)]
        context.insert(lisbon)
        try context.save()

        var descriptor = FetchDescriptor<Trip>()
        descriptor.propertiesToFetch = [\.name]
        descriptor.relationshipKeyPathsForPrefetching = [\.items]
        let trips = try ModelContext(container).fetch(descriptor)
        XCTAssertEqual(trips.map(\.name), ["Lisbon"])
        XCTAssertEqual(trips.map(\.destination), ["Lisbon"], "a property not fetched is read when used")
        XCTAssertEqual(trips.first?.items.map(\.title), ["Camera"])
    }

    func testAnEnumOfAnyRawTypeRoundTrips() throws {
        let container = try makeContainer()
        let context = ModelContext(container)
        let tent = Item(title: "Tent", weight: 8)
        tent.priority = .high
        context.insert(tent)
        context.insert(Item(title: "Map", weight: 1))
        try context.save()
        let items = try ModelContext(container).fetch(FetchDescriptor<Item>(sortBy: [SortDescriptor(\.title)]))
        XCTAssertEqual(items.map(\.priority), [.normal, .high])
    }

    func testInsertingAModelOfAnotherSchemaMakesTheSaveThrow() throws {
        let context = ModelContext(try makeContainer())
        context.insert(trip("Lisbon"))
        let stray = Visit(city: "Porto", country: "Portugal", stars: 3)
        context.insert(stray)
        XCTAssertNil(stray.modelContext, "not inserted")
        XCTAssertThrowsError(try context.save()) { error in
            XCTAssertEqual(error as? SwiftDataError, .unknownSchema)
        }
        context.rollback()
        context.insert(trip("Oslo"))
        try context.save()
        XCTAssertEqual(try context.fetch(FetchDescriptor<Trip>()).map(\.name), ["Oslo"])
    }

    func testALimitOrOffsetOutOfRangeThrows() throws {
        let context = ModelContext(try makeContainer())
        context.insert(trip("Lisbon"))
        var descriptor = FetchDescriptor<Trip>()
        descriptor.fetchLimit = -1
        XCTAssertThrowsError(try context.fetch(descriptor)) { error in
            XCTAssertTrue("\(error)".contains("fetchLimit"), "\(error)")
        }
        descriptor.fetchLimit = nil
        descriptor.fetchOffset = -2
        XCTAssertThrowsError(try context.fetchCount(descriptor))
        XCTAssertThrowsError(try context.enumerate(descriptor) { _ in XCTFail("no model") })
    }

    func testASortByAPropertyThatIsNotPersistedThrows() throws {
        let context = ModelContext(try makeContainer())
        XCTAssertThrowsError(try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.days)]))) { error in
            XCTAssertEqual(error as? SwiftDataError, .unsupportedSortDescriptor)
        }
        XCTAssertThrowsError(try context.fetch(FetchDescriptor(predicate: #Predicate<Trip> { $0.days > 2 }))) { error in
            XCTAssertEqual(error as? SwiftDataError, .unsupportedPredicate)
        }
    }
}

import Observation

final class ObservationTests: XCTestCase {
    func testPersistedPropertiesAreObserved() throws {
        let context = ModelContext(
            try ModelContainer(for: Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true)))
        let trip = Trip(name: "Lisbon", destination: "Lisbon", startDate: .now, endDate: .now)
        context.insert(trip)
        let changes = Counter()
        withObservationTracking {
            _ = trip.destination
        } onChange: {
            changes.count += 1
        }
        trip.budget = 10
        XCTAssertEqual(changes.count, 0, "a property not read is not observed")
        trip.destination = "Porto"
        XCTAssertEqual(changes.count, 1)
    }

    private final class Counter: @unchecked Sendable {
        var count = 0
    }
}
