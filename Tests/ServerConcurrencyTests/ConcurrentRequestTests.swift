import CoreData
import Foundation
import TestSupport
import Testing

/// Hundreds of requests at once, each a task with a context of its own, as a server's handlers
/// run: deposits that race for the same accounts and retry on a conflict, then reads of the
/// entries other tasks made, by the object IDs those tasks returned. The totals are exact: a
/// save lost or made twice changes them.
@Suite struct ConcurrentRequestTests {
    static let accounts = 16
    static let deposits = 240

    /// Deposit `index`'s amount, 1 through `deposits`: distinct, so the sum of any set of them
    /// tells which were saved.
    static func amount(_ index: Int) -> Int64 { Int64(index + 1) }

    @Test(arguments: AppState.storeTypes)
    func depositsRacingForTheSameAccountsAllArrive(storeType: String) async throws {
        let folder = try TemporaryFolder()
        let state = try AppState.open(storeType, in: folder)

        let opened = try await withThrowingTaskGroup(of: AccountSnapshot.self) { group in
            for index in 0..<Self.accounts {
                group.addTask { try await state.openAccount(owner: "owner-\(index + 10)") }
            }
            return try await group.reduce(into: []) { $0.append($1) }.sorted { $0.owner < $1.owner }
        }
        #expect(opened.count == Self.accounts)
        #expect(opened.allSatisfy { !$0.objectID.isTemporaryID && $0.balance == 0 })
        let accountIDs = opened.map(\.objectID)

        // Every deposit at once, `deposits / accounts` to each account.
        let receipts = try await withThrowingTaskGroup(of: (Int, Receipt).self) { group in
            for index in 0..<Self.deposits {
                group.addTask {
                    (index, try await state.deposit(Self.amount(index), to: accountIDs[index % Self.accounts]))
                }
            }
            return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
        #expect(receipts.count == Self.deposits)
        #expect(Set(receipts.values.map(\.entry)).count == Self.deposits)
        #expect(receipts.values.allSatisfy { !$0.entry.isTemporaryID })
        let attempts = receipts.values.map(\.attempts).reduce(0, +)
        print("\(storeType): \(Self.deposits) deposits to \(Self.accounts) accounts took \(attempts) saves")

        // Each account's balance is the sum of its deposits, and its entries are those deposits.
        let total = (0..<Self.deposits).map(Self.amount).reduce(0, +)
        #expect(total == 28_920)
        var balances: Int64 = 0
        for (position, accountID) in accountIDs.enumerated() {
            let expected = (0..<Self.deposits).filter { $0 % Self.accounts == position }.map(Self.amount)
            let account = try await state.account(accountID)
            #expect(account.balance == expected.reduce(0, +), "\(account.owner)")
            #expect(account.entryCount == expected.count, "\(account.owner)")
            #expect(try await state.entryAmounts(of: accountID) == expected, "\(account.owner)")
            balances += account.balance
        }
        #expect(balances == total)
        let listed = try await state.accounts(ownedBy: "owner-")
        #expect(listed.map(\.objectID) == accountIDs)
        #expect(listed.map(\.balance).reduce(0, +) == total)

        // Every entry read back by another task, from the ID its deposit returned: the task of
        // deposit `index` reads deposit `index * 7 + 1`'s entry (7 is prime to 240, so every
        // entry is read once), with `object(with:)` and with `existingObject(with:)`.
        // (The checks run on the contexts' queues, outside the test's task: their answers come
        // back as values and are expected here.)
        let reads = try await withThrowingTaskGroup(of: EntryRead.self) { group in
            for index in 0..<Self.deposits {
                let other = (index * 7 + 1) % Self.deposits
                let receipt = try #require(receipts[other])
                group.addTask {
                    let context = state.container.newBackgroundContext()
                    return try await context.perform {
                        let fault = context.object(with: receipt.entry)
                        guard let entry = try context.existingObject(with: receipt.entry) as? Entry else {
                            throw LedgerError.noSuchAccount
                        }
                        return EntryRead(
                            deposit: other, amount: entry.amount, account: entry.account?.objectID, sameInstance: fault === entry)
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(reads.count == Self.deposits)
        #expect(Set(reads.map(\.deposit)).count == Self.deposits)
        #expect(reads.allSatisfy { $0.sameInstance })
        #expect(reads.allSatisfy { $0.amount == Self.amount($0.deposit) })
        #expect(reads.allSatisfy { $0.account == receipts[$0.deposit]?.account })
        #expect(reads.map(\.amount).reduce(0, +) == total)
    }

    /// Two requests change the same account at once, one its owner and one its balance (with a
    /// new entry), each having read the account before either saves. With
    /// `NSMergeByPropertyObjectTrumpMergePolicy` both saves succeed and both changes stay: the
    /// later save keeps the store's values of the properties it did not change.
    @Test(arguments: AppState.storeTypes)
    func changesToDifferentPropertiesMergeByProperty(storeType: String) async throws {
        let folder = try TemporaryFolder()
        let state = try AppState.open(storeType, in: folder)
        let pairs = 40
        var accountIDs: [NSManagedObjectID] = []
        for index in 0..<pairs {
            accountIDs.append(try await state.openAccount(owner: "pair-\(index + 10)").objectID)
        }
        let accountIDList = accountIDs

        // Every request reads and changes its account, then waits for all the others to have done
        // so too, then saves: every save after the first of its pair finds the account changed.
        let latch = Latch(count: 2 * pairs)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<(2 * pairs) {
                group.addTask {
                    let pair = index / 2
                    let context = state.container.newBackgroundContext()
                    context.mergePolicy = NSMergePolicy.mergeByPropertyObjectTrump
                    let prepared: Result<Void, Error> = await context.perform {
                        Result {
                            guard let account = try context.existingObject(with: accountIDList[pair]) as? Account else {
                                throw LedgerError.noSuchAccount
                            }
                            if index.isMultiple(of: 2) {
                                account.owner = "renamed-\(pair + 10)"
                            } else {
                                let entry = Entry(context: context)
                                entry.amount = Int64(pair + 1)
                                entry.createdAt = Date(timeIntervalSince1970: Double(pair))
                                entry.account = account
                                account.balance += entry.amount
                            }
                        }
                    }
                    await latch.arriveAndWait()
                    try prepared.get()
                    try await context.perform { try context.save() }
                }
            }
            try await group.waitForAll()
        }

        let accounts = try await state.accounts(ownedBy: "renamed-")
        #expect(accounts.count == pairs)
        #expect(accounts.map(\.objectID) == accountIDList)
        for (pair, account) in accounts.enumerated() {
            #expect(account.owner == "renamed-\(pair + 10)")
            #expect(account.balance == Int64(pair + 1), "\(account.owner)")
            #expect(account.entryCount == 1, "\(account.owner)")
        }
        #expect(accounts.map(\.balance).reduce(0, +) == Int64(pairs * (pairs + 1) / 2))
        #expect(try await state.accounts(ownedBy: "pair-").isEmpty)
    }
}

/// What a task read of another task's entry.
struct EntryRead: Sendable {
    let deposit: Int
    let amount: Int64
    let account: NSManagedObjectID?
    let sameInstance: Bool
}

/// Holds every task that arrives until `count` have: then lets them all go on.
actor Latch {
    private var remaining: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(count: Int) { remaining = count }

    func arriveAndWait() async {
        remaining -= 1
        if remaining <= 0 {
            for task in waiting { task.resume() }
            waiting = []
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }
}
