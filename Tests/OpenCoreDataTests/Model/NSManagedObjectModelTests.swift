import Foundation
import OpenCoreData
import TestSupport
import Testing

@Suite struct NSManagedObjectModelTests {
    let model = CompanyModel.make()

    @Test func entitiesByNameAndConfigurations() {
        #expect(model.entities.compactMap(\.name) == ["Person", "Employee", "Manager", "Department"])
        #expect(model.entitiesByName.keys.sorted() == ["Department", "Employee", "Manager", "Person"])
        #expect(model.configurations == ["Work"])
        #expect(model.entities(forConfigurationName: "Work")?.compactMap(\.name) == ["Department", "Employee"])
        #expect(model.entities(forConfigurationName: nil)?.count == 4)
        #expect(model.entities(forConfigurationName: "PF_DEFAULT_CONFIGURATION_NAME")?.count == 4)
        #expect(model.entities(forConfigurationName: "Missing") == nil)
        model.setEntities([model[entity: "Department"]], forConfigurationName: "Work")
        #expect(model.configurations == ["Work"])
        #expect(model.entities(forConfigurationName: "Work")?.compactMap(\.name) == ["Department"])
    }

    @Test func renamingAnEntityUpdatesTheLookup() {
        model[entity: "Department"].name = "Team"
        #expect(model.entitiesByName["Department"] == nil)
        #expect(model.entitiesByName["Team"]?.propertiesByName["title"] != nil)
    }

    @Test func templates() throws {
        #expect(model.fetchRequestTemplatesByName.keys.sorted() == ["HighEarners"])
        let template = try #require(model.fetchRequestTemplate(forName: "HighEarners"))
        #expect(template.predicate?.description == "salary > $MIN")
        #expect(model.fetchRequestTemplate(forName: "Nope") == nil)
        #expect(model.fetchRequestFromTemplate(withName: "Nope", substitutionVariables: [:]) == nil)

        let request = try #require(model.fetchRequestFromTemplate(withName: "HighEarners", substitutionVariables: ["MIN": 50_000]))
        #expect(request !== template)
        #expect(request.predicate?.description == "salary > 50000")
        #expect(request.entity === model[entity: "Employee"])
        #expect(request.entityName == "Employee")
        #expect(request.fetchLimit == 5)
        #expect(template.predicate?.description == "salary > $MIN")  // the template is unchanged

        let withNull = try #require(model.fetchRequestFromTemplate(withName: "HighEarners", substitutionVariables: ["MIN": NSNull()]))
        #expect(withNull.predicate?.description == "salary > nil")

        #expect(throws: (any Error).self) {
            try model.fetchRequestFromTemplate(withName: "HighEarners", validatingSubstitutionVariables: ["OTHER": 1])
        }
        model.setFetchRequestTemplate(nil, forName: "HighEarners")
        #expect(model.fetchRequestTemplatesByName.isEmpty)
    }

    @Test func missingTemplateVariableTraps() async {
        await #expect(processExitsWith: .failure) {
            _ = CompanyModel.make().fetchRequestFromTemplate(withName: "HighEarners", substitutionVariables: [:])
        }
    }

    @Test func copyIsDeepAndConsistent() throws {
        let copy = try #require(model.copy() as? NSManagedObjectModel)
        #expect(copy !== model)
        #expect(copy.entities.compactMap(\.name) == model.entities.compactMap(\.name))
        for (original, copied) in zip(model.entities, copy.entities) {
            #expect(original !== copied)
            #expect(copied.managedObjectModel === copy)
            #expect(copied.properties.map(\.name) == original.properties.map(\.name))
        }
        let manager = copy[entity: "Manager"], employee = copy[entity: "Employee"], department = copy[entity: "Department"]
        #expect(manager.superentity === employee)
        #expect(employee.superentity === copy[entity: "Person"])
        #expect(manager.propertiesByName["name"]?.entity === copy[entity: "Person"])
        let worksIn = try #require(employee.relationshipsByName["department"])
        let employees = try #require(department.relationshipsByName["employees"])
        #expect(worksIn.destinationEntity === department)
        #expect(employees.destinationEntity === employee)
        #expect(worksIn.inverseRelationship === employees)
        #expect(employees.inverseRelationship === worksIn)
        #expect(employees.deleteRule == .cascadeDeleteRule)
        #expect(manager.relationshipsByName["reports"]?.isOrdered == true)
        #expect(copy.entities(forConfigurationName: "Work")?.first === department)
        #expect(copy.fetchRequestTemplate(forName: "HighEarners")?.entity === employee)
        #expect(copy.fetchRequestTemplate(forName: "HighEarners") !== model.fetchRequestTemplate(forName: "HighEarners"))
        let seniors = department.propertiesByName["seniors"] as? NSFetchedPropertyDescription
        #expect(seniors?.fetchRequest?.entity === employee)
        #expect(copy.versionIdentifiers == ["1.0"])
    }

    @Test func mergingCopiesEveryModel() throws {
        let extra = NSManagedObjectModel()
        let note = NSEntityDescription()
        note.name = "Note"
        note.properties = [attribute("text", .stringAttributeType)]
        extra.entities = [note]
        extra.setEntities([note], forConfigurationName: "Notes")
        extra.versionIdentifiers = ["notes"]

        let merged = try #require(NSManagedObjectModel(byMerging: [model, extra]))
        #expect(merged.entities.compactMap(\.name) == ["Person", "Employee", "Manager", "Department", "Note"])
        #expect(merged[entity: "Note"] !== note)
        #expect(merged[entity: "Manager"].superentity === merged[entity: "Employee"])
        #expect(merged.configurations == ["Work", "Notes"])
        #expect(merged.fetchRequestTemplate(forName: "HighEarners")?.entity === merged[entity: "Employee"])
        #expect(merged.versionIdentifiers == ["1.0", "notes"])
        #expect(NSManagedObjectModel(byMerging: nil) == nil)
        #expect(note.managedObjectModel === extra)  // the originals stay where they were
    }

    @Test func mergingTwoEntitiesWithOneNameFails() {
        do {
            _ = try NSManagedObjectModel.merging([CompanyModel.make(), CompanyModel.make()])
            Issue.record("merging succeeded")
        } catch {
            #expect(error.localizedDescription == "Can't merge models with two different entities named 'Person'"
                || error.localizedDescription.hasPrefix("Can't merge models with two different entities named '"))
            #expect((error as NSError).domain == NSCocoaErrorDomain)
        }
    }

    @Test func mergingTwoEntitiesWithOneNameTrapsInTheAppleInitializer() async {
        await #expect(processExitsWith: .failure) {
            _ = NSManagedObjectModel(byMerging: [CompanyModel.make(), CompanyModel.make()])
        }
    }
}
