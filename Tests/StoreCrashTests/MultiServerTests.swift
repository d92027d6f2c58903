import CoreData
import Foundation
import TestSupport
import Testing

/// Several app servers on one PostgreSQL store: `ServerWorker` processes, each with several
/// contexts, doing random conflicting transfers under one merge policy, then the invariants; and
/// remote-change notifications crossing processes. Needs `OPENCOREDATA_POSTGRES_URL` (always set
/// under CI, where a missing server fails these tests).
@Suite(.postgreSQLServer)
struct MultiServerTests {
    /// A store URL in a fresh schema, and its removal.
    static func freshStore() throws -> (url: URL, remove: () -> Void) {
        let store = try PostgresTestServer.freshStoreURL()
        return (store, { PostgresTestServer.destroy(store) })
    }

    static let processes = 4
    static let accounts = 8
    static let opening: Int64 = 1000

    @Test(arguments: ["error", "mergeByPropertyObjectTrump", "mergeByPropertyStoreTrump", "overwrite", "rollback"])
    func conflictingTransfersKeepTheInvariants(_ policy: String) throws {
        let (url, remove) = try Self.freshStore()
        defer { remove() }
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: accountModel())
        try coordinator.addPersistentStore(ofType: NSPostgreSQLStoreType, configurationName: nil, at: url)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            for index in 0..<Self.accounts {
                let account = NSManagedObject(entity: coordinator.managedObjectModel.entities[0], insertInto: context)
                account.setValue("account-\(index)", forKey: "name")
                account.setValue(Self.opening, forKey: "balance")
                account.setValue("init", forKey: "stamp")
            }
            try context.save()
        }

        let workers = try (0..<Self.processes).map { index in
            try WriterProcess(
                ["transfers", url.absoluteString, "3", String(index + 1), policy, "3"], executable: "ServerWorker")
        }
        for worker in workers {
            #expect(worker.wait(for: "done", timeout: 120), "\(worker.errorLine ?? "no done") \(worker.lines.suffix(3))")
        }
        // Every server fetches once all have stopped writing.
        for worker in workers { worker.send("final") }
        for worker in workers {
            #expect(worker.wait(for: "end", timeout: 60))
            worker.finish()
            #expect(worker.process.terminationStatus == 0, "\(worker.errorLine ?? "")")
        }

        let finals = workers.map { $0.lines.filter { $0.hasPrefix("final ") } }
        // Every process sees the same store.
        #expect(Set(finals.map { $0.joined(separator: "\n") }).count == 1)
        let rows = (finals.first ?? []).map { $0.split(separator: " ").map(String.init) }
        let names = rows.map { $0[1] }
        #expect(Set(names).count == names.count, "unique names: \(names)")
        #expect(Set(names).isSuperset(of: (0..<Self.accounts).map { "account-\($0)" }))
        // Each account is as an acknowledged save (or the opening) left it: the balance and the
        // stamp written together, never one save's balance with another's stamp.
        var acknowledged: Set<String> = []
        var acks = 0
        for worker in workers {
            for line in worker.lines where line.hasPrefix("ack ") {
                let parts = line.split(separator: " ")
                acknowledged.insert("\(parts[1]) \(parts[2]) \(parts[3])")
                acks += 1
            }
        }
        #expect(acks > Self.processes, "the servers made progress")
        // Under mergeByPropertyStoreTrump a property the store changed since the object's
        // snapshot takes the store's value, and one it did not change keeps the object's: when
        // an account's balance comes back to the value a server's snapshot holds (another save
        // moved it away and a third moved it back) while its stamp moved on, that server's save
        // writes its own balance beside the store's stamp, as Apple's policy does. There the
        // stamp alone must be one an acknowledged save wrote to the account.
        let perProperty = policy == "mergeByPropertyStoreTrump"
        for row in rows where row.count == 4 {
            let (name, balance, stamp) = (row[1], row[2], row[3])
            if stamp == "init" {
                #expect(balance == String(Self.opening) || name.hasPrefix("extra-"), "\(row)")
            } else if perProperty {
                #expect(
                    acknowledged.contains { $0.hasPrefix("\(stamp) \(name) ") },
                    "\(row)'s stamp was written by no acknowledged save")
            } else {
                #expect(acknowledged.contains("\(stamp) \(name) \(balance)"), "\(row) was written by no acknowledged save")
            }
        }
        let conflicts = workers.map { $0.lines.filter { $0.hasPrefix("conflict ") }.count }.reduce(0, +)
        if policy == "error" {
            // Refused saves change nothing, so every transfer that landed moved money from one
            // account to another: the total is conserved.
            let total = rows.filter { $0[1].hasPrefix("account-") }.compactMap { Int64($0[2]) }.reduce(0, +)
            #expect(total == Int64(Self.accounts) * Self.opening)
            #expect(conflicts > 0, "4 servers × 3 contexts on 8 accounts for 3 s conflict")
        }
    }

    @Test func remoteChangesReachAnotherProcess() throws {
        let (url, remove) = try Self.freshStore()
        defer { remove() }
        let options: [AnyHashable: Any] = [NSPersistentHistoryTrackingKey: true]
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: accountModel())
        try coordinator.addPersistentStore(ofType: NSPostgreSQLStoreType, configurationName: nil, at: url, options: options)
        let watcher = try WriterProcess(["watch", url.absoluteString, "8"], executable: "ServerWorker")
        defer { watcher.finish() }
        #expect(watcher.wait(for: "watching", timeout: 60), "\(watcher.errorLine ?? "")")
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let started = Date()
        try context.performAndWait {
            for index in 0..<3 {
                let account = NSManagedObject(entity: coordinator.managedObjectModel.entities[0], insertInto: context)
                account.setValue("remote-\(index)", forKey: "name")
                account.setValue(Int64(index), forKey: "balance")
            }
            try context.save()
        }
        // The other process merges the three inserts from the history, woken by NOTIFY (well
        // before its one-second poll would find them... or after it: either way they arrive).
        #expect(watcher.wait(for: "remote 3", timeout: 90), "\(watcher.lines)")
        #expect(Date().timeIntervalSince(started) < 30)
    }
}
