import Foundation
import OpenCoreData
import OpenSQLStore
import OpenSQLiteStore
import TestSupport
import Testing

/// Persistent history in SQLite files: Apple's layout as this package writes it, an Apple-written
/// store's history read back, and `NSPersistentStoreRemoteChange` between two coordinators on
/// one file.
@Suite struct PersistentHistoryFileTests {
    @Test func savesWriteApplesTablesAndEncoding() throws {
        let tracked = try PersistentHistoryTests.Tracked(storeType: NSSQLiteStoreType)
        let ann = tracked.insertEmployee("Ann", salary: 50_000, in: tracked.context)
        try tracked.context.save()
        ann.setValue(Decimal(1), forKey: "salary")
        try tracked.context.save()
        tracked.context.delete(ann)
        try tracked.context.save()

        let url = try #require(tracked.store.url)
        let connection = try SQLiteConnection(url: url, mode: .readOnly)
        func rows(_ sql: String) throws -> [[String]] {
            let statement = try connection.statement(sql)
            var rows: [[String]] = []
            while try statement.step() {
                rows.append(
                    (0..<statement.columnCount).map { index in
                        switch statement.storedValue(at: index) {
                        case .null: return "NULL"
                        case .data(let data): return data.map { String(format: "%02x", $0) }.joined()
                        default: return statement.string(at: index) ?? ""
                        }
                    })
            }
            return rows
        }
        // Author, bundle ID, context name, process ID: ids into ATRANSACTIONSTRING (each string
        // once), strings NULL. Without a bundle identifier the bundle ID is the process name.
        let process = ProcessInfo.processInfo.processName
        let bundle = Bundle.main.bundleIdentifier ?? process
        let strings = Set(["app", "editor", process, bundle]).count
        #expect(
            try rows("SELECT Z_ENT, Z_NAME, Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT > 16000 ORDER BY Z_ENT") == [
                ["16001", "CHANGE", "3"], ["16002", "TRANSACTION", "3"], ["16003", "TRANSACTIONSTRING", "\(strings)"],
            ])
        #expect(try rows("SELECT count(*) FROM ATRANSACTIONSTRING") == [["\(strings)"]])
        #expect(
            try rows(
                "SELECT t.Z_PK, t.Z_ENT, a.ZNAME, b.ZNAME, c.ZNAME, p.ZNAME, t.ZAUTHOR FROM ATRANSACTION t "
                    + "JOIN ATRANSACTIONSTRING a ON a.Z_PK = t.ZAUTHORTS JOIN ATRANSACTIONSTRING b ON b.Z_PK = t.ZBUNDLEIDTS "
                    + "JOIN ATRANSACTIONSTRING c ON c.Z_PK = t.ZCONTEXTNAMETS "
                    + "JOIN ATRANSACTIONSTRING p ON p.Z_PK = t.ZPROCESSIDTS ORDER BY t.Z_PK")
                == (1...3).map { ["\($0)", "16002", "app", bundle, "editor", process, "NULL"] })
        // Employee's non-transient properties by name: born, department, name, salary -> salary is
        // bit 3 (0x10). Its `name` goes to ZTOMBSTONE0 on delete. `ZENTITY` is Employee's `Z_ENT`.
        let employeeNumber = try rows("SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Employee'")
        let number = try #require(employeeNumber.first?.first)
        #expect(
            try rows(
                "SELECT Z_PK, Z_ENT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS, ZTOMBSTONE0 FROM ACHANGE "
                    + "ORDER BY Z_PK") == [
                    ["1", "16001", "0", number, "1", "1", "NULL", "NULL"],
                    ["2", "16001", "1", number, "1", "2", "10", "NULL"],
                    ["3", "16001", "2", number, "1", "3", "NULL", "Ann"],
                ])
        #expect(try connection.columnNames(of: "ACHANGE").last == "ZTOMBSTONE0")
    }

    @Test func readsTheHistoryOfAnAppleWrittenStore() throws {
        guard let source = RealWorld.url("stores/coredataplus-samplemodel2-history"),
            FileManager.default.fileExists(atPath: source.appendingPathComponent("SampleModel2_V1.sqlite").path)
        else {
            print("PersistentHistoryFileTests: ../shared/realworld/stores is absent; skipping the Apple history store")
            return
        }
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("SampleModel2_V1.sqlite")
        try FileManager.default.copyItem(at: source.appendingPathComponent("SampleModel2_V1.sqlite"), to: url)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: url.path)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: RealWorldModels.sampleModel2V1())
        let store = try coordinator.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil, at: url,
            options: [NSReadOnlyPersistentStoreOption: true, NSPersistentHistoryTrackingKey: true])
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator

        let result = try context.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?))
        let transactions = try #require((result as? NSPersistentHistoryResult)?.result as? [NSPersistentHistoryTransaction])
        #expect(transactions.count == 1)
        let transaction = try #require(transactions.first)
        #expect(transaction.transactionNumber == 1)
        #expect(transaction.bundleID == "com.apple.dt.xctest.tool")
        #expect(transaction.processID == "xctest")
        #expect(transaction.author == nil)
        #expect(transaction.contextName == nil)
        #expect(transaction.storeID == "C9CB0B35-ED6A-4042-BE5C-1B911AC00B2A")
        #expect(abs(transaction.timestamp.timeIntervalSinceReferenceDate - 737_057_647.288022) < 0.001)
        let changes = try #require(transaction.changes)
        #expect(changes.count == 5468)
        #expect(changes.allSatisfy { $0.changeType == .insert })
        var byEntity: [String: Int] = [:]
        for change in changes { byEntity[change.changedObjectID.entity.name ?? "", default: 0] += 1 }
        #expect(byEntity == ["Book": 51, "GraphicNovel": 1, "Feedback": 444, "Page": 4970, "Author": 2])
        // The changed objects are the store's rows.
        let page = try #require(changes.first { $0.changedObjectID.entity.name == "Page" })
        #expect(try context.existingObject(with: page.changedObjectID).value(forKey: "number") != nil)
        #expect(coordinator.currentPersistentHistoryToken(fromStores: nil) == transaction.token)

        // Saving into the same file (read-write, tracking) continues Apple's numbering.
        let writable = NSPersistentStoreCoordinator(managedObjectModel: RealWorldModels.sampleModel2V1())
        let writableURL = folder.url.appendingPathComponent("Writable.sqlite")
        try FileManager.default.copyItem(at: url, to: writableURL)
        try writable.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil, at: writableURL, options: [NSPersistentHistoryTrackingKey: true])
        let writer = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        writer.persistentStoreCoordinator = writable
        writer.transactionAuthor = "linux"
        let request = NSFetchRequest<NSManagedObject>(entityName: "Book")
        request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
        request.fetchLimit = 1
        let book = try #require(try writer.fetch(request).first)
        book.setValue("Retitled", forKey: "title")
        try writer.save()
        let later = try writer.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: transaction.token))
        let added = try #require((later as? NSPersistentHistoryResult)?.result as? [NSPersistentHistoryTransaction])
        #expect(added.map(\.transactionNumber) == [2])
        #expect(added.first?.author == "linux")
        let change = try #require(added.first?.changes?.first)
        #expect(added.first?.changes?.count == 1)
        #expect(change.changeID == 5469)
        #expect(change.changedObjectID == book.objectID)
        #expect(change.updatedProperties?.map(\.name) == ["title"])
    }

    @Test func anotherCoordinatorsSavePostsRemoteChange() throws {
        let writer = try PersistentHistoryTests.Tracked(storeType: NSSQLiteStoreType)
        let folder = try #require(writer.folder)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: writer.model)
        let store = try coordinator.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil, at: folder.url.appendingPathComponent("Company.sqlite"),
            options: [NSPersistentHistoryTrackingKey: true, NSPersistentStoreRemoteChangeNotificationPostOptionKey: true])
        let received = Received()
        let observer = NotificationCenter.default.addObserver(
            forName: .NSPersistentStoreRemoteChange, object: coordinator, queue: nil
        ) { received.add($0) }
        defer { NotificationCenter.default.removeObserver(observer) }

        writer.insertEmployee("Ann", salary: 50_000, in: writer.context)
        try writer.context.save()
        // The timer would notice within 0.1 s; the hook checks now. Once only.
        _ = store.testingCheckForRemoteChanges()
        #expect(!store.testingCheckForRemoteChanges())
        let notification = try #require(received.first)
        #expect(notification.userInfo?[NSStoreUUIDKey] as? String == store.identifier)
        #expect(notification.userInfo?[NSPersistentStoreURLKey] as? URL == store.url)
        let token = try #require(notification.userInfo?[NSPersistentHistoryTokenKey] as? NSPersistentHistoryToken)
        #expect(token == coordinator.currentPersistentHistoryToken(fromStores: nil))
        // The history, read on the receiving side, has the writer's transaction.
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let result = try context.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?))
        #expect(((result as? NSPersistentHistoryResult)?.result as? [NSPersistentHistoryTransaction])?.map(\.author) == ["app"])

        // The timer alone posts for the next save.
        writer.insertEmployee("Bob", salary: 1, in: writer.context)
        try writer.context.save()
        let deadline = Date().addingTimeInterval(60)
        while received.count < 2 && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        #expect(received.count == 2)
    }

    final class Received: @unchecked Sendable {
        private let lock = NSLock()
        private var notifications: [Notification] = []
        func add(_ notification: Notification) {
            lock.lock()
            notifications.append(notification)
            lock.unlock()
        }
        var first: Notification? {
            lock.lock()
            defer { lock.unlock() }
            return notifications.first
        }
        var count: Int {
            lock.lock()
            defer { lock.unlock() }
            return notifications.count
        }
    }
}
