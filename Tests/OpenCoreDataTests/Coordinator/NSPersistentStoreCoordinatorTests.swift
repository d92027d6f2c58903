import Foundation
@testable import OpenCoreData
import OpenStoreCore
import Testing

@Suite struct NSPersistentStoreCoordinatorTests {
    let model = CompanyModel.make()

    @Test func addsAndRemovesInMemoryStores() throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        #expect(coordinator.persistentStores.isEmpty)
        let all = try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
        let work = try coordinator.addPersistentStore(
            ofType: NSInMemoryStoreType, configurationName: "Work", at: URL(fileURLWithPath: "/tmp/work"),
            options: [NSReadOnlyPersistentStoreOption: true])
        #expect(coordinator.persistentStores.map(\.identifier) == [all.identifier, work.identifier])
        #expect(all.type == NSInMemoryStoreType && all.type == "InMemory")
        #expect(all.configurationName == "PF_DEFAULT_CONFIGURATION_NAME" && work.configurationName == "Work")
        #expect(!all.isReadOnly && work.isReadOnly)
        #expect(all.persistentStoreCoordinator === coordinator)
        #expect(coordinator.persistentStore(for: URL(fileURLWithPath: "/tmp/work")) === work)
        try coordinator.remove(all)
        #expect(coordinator.persistentStores.map(\.identifier) == [work.identifier])
        #expect(throws: (any Error).self) { try coordinator.remove(all) }
    }

    @Test func unknownTypesAndConfigurationsAreErrors() {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        do {
            try coordinator.addPersistentStore(ofType: "Cassette", configurationName: nil, at: nil)
            Issue.record("an unknown store type was accepted")
        } catch {
            #expect((error as NSError).code == NSPersistentStoreInvalidTypeError)
            #expect(error.localizedDescription.contains("Cassette"))
        }
        do {
            try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: "Play", at: nil)
            Issue.record("an unknown configuration was accepted")
        } catch {
            #expect(error.localizedDescription == "The model has no configuration named 'Play'")
        }
        #expect(coordinator.persistentStores.isEmpty)
    }

    @Test func objectIDsRoundTripThroughTheirURI() throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
        let employee = model[entity: "Employee"]
        let employeeNumber = try #require(coordinator.schema.entityIDsByName["Employee"])
        let id = NSManagedObjectID(
            origin: store.idOrigin(entities: coordinator.entityDescriptions),
            key: ObjectKey(entityID: employeeNumber, primaryKey: 42))
        #expect(id.uriRepresentation().absoluteString == "x-coredata://\(store.identifier ?? "")/Employee/p42")
        #expect(!id.isTemporaryID && id.persistentStore === store && id.entity === employee)
        let found = try #require(coordinator.managedObjectID(forURIRepresentation: id.uriRepresentation()))
        #expect(found == id && found.hash == id.hash && found !== id)
        #expect(coordinator.managedObjectID(forURIRepresentation: URL(string: "x-coredata://nope/Employee/p42")!) == nil)
        #expect(coordinator.managedObjectID(forURIRepresentation: URL(string: "x-coredata://\(store.identifier ?? "")/Nobody/p1")!) == nil)
        #expect(coordinator.managedObjectID(forURIRepresentation: URL(string: "https://example.com/Employee/p1")!) == nil)

        let temporary = NSManagedObjectID.temporary(for: employee)
        #expect(temporary.isTemporaryID && temporary.persistentStore == nil)
        #expect(temporary.uriRepresentation().absoluteString.hasPrefix("x-coredata:///Employee/t"))
        #expect(temporary != NSManagedObjectID.temporary(for: employee))
        #expect(coordinator.managedObjectID(forURIRepresentation: temporary.uriRepresentation()) == nil)
    }
}
