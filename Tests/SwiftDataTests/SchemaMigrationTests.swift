import SwiftData
import TestSupport
import XCTest

// Three versions of a trip planner's models, as an app that shipped them declares them.

enum TripsV1: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
    static var models: [any PersistentModel.Type] { [Trip.self] }

    @Model
    final class Trip {
        var name: String
        var destination: String
        var nights: Int

        init(name: String, destination: String, nights: Int) {
            self.name = name
            self.destination = destination
            self.nights = nights
        }
    }
}

/// Lightweight from V1: `destination` is renamed `place`, `notes` is new.
enum TripsV2: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(2, 0, 0) }
    static var models: [any PersistentModel.Type] { [Trip.self] }

    @Model
    final class Trip {
        var name: String
        @Attribute(originalName: "destination") var place: String
        var nights: Int
        var notes: String?

        init(name: String, place: String, nights: Int) {
            self.name = name
            self.place = place
            self.nights = nights
        }
    }
}

/// Custom from V2: names become unique (duplicates are removed before), and `nightsLabel` is
/// filled after.
enum TripsV3: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(3, 0, 0) }
    static var models: [any PersistentModel.Type] { [Trip.self] }

    @Model
    final class Trip {
        @Attribute(.unique) var name: String
        var place: String
        var nights: Int
        var notes: String?
        var nightsLabel: String = ""

        init(name: String, place: String, nights: Int) {
            self.name = name
            self.place = place
            self.nights = nights
        }
    }
}

enum TripsMigrationPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [TripsV1.self, TripsV2.self, TripsV3.self] }
    static var stages: [MigrationStage] { [v1ToV2, v2ToV3] }

    static let v1ToV2 = MigrationStage.lightweight(fromVersion: TripsV1.self, toVersion: TripsV2.self)
    static let v2ToV3 = MigrationStage.custom(
        fromVersion: TripsV2.self, toVersion: TripsV3.self,
        willMigrate: { context in
            var seen: Set<String> = []
            for trip in try context.fetch(FetchDescriptor<TripsV2.Trip>(sortBy: [SortDescriptor(\.nights)])) {
                if !seen.insert(trip.name).inserted { context.delete(trip) }
            }
            try context.save()
        },
        didMigrate: { context in
            for trip in try context.fetch(FetchDescriptor<TripsV3.Trip>()) {
                trip.nightsLabel = trip.nights == 1 ? "1 night" : "\(trip.nights) nights"
            }
            try context.save()
        })
}

final class SchemaMigrationTests: XCTestCase {
    private var folder: TemporaryFolder!

    override func setUpWithError() throws {
        folder = try TemporaryFolder(prefix: "SwiftDataMigration")
    }

    override func tearDown() {
        folder = nil
    }

    private var storeURL: URL { folder.file("Trips.store") }

    /// A new SQLite store, and a new PostgreSQL one where a test server is named.
    private func storeURLs() throws -> [URL] {
        guard PostgresTestServer.isEnabled else { return [storeURL] }
        let postgres = try PostgresTestServer.freshStoreURL()
        folder.onRemove { PostgresTestServer.destroy(postgres) }
        return [storeURL, postgres]
    }

    /// A V1 store with a duplicate name.
    private func writeVersion1(at url: URL) throws {
        let container = try ModelContainer(for: Schema(versionedSchema: TripsV1.self), configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        context.insert(TripsV1.Trip(name: "Lisbon", destination: "Portugal", nights: 4))
        context.insert(TripsV1.Trip(name: "Oslo", destination: "Norway", nights: 1))
        context.insert(TripsV1.Trip(name: "Lisbon", destination: "Portugal", nights: 9))
        try context.save()
    }

    func testPlanMigratesThroughLightweightAndCustomStages() throws {
        for url in try storeURLs() {
            let store = url.scheme ?? ""
            try writeVersion1(at: url)
            let container = try ModelContainer(
                for: Schema(versionedSchema: TripsV3.self), migrationPlan: TripsMigrationPlan.self,
                configurations: ModelConfiguration(url: url))
            let trips = try ModelContext(container).fetch(FetchDescriptor<TripsV3.Trip>(sortBy: [SortDescriptor(\.name)]))
            XCTAssertEqual(trips.map(\.name), ["Lisbon", "Oslo"], "willMigrate removed the later duplicate (\(store))")
            XCTAssertEqual(trips.map(\.place), ["Portugal", "Norway"], "the renamed attribute kept its values (\(store))")
            XCTAssertEqual(trips.map(\.nights), [4, 1], store)
            XCTAssertEqual(trips.map(\.notes), [nil, nil], store)
            XCTAssertEqual(trips.map(\.nightsLabel), ["4 nights", "1 night"], "didMigrate filled the new attribute (\(store))")

            // The migrated store opens as V3 without the plan, and its names are unique now.
            let reopened = try ModelContainer(for: Schema(versionedSchema: TripsV3.self), configurations: ModelConfiguration(url: url))
            let context = ModelContext(reopened)
            context.insert(TripsV3.Trip(name: "Oslo", place: "Norway", nights: 3))
            try context.save()
            XCTAssertEqual(try context.fetchCount(FetchDescriptor<TripsV3.Trip>()), 2, store)
        }
    }

    func testPlanStartsFromTheStoresVersion() throws {
        let container = try ModelContainer(
            for: Schema(versionedSchema: TripsV2.self), configurations: ModelConfiguration(url: storeURL))
        let context = ModelContext(container)
        context.insert(TripsV2.Trip(name: "Rome", place: "Italy", nights: 2))
        try context.save()

        let migrated = try ModelContainer(
            for: Schema(versionedSchema: TripsV3.self), migrationPlan: TripsMigrationPlan.self,
            configurations: ModelConfiguration(url: storeURL))
        let trips = try ModelContext(migrated).fetch(FetchDescriptor<TripsV3.Trip>())
        XCTAssertEqual(trips.map(\.place), ["Italy"])
        XCTAssertEqual(trips.map(\.nightsLabel), ["2 nights"])
    }

    func testAStoreOfNoVersionOfThePlanIsRefused() throws {
        let other = try ModelContainer(for: Item.self, configurations: ModelConfiguration(url: storeURL))
        let context = ModelContext(other)
        context.insert(Item(title: "Map", weight: 1))
        try context.save()
        XCTAssertThrowsError(
            try ModelContainer(
                for: Schema(versionedSchema: TripsV3.self), migrationPlan: TripsMigrationPlan.self,
                configurations: ModelConfiguration(url: storeURL))
        ) { error in
            XCTAssertEqual((error as NSError).code, 134_130, "NSMigrationMissingSourceModelError")
        }
    }
}
