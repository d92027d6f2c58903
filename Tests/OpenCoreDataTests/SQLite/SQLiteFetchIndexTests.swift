import Foundation
import OpenCoreData
import OpenSQLStore
import OpenSQLiteStore
import TestSupport
import Testing

/// Fetch indexes in a store file: a partial index is created with its condition, an R-tree
/// index is Apple's virtual table kept by triggers as rows are saved, changed and deleted, and
/// fetches give the same answers with them.
@Suite struct SQLiteFetchIndexStoreTests {
    /// Place: name, latitude, longitude, visits; indexes `byLocation` (R-tree over latitude and
    /// longitude) and `popular` (visits, partial: `visits >= 100`).
    static func model() -> NSManagedObjectModel {
        let place = entity("Place")
        let latitude = attribute("latitude", .doubleAttributeType)
        let longitude = attribute("longitude", .doubleAttributeType)
        let visits = attribute("visits", .integer32AttributeType)
        place.properties = [attribute("name", .stringAttributeType), latitude, longitude, visits]
        let location = NSFetchIndexDescription(
            name: "byLocation",
            elements: [
                NSFetchIndexElementDescription(property: latitude, collationType: .rTree),
                NSFetchIndexElementDescription(property: longitude, collationType: .rTree),
            ])
        let popular = NSFetchIndexDescription(
            name: "popular", elements: [NSFetchIndexElementDescription(property: visits, collationType: .binary)])
        popular.partialIndexPredicate = NSPredicate(format: "visits >= 100")
        place.indexes = [location, popular]
        let model = NSManagedObjectModel()
        model.entities = [place]
        return model
    }

    /// The R-tree's rows as (primary key, latitude, longitude), by primary key.
    func rTreeRows(_ url: URL) throws -> [[Double]] {
        let connection = try SQLiteConnection(url: url, mode: .readOnly)
        let statement = try connection.statement(
            "SELECT Z_PK, ZLATITUDE_MIN, ZLATITUDE_MAX, ZLONGITUDE_MIN FROM Z_Place_byLocation ORDER BY Z_PK")
        var rows: [[Double]] = []
        while try statement.step() {
            rows.append([Double(statement.int64(at: 0)), statement.double(at: 1), statement.double(at: 2), statement.double(at: 3)])
        }
        return rows
    }

    @Test func indexesAreCreatedAndTheRTreeFollowsEverySave() throws {
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("Places.sqlite")
        let model = Self.model()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        var places: [NSManagedObject] = []
        for (name, latitude, longitude, visits) in [("Oslo", 59.5, 10.75, 120), ("Lima", -12.0, -77.0, 40), ("Pune", 18.5, 73.75, 300)] {
            let place = NSManagedObject(entity: model[entity: "Place"], insertInto: context)
            place.setValue(name, forKey: "name")
            place.setValue(latitude, forKey: "latitude")
            place.setValue(longitude, forKey: "longitude")
            place.setValue(Int32(visits), forKey: "visits")
            places.append(place)
        }
        try context.save()

        let connection = try SQLiteConnection(url: url, mode: .readOnly)
        let statement = try connection.statement("SELECT name, sql FROM sqlite_master WHERE name LIKE 'Z_Place_%' ORDER BY name")
        var sql: [String: String] = [:]
        while try statement.step() { sql[statement.string(at: 0) ?? ""] = statement.string(at: 1) }
        #expect(sql["Z_Place_popular"] == "CREATE INDEX Z_Place_popular ON ZPLACE (ZVISITS COLLATE BINARY ASC) WHERE ZVISITS >= 100")
        // SQLite keeps the statements without IF NOT EXISTS, as in Apple's files.
        #expect(sql["Z_Place_byLocation"]?.hasPrefix("CREATE VIRTUAL TABLE Z_Place_byLocation USING RTREE (Z_PK INTEGER PRIMARY KEY") == true)
        #expect(
            Set(sql.keys).isSuperset(of: ["Z_Place_byLocation_INSERT", "Z_Place_byLocation_UPDATE", "Z_Place_byLocation_DELETE"]))
        #expect(try rTreeRows(url) == [[1, 59.5, 59.5, 10.75], [2, -12, -12, -77], [3, 18.5, 18.5, 73.75]])

        places[1].setValue(-12.5, forKey: "latitude")
        context.delete(places[2])
        try context.save()
        #expect(try rTreeRows(url) == [[1, 59.5, 59.5, 10.75], [2, -12.5, -12.5, -77]])

        // The query planner may use the partial index; the answers are the same either way.
        let request = NSFetchRequest<NSManagedObject>(entityName: "Place")
        request.predicate = NSPredicate(format: "visits >= 100 AND latitude BETWEEN {50, 60}")
        #expect(try context.fetch(request).compactMap { $0.value(forKey: "name") as? String } == ["Oslo"])
        let reopened = NSPersistentStoreCoordinator(managedObjectModel: model)
        try reopened.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url)
        let rereading = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        rereading.persistentStoreCoordinator = reopened
        #expect(try rereading.count(for: NSFetchRequest<NSManagedObject>(entityName: "Place")) == 2)
    }
}
