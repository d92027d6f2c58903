import CoreData
import Foundation
import TestSupport

/// One app server of the several-servers tests (`MultiServerTests`): contexts on one shared
/// store doing random conflicting transfers between accounts, under one merge policy.
///
/// ```
/// ServerWorker transfers STORE-URL SECONDS SEED POLICY CONTEXTS
/// ServerWorker watch STORE-URL SECONDS
/// ```
///
/// `transfers` prints `ack STAMP NAME BALANCE` for each account of each acknowledged save (the
/// stamp names the save), `conflict` for each save refused, then `done`; it then waits for a
/// line on its standard input and prints `final NAME BALANCE STAMP` for every account and
/// `end`. `watch` adds the store with remote change notifications and history, and prints
/// `remote N` with the number of `Account` inserts it has merged each time one arrives, until
/// SECONDS pass. Errors print `error MESSAGE` and exit 1.
@main
enum ServerWorker {
    static func main() {
        let arguments = CommandLine.arguments
        do {
            switch arguments.dropFirst().first {
            case "transfers" where arguments.count == 7:
                guard let url = URL(string: arguments[2]), let seconds = Double(arguments[3]), let seed = UInt64(arguments[4]),
                    let contexts = Int(arguments[6])
                else { return fail("bad arguments") }
                try transfers(url: url, seconds: seconds, seed: seed, policy: arguments[5], contexts: contexts)
            case "watch" where arguments.count == 4:
                guard let url = URL(string: arguments[2]), let seconds = Double(arguments[3]) else {
                    return fail("bad arguments")
                }
                try watch(url: url, seconds: seconds)
            default:
                fail("usage: ServerWorker transfers URL SECONDS SEED POLICY CONTEXTS | watch URL SECONDS")
            }
        } catch {
            fail("\(error)")
        }
    }

    static func fail(_ message: String) {
        emit("error " + message.replacingOccurrences(of: "\n", with: " "))
        exit(1)
    }

    static let outputLock = NSLock()

    static func emit(_ line: String) {
        outputLock.lock()
        print(line)
        fflush(stdout)
        outputLock.unlock()
    }

    static func policy(_ name: String) -> NSMergePolicy? {
        switch name {
        case "error": .error
        case "rollback": .rollback
        case "overwrite": .overwrite
        case "mergeByPropertyStoreTrump": .mergeByPropertyStoreTrump
        case "mergeByPropertyObjectTrump": .mergeByPropertyObjectTrump
        default: nil
        }
    }

    static func transfers(url: URL, seconds: Double, seed: UInt64, policy name: String, contexts count: Int) throws {
        guard let policy = policy(name) else { return fail("unknown merge policy \(name)") }
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: accountModel())
        try coordinator.addPersistentStore(
            ofType: NSPostgreSQLStoreType, configurationName: nil, at: url,
            options: [NSPersistentStoreConnectionPoolMaxSizeKey: 4])
        let deadline = Date().addingTimeInterval(seconds)
        let group = DispatchGroup()
        for index in 0..<count {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                var random = SplitMix64(seed: seed &* 1_000_003 &+ UInt64(index))
                let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
                context.persistentStoreCoordinator = coordinator
                context.mergePolicy = policy
                var serial = 0
                while Date() < deadline {
                    context.performAndWait {
                        serial += 1
                        let stamp = "\(seed)-\(index)-\(serial)"
                        do {
                            // Held until the save is reported: the context keeps only changed objects alive.
                            let changed = try change(context, &random, stamp: stamp)
                            try context.save()
                            for account in changed {
                                guard account.value(forKey: "stamp") as? String == stamp,
                                    let name = account.value(forKey: "name") as? String
                                else { continue }
                                emit("ack \(stamp) \(name) \((account.value(forKey: "balance") as? Int64) ?? 0)")
                            }
                        } catch {
                            emit("conflict \(stamp)")
                            context.rollback()
                        }
                        context.reset()
                    }
                }
            }
        }
        group.wait()
        emit("done")
        _ = readLine()
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Account")
            request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
            for account in try context.fetch(request) {
                let name = account.value(forKey: "name") as? String ?? "?"
                let balance = account.value(forKey: "balance") as? Int64 ?? 0
                emit("final \(name) \(balance) \(account.value(forKey: "stamp") as? String ?? "-")")
            }
        }
        emit("end")
    }

    /// One random change: a transfer between two of the eight accounts, or (one time in eight)
    /// an extra account whose name other servers may insert too.
    /// Returns the accounts it changed.
    static func change(_ context: NSManagedObjectContext, _ random: inout SplitMix64, stamp: String) throws -> [NSManagedObject] {
        if random.next() % 8 == 0 {
            guard let entity = context.persistentStoreCoordinator?.managedObjectModel.entitiesByName["Account"] else { return [] }
            let account = NSManagedObject(entity: entity, insertInto: context)
            account.setValue("extra-\(random.next() % 4)", forKey: "name")
            account.setValue(Int64(0), forKey: "balance")
            account.setValue(stamp, forKey: "stamp")
            return [account]
        }
        let from = "account-\(random.next() % 8)"
        var to = "account-\(random.next() % 8)"
        if to == from { to = from == "account-0" ? "account-1" : "account-0" }
        let request = NSFetchRequest<NSManagedObject>(entityName: "Account")
        request.predicate = NSPredicate(format: "name IN %@", [from, to])
        let accounts = try context.fetch(request)
        guard let source = accounts.first(where: { $0.value(forKey: "name") as? String == from }),
            let target = accounts.first(where: { $0.value(forKey: "name") as? String == to })
        else { return [] }
        let amount = Int64(random.next() % 10 + 1)
        source.setValue((source.value(forKey: "balance") as? Int64 ?? 0) - amount, forKey: "balance")
        target.setValue((target.value(forKey: "balance") as? Int64 ?? 0) + amount, forKey: "balance")
        source.setValue(stamp, forKey: "stamp")
        target.setValue(stamp, forKey: "stamp")
        return [source, target]
    }

    static func watch(url: URL, seconds: Double) throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: accountModel())
        let store = try coordinator.addPersistentStore(
            ofType: NSPostgreSQLStoreType, configurationName: nil, at: url,
            options: [NSPersistentHistoryTrackingKey: true, NSPersistentStoreRemoteChangeNotificationPostOptionKey: true])
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        var token: NSPersistentHistoryToken? = coordinator.currentPersistentHistoryToken(fromStores: [store])
        var inserts = 0
        let observer = NotificationCenter.default.addObserver(
            forName: .NSPersistentStoreRemoteChange, object: coordinator, queue: nil
        ) { _ in
            context.performAndWait {
                guard
                    let result = try? context.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: token))
                        as? NSPersistentHistoryResult,
                    let transactions = result.result as? [NSPersistentHistoryTransaction]
                else { return }
                for transaction in transactions {
                    inserts += (transaction.changes ?? []).filter { $0.changeType == .insert }.count
                    context.mergeChanges(fromContextDidSave: transaction.objectIDNotification())
                    token = transaction.token
                }
                emit("remote \(inserts)")
            }
        }
        emit("watching")
        Thread.sleep(forTimeInterval: seconds)
        NotificationCenter.default.removeObserver(observer)
        emit("end")
    }
}
