import Foundation
import OpenCoreData
import Testing

@Suite struct NSPersistentStoreDescriptionTests {
    @Test func defaultsAreApples() {
        let description = NSPersistentStoreDescription()
        #expect(description.type == NSSQLiteStoreType && description.type == "SQLite")
        #expect(description.url == nil && description.configuration == nil)
        #expect(!description.isReadOnly && !description.shouldAddStoreAsynchronously)
        #expect(description.shouldMigrateStoreAutomatically && description.shouldInferMappingModelAutomatically)
        #expect(description.timeout == 240)
        #expect(description.sqlitePragmas.isEmpty)
        #expect(
            Set(description.options.keys) == [
                NSMigratePersistentStoresAutomaticallyOption, NSInferMappingModelAutomaticallyOption,
            ])
        let url = URL(fileURLWithPath: "/tmp/Model.sqlite")
        #expect(NSPersistentStoreDescription(url: url).url == url)
    }

    @Test func conveniencePropertiesAreOptions() {
        let description = NSPersistentStoreDescription()
        description.isReadOnly = true
        description.timeout = 5
        description.shouldMigrateStoreAutomatically = false
        #expect((description.options[NSReadOnlyPersistentStoreOption] as? NSNumber)?.boolValue == true)
        #expect((description.options[NSPersistentStoreTimeoutOption] as? NSNumber)?.doubleValue == 5)
        #expect((description.options[NSMigratePersistentStoresAutomaticallyOption] as? NSNumber)?.boolValue == false)
        #expect(!description.shouldMigrateStoreAutomatically && description.timeout == 5)

        description.setOption(NSNumber(value: false), forKey: NSReadOnlyPersistentStoreOption)
        #expect(!description.isReadOnly)
        description.setOption(nil, forKey: NSReadOnlyPersistentStoreOption)
        #expect(description.options[NSReadOnlyPersistentStoreOption] == nil)
    }

    @Test func pragmas() {
        let description = NSPersistentStoreDescription()
        description.setValue(NSString(string: "WAL"), forPragmaNamed: "journal_mode")
        description.setValue(NSString(string: "1"), forPragmaNamed: "synchronous")
        #expect(description.sqlitePragmas["journal_mode"] as? NSString == NSString(string: "WAL"))
        #expect(description.sqlitePragmas.count == 2)
        #expect((description.options[NSSQLitePragmasOption] as? NSDictionary)?.count == 2)
        description.setValue(nil, forPragmaNamed: "journal_mode")
        #expect(Array(description.sqlitePragmas.keys) == ["synchronous"])
        description.setValue(nil, forPragmaNamed: "synchronous")
        #expect(description.options[NSSQLitePragmasOption] == nil)
    }

    @Test func copiesAreIndependent() throws {
        let description = NSPersistentStoreDescription(url: URL(fileURLWithPath: "/tmp/a.sqlite"))
        description.type = NSInMemoryStoreType
        description.configuration = "Work"
        description.isReadOnly = true
        description.shouldAddStoreAsynchronously = true
        let copy = try #require(description.copy() as? NSPersistentStoreDescription)
        #expect(copy !== description)
        #expect(copy.type == NSInMemoryStoreType && copy.configuration == "Work" && copy.url == description.url)
        #expect(copy.isReadOnly && copy.shouldAddStoreAsynchronously)
        copy.url = URL(fileURLWithPath: "/tmp/b.sqlite")
        copy.isReadOnly = false
        #expect(description.url?.path == "/tmp/a.sqlite" && description.isReadOnly)
    }

    @Test func descriptionShowsTypeAndURL() {
        let description = NSPersistentStoreDescription(url: URL(fileURLWithPath: "/tmp/Model.sqlite"))
        #expect(description.description.hasPrefix("<NSPersistentStoreDescription: 0x"))
        #expect(description.description.hasSuffix("> (type: SQLite, url: file:///tmp/Model.sqlite)"))
        #expect(NSPersistentStoreDescription().description.hasSuffix("(type: SQLite, url: (null))"))
    }
}

@Suite struct CoordinatorDescriptionTests {
    func inMemory(readOnly: Bool = false) -> NSPersistentStoreDescription {
        let description = NSPersistentStoreDescription()
        description.type = NSInMemoryStoreType
        description.isReadOnly = readOnly
        return description
    }

    @Test func addsAStoreBeforeReturning() {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: CompanyModel.make())
        let description = inMemory(readOnly: true)
        description.configuration = "Work"
        var calls: [(NSPersistentStoreDescription, Error?)] = []
        coordinator.addPersistentStore(with: description) { calls.append(($0, $1)) }
        #expect(calls.count == 1)
        #expect(calls.first?.0 === description && calls.first?.1 == nil)
        let store = coordinator.persistentStores.first
        #expect(coordinator.persistentStores.count == 1)
        #expect(store?.type == NSInMemoryStoreType && store?.configurationName == "Work" && store?.isReadOnly == true)
    }

    @Test func theDefaultSQLiteTypeAddsASQLiteStore() {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("description-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: CompanyModel.make())
        var errors: [Error?] = []
        coordinator.addPersistentStore(with: NSPersistentStoreDescription(url: folder.appendingPathComponent("x.sqlite"))) {
            errors.append($1)
        }
        #expect(errors.count == 1 && errors.first.flatMap { $0 } == nil)
        #expect(coordinator.persistentStores.map(\.type) == [NSSQLiteStoreType])
        var unknown: [Error?] = []
        let binary = NSPersistentStoreDescription(url: folder.appendingPathComponent("x.binary"))
        binary.type = NSBinaryStoreType
        coordinator.addPersistentStore(with: binary) { unknown.append($1) }
        let error = unknown.first.flatMap { $0 } as NSError?
        #expect(error?.domain == NSCocoaErrorDomain && error?.code == NSPersistentStoreInvalidTypeError)
        #expect(coordinator.persistentStores.count == 1)
    }

    @Test func addsAsynchronouslyWhenAsked() async {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: CompanyModel.make())
        let description = inMemory()
        description.shouldAddStoreAsynchronously = true
        let error: NSError? = await withCheckedContinuation { continuation in
            coordinator.addPersistentStore(with: description) { _, error in continuation.resume(returning: error as NSError?) }
        }
        #expect(error == nil && coordinator.persistentStores.count == 1)
    }

    @Test func metadata() throws {
        let model = CompanyModel.make()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
        var metadata = coordinator.metadata(for: store)
        #expect(metadata[NSStoreTypeKey] as? String == "InMemory")
        #expect(metadata[NSStoreUUIDKey] as? String == store.identifier)
        #expect(metadata[NSStoreModelVersionHashesKey] as? [String: Data] == model.entityVersionHashesByName)
        metadata["lastImport"] = "2024-01-01"
        metadata[NSStoreUUIDKey] = "ignored"
        coordinator.setMetadata(metadata, for: store)
        #expect(store.metadata["lastImport"] as? String == "2024-01-01")
        #expect(store.metadata[NSStoreUUIDKey] as? String == store.identifier)
        coordinator.setMetadata(nil, for: store)
        #expect(store.metadata["lastImport"] == nil && store.metadata[NSStoreTypeKey] as? String == "InMemory")
    }
}
