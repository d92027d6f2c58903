import CoreData
import Foundation
import TestSupport
import Testing

/// `performBackgroundTask` in each of its forms, from many tasks at once: the callback form
/// (awaited through a continuation), and the async forms that return a value or throw.
@Suite struct BackgroundTaskTests {
    static let tasks = 60

    @Test(arguments: AppState.storeTypes)
    func everyFormFromManyTasks(storeType: String) async throws {
        let folder = try TemporaryFolder()
        let state = try AppState.open(storeType, in: folder)
        let container = state.container

        // The callback form: each block opens an account and resumes its task with the ID.
        let opened = try await withThrowingTaskGroup(of: NSManagedObjectID.self) { group in
            for index in 0..<Self.tasks {
                group.addTask {
                    try await withCheckedThrowingContinuation { continuation in
                        container.performBackgroundTask { context in
                            let account = Account(context: context)
                            account.id = UUID()
                            account.owner = "background-\(index + 100)"
                            account.balance = Int64(index)
                            do {
                                try context.save()
                                continuation.resume(returning: account.objectID)
                            } catch {
                                continuation.resume(throwing: error)
                            }
                        }
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(Set(opened).count == Self.tasks)
        #expect(opened.allSatisfy { !$0.isTemporaryID })

        // The async, throwing form: withdrawals of 30, refused below zero by throwing from the
        // block, which saves nothing then.
        let withdrawals = await withTaskGroup(of: Result<Int64, LedgerError>.self) { group in
            for accountID in opened {
                group.addTask {
                    do {
                        return .success(
                            try await container.performBackgroundTask { context in
                                guard let account = try context.existingObject(with: accountID) as? Account else {
                                    throw LedgerError.noSuchAccount
                                }
                                guard account.balance >= 30 else {
                                    throw LedgerError.insufficientFunds(balance: account.balance)
                                }
                                account.balance -= 30
                                try context.save()
                                return account.balance
                            })
                    } catch let error as LedgerError {
                        return .failure(error)
                    } catch {
                        return .failure(.noSuchAccount)
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        let refused = withdrawals.compactMap { if case .failure(let error) = $0 { error } else { nil } }
        #expect(refused.count == 30)
        #expect(refused.allSatisfy { if case .insufficientFunds(let balance) = $0 { balance < 30 } else { false } })
        #expect(withdrawals.count == Self.tasks)

        // The async, non-throwing form: counts and sums read back, by many tasks at once.
        let sums = await withTaskGroup(of: Int64.self) { group in
            for _ in 0..<Self.tasks {
                group.addTask {
                    await container.performBackgroundTask { context in
                        let request: NSFetchRequest<Account> = Account.fetchRequest()
                        request.predicate = NSPredicate(format: "owner BEGINSWITH %@", "background-")
                        return ((try? context.fetch(request)) ?? []).map(\.balance).reduce(0, +)
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        // Balances 0 through 59, less 30 from each of the 30 that had 30 or more.
        let expected = Int64((0..<Self.tasks).reduce(0, +) - 30 * 30)
        #expect(expected == 870)
        #expect(sums == Array(repeating: expected, count: Self.tasks))
    }
}
