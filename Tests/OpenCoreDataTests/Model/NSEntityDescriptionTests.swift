import OpenCoreData
import TestSupport
import Testing

@Suite struct NSEntityDescriptionTests {
    let model = CompanyModel.make()

    @Test func inheritedPropertiesComeFirstAndKeepTheirDeclaringEntity() {
        let person = model[entity: "Person"], employee = model[entity: "Employee"], manager = model[entity: "Manager"]
        #expect(person.properties.map(\.name) == ["name", "born"])
        #expect(employee.properties.map(\.name) == ["name", "born", "salary", "department"])
        #expect(manager.properties.map(\.name) == ["name", "born", "salary", "department", "reports"])
        #expect(manager.propertiesByName["name"] === person.propertiesByName["name"])
        #expect(manager.propertiesByName["name"]?.entity === person)
        #expect(Set(manager.attributesByName.keys) == ["name", "born", "salary"])
        #expect(Set(manager.relationshipsByName.keys) == ["department", "reports"])
        #expect(Set(model[entity: "Department"].relationshipsByName.keys) == ["employees"])
        #expect(model[entity: "Department"].propertiesByName["seniors"] is NSFetchedPropertyDescription)
    }

    @Test func hierarchy() {
        let person = model[entity: "Person"], employee = model[entity: "Employee"], manager = model[entity: "Manager"]
        #expect(manager.superentity === employee)
        #expect(employee.superentity === person)
        #expect(person.superentity == nil)
        #expect(person.subentitiesByName.keys.sorted() == ["Employee"])
        #expect(manager.isKindOf(entity: person))
        #expect(manager.isKindOf(entity: manager))
        #expect(!person.isKindOf(entity: manager))
        #expect(!model[entity: "Department"].isKindOf(entity: person))
        #expect(person.isAbstract && !employee.isAbstract)
        #expect(person.managedObjectModel === model)
    }

    @Test func changingASuperentityShowsInSubentities() {
        let person = model[entity: "Person"]
        person.properties = person.properties + [attribute("email", .stringAttributeType)]
        #expect(model[entity: "Manager"].propertiesByName["email"] != nil)
        #expect(model[entity: "Manager"].properties.map(\.name).prefix(3) == ["name", "born", "email"])
        model[entity: "Employee"].subentities = []
        #expect(model[entity: "Manager"].superentity == nil)
        #expect(model[entity: "Manager"].propertiesByName["email"] == nil)
    }

    @Test func ownPropertyWithAnInheritedNameReplacesIt() {
        let employee = model[entity: "Employee"]
        let name = attribute("name", .stringAttributeType, optional: true)
        employee.properties = employee.properties.filter { $0.entity === employee } + [name]
        #expect(employee.properties.map(\.name) == ["born", "salary", "department", "name"])
        #expect(employee.propertiesByName["name"] === name)
        #expect(model[entity: "Manager"].propertiesByName["name"] === name)
    }

    @Test func relationshipsForDestination() {
        let employee = model[entity: "Employee"], manager = model[entity: "Manager"]
        #expect(manager.relationships(forDestination: employee).map(\.name) == ["reports"])
        #expect(model[entity: "Department"].relationships(forDestination: employee).map(\.name) == ["employees"])
        #expect(employee.relationships(forDestination: manager).isEmpty)
    }

    @Test func defaults() {
        let entity = NSEntityDescription()
        #expect(entity.name == nil)
        #expect(entity.managedObjectClassName == "NSManagedObject")
        #expect(!entity.isAbstract)
        #expect(entity.properties.isEmpty && entity.subentities.isEmpty && entity.indexes.isEmpty)
        #expect(entity.uniquenessConstraints.isEmpty)
        #expect(entity.userInfo == nil && entity.versionHashModifier == nil && entity.renamingIdentifier == nil)
        #expect(entity.isEditable)
        #expect(model[entity: "Employee"].managedObjectClassName == "Employee")
    }

    @Test func fetchIndexElementsFindTheirPropertyByName() {
        let employee = model[entity: "Employee"]
        let salary = NSFetchIndexElementDescription(
            property: employee.propertiesByName["salary"] ?? NSPropertyDescription(), collationType: .binary)
        salary.isAscending = false
        let index = NSFetchIndexDescription(name: "bySalary", elements: [salary])
        employee.indexes = [index]
        #expect(index.entity === employee)
        #expect(salary.indexDescription === index)
        #expect(salary.propertyName == "salary")
        let copied = index.copy() as? NSFetchIndexDescription
        #expect(copied?.entity == nil)
        #expect(copied?.elements.first?.property == nil)  // by name, until it joins an entity
        model[entity: "Manager"].indexes = copied.map { [$0] } ?? []
        #expect(copied?.elements.first?.property === employee.propertiesByName["salary"])
        #expect(copied?.elements.first?.isAscending == false)
        #expect(NSFetchIndexElementType.rTree.rawValue == 1)
    }

    @Test func copyOfAnEntityIsDetached() throws {
        let employee = model[entity: "Employee"]
        let copy = try #require(employee.copy() as? NSEntityDescription)
        #expect(copy !== employee)
        #expect(copy.name == "Employee" && copy.managedObjectClassName == "Employee")
        #expect(copy.superentity == nil)
        #expect(copy.properties.map(\.name) == ["salary", "department"])
        #expect(copy.properties.first !== employee.propertiesByName["salary"])
        #expect(copy.properties.first?.entity === copy)
        let department = copy.relationshipsByName["department"]
        #expect(department?.destinationEntity === model[entity: "Department"])
    }
}

/// The model's back references to entities (a relationship's destination, a super-entity, a
/// property's and an index's entity) do not keep them, and read nil once they are gone, as weak
/// references do (see `EntityReference`).
@Suite struct EntityBackReferenceTests {
    @Test func backReferencesDoNotKeepTheEntityAndReadNilOnceItIsGone() {
        let relationship = NSRelationshipDescription()
        let subentity = NSEntityDescription()
        let attribute = NSAttributeDescription()
        attribute.name = "title"
        let index = NSFetchIndexDescription(name: "byTitle", elements: nil)
        weak var gone: NSEntityDescription?
        do {
            let entity = NSEntityDescription()
            entity.name = "Book"
            entity.properties = [attribute]
            entity.subentities = [subentity]
            entity.indexes = [index]
            relationship.destinationEntity = entity
            gone = entity
            #expect(relationship.destinationEntity === entity && subentity.superentity === entity)
            #expect(attribute.entity === entity && index.entity === entity)
            #expect(subentity.properties.map(\.name) == ["title"])
        }
        // Nothing but the back references pointed at it: it is gone, and they read nil.
        #expect(gone == nil)
        #expect(relationship.destinationEntity == nil && subentity.superentity == nil && index.entity == nil)
        #expect(subentity.properties.isEmpty)
        // Assigning nil, and another entity, work as before.
        let other = NSEntityDescription()
        relationship.destinationEntity = other
        #expect(relationship.destinationEntity === other)
        relationship.destinationEntity = nil
        #expect(relationship.destinationEntity == nil)
    }
}
