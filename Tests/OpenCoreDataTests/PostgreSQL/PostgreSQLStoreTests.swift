import Foundation
import OpenCoreData
import TestSupport
import Testing

/// The PostgreSQL store as apps add it: through `NSPersistentContainer` and a store description,
/// by several coordinators at once, and with bad URLs.
@Suite(.postgreSQLServer)
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
        changed[entity: "Department"].properties.append(attribute("budget", .integer64AttributeType))
        let second = NSPersistentStoreCoordinator(managedObjectModel: changed)
        let error = try #require(throws: NSError.self) {
            try second.addPersistentStore(ofType: NSPostgreSQLStoreType, configurationName: nil, at: url)
        }
        #expect(error.code == NSPersistentStoreIncompatibleVersionHashError)
        #expect((error.userInfo["entities"] as? [String]) == ["Department"])
    }
}

/// Names longer than PostgreSQL keeps (63 bytes): an entity, attributes and a relationship whose
/// table, columns and indexes PostgreSQL would cut to one name. The store shortens each the same
/// way everywhere (`SQLDialect.postgreSQLName`), so the tables are made, saved to, fetched from
/// and opened again.
@Suite(.postgreSQLServer)
struct PostgreSQLLongNameTests {
    static let entityName = "OrderLineItemOfACustomerWhoseNameIsLongerThanPostgreSQLKeepsItForSure"
    static let first = "quantityOrderedByTheCustomerAtTheMomentOfCheckoutInTheStoreFrontFirst"
    static let second = "quantityOrderedByTheCustomerAtTheMomentOfCheckoutInTheStoreFrontSecond"
    static let relationship = "theCustomerWhoPlacedTheOrderThatThisLineItemBelongsToAccordingToUs"

    static func model() throws -> NSManagedObjectModel {
        let item = NSEntityDescription()
        item.name = entityName
        let customer = NSEntityDescription()
        customer.name = "Customer"
        let toCustomer = TestSupport.relationship(relationship, to: customer, maxCount: 1)
        let items = TestSupport.relationship(
            "itemsOfThisCustomerAcrossEveryOrderTheyHavePlacedWithUsSoFarAndMore", to: item, maxCount: 0)
        inverses(toCustomer, items)
        item.properties = [attribute(first, .integer64AttributeType), attribute(second, .integer64AttributeType), toCustomer]
        customer.properties = [attribute("name", .stringAttributeType), items]
        item.uniquenessConstraints = [[first, second]]
        let index = NSFetchIndexDescription(
            name: "byBothQuantitiesOfTheLineItemInTheOrderTheyWereEnteredAtCheckout",
            elements: [
                NSFetchIndexElementDescription(property: try #require(item.propertiesByName[first]), collationType: .binary),
                NSFetchIndexElementDescription(property: try #require(item.propertiesByName[second]), collationType: .binary),
            ])
        item.indexes = [index]
        let model = NSManagedObjectModel()
        model.entities = [item, customer]
        return model
    }

    @Test func longNamesAreKeptApart() throws {
        let url = try PostgresTestServer.freshStoreURL()
        defer { PostgresTestServer.destroy(url) }
        let model = try Self.model()
        func open() throws -> NSManagedObjectContext {
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
            try coordinator.addPersistentStore(ofType: NSPostgreSQLStoreType, configurationName: nil, at: url)
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            return context
        }
        let context = try open()
        try context.performAndWait {
            let customer = NSManagedObject(entity: model[entity: "Customer"], insertInto: context)
            customer.setValue("Ada", forKey: "name")
            for (a, b) in [(1, 2), (2, 1), (3, 3)] {
                let item = NSManagedObject(entity: model[entity: Self.entityName], insertInto: context)
                item.setValue(a, forKey: Self.first)
                item.setValue(b, forKey: Self.second)
                item.setValue(customer, forKey: Self.relationship)
            }
            try context.save()
        }
        // Opened again: the store finds every table and column under its shortened name.
        let reopened = try open()
        try reopened.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: Self.entityName)
            request.predicate = NSPredicate(format: "%K > %K AND %K.name == 'Ada'", Self.first, Self.second, Self.relationship)
            let found = try reopened.fetch(request)
            #expect(found.map { $0.value(forKey: Self.first) as? Int64 } == [2])
            let customers = try reopened.fetch(NSFetchRequest<NSManagedObject>(entityName: "Customer"))
            let items = customers.first?.value(forKey: "itemsOfThisCustomerAcrossEveryOrderTheyHavePlacedWithUsSoFarAndMore")
            #expect((items as? Set<NSManagedObject>)?.count == 3)
            // The uniqueness constraint's index is the pair's, not one cut short.
            let twin = NSManagedObject(entity: model[entity: Self.entityName], insertInto: reopened)
            twin.setValue(1, forKey: Self.first)
            twin.setValue(3, forKey: Self.second)
            try reopened.save()
            #expect(try reopened.count(for: NSFetchRequest<NSManagedObject>(entityName: Self.entityName)) == 4)
        }
    }
}
