import CoreData
import Foundation
import TestSupport
import Testing

/// The view context on the main actor: it merges what background tasks save, as a dashboard
/// (or a UI) reading `container.viewContext` expects, and hands values to other tasks.
@Suite struct ViewContextTests {
    static let deposits = 100

    @MainActor
    @Test(arguments: AppState.storeTypes)
    func viewContextOnTheMainActorSeesBackgroundSaves(storeType: String) async throws {
        let folder = try TemporaryFolder()
        let state = try AppState.open(storeType, in: folder)
        let dashboard = Dashboard(state: state)
        let opened = try await state.openAccount(owner: "main-10")

        // The view context has the account loaded before the deposits start.
        let account = try #require(try dashboard.context.existingObject(with: opened.objectID) as? Account)
        #expect(account.balance == 0)
        #expect(try dashboard.totals() == Totals(accounts: 1, balance: 0))

        // Deposits of 1 through 100 from tasks off the main actor, and a second account.
        let accountID = opened.objectID
        let second = try await withThrowingTaskGroup(of: NSManagedObjectID?.self) { group in
            for amount in 1...Self.deposits {
                group.addTask { _ = try await state.deposit(Int64(amount), to: accountID); return nil }
            }
            group.addTask { try await state.openAccount(owner: "main-11").objectID }
            var second: NSManagedObjectID?
            for try await id in group { second = second ?? id }
            return second
        }
        let secondID = try #require(second)

        // The merges arrive on the main queue, after the saves: wait for them (bounded).
        let expected = Int64(Self.deposits * (Self.deposits + 1) / 2)
        #expect(try await dashboard.waitUntil { account.balance == expected })
        #expect(account.balance == 5_050)
        #expect(account.entries.count == Self.deposits)
        #expect(!account.hasChanges && !dashboard.context.hasChanges)
        #expect(try dashboard.totals() == Totals(accounts: 2, balance: 5_050))
        #expect(try dashboard.context.existingObject(with: secondID) is Account)

        // What the main actor hands on is values: a task reads them elsewhere.
        let totals = try dashboard.totals()
        let seenElsewhere = await Task.detached { totals.balance + Int64(totals.accounts) }.value
        #expect(seenElsewhere == 5_052)
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
