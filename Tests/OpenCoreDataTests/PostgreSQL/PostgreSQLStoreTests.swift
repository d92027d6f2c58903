import Foundation
import OpenCoreData
import Testing

/// The PostgreSQL store as apps add it: through `NSPersistentContainer` and a store description,
/// by several coordinators at once, and with bad URLs.
@Suite(.enabled(if: PostgresTestServer.isEnabled, "set OPENCOREDATA_POSTGRES_URL=postgres://… to run the PostgreSQL tests"))
struct PostgreSQLStoreTests {
    @Test func aContainerLoadsTheStoreFromItsDescription() throws {
        let url = try PostgresTestServer.freshStoreURL()
        defer { PostgresTestServer.destroy(url) }
        let container = NSPersistentContainer(name: "Company", managedObjectModel: CompanyModel.make())
        let description = NSPersistentStoreDescription(url: url)
        description.type = NSPostgreSQLStoreType
        description.setOption(2 as NSNumber, forKey: NSPersistentStoreConnectionPoolMaxSizeKey)
        container.persistentStoreDescriptions = [description]
        var loadError: Error?
        container.loadPersistentStores { _, error in loadError = error }
        #expect(loadError == nil, "\(String(describing: loadError))")
        let store = try #require(container.persistentStoreCoordinator.persistentStores.first)
        #expect(store.type == NSPostgreSQLStoreType)
        let context = container.viewContext
        let department = NSManagedObject(entity: container.managedObjectModel[entity: "Department"], insertInto: context)
        department.setValue("Sales", forKey: "title")
        try context.save()

        // Another container on the same URL is another server: it sees the row, and the UUID.
        let other = NSPersistentContainer(name: "Company", managedObjectModel: CompanyModel.make())
        other.persistentStoreDescriptions = [description]
        other.loadPersistentStores { _, error in loadError = error }
        #expect(loadError == nil)
        #expect(other.persistentStoreCoordinator.persistentStores.first?.identifier == store.identifier)
        let titles = try other.viewContext.fetch(NSFetchRequest<NSManagedObject>(entityName: "Department"))
            .compactMap { $0.value(forKey: "title") as? String }
        #expect(titles == ["Sales"])
    }

    /// Servers that start together on an empty schema: every one opens the store, the tables are
    /// made once, and all of them share one store UUID.
    @Test func serversStartingTogetherCreateTheStoreOnce() throws {
        let url = try PostgresTestServer.freshStoreURL()
        defer { PostgresTestServer.destroy(url) }
        let model = CompanyModel.make()
        let count = 6
        let lock = NSLock()
        var identifiers: [String] = []
        var errors: [Error] = []
        DispatchQueue.concurrentPerform(iterations: count) { _ in
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
            do {
                let store = try coordinator.addPersistentStore(
                    ofType: NSPostgreSQLStoreType, configurationName: nil, at: url,
                    options: [NSPersistentStoreConnectionPoolMaxSizeKey: 1])
                lock.lock()
                identifiers.append(store.identifier ?? "")
                lock.unlock()
            } catch {
                lock.lock()
                errors.append(error)
                lock.unlock()
            }
        }
        #expect(errors.isEmpty, "\(errors)")
        #expect(identifiers.count == count)
        #expect(Set(identifiers).count == 1, "one store, one UUID: \(Set(identifiers))")
    }

    @Test(arguments: [
        "postgres://", "postgres://host:notaport/db", "postgres://user@127.0.0.1:1/db", "postgres://u@h/db?schema=bad-name",
    ])
    func badURLsFailWithAnOpenError(_ text: String) throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: CompanyModel.make())
        let url = try #require(URL(string: text) ?? URL(string: "postgres://"))
        let error = try #require(throws: NSError.self) {
            try coordinator.addPersistentStore(ofType: NSPostgreSQLStoreType, configurationName: nil, at: url)
        }
        #expect(error.code == NSPersistentStoreOpenError, "\(error)")
        #expect(coordinator.persistentStores.isEmpty)
    }

    @Test func aFileURLIsNotAPostgreSQLStore() throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: CompanyModel.make())
        let error = try #require(throws: NSError.self) {
            try coordinator.addPersistentStore(
                ofType: NSPostgreSQLStoreType, configurationName: nil, at: URL(fileURLWithPath: "/tmp/x.sqlite"))
        }
        #expect(error.code == NSPersistentStoreOpenError)
        #expect(error.localizedDescription.contains("postgres://"))
    }

    @Test func anotherModelsStoreIsRefusedNamingTheEntities() throws {
        let url = try PostgresTestServer.freshStoreURL()
        defer { PostgresTestServer.destroy(url) }
        let first = NSPersistentStoreCoordinator(managedObjectModel: CompanyModel.make())
        try first.addPersistentStore(ofType: NSPostgreSQLStoreType, configurationName: nil, at: url)
        let changed = CompanyModel.make()
        changed[entity: "Department"].properties.append(CompanyModel.attribute("budget", .integer64AttributeType))
        let second = NSPersistentStoreCoordinator(managedObjectModel: changed)
        let error = try #require(throws: NSError.self) {
            try second.addPersistentStore(ofType: NSPostgreSQLStoreType, configurationName: nil, at: url)
        }
        #expect(error.code == NSPersistentStoreIncompatibleVersionHashError)
        #expect((error.userInfo["entities"] as? [String]) == ["Department"])
    }
}
