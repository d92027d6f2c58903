import Foundation
import OpenCoreData
import Testing

/// A model is editable until a coordinator uses it; then every part refuses changes with
/// Apple's reason, and a copy is editable again.
@Suite struct ModelEditingTests {
    @Test func aCoordinatorMakesTheModelAndItsPartsImmutable() throws {
        let model = CompanyModel.make()
        let department = model[entity: "Department"]
        let seniors = try #require(department.propertiesByName["seniors"])
        #expect(model.isEditable && department.isEditable && seniors.isEditable)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        #expect(coordinator.managedObjectModel === model)
        #expect(!model.isEditable && !department.isEditable && !seniors.isEditable)
        #expect(!(model[entity: "Manager"].propertiesByName["name"]?.isEditable ?? true))

        let copy = try #require(model.copy() as? NSManagedObjectModel)
        #expect(copy.isEditable && copy[entity: "Department"].isEditable)
        copy[entity: "Department"].name = "Team"
        #expect(copy.entitiesByName["Team"] != nil)
        #expect(model.entitiesByName["Department"] === department)
        // A detached copy of an immutable entity is editable too.
        let detached = try #require(department.copy() as? NSEntityDescription)
        detached.name = "Other"
        #expect(detached.name == "Other")
    }

    /// Each mutation, run in its own process after a coordinator has taken the model.
    static let mutations: [(String, @Sendable (NSManagedObjectModel) -> Void)] = [
        ("model.entities", { $0.entities = [] }),
        ("model.setFetchRequestTemplate", { $0.setFetchRequestTemplate(nil, forName: "HighEarners") }),
        ("model.setEntities", { $0.setEntities([], forConfigurationName: "Work") }),
        ("entity.name", { $0[entity: "Department"].name = "Team" }),
        ("entity.properties", { $0[entity: "Department"].properties = [] }),
        ("entity.isAbstract", { $0[entity: "Person"].isAbstract = false }),
        ("attribute.attributeType", { ($0[entity: "Person"].propertiesByName["name"] as? NSAttributeDescription)?.attributeType = .dateAttributeType }),
        ("relationship.deleteRule", { $0[entity: "Department"].relationshipsByName["employees"]?.deleteRule = .denyDeleteRule }),
        ("fetchedProperty.fetchRequest", { ($0[entity: "Department"].propertiesByName["seniors"] as? NSFetchedPropertyDescription)?.fetchRequest = nil }),
    ]

    @Test(arguments: 0..<mutations.count)
    func everyMutationIsRefusedWithApplesReason(index: Int) async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) { [index] in
            let model = CompanyModel.make()
            _ = NSPersistentStoreCoordinator(managedObjectModel: model)
            ModelEditingTests.mutations[index].1(model)
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderr.contains("NSInternalInconsistencyException"), "\(Self.mutations[index].0)")
        #expect(stderr.contains("Can't modify an immutable model."), "\(Self.mutations[index].0)")
    }
}

/// Templates and fetched properties' requests of a model in use are frozen with their own reason;
/// the requests made from them are ordinary, editable copies.
@Suite struct TemplateEditingTests {
    @Test func templatesFreezeWithTheModel() throws {
        let model = CompanyModel.make()
        let template = try #require(model.fetchRequestTemplate(forName: "HighEarners"))
        let seniors = try #require(model[entity: "Department"].propertiesByName["seniors"] as? NSFetchedPropertyDescription)
        #expect(template.isEditable && seniors.fetchRequest?.isEditable == true)
        _ = NSPersistentStoreCoordinator(managedObjectModel: model)
        #expect(!template.isEditable)
        #expect(seniors.fetchRequest?.isEditable == false)
        let request = try #require(model.fetchRequestFromTemplate(withName: "HighEarners", substitutionVariables: ["MIN": 1]))
        #expect(request.isEditable)
        request.fetchLimit = 1
        #expect(request.fetchLimit == 1)
    }

    @Test func changingAFrozenTemplateTraps() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let model = CompanyModel.make()
            _ = NSPersistentStoreCoordinator(managedObjectModel: model)
            model.fetchRequestTemplate(forName: "HighEarners")?.fetchLimit = 1
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderr.contains("Can't modify a named fetch request in an immutable model."))
    }
}
