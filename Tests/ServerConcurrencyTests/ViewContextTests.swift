import CoreData
import Foundation
import TestSupport
import Testing

/// The view context on the main actor: it merges what background tasks save, as a dashboard
/// (or a UI) reading `container.viewContext` expects, and hands values to other tasks.
@Suite struct ViewContextTests {
    static let accounts = 10
    static let deposits = 100

    @MainActor
    @Test(arguments: AppState.storeTypes)
    func viewContextOnTheMainActorSeesBackgroundSaves(storeType: String) async throws {
        let folder = try TemporaryFolder()
        let state = try AppState.open(storeType, in: folder)
        // The main actor runs on the main queue, the view context's queue. (Not necessarily on
        // the process's first thread: under `swift test` on Linux another thread drains it.)
        dispatchPrecondition(condition: .onQueue(.main))
        let dashboard = Dashboard(state: state)
        var accountIDs: [NSManagedObjectID] = []
        for index in 0..<Self.accounts {
            accountIDs.append(try await state.openAccount(owner: "main-\(index + 10)").objectID)
        }

        // The view context has the accounts loaded before the deposits start.
        let accounts = try accountIDs.map { try #require(try dashboard.context.existingObject(with: $0) as? Account) }
        #expect(accounts.allSatisfy { $0.balance == 0 })
        #expect(try dashboard.totals() == Totals(accounts: Self.accounts, balance: 0))

        // Deposits of 1 through 100 from tasks off the main actor, and one more account.
        let targets = accountIDs
        let (opened, saves) = try await withThrowingTaskGroup(of: (NSManagedObjectID?, Int).self) { group in
            for index in 0..<Self.deposits {
                group.addTask {
                    let receipt = try await state.deposit(Int64(index + 1), to: targets[index % Self.accounts])
                    return (nil, receipt.attempts)
                }
            }
            group.addTask { (try await state.openAccount(owner: "main-20").objectID, 1) }
            var opened: NSManagedObjectID?
            var saves = 0
            for try await (id, attempts) in group {
                opened = opened ?? id
                saves += attempts
            }
            return (opened, saves)
        }
        let openedID = try #require(opened)
        print("\(storeType): \(Self.deposits) deposits to \(Self.accounts) accounts took \(saves - 1) saves")

        // The merges arrive on the main queue, after the saves: wait for them (bounded).
        let expected = (0..<Self.accounts).map { account in
            (0..<Self.deposits).filter { $0 % Self.accounts == account }.map { Int64($0 + 1) }.reduce(0, +)
        }
        #expect(expected.reduce(0, +) == 5_050)
        #expect(try await dashboard.waitUntil { accounts.map(\.balance) == expected })
        #expect(accounts.map(\.balance) == expected)
        #expect(accounts.map(\.entries.count) == Array(repeating: Self.deposits / Self.accounts, count: Self.accounts))
        #expect(!dashboard.context.hasChanges)
        #expect(try dashboard.totals() == Totals(accounts: Self.accounts + 1, balance: 5_050))
        #expect(try dashboard.context.existingObject(with: openedID) is Account)

        // What the main actor hands on is values: a task reads them elsewhere.
        let totals = try dashboard.totals()
        let seenElsewhere = await Task.detached { totals.balance + Int64(totals.accounts) }.value
        #expect(seenElsewhere == 5_050 + Int64(Self.accounts + 1))
    }
}

/// What the dashboard shows: values, safe to send.
struct Totals: Sendable, Equatable {
    let accounts: Int
    let balance: Int64
}

/// A main-actor reader of the view context, as a UI's model (or a server's status page) is.
@MainActor
final class Dashboard {
    let context: NSManagedObjectContext

    init(state: AppState) {
        context = state.container.viewContext
        context.automaticallyMergesChangesFromParent = true
    }

    /// The number of accounts and their total balance, fetched in the view context.
    func totals() throws -> Totals {
        let request: NSFetchRequest<Account> = Account.fetchRequest()
        let accounts = try context.fetch(request)
        return Totals(accounts: accounts.count, balance: accounts.map(\.balance).reduce(0, +))
    }

    /// Waits for `condition` to hold, checking it on the main actor every few milliseconds (while
    /// waiting, the main queue runs the view context's merges); false after `timeout`.
    func waitUntil(timeout: Duration = .seconds(20), _ condition: () throws -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if try condition() { return true }
            try await Task.sleep(for: .milliseconds(5))
        }
        return try condition()
    }
}
