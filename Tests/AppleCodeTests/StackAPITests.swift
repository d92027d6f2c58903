import CoreData
import Foundation
import XCTest

/// The data-stack API that set-up code and its tests call: contexts, coordinators, store files,
/// notifications, errors, option keys and the iOS 15 attribute types.
final class StackAPITests: XCTestCase {
    var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("StackAPITests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    /// One entity, `Item`, with a unique `code` and a required `name`.
    static let model: NSManagedObjectModel = {
        let item = NSEntityDescription()
        item.name = "Item"
        let code = NSAttributeDescription()
        code.name = "code"
        code.type = .integer64
        code.isOptional = false
        let name = NSAttributeDescription()
        name.name = "name"
        name.type = .string
        name.isOptional = false
        item.properties = [code, name]
        item.uniquenessConstraints = [["code"]]
        let model = NSManagedObjectModel()
        model.entities = [item]
        return model
    }()

    func makeCoordinator(_ storeType: String, file: String = "Items.sqlite") throws -> NSPersistentStoreCoordinator {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: Self.model)
        let url = storeType == NSSQLiteStoreType ? folder.appendingPathComponent(file) : nil
        try coordinator.addPersistentStore(ofType: storeType, configurationName: nil, at: url, options: nil)
        return coordinator
    }

    func context(_ coordinator: NSPersistentStoreCoordinator) -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    @discardableResult
    func insertItem(_ code: Int64, _ name: String?, into context: NSManagedObjectContext) -> NSManagedObject {
        let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
        item.setValue(code, forKey: "code")
        item.setValue(name, forKey: "name")
        return item
    }

    func names(in context: NSManagedObjectContext) throws -> [String] {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
        request.sortDescriptors = [NSSortDescriptor(key: "code", ascending: true)]
        return try context.fetch(request).compactMap { $0.value(forKey: "name") as? String }
    }

    // MARK: - Contexts

    @available(*, deprecated)
    func testConfinementContextFromTheDeprecatedInitializer() throws {
        for storeType in [NSInMemoryStoreType, NSSQLiteStoreType] {
            let context = NSManagedObjectContext()
            XCTAssertEqual(context.concurrencyType, .confinementConcurrencyType)
            XCTAssertEqual(context.concurrencyType.rawValue, 0)
            context.persistentStoreCoordinator = try makeCoordinator(storeType, file: "Confined.sqlite")
            insertItem(1, "used directly", into: context)
            try context.save()
            XCTAssertEqual(try names(in: context), ["used directly"], storeType)
            let count = try context.performAndWait { try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Item")) }
            XCTAssertEqual(count, 1, storeType)
        }
    }

    func testTopLevelConcurrencyTypeName() {
        let type: NSManagedObjectContextConcurrencyType = .privateQueueConcurrencyType
        XCTAssertEqual(NSManagedObjectContext(concurrencyType: type).concurrencyType, .privateQueueConcurrencyType)
        XCTAssertEqual(NSManagedObjectContextConcurrencyType.mainQueueConcurrencyType.rawValue, 2)
    }

    func testUserInfoKeepsWhatTheAppPutsThere() {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        XCTAssertEqual(context.userInfo.count, 0)
        context.userInfo["role"] = "importer"
        context.userInfo["generation"] = 3
        XCTAssertEqual(context.userInfo["role"] as? String, "importer")
        XCTAssertEqual(context.userInfo["generation"] as? Int, 3)
    }

    func testPerformWithSchedule() async throws {
        for storeType in [NSInMemoryStoreType, NSSQLiteStoreType] {
            let context = context(try makeCoordinator(storeType, file: "Scheduled-\(UUID().uuidString).sqlite"))
            let inserted = await context.perform(schedule: .enqueued) { () -> Bool in
                self.insertItem(7, "enqueued", into: context)
                return context.hasChanges
            }
            XCTAssertTrue(inserted, storeType)
            let saved = try await context.perform(schedule: .immediate) { () throws -> [String] in
                try context.save()
                return try self.names(in: context)
            }
            XCTAssertEqual(saved, ["enqueued"], storeType)

            // `.enqueued` runs after the blocks already queued.
            let order = OrderLog()
            enqueue(on: context) { order.append("queued first") }
            let seen = await context.perform(schedule: .enqueued) { () -> [String] in
                order.append("enqueued")
                return order.entries
            }
            XCTAssertEqual(seen, ["queued first", "enqueued"], storeType)
        }
    }

    /// `perform(_:)` without waiting, called from synchronous code.
    func enqueue(on context: NSManagedObjectContext, _ block: @escaping () -> Void) {
        context.perform(block)
    }

    // MARK: - Fetch results

    func testObjectIDsAreFetchRequestResults() throws {
        func firstResult<T: NSFetchRequestResult>(_ request: NSFetchRequest<T>, in context: NSManagedObjectContext) throws -> T? {
            try context.fetch(request).first
        }
        for storeType in [NSInMemoryStoreType, NSSQLiteStoreType] {
            let context = context(try makeCoordinator(storeType))
            let item = insertItem(1, "one", into: context)
            try context.save()
            let request = NSFetchRequest<NSManagedObjectID>(entityName: "Item")
            request.resultType = .managedObjectIDResultType
            let id = try XCTUnwrap(try firstResult(request, in: context), storeType)
            XCTAssertEqual(id, item.objectID, storeType)
            let result: NSFetchRequestResult = id
            XCTAssertTrue(result is NSManagedObjectID, storeType)
        }
    }

    // MARK: - Coordinator

    func testCoordinatorPerformAndPerformAndWait() throws {
        let coordinator = try makeCoordinator(NSInMemoryStoreType)
        let count = coordinator.performAndWait { coordinator.persistentStores.count }
        XCTAssertEqual(count, 1)
        var nested = false
        coordinator.performAndWait { coordinator.performAndWait { nested = true } }
        XCTAssertTrue(nested)
        let done = expectation(description: "perform")
        coordinator.perform {
            XCTAssertEqual(coordinator.persistentStores.first?.type, NSInMemoryStoreType)
            done.fulfill()
        }
        wait(for: [done], timeout: 5)
    }

    func testDestroyPersistentStoreRemovesTheStoreAndItsFiles() throws {
        let url = folder.appendingPathComponent("Items.sqlite")
        let coordinator = try makeCoordinator(NSSQLiteStoreType)
        let context = context(coordinator)
        insertItem(1, "doomed", into: context)
        try context.save()
        let fileManager = FileManager.default
        XCTAssertTrue(fileManager.fileExists(atPath: url.path))
        XCTAssertTrue(fileManager.fileExists(atPath: url.path + "-wal"))

        try coordinator.destroyPersistentStore(at: url, ofType: NSSQLiteStoreType, options: nil)
        XCTAssertTrue(coordinator.persistentStores.isEmpty)
        for suffix in ["", "-wal", "-shm"] { XCTAssertFalse(fileManager.fileExists(atPath: url.path + suffix), suffix) }
        // Destroying what is not there does nothing.
        try coordinator.destroyPersistentStore(at: url, ofType: NSSQLiteStoreType, options: nil)

        // The same URL makes a new, empty store.
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        XCTAssertEqual(try names(in: self.context(coordinator)), [])

        // In memory: the store leaves the coordinator; there are no files.
        let memory = try makeCoordinator(NSInMemoryStoreType)
        let memoryURL = try XCTUnwrap(memory.persistentStores.first?.url)
        try memory.destroyPersistentStore(at: memoryURL, ofType: NSInMemoryStoreType, options: nil)
        XCTAssertTrue(memory.persistentStores.isEmpty)
        XCTAssertTrue(fileManager.fileExists(atPath: "/dev/null"))

        XCTAssertThrowsError(try coordinator.destroyPersistentStore(at: url, ofType: "Carrier pigeon", options: nil)) { error in
            XCTAssertEqual((error as NSError).code, NSPersistentStoreInvalidTypeError)
        }
    }

    func testReplacePersistentStoreCopiesTheSourceOverTheDestination() throws {
        let sourceURL = folder.appendingPathComponent("Source.sqlite")
        let destinationURL = folder.appendingPathComponent("Destination.sqlite")
        let source = try makeCoordinator(NSSQLiteStoreType, file: "Source.sqlite")
        let sourceContext = context(source)
        insertItem(1, "from the source", into: sourceContext)
        insertItem(2, "also from the source", into: sourceContext)
        try sourceContext.save()

        // A destination that is open, with other content.
        let destination = try makeCoordinator(NSSQLiteStoreType, file: "Destination.sqlite")
        let destinationContext = context(destination)
        insertItem(9, "overwritten", into: destinationContext)
        try destinationContext.save()

        try destination.replacePersistentStore(
            at: destinationURL, destinationOptions: nil, withPersistentStoreFrom: sourceURL, sourceOptions: nil,
            ofType: NSSQLiteStoreType)
        XCTAssertEqual(try names(in: context(destination)), ["from the source", "also from the source"])

        // A destination that did not exist is created; a new coordinator opens it.
        let copyURL = folder.appendingPathComponent("Copy.sqlite")
        try source.replacePersistentStore(
            at: copyURL, destinationOptions: nil, withPersistentStoreFrom: sourceURL, sourceOptions: nil,
            ofType: NSSQLiteStoreType)
        let copy = try makeCoordinator(NSSQLiteStoreType, file: "Copy.sqlite")
        XCTAssertEqual(try names(in: context(copy)), ["from the source", "also from the source"])

        XCTAssertThrowsError(
            try source.replacePersistentStore(
                at: copyURL, destinationOptions: nil, withPersistentStoreFrom: folder.appendingPathComponent("Missing.sqlite"),
                sourceOptions: nil, ofType: NSSQLiteStoreType)
        ) { error in
            XCTAssertEqual((error as NSError).code, NSPersistentStoreOpenError)
        }
    }

    // MARK: - Notifications

    func testSaveNotificationsComeInOrderWithObjectsAndIDs() throws {
        for storeType in [NSInMemoryStoreType, NSSQLiteStoreType] {
            let context = context(try makeCoordinator(storeType, file: "Notified-\(UUID().uuidString).sqlite"))
            var names: [Notification.Name] = []
            var savedIDs: Set<NSManagedObjectID> = []
            var observers: [NSObjectProtocol] = []
            for name in [
                Notification.Name.NSManagedObjectContextWillSave, .NSManagedObjectContextDidSave,
                .NSManagedObjectContextDidSaveObjectIDs,
            ] {
                observers.append(
                    NotificationCenter.default.addObserver(forName: name, object: context, queue: nil) { notification in
                        names.append(notification.name)
                        if let ids = notification.userInfo?[NSInsertedObjectIDsKey] as? Set<NSManagedObjectID> { savedIDs = ids }
                    })
            }
            defer { observers.forEach(NotificationCenter.default.removeObserver) }
            let item = insertItem(1, "noticed", into: context)
            try context.save()
            XCTAssertEqual(
                names,
                [.NSManagedObjectContextWillSave, .NSManagedObjectContextDidSave, .NSManagedObjectContextDidSaveObjectIDs],
                storeType)
            XCTAssertEqual(savedIDs, [item.objectID], storeType)
            XCTAssertFalse(item.objectID.isTemporaryID, storeType)
        }
        XCTAssertEqual(Notification.Name.NSManagedObjectContextWillSave.rawValue, "NSManagingContextWillSaveChangesNotification")
        XCTAssertEqual(NSManagedObjectContext.willSaveObjectsNotification, .NSManagedObjectContextWillSave)
        XCTAssertEqual(
            NSManagedObjectContext.didSaveObjectIDsNotification.rawValue, "NSManagedObjectContextDidSaveObjectIDsNotification")
    }

    func testStoresChangeNotificationsWhenStoresAreAddedAndRemoved() throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: Self.model)
        var received: [(Notification.Name, [String])] = []
        var observers: [NSObjectProtocol] = []
        for name in [
            Notification.Name.NSPersistentStoreCoordinatorStoresWillChange, .NSPersistentStoreCoordinatorStoresDidChange,
        ] {
            observers.append(
                NotificationCenter.default.addObserver(forName: name, object: coordinator, queue: nil) { notification in
                    let keys = (notification.userInfo ?? [:]).keys.compactMap { $0 as? String }.sorted()
                    received.append((notification.name, keys))
                    let stores =
                        (notification.userInfo?[NSAddedPersistentStoresKey]
                            ?? notification.userInfo?[NSRemovedPersistentStoresKey])
                    XCTAssertEqual((stores as? [NSPersistentStore])?.count, 1)
                })
        }
        defer { observers.forEach(NotificationCenter.default.removeObserver) }
        let store = try coordinator.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil, at: folder.appendingPathComponent("Watched.sqlite"), options: nil)
        try coordinator.remove(store)
        XCTAssertEqual(
            received.map(\.0.rawValue),
            [
                "NSPersistentStoreCoordinatorStoresWillChangeNotification",
                "NSPersistentStoreCoordinatorStoresDidChangeNotification",
                "NSPersistentStoreCoordinatorStoresWillChangeNotification",
                "NSPersistentStoreCoordinatorStoresDidChangeNotification",
            ])
        XCTAssertEqual(received.map(\.1), [["added"], ["added"], ["removed"], ["removed"]])
        XCTAssertEqual([NSAddedPersistentStoresKey, NSRemovedPersistentStoresKey], ["added", "removed"])
    }

    // MARK: - Errors

    func testCoreDataErrorsCatchAsCocoaErrorCodes() throws {
        for storeType in [NSInMemoryStoreType, NSSQLiteStoreType] {
            let coordinator = try makeCoordinator(storeType, file: "Errors-\(UUID().uuidString).sqlite")
            let context = context(coordinator)
            insertItem(1, nil, into: context)
            do {
                try context.save()
                XCTFail("a missing name must fail the save (\(storeType))")
            } catch let error as CocoaError where error.code == .validationMissingMandatoryProperty {
                XCTAssertEqual(error.code.rawValue, 1570, storeType)
            }
            context.rollback()

            insertItem(1, "first", into: context)
            try context.save()
            let other = self.context(coordinator)
            insertItem(1, "duplicate", into: other)
            do {
                try other.save()
                XCTFail("a duplicate code must fail the save (\(storeType))")
            } catch let error as CocoaError where error.code == .managedObjectConstraintMerge {
                XCTAssertEqual(error.code.rawValue, NSManagedObjectConstraintMergeError, storeType)
            }
        }
        XCTAssertEqual(CocoaError.Code.managedObjectMerge.rawValue, 133_020)
        XCTAssertEqual(CocoaError.Code.persistentStoreIncompatibleVersionHash.rawValue, 134_100)
        XCTAssertEqual(CocoaError.Code.managedObjectValidation.rawValue, 1550)
        XCTAssertEqual(CocoaError.Code.coreData.rawValue, 134_060)
        XCTAssertEqual(CocoaError.Code.sqlite.rawValue, 134_180)
    }

    // MARK: - Options

    func testOptionKeysHaveApplesValuesAndStoresAcceptThem() throws {
        XCTAssertEqual(
            NSPersistentStoreRemoteChangeNotificationPostOptionKey, "NSPersistentStoreRemoteChangeNotificationOptionKey")
        XCTAssertEqual(NSPersistentHistoryTrackingKey, "NSPersistentHistoryTrackingKey")
        XCTAssertEqual(NSBinaryStoreInsecureDecodingCompatibilityOption, "NSBinaryStoreInsecureDecodingCompatibilityOption")
        XCTAssertEqual(NSMigratePersistentStoresAutomaticallyOption, "NSMigratePersistentStoresAutomaticallyOption")
        XCTAssertEqual(NSInferMappingModelAutomaticallyOption, "NSInferMappingModelAutomaticallyOption")
        XCTAssertEqual(NSSQLitePragmasOption, "NSSQLitePragmasOption")
        XCTAssertEqual(NSSQLiteManualVacuumOption, "NSSQLiteManualVacuumOption")
        XCTAssertEqual(NSSQLiteAnalyzeOption, "NSSQLiteAnalyzeOption")
        XCTAssertEqual(NSPersistentStoreFileProtectionKey, "NSPersistentStoreFileProtectionKey")

        // Set-up code as apps write it.
        let description = NSPersistentStoreDescription(url: folder.appendingPathComponent("Configured.sqlite"))
        description.setOption(true as NSNumber, forKey: NSPersistentHistoryTrackingKey)
        description.setOption(true as NSNumber, forKey: NSPersistentStoreRemoteChangeNotificationPostOptionKey)
        description.setOption(true as NSNumber, forKey: NSBinaryStoreInsecureDecodingCompatibilityOption)
        description.setOption(true as NSNumber, forKey: NSSQLiteAnalyzeOption)
        description.setOption(true as NSNumber, forKey: NSSQLiteManualVacuumOption)
        let container = NSPersistentContainer(name: "Configured", managedObjectModel: Self.model)
        container.persistentStoreDescriptions = [description]
        var loadError: Error?
        container.loadPersistentStores { _, error in loadError = error }
        XCTAssertNil(loadError)
        XCTAssertEqual(container.persistentStoreCoordinator.persistentStores.count, 1)
    }

    // MARK: - iOS 15 attribute types

    func testAttributeTypeStruct() {
        let attribute = NSAttributeDescription()
        XCTAssertEqual(attribute.type, .undefined)
        attribute.type = .string
        XCTAssertEqual(attribute.attributeType, .stringAttributeType)
        attribute.attributeType = .UUIDAttributeType
        XCTAssertEqual(attribute.type, .uuid)
        let pairs: [(NSAttributeDescription.AttributeType, UInt)] = [
            (.undefined, 0), (.integer16, 100), (.integer32, 200), (.integer64, 300), (.decimal, 400), (.double, 500),
            (.float, 600), (.string, 700), (.boolean, 800), (.date, 900), (.binaryData, 1000), (.uuid, 1100), (.uri, 1200),
            (.transformable, 1800), (.objectID, 2000), (.composite, 2100),
        ]
        for (type, raw) in pairs { XCTAssertEqual(type.rawValue.rawValue, raw) }
        XCTAssertEqual(NSAttributeDescription.AttributeType(.dateAttributeType), .date)

        let total = NSExpressionDescription()
        XCTAssertEqual(total.resultType, .undefined)
        total.resultType = .double
        XCTAssertEqual(total.expressionResultType, .doubleAttributeType)
    }
}

/// Entries appended from several queues.
final class OrderLog: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [String] = []
    var entries: [String] { lock.lock(); defer { lock.unlock() }; return stored }
    func append(_ entry: String) { lock.lock(); stored.append(entry); lock.unlock() }
}
