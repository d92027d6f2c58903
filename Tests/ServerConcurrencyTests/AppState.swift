import CoreData
import Foundation
import TestSupport

/// A server's state, as a Hummingbird or Vapor app keeps it: one container for the process,
/// handed to every request handler. Each handler makes its own context and returns values.
struct AppState: Sendable {
    let container: NSPersistentContainer

    /// The stores every test runs on: in memory, SQLite, and PostgreSQL when a test server is
    /// named (or under CI, where a missing one fails the test).
    static let storeTypes =
        [NSInMemoryStoreType, NSSQLiteStoreType] + (PostgresTestServer.isEnabled ? [NSPostgreSQLStoreType] : [])

    /// A deposit gives up after this many saves that found the account changed meanwhile.
    static let maxAttempts = 1_000

    /// Opens the ledger's store of `storeType`: a file in `folder`, a fresh schema on the test
    /// server (dropped with `folder`), or memory.
    static func open(_ storeType: String, in folder: TemporaryFolder) throws -> AppState {
        let container = NSPersistentContainer(name: "Ledger", managedObjectModel: Ledger.model)
        let description = NSPersistentStoreDescription()
        description.type = storeType
        if let url = try folder.storeURL(for: storeType, name: "Ledger.sqlite") { description.url = url }
        container.persistentStoreDescriptions = [description]
        var loadError: Error?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        return AppState(container: container)
    }

    // MARK: - Handlers

    /// Opens an account with no entries.
    func openAccount(owner: String) async throws -> AccountSnapshot {
        let context = container.newBackgroundContext()
        return try await context.perform(schedule: .enqueued) {
            let account = Account(context: context)
            account.id = UUID()
            account.owner = owner
            try context.save()
            return account.snapshot
        }
    }

    /// Deposits `amount` into the account: a new entry, and the balance raised by as much.
    ///
    /// The balance is read, raised and saved; when another deposit saved the account meanwhile,
    /// the save fails with `NSManagedObjectMergeError` (the default `NSErrorMergePolicy`) and
    /// the deposit starts over in a new context, with the balance that deposit left.
    func deposit(_ amount: Int64, to accountID: NSManagedObjectID, at date: Date = Date()) async throws -> Receipt {
        for attempt in 1...Self.maxAttempts {
            let context = container.newBackgroundContext()
            do {
                return try await context.perform {
                    guard let account = try context.existingObject(with: accountID) as? Account else {
                        throw LedgerError.noSuchAccount
                    }
                    let entry = Entry(context: context)
                    entry.amount = amount
                    entry.createdAt = date
                    entry.account = account
                    account.balance += amount
                    try context.save()
                    return Receipt(
                        entry: entry.objectID, account: accountID, amount: amount, balance: account.balance,
                        attempts: attempt)
                }
            } catch let error as NSError where error.domain == NSCocoaErrorDomain && error.code == NSManagedObjectMergeError {
                continue
            }
        }
        throw LedgerError.tooManyAttempts
    }

    /// The account, read in a context of its own.
    func account(_ accountID: NSManagedObjectID) async throws -> AccountSnapshot {
        let context = container.newBackgroundContext()
        return try await context.perform {
            guard let account = try context.existingObject(with: accountID) as? Account else {
                throw LedgerError.noSuchAccount
            }
            return account.snapshot
        }
    }

    /// Every account whose owner begins with `prefix`, by owner.
    func accounts(ownedBy prefix: String) async throws -> [AccountSnapshot] {
        let context = container.newBackgroundContext()
        return try await context.perform {
            let request: NSFetchRequest<Account> = Account.fetchRequest()
            request.predicate = NSPredicate(format: "owner BEGINSWITH %@", prefix)
            request.sortDescriptors = [NSSortDescriptor(keyPath: \Account.owner, ascending: true)]
            return try context.fetch(request).map(\.snapshot)
        }
    }

    /// The number of accounts, counted in a context of its own while the caller waits (for a
    /// handler that is not `async`).
    func accountCount() throws -> Int {
        let context = container.newBackgroundContext()
        return try context.performAndWait {
            try context.count(for: Account.fetchRequest() as NSFetchRequest<Account>)
        }
    }

    /// The amounts of the account's entries, read with a predicate on the relationship, in
    /// ascending order.
    func entryAmounts(of accountID: NSManagedObjectID) async throws -> [Int64] {
        let context = container.newBackgroundContext()
        return try await context.perform {
            let request: NSFetchRequest<Entry> = Entry.fetchRequest()
            request.predicate = NSPredicate(format: "account == %@", context.object(with: accountID))
            request.sortDescriptors = [NSSortDescriptor(key: "amount", ascending: true)]
            return try context.fetch(request).map(\.amount)
        }
    }
}
