import Foundation
import OpenCoreData
import TestSupport
import Testing

/// Persistent history through the public API, on both stores: what saves record (inserts,
/// updated properties, tombstones, author and context name), tokens, deletion, failed saves,
/// tracking off, and merging a transaction into another context.
@Suite struct PersistentHistoryTests {
    /// A coordinator on `CompanyModel` (Person's `name` preserved in tombstones) with history
    /// tracking, a context named "editor" by author "app", and the fixture's objects saved.
    struct Tracked {
        let model: NSManagedObjectModel
        let coordinator: NSPersistentStoreCoordinator
        let store: NSPersistentStore
        let context: NSManagedObjectContext
        let folder: TemporaryFolder?
        /// The store's URL (nil in memory).
        let url: URL?

        init(storeType: String, tracking: Bool = true, folder: TemporaryFolder? = nil, url: URL? = nil) throws {
            model = CompanyModel.make()
            for entity in model.entities { entity.attributesByName["name"]?.preservesValueInHistoryOnDeletion = true }
            coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
            let options: [AnyHashable: Any] = tracking ? [NSPersistentHistoryTrackingKey: true as NSNumber] : [:]
            let folder = try folder ?? TemporaryFolder()
            self.folder = folder
            let url = try url ?? folder.storeURL(for: storeType, name: "Company.sqlite")
            self.url = url
            store = try coordinator.addPersistentStore(ofType: storeType, configurationName: nil, at: url, options: options)
            context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            context.name = "editor"
            context.transactionAuthor = "app"
        }

        func context(author: String?) -> NSManagedObjectContext {
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            context.transactionAuthor = author
            return context
        }

        @discardableResult
        func insertEmployee(_ name: String, salary: Int, in context: NSManagedObjectContext) -> NSManagedObject {
            let object = NSManagedObject(entity: model.entitiesByName["Employee"] ?? NSEntityDescription(), insertInto: context)
            object.setValue(name, forKey: "name")
            object.setValue(Decimal(salary), forKey: "salary")
            return object
        }

        func transactions(after token: NSPersistentHistoryToken? = nil) throws -> [NSPersistentHistoryTransaction] {
            let result = try context.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: token))
            return try #require((result as? NSPersistentHistoryResult)?.result as? [NSPersistentHistoryTransaction])
        }
    }

    static func employee(_ name: String, in context: NSManagedObjectContext) throws -> NSManagedObject {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Employee")
        request.predicate = NSPredicate(format: "name == %@", name)
        return try #require(try context.fetch(request).first)
    }

    @Test(arguments: ContextFixture.storeTypes)
    func insertsAreRecordedWithAuthorAndContextName(storeType: String) throws {
        let tracked = try Tracked(storeType: storeType)
        let ann = tracked.insertEmployee("Ann", salary: 50_000, in: tracked.context)
        let bob = tracked.insertEmployee("Bob", salary: 70_000, in: tracked.context)
        try tracked.context.save()

        let transactions = try tracked.transactions()
        #expect(transactions.count == 1)
        let transaction = try #require(transactions.first)
        #expect(transaction.author == "app")
        #expect(transaction.contextName == "editor")
        #expect(transaction.storeID == tracked.store.identifier)
        #expect(transaction.processID == ProcessInfo.processInfo.processName)
        #expect(abs(transaction.timestamp.timeIntervalSinceNow) < 600)
        let changes = try #require(transaction.changes)
        #expect(changes.map(\.changeType) == [.insert, .insert])
        #expect(Set(changes.map(\.changedObjectID)) == [ann.objectID, bob.objectID])
        #expect(changes.allSatisfy { $0.updatedProperties == nil && $0.tombstone == nil && $0.transaction === transaction })
        #expect(changes[0].changeID < changes[1].changeID)
    }

    @Test(arguments: ContextFixture.storeTypes)
    func updatesNameThePropertiesTheyChanged(storeType: String) throws {
        let tracked = try Tracked(storeType: storeType)
        let ann = tracked.insertEmployee("Ann", salary: 50_000, in: tracked.context)
        tracked.insertEmployee("Bob", salary: 70_000, in: tracked.context)
        try tracked.context.save()
        let token = try #require(tracked.coordinator.currentPersistentHistoryToken(fromStores: nil))

        ann.setValue(Decimal(55_000), forKey: "salary")
        ann.setValue(Date(timeIntervalSinceReferenceDate: 0), forKey: "born")
        try tracked.context.save()

        let transactions = try tracked.transactions(after: token)
        #expect(transactions.count == 1)
        let change = try #require(transactions.first?.changes?.first)
        #expect(transactions.first?.changes?.count == 1)
        #expect(change.changeType == .update)
        #expect(change.changedObjectID == ann.objectID)
        #expect(Set(change.updatedProperties?.map(\.name) ?? []) == ["salary", "born"])
        #expect(change.tombstone == nil)
    }

    @Test(arguments: ContextFixture.storeTypes)
    func deletesKeepTheirTombstones(storeType: String) throws {
        let tracked = try Tracked(storeType: storeType)
        let ann = tracked.insertEmployee("Ann", salary: 50_000, in: tracked.context)
        try tracked.context.save()
        let annID = ann.objectID
        let token = tracked.coordinator.currentPersistentHistoryToken(fromStores: [tracked.store])

        tracked.context.delete(ann)
        try tracked.context.save()

        let change = try #require(try tracked.transactions(after: token).first?.changes?.first)
        #expect(change.changeType == .delete)
        #expect(change.changedObjectID == annID)
        // `name` is preserved; `salary` is not.
        #expect(change.tombstone?["name"] as? String == "Ann")
        #expect(change.tombstone?.count == 1)
        #expect(change.updatedProperties == nil)
    }

    @Test(arguments: ContextFixture.storeTypes)
    func fetchAfterATokenAndDeleteBeforeIt(storeType: String) throws {
        let tracked = try Tracked(storeType: storeType)
        tracked.insertEmployee("Ann", salary: 50_000, in: tracked.context)
        try tracked.context.save()
        let first = try #require(tracked.coordinator.currentPersistentHistoryToken(fromStores: nil))
        let second = tracked.context(author: "importer")
        tracked.insertEmployee("Bob", salary: 70_000, in: second)
        try second.save()

        let all = try tracked.transactions()
        #expect(all.map(\.author) == ["app", "importer"])
        #expect(all[0].token == first)
        #expect(all[1].transactionNumber > all[0].transactionNumber)
        let later = try tracked.transactions(after: first)
        #expect(later.map(\.author) == ["importer"])
        // After a transaction: the same as after its token.
        let afterTransaction = try tracked.context.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: all[0]))
        #expect(((afterTransaction as? NSPersistentHistoryResult)?.result as? [NSPersistentHistoryTransaction])?.count == 1)

        let count = NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?)
        count.resultType = .count
        #expect(((try tracked.context.execute(count)) as? NSPersistentHistoryResult)?.result as? NSNumber == 2)

        _ = try tracked.context.execute(NSPersistentHistoryChangeRequest.deleteHistory(before: first))
        #expect(try tracked.transactions().map(\.author) == ["importer"])
        #expect(try tracked.transactions(after: first).map(\.author) == ["importer"])
        // Numbers are never reused after a deletion.
        tracked.insertEmployee("Cy", salary: 90_000, in: tracked.context)
        try tracked.context.save()
        #expect(try tracked.transactions().map(\.transactionNumber) == [all[1].transactionNumber, all[1].transactionNumber + 1])
    }

    @Test(arguments: ContextFixture.storeTypes)
    func resultTypesShapeTheResult(storeType: String) throws {
        let tracked = try Tracked(storeType: storeType)
        let ann = tracked.insertEmployee("Ann", salary: 50_000, in: tracked.context)
        try tracked.context.save()
        ann.setValue(Decimal(1), forKey: "salary")
        try tracked.context.save()

        func result(_ type: NSPersistentHistoryResultType) throws -> Any? {
            let request = NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?)
            request.resultType = type
            return (try tracked.context.execute(request) as? NSPersistentHistoryResult)?.result
        }
        #expect((try result(.transactionsOnly) as? [NSPersistentHistoryTransaction])?.map { $0.changes == nil } == [true, true])
        let changes = try #require(try result(.changesOnly) as? [NSPersistentHistoryChange])
        #expect(changes.map(\.changeType) == [.insert, .update])
        #expect(changes.allSatisfy { $0.transaction == nil })
        #expect(try result(.objectIDs) as? [NSManagedObjectID] == [ann.objectID])
        #expect(try result(.count) as? NSNumber == 2)
        #expect(try result(.statusOnly) as? NSNumber == true)
        #expect(NSPersistentHistoryResultType.transactionsAndChanges.rawValue == 5)
        #expect(NSPersistentHistoryResultType.statusOnly.rawValue == 0)
        #expect(NSPersistentHistoryChangeType.delete.rawValue == 2)
    }

    @Test(arguments: ContextFixture.storeTypes)
    func aFailedSaveWritesNoHistory(storeType: String) throws {
        let tracked = try Tracked(storeType: storeType)
        tracked.insertEmployee("Ann", salary: 50_000, in: tracked.context)
        try tracked.context.save()
        let other = tracked.context(author: "other")
        let stale = try Self.employee("Ann", in: other)
        _ = stale.value(forKey: "salary")

        try Self.employee("Ann", in: tracked.context).setValue(Decimal(60_000), forKey: "salary")
        try tracked.context.save()
        stale.setValue(Decimal(1), forKey: "salary")
        #expect(throws: NSError.self) { try other.save() }

        #expect(try tracked.transactions().map(\.author) == ["app", "app"])
    }

    @Test(arguments: ContextFixture.storeTypes)
    func withoutTrackingNothingIsRecorded(storeType: String) throws {
        let untracked = try Tracked(storeType: storeType, tracking: false)
        untracked.insertEmployee("Ann", salary: 50_000, in: untracked.context)
        try untracked.context.save()
        #expect(untracked.coordinator.currentPersistentHistoryToken(fromStores: nil) == nil)
        let request = NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?)
        request.affectedStores = [untracked.store]
        let error = try #require(throws: NSError.self) { try untracked.context.execute(request) }
        #expect(error.code == NSPersistentStoreUnsupportedRequestTypeError)

        guard storeType != NSInMemoryStoreType, let folder = untracked.folder else { return }
        // Opened again with tracking: the tables are created now, and the earlier save left none.
        let tracked = try Tracked(storeType: storeType, folder: folder, url: untracked.url)
        #expect(try tracked.transactions().isEmpty)
        tracked.insertEmployee("Bob", salary: 1, in: tracked.context)
        try tracked.context.save()
        #expect(try tracked.transactions().count == 1)
    }

    @Test(arguments: ContextFixture.storeTypes)
    func objectIDNotificationBringsAnotherContextUpToDate(storeType: String) throws {
        let tracked = try Tracked(storeType: storeType)
        tracked.insertEmployee("Ann", salary: 50_000, in: tracked.context)
        try tracked.context.save()
        let reader = tracked.context(author: nil)
        let readersAnn = try Self.employee("Ann", in: reader)
        #expect(readersAnn.value(forKey: "salary") as? Decimal == 50_000)
        let token = tracked.coordinator.currentPersistentHistoryToken(fromStores: nil)

        let writer = tracked.context(author: "writer")
        try Self.employee("Ann", in: writer).setValue(Decimal(55_000), forKey: "salary")
        let bob = tracked.insertEmployee("Bob", salary: 70_000, in: writer)
        try writer.save()
        // Not merged automatically: the reader still has the old value.
        #expect(readersAnn.value(forKey: "salary") as? Decimal == 50_000)

        let transactions = try tracked.transactions(after: token)
        #expect(transactions.count == 1)
        for transaction in transactions {
            let notification = transaction.objectIDNotification()
            #expect(notification.userInfo?[NSInsertedObjectIDsKey] as? Set<NSManagedObjectID> == [bob.objectID])
            #expect(notification.userInfo?[NSUpdatedObjectIDsKey] as? Set<NSManagedObjectID> == [readersAnn.objectID])
            reader.performAndWait { reader.mergeChanges(fromContextDidSave: notification) }
        }
        #expect(readersAnn.value(forKey: "salary") as? Decimal == 55_000)
    }

    @Test(arguments: ContextFixture.storeTypes)
    func fetchRequestsFilterTransactionsAndChanges(storeType: String) throws {
        let tracked = try Tracked(storeType: storeType)
        let ann = tracked.insertEmployee("Ann", salary: 50_000, in: tracked.context)
        tracked.insertEmployee("Bob", salary: 70_000, in: tracked.context)
        try tracked.context.save()
        let importer = tracked.context(author: "importer")
        tracked.insertEmployee("Cy", salary: 90_000, in: importer)
        try importer.save()

        // Skip this app's own transactions, as Apple's samples do.
        let others = NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?)
        let byAuthor = try #require(NSPersistentHistoryTransaction.fetchRequest)
        byAuthor.predicate = NSPredicate(format: "author != %@", "app")
        others.fetchRequest = byAuthor
        let foreign = (try tracked.context.execute(others) as? NSPersistentHistoryResult)?.result as? [NSPersistentHistoryTransaction]
        #expect(foreign?.map(\.author) == ["importer"])

        // One object's changes: its transactions hold only its change.
        let ofAnn = NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?)
        let byObject = try #require(NSPersistentHistoryChange.fetchRequest)
        byObject.predicate = NSPredicate(format: "changedObjectID == %@", ann.objectID)
        ofAnn.fetchRequest = byObject
        let annsTransactions =
            (try tracked.context.execute(ofAnn) as? NSPersistentHistoryResult)?.result as? [NSPersistentHistoryTransaction]
        #expect(annsTransactions?.count == 1)
        #expect(annsTransactions?.first?.author == "app")
        #expect(annsTransactions?.first?.changes?.map(\.changedObjectID) == [ann.objectID])
        #expect(annsTransactions?.first?.changes?.first?.transaction === annsTransactions?.first)

        // A fetch request for a model entity is refused.
        let wrong = NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?)
        let employees = NSFetchRequest<NSFetchRequestResult>(entityName: "Employee")
        employees.predicate = NSPredicate(format: "name == 'Ann'")
        wrong.fetchRequest = employees
        let error = try #require(throws: NSError.self) { try tracked.context.execute(wrong) }
        #expect(error.code == NSPersistentStoreUnsupportedRequestTypeError)
    }

    @Test func tokensArchiveWithSecureCodingAndCompareByValue() throws {
        let tracked = try Tracked(storeType: NSInMemoryStoreType)
        tracked.insertEmployee("Ann", salary: 50_000, in: tracked.context)
        try tracked.context.save()
        let token = try #require(tracked.coordinator.currentPersistentHistoryToken(fromStores: nil))
        let data = try NSKeyedArchiver.archivedData(withRootObject: token, requiringSecureCoding: true)
        let decoded = try #require(
            try NSKeyedUnarchiver.unarchivedObject(ofClass: NSPersistentHistoryToken.self, from: data))
        #expect(decoded == token)
        #expect(decoded.hash == token.hash)
        #expect(try tracked.transactions(after: decoded).isEmpty)
        tracked.insertEmployee("Bob", salary: 1, in: tracked.context)
        try tracked.context.save()
        #expect(tracked.coordinator.currentPersistentHistoryToken(fromStores: nil) != token)
    }
}
