import Foundation
@testable import OpenCoreData
import TestSupport
import Testing

/// Objects keep their values by slot (`PropertyLayout`), and a fetched row's values go to the same
/// slots as the store schema's without a name being looked up: the two orders must be the same.
@Suite struct PropertyValuesTests {
    /// Every entity's layout names its stored properties in the store schema's slot order.
    func expectLayoutsMatchSchema(_ model: NSManagedObjectModel, _ label: String) {
        let schema = SchemaLowering.schema(for: model)
        for entity in model.entities {
            let names = entity.propertyLayout.properties.map(\.name)
            let schemaNames = schema.entity(named: entity.name ?? "")?.properties.map(\.name)
            #expect(names == schemaNames, "\(label): \(entity.name ?? "?")")
        }
    }

    @Test func layoutSlotsAreSchemaSlotsForModelsBuiltInCode() {
        for (label, model) in [
            ("Company", CompanyModel.make()), ("Recipes", RealWorldModels.recipesModel()),
            ("SampleModel", RealWorldModels.sampleModelV1()), ("SampleModel2", RealWorldModels.sampleModel2V1()),
            ("CoreDataBooks", RealWorldModels.coreDataBooksModel()), ("Twitter", RealWorldModels.twitterModel()),
        ] {
            #expect(model.entities.contains { !$0.propertyLayout.properties.isEmpty })
            expectLayoutsMatchSchema(model, label)
        }
    }

    @Test(
        "Layout slots are schema slots in every real-world model file",
        .enabled(if: RealWorld.isAvailable, "needs ../shared/realworld beside the package (absent in a fresh clone)"))
    func layoutSlotsAreSchemaSlotsForModelFiles() throws {
        let facts = ModelFileFacts.realWorldModels + ModelFileFacts.realWorldStores
        #expect(facts.count > 20)
        for file in facts {
            let model = try NSManagedObjectModel(validatingContentsOf: try #require(RealWorld.url(file.path)))
            expectLayoutsMatchSchema(model, file.path)
        }
    }

    @Test func fetchedPropertiesHaveNoSlotAndInheritedOnesComeFirst() {
        let model = CompanyModel.make()
        let department = model[entity: "Department"].propertyLayout
        #expect(department.properties.map(\.name) == ["title", "employees"])
        #expect(department.slot(named: "seniors") == nil)
        let manager = model[entity: "Manager"].propertyLayout
        #expect(manager.properties.map(\.name) == ["name", "born", "salary", "department", "reports"])
        if case .toMany(let reports) = manager.kinds[4] {
            #expect(reports.isOrdered)
        } else {
            Issue.record("reports is not a to-many slot")
        }
    }

    /// Small entities find slots by comparing names, large ones by hash: both give each name's slot.
    @Test(arguments: [3, 12, 13, 40])
    func slotsAreFoundByNameInSmallAndLargeEntities(count: Int) {
        let entity = NSEntityDescription()
        entity.name = "Wide"
        entity.properties = (0..<count).map { attribute("property\($0)WithALongerName", .integer64AttributeType) }
        let layout = entity.propertyLayout
        for slot in 0..<count { #expect(layout.slot(named: "property\(slot)WithALongerName") == slot) }
        #expect(layout.slot(named: "property\(count)WithALongerName") == nil)
        #expect(layout.slot(named: "") == nil)
    }

    /// A key that is not the same string as the property's name (built at run time) finds the
    /// slot as the name itself does.
    @Test func slotsAreFoundByKeysThatAreOtherStringsOfTheSameName() {
        let entity = NSEntityDescription()
        entity.name = "Cafe"
        entity.properties = [
            attribute("price", .doubleAttributeType), attribute("caf\u{E9}", .stringAttributeType),
            attribute("openedOnTheFirstDayOfSpring", .dateAttributeType),
        ]
        let layout = entity.propertyLayout
        #expect(layout.slot(named: "price") == 0)
        #expect(layout.slot(named: String("xprice".dropFirst())) == 0)
        #expect(layout.slot(named: ["caf", "\u{E9}"].joined()) == 1)
        #expect(layout.slot(named: "caf\u{E9}") == 1)
        #expect(layout.slot(named: "openedOnTheFirstDayOfSpring") == 2)
        #expect(layout.slot(named: ["opened", "OnTheFirstDayOfSpring"].joined()) == 2)
        #expect(layout.slot(named: "cafe") == nil)
        #expect(layout.slot(named: "openedOnTheFirstDayOfSummer") == nil)
    }

    @Test func valuesReadTheSameBySlotAndByName() {
        let model = CompanyModel.make()  // kept: entities hold their model and super-entity weakly
        let layout = model[entity: "Employee"].propertyLayout
        var values = PropertyValues(layout: layout)
        values["salary"] = Decimal(10)
        values[slot: 0] = "Ann"
        #expect(values[slot: 2] as? Decimal == Decimal(10))
        #expect(values["name"] as? String == "Ann")
        #expect(values["born"] == nil)
        // Only values that are set, in slot order, then names outside the layout.
        values["nickname"] = "A."
        #expect(values.keys == ["name", "salary", "nickname"])
        #expect(values["nickname"] as? String == "A.")
        values["salary"] = nil
        #expect(values.keys == ["name", "nickname"])
        var copy = values
        copy.removeAll()
        #expect(copy.keys.isEmpty)
        #expect(values.keys == ["name", "nickname"])
        withExtendedLifetime(model) {}
    }

    @Test func anEntityEditedAfterAnObjectWasMadeKeepsBothValues() {
        let entity = NSEntityDescription()
        entity.name = "Note"
        entity.properties = [attribute("title", .stringAttributeType)]
        let note = NSManagedObject(entity: entity, insertInto: nil)
        note.setValue("First", forKey: "title")
        entity.properties += [attribute("pages", .integer64AttributeType)]
        note.setValue(Int64(3), forKey: "pages")
        #expect(note.value(forKey: "title") as? String == "First")
        #expect(note.value(forKey: "pages") as? Int64 == 3)
        #expect(Set(note.changedValues().keys) == ["title", "pages"])
    }

    @Test("A to-many filled through its inverse keeps every member", arguments: ContextFixture.storeTypes)
    func toManyFilledThroughInverses(storeType: String) throws {
        let fixture = try ContextFixture(storeType: storeType)
        let department = fixture.insert("Department", ["title": "Ops"])
        let hires = (0..<2_000).map { fixture.insert("Employee", ["name": "E\($0)", "department": department]) }
        let members = try #require(department.value(forKey: "employees") as? Set<NSManagedObject>)
        #expect(members == Set(hires))
        #expect(department.changedValues()["employees"] as? Set<NSManagedObject> == Set(hires))
        try fixture.context.save()
        let reread = try fixture.context.fetch(fixture.request("Employee", "department.title == 'Ops'"))
        #expect(reread.count == 2_000)
    }

    @Test func descriptionShowsValuesByNameAndToManyAsACount() throws {
        let fixture = try ContextFixture()
        let sales = try #require(try fixture.context.fetch(fixture.request("Department", "title == 'Sales'")).first)
        let text = sales.description
        #expect(text.contains("employees = <relationship fault: 2 objects>; title = Sales"))
    }
}
