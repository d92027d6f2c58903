import CoreData
import SwiftData
import TestSupport
import XCTest

/// SwiftData's stores are Core Data's: the same file opens through either API, a store of an
/// earlier schema opens migrated from the model it caches, and configurations' options hold.
final class StoreCompatibilityTests: XCTestCase {
    private var folder: TemporaryFolder!

    override func setUpWithError() throws {
        folder = try TemporaryFolder(prefix: "SwiftDataStores")
    }

    override func tearDown() {
        folder = nil
    }

    /// The model of `TripsV1`, written with Core Data's API as an app's model file has it.
    private func coreDataModel() -> NSManagedObjectModel {
        let trip = NSEntityDescription()
        trip.name = "Trip"
        let attributes: [(String, NSAttributeType)] = [
            ("name", .stringAttributeType), ("destination", .stringAttributeType), ("nights", .integer64AttributeType),
        ]
        trip.properties = attributes.map { name, type in
            let attribute = NSAttributeDescription()
            attribute.name = name
            attribute.attributeType = type
            attribute.isOptional = false
            return attribute
        }
        let model = NSManagedObjectModel()
        model.entities = [trip]
        return model
    }

    func testAStoreWrittenWithCoreDataOpensAsModels() throws {
        let url = folder.file("Trips.sqlite")
        let container = NSPersistentContainer(name: "Trips", managedObjectModel: coreDataModel())
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: url)]
        var loadError: Error?
        container.loadPersistentStores { _, error in loadError = error }
        XCTAssertNil(loadError)
        let context = container.viewContext
        for (name, nights) in [("Lisbon", 4), ("Oslo", 1)] {
            let trip = NSManagedObject(entity: container.managedObjectModel.entitiesByName["Trip"]!, insertInto: context)
            trip.setValue(name, forKey: "name")
            trip.setValue(name, forKey: "destination")
            trip.setValue(nights, forKey: "nights")
        }
        try context.save()

        let models = try ModelContainer(for: Schema(versionedSchema: TripsV1.self), configurations: ModelConfiguration(url: url))
        let trips = try ModelContext(models).fetch(FetchDescriptor<TripsV1.Trip>(sortBy: [SortDescriptor(\.nights)]))
        XCTAssertEqual(trips.map(\.name), ["Oslo", "Lisbon"])
        XCTAssertEqual(trips.map(\.nights), [1, 4])
        XCTAssertEqual(
            NSManagedObjectModel.entityVersionHashes(of: coreDataModel()),
            NSManagedObjectModel.entityVersionHashes(ofStoreAt: url),
            "the schema's entity has the version hash of the same entity written in Core Data")
    }

    func testAStoreOfAnEarlierSchemaNeedsThePlanWhenItCachesNoModel() throws {
        let url = folder.file("Trips.store")
        let v1 = ModelContext(
            try ModelContainer(for: Schema(versionedSchema: TripsV1.self), configurations: ModelConfiguration(url: url)))
        v1.insert(TripsV1.Trip(name: "Rome", destination: "Italy", nights: 2))
        try v1.save()

        // This package's stores keep no copy of their model (Apple's keep one in Z_MODELCACHE),
        // so without the plan there is nothing to migrate from, and the store is left as it was.
        XCTAssertThrowsError(
            try ModelContainer(for: Schema(versionedSchema: TripsV2.self), configurations: ModelConfiguration(url: url))
        ) { error in
            XCTAssertEqual((error as NSError).code, NSMigrationMissingSourceModelError)
        }
        let plan = try ModelContainer(
            for: Schema(versionedSchema: TripsV2.self), migrationPlan: TripsMigrationPlan.self,
            configurations: ModelConfiguration(url: url))
        XCTAssertEqual(try ModelContext(plan).fetch(FetchDescriptor<TripsV2.Trip>()).map(\.place), ["Italy"])
    }

    func testAReadOnlyConfigurationRefusesToSave() throws {
        let url = folder.file("Trips.store")
        let writer = ModelContext(try ModelContainer(for: Item.self, configurations: ModelConfiguration(url: url)))
        writer.insert(Item(title: "Map", weight: 1))
        try writer.save()

        let reader = ModelContext(
            try ModelContainer(for: Item.self, configurations: ModelConfiguration(url: url, allowsSave: false)))
        XCTAssertEqual(try reader.fetch(FetchDescriptor<Item>()).map(\.title), ["Map"])
        reader.insert(Item(title: "Tent", weight: 8))
        XCTAssertThrowsError(try reader.save())
        XCTAssertEqual(try writer.fetchCount(FetchDescriptor<Item>(predicate: #Predicate { $0.title == "Tent" })), 0)
    }
}

extension NSManagedObjectModel {
    /// The version hashes of a model's entities.
    fileprivate static func entityVersionHashes(of model: NSManagedObjectModel) -> [String: Data] {
        model.entityVersionHashesByName
    }

    /// The version hashes a store's metadata records.
    fileprivate static func entityVersionHashes(ofStoreAt url: URL) -> [String: Data] {
        let metadata = (try? NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)) ?? [:]
        return (metadata[NSStoreModelVersionHashesKey] as? [String: Any] ?? [:]).compactMapValues { $0 as? Data }
    }
}
