import SwiftData
import XCTest

/// A visited place: unique by city and country together, indexed by country.
@Model
final class Visit {
    #Unique<Visit>([\.city, \.country])
    #Index<Visit>([\.country], [\.city, \.country])

    var city: String
    var country: String
    var stars: Int

    init(city: String, country: String, stars: Int) {
        self.city = city
        self.country = country
        self.stars = stars
    }
}

@ModelActor
actor VisitImporter {
    func importVisits(_ rows: [(String, String, Int)]) throws -> [PersistentIdentifier] {
        let visits = rows.map { Visit(city: $0.0, country: $0.1, stars: $0.2) }
        for visit in visits { modelContext.insert(visit) }
        try modelContext.save()
        return visits.map(\.persistentModelID)
    }

    func stars(of id: PersistentIdentifier) -> Int? {
        self[id, as: Visit.self]?.stars
    }

    func count() throws -> Int {
        try modelContext.fetchCount(FetchDescriptor<Visit>())
    }
}

final class ModelActorTests: XCTestCase {
    private func makeContainer() throws -> ModelContainer {
        try ModelContainer(for: Visit.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
    }

    func testModelActorInsertsOnItsOwnContextAndIdentifiersCrossOver() async throws {
        let container = try makeContainer()
        let importer = VisitImporter(modelContainer: container)
        let ids = try await importer.importVisits([("Porto", "Portugal", 4), ("Bergen", "Norway", 5)])
        XCTAssertEqual(ids.count, 2)
        let count = try await importer.count()
        XCTAssertEqual(count, 2)
        let stars = await importer.stars(of: ids[1])
        XCTAssertEqual(stars, 5)

        // The identifiers name the same stored models in another context.
        let context = ModelContext(container)
        XCTAssertEqual((context.model(for: ids[0]) as? Visit)?.city, "Porto")
        XCTAssertTrue(importer.modelContainer === container)

        // Identifiers travel as JSON, and name the same models when they come back.
        let decoded = try JSONDecoder().decode([PersistentIdentifier].self, from: JSONEncoder().encode(ids))
        XCTAssertEqual(decoded, ids)
        // A decoded identifier hashes as the one it came from: sets and dictionaries find it.
        XCTAssertEqual(Set(decoded + ids).count, 2)
        XCTAssertEqual(Dictionary(uniqueKeysWithValues: zip(ids, ["Porto", "Bergen"]))[decoded[1]], "Bergen")
        XCTAssertEqual(decoded.map(\.entityName), ["Visit", "Visit"])
        XCTAssertTrue(context.model(for: decoded[0]) === context.model(for: ids[0]))
        let decodedStars = await importer.stars(of: decoded[1])
        XCTAssertEqual(decodedStars, 5)
    }

    func testActorsRunConcurrentlyWithoutLosingInserts() async throws {
        let container = try makeContainer()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<4 {
                group.addTask {
                    let importer = VisitImporter(modelContainer: container)
                    _ = try await importer.importVisits((0..<25).map { ("City \(worker)-\($0)", "Country", $0) })
                }
            }
            try await group.waitForAll()
        }
        XCTAssertEqual(try ModelContext(container).fetchCount(FetchDescriptor<Visit>()), 100)
    }

    func testUniqueCombinationUpsertsAndIndexesAreInTheSchema() throws {
        let container = try makeContainer()
        let context = ModelContext(container)
        context.insert(Visit(city: "Porto", country: "Portugal", stars: 3))
        context.insert(Visit(city: "Porto", country: "Brazil", stars: 2))
        try context.save()
        context.insert(Visit(city: "Porto", country: "Portugal", stars: 5))
        try context.save()

        let visits = try ModelContext(container).fetch(FetchDescriptor<Visit>(sortBy: [SortDescriptor(\.country)]))
        XCTAssertEqual(visits.map(\.country), ["Brazil", "Portugal"], "one model per city and country")
        XCTAssertEqual(visits.map(\.stars), [2, 5], "the later insert updated the stored one")
        XCTAssertEqual(container.schema.entityNames, ["Visit"])
    }
}
