import CoreData
import XCTest

@testable import SwiftData

/// The Core Data model a schema makes of `@Model` classes (what a SwiftData app's store holds).
final class SchemaTests: XCTestCase {
    private let model = Schema(Trip.self, Visit.self).managedObjectModel

    private func entity(_ name: String) throws -> NSEntityDescription {
        try XCTUnwrap(model.entitiesByName[name], name)
    }

    func testRelatedClassesAreIncluded() {
        XCTAssertEqual(Schema(Trip.self).entityNames, ["Accommodation", "Item", "Trip"])
        XCTAssertEqual(Schema(Item.self).entityNames, ["Accommodation", "Item", "Trip"])
    }

    func testAttributesFromSwiftTypes() throws {
        let trip = try entity("Trip")
        let attributes = trip.attributesByName
        XCTAssertEqual(attributes["name"]?.attributeType, .stringAttributeType)
        XCTAssertEqual(attributes["startDate"]?.attributeType, .dateAttributeType)
        XCTAssertEqual(attributes["budget"]?.attributeType, .doubleAttributeType)
        XCTAssertEqual(attributes["kind"]?.attributeType, .stringAttributeType, "an enum is stored as its raw value")
        XCTAssertEqual(attributes["name"]?.isOptional, false)
        XCTAssertEqual(attributes["budget"]?.isOptional, true)
        XCTAssertEqual(attributes["kind"]?.defaultValue as? String, "leisure", "the property's default value")
        XCTAssertNil(attributes["isSelected"], "@Transient is not persisted")
        XCTAssertNil(attributes["days"], "a computed property is not persisted")
        XCTAssertEqual(try entity("Accommodation").attributesByName["address"]?.attributeType, .binaryDataAttributeType)
        XCTAssertEqual(try entity("Accommodation").attributesByName["photo"]?.allowsExternalBinaryDataStorage, true)
        XCTAssertEqual(try entity("Accommodation").attributesByName["address"]?.allowsExternalBinaryDataStorage, false)
        XCTAssertEqual(try entity("Item").attributesByName["weight"]?.attributeType, .integer64AttributeType)
    }

    func testRelationshipsInversesAndDeleteRules() throws {
        let trip = try entity("Trip")
        let items = try XCTUnwrap(trip.relationshipsByName["items"])
        XCTAssertTrue(items.isToMany)
        XCTAssertEqual(items.deleteRule, .cascadeDeleteRule)
        XCTAssertEqual(items.destinationEntity?.name, "Item")
        XCTAssertEqual(items.inverseRelationship?.name, "trip", "the inverse @Relationship names")
        let accommodation = try XCTUnwrap(trip.relationshipsByName["accommodation"])
        XCTAssertFalse(accommodation.isToMany)
        XCTAssertEqual(accommodation.deleteRule, .nullifyDeleteRule)
        XCTAssertEqual(accommodation.inverseRelationship?.name, "trip", "the one relationship back, inferred")
        XCTAssertEqual(try entity("Item").relationshipsByName["trip"]?.inverseRelationship?.name, "items")
    }

    func testUniquenessAndIndexes() throws {
        XCTAssertEqual(try entity("Trip").uniquenessConstraints as? [[String]], [["name"]])
        let visit = try entity("Visit")
        XCTAssertEqual(visit.uniquenessConstraints as? [[String]], [["city", "country"]])
        XCTAssertEqual(visit.indexes.map { $0.elements.compactMap { $0.property?.name } }, [["country"], ["city", "country"]])
    }

    func testRenamedAttributeKeepsItsOriginalName() throws {
        let v2 = Schema(versionedSchema: TripsV2.self).managedObjectModel
        XCTAssertEqual(v2.entitiesByName["Trip"]?.attributesByName["place"]?.renamingIdentifier, "destination")
        XCTAssertEqual(Schema(versionedSchema: TripsV2.self).version, Schema.Version(2, 0, 0))
    }
}
