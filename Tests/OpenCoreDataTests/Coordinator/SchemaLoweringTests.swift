@testable import OpenCoreData
import OpenStoreCore
import Testing

@Suite struct SchemaLoweringTests {
    /// Entity numbers as Apple's SQLite store wrote them in Z_PRIMARYKEY of CoreDataPlus's
    /// SampleModel2 store (shared/realworld/stores/README.md): roots in name order, each followed
    /// by its sub-entities.
    @Test func entitiesAreNumberedAsApplesStoreNumbersThem() {
        func entity(_ name: String, _ subentities: [NSEntityDescription] = []) -> NSEntityDescription {
            let entity = NSEntityDescription()
            entity.name = name
            entity.subentities = subentities
            return entity
        }
        let graphicNovel = entity("GraphicNovel"), author = entity("Author")
        let book = entity("Book", [graphicNovel]), writer = entity("Writer", [author])
        let model = NSManagedObjectModel()
        model.entities = [writer, author, entity("Page"), book, graphicNovel, entity("Feedback")]
        let schema = SchemaLowering.schema(for: model)
        #expect(schema.entities.map(\.name) == ["Book", "GraphicNovel", "Feedback", "Page", "Writer", "Author"])
        #expect(schema.entities.map(\.id) == [1, 2, 3, 4, 5, 6])
        #expect(schema.entity(named: "Author")?.superID == 5)
        #expect(schema.entity(named: "Book")?.familyIDs == [1, 2])
        #expect(schema.entity(named: "Page")?.familyIDs == [4])
    }

    @Test func slotsFollowPropertiesWithInheritedOnesFirst() throws {
        let schema = SchemaLowering.schema(for: CompanyModel.make())
        #expect(schema.entities.map(\.name) == ["Department", "Person", "Employee", "Manager"])
        let manager = try #require(schema.entity(named: "Manager"))
        #expect(manager.properties.map(\.name) == ["name", "born", "salary", "department", "reports"])
        #expect(manager.slotsByName["salary"] == 2)
        #expect(manager.properties[2].kind == .attribute(.decimal))
        #expect(manager.properties[3].kind == .toOne(destination: 1, inverse: "employees"))
        #expect(manager.properties[4].kind == .toMany(destination: 3, inverse: nil, ordered: true))
        #expect(manager.properties[0].isOptional == false)
        // The fetched property has no slot.
        #expect(schema.entity(named: "Department")?.properties.map(\.name) == ["title", "employees"])
        #expect(schema.entity(named: "Person")?.isAbstract == true)
        #expect(schema.entity(named: "Person")?.familyIDs == [2, 3, 4])
    }
}
