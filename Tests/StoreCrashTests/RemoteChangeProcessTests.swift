import CoreData
import Foundation
import TestSupport
import Testing

/// `NSPersistentStoreRemoteChange` for saves made by another process: `StoreCrashWriter` saves
/// into a store this process has open with history tracking and remote-change notifications;
/// the store's poll notices the new transactions and the history holds the writer's saves.
@Suite struct RemoteChangeProcessTests {
    final class Received: @unchecked Sendable {
        private let lock = NSLock()
        private var tokens: [NSPersistentHistoryToken] = []
        func add(_ notification: Notification) {
            guard let token = notification.userInfo?[NSPersistentHistoryTokenKey] as? NSPersistentHistoryToken else { return }
            lock.lock()
            tokens.append(token)
            lock.unlock()
        }
        var last: NSPersistentHistoryToken? {
            lock.lock()
            defer { lock.unlock() }
            return tokens.last
        }
    }

    @Test func anotherProcessSavesArePostedAndInTheHistory() throws {
        let folder = try StoreCrashTests.folder("remote")
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("Store.sqlite")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: crashWriterModel())
        try coordinator.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil, at: url,
            options: [NSPersistentHistoryTrackingKey: true, NSPersistentStoreRemoteChangeNotificationPostOptionKey: true])
        let received = Received()
        let observer = NotificationCenter.default.addObserver(
            forName: .NSPersistentStoreRemoteChange, object: coordinator, queue: nil
        ) { received.add($0) }
        defer { NotificationCenter.default.removeObserver(observer) }

        let writer = try WriterProcess(["store=\(url.path)", "saves=3", "items=2", "history=1"])
        #expect(writer.wait(for: "done"))
        writer.finish()
        #expect(writer.errorLine == nil)

        // The poll (every 0.1 s) posts once it sees the third transaction.
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let deadline = Date().addingTimeInterval(60)
        while received.last != coordinator.currentPersistentHistoryToken(fromStores: nil), Date() < deadline {
            Thread.sleep(forTimeInterval: 0.02)
        }
        #expect(received.last == coordinator.currentPersistentHistoryToken(fromStores: nil))
        let result = try context.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?))
        let transactions = try #require((result as? NSPersistentHistoryResult)?.result as? [NSPersistentHistoryTransaction])
        #expect(transactions.map(\.author) == ["writer", "writer", "writer"])
        #expect(transactions.map(\.processID) == Array(repeating: "StoreCrashWriter", count: 3))
        #expect(transactions.map { $0.changes?.count } == [2, 2, 2])
    }
}
