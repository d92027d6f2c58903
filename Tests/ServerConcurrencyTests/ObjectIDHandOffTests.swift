import CoreData
import Foundation
import TestSupport
import Testing

/// Object IDs handed from task to task, as a server's jobs pass them: through an `AsyncStream`
/// from the requests that make accounts to a consumer that deposits into each, and through an
/// actor that looks accounts up by their `id`.
@Suite struct ObjectIDHandOffTests {
    static let producers = 60

    @Test(arguments: AppState.storeTypes)
    func idsSentThroughAStreamAndAnActor(storeType: String) async throws {
        let folder = try TemporaryFolder()
        let state = try AppState.open(storeType, in: folder)
        let (stream, continuation) = AsyncStream.makeStream(of: NSManagedObjectID.self)
        let directory = AccountDirectory()

        let deposited = try await withThrowingTaskGroup(of: Int.self) { group in
            // The producers: each opens an account, lists it and sends its ID on.
            group.addTask {
                try await withThrowingTaskGroup(of: Void.self) { producers in
                    for index in 0..<Self.producers {
                        producers.addTask {
                            let account = try await state.openAccount(owner: "stream-\(index + 100)")
                            await directory.add(account)
                            continuation.yield(account.objectID)
                        }
                    }
                    try await producers.waitForAll()
                }
                continuation.finish()
                return 0
            }
            // The consumer: a deposit of 10 into each account, each in a task of its own.
            group.addTask {
                try await withThrowingTaskGroup(of: Int.self) { deposits in
                    for await accountID in stream {
                        deposits.addTask { try await state.deposit(10, to: accountID).attempts }
                    }
                    return try await deposits.reduce(0) { count, _ in count + 1 }
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(deposited == Self.producers)

        // Each account found again by its `id` in a context of another task: the fetched
        // object's ID is the one the producer sent.
        let listed = await directory.all()
        #expect(listed.count == Self.producers)
        let matches = try await withThrowingTaskGroup(of: Bool.self) { group in
            for (id, sent) in listed {
                group.addTask {
                    let context = state.container.newBackgroundContext()
                    let found: NSManagedObjectID? = try await context.perform {
                        let request: NSFetchRequest<Account> = Account.fetchRequest()
                        request.predicate = NSPredicate(format: "id == %@", argumentArray: [id])
                        return try context.fetch(request).first?.objectID
                    }
                    let account = try await state.account(sent)
                    return found == sent && account.id == id && account.balance == 10 && account.entryCount == 1
                }
            }
            return try await group.reduce(into: 0) { if $1 { $0 += 1 } }
        }
        #expect(matches == Self.producers)
        #expect(try state.accountCount() == Self.producers)
        let accounts = try await state.accounts(ownedBy: "stream-")
        #expect(accounts.map(\.balance).reduce(0, +) == Int64(10 * Self.producers))
    }
}

/// The accounts made so far, by `id`: an actor, so any task may add or look up.
actor AccountDirectory {
    private var accounts: [UUID: NSManagedObjectID] = [:]

    func add(_ account: AccountSnapshot) { accounts[account.id] = account.objectID }

    func all() -> [UUID: NSManagedObjectID] { accounts }
}
