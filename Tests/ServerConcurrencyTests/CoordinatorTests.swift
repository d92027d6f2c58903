import CoreData
import Foundation
import TestSupport
import Testing

/// The coordinator's `perform` and `performAndWait` from many tasks at once: their blocks never
/// run at the same time (a count they change without a lock of its own comes out exact, and
/// ThreadSanitizer, which CI runs this under, sees no race on it), and they see the stores.
@Suite struct CoordinatorTests {
    static let tasks = 200

    @Test(arguments: AppState.storeTypes)
    func blocksFromManyTasksRunOneAtATime(storeType: String) async throws {
        let folder = try TemporaryFolder()
        let state = try AppState.open(storeType, in: folder)
        let coordinator = state.container.persistentStoreCoordinator
        let count = CoordinatorGuarded()

        let storeTypes = try await withThrowingTaskGroup(of: String?.self) { group in
            for index in 0..<Self.tasks {
                group.addTask {
                    switch index % 4 {
                    case 0:
                        // async, returning a value
                        return await coordinator.perform {
                            count.value += 1
                            return coordinator.persistentStores.first?.type
                        }
                    case 1:
                        // async, throwing
                        return try await coordinator.perform {
                            count.value += 1
                            guard let store = coordinator.persistentStores.first else { throw LedgerError.noSuchAccount }
                            return store.type
                        }
                    case 2:
                        // the callback form, awaited through a continuation
                        return await withCheckedContinuation { continuation in
                            coordinator.perform {
                                count.value += 1
                                continuation.resume(returning: coordinator.persistentStores.first?.type)
                            }
                        }
                    default:
                        // and waiting for the block, on the task's thread
                        return coordinator.performAndWait {
                            count.value += 1
                            return coordinator.persistentStores.first?.type
                        }
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(storeTypes == Array(repeating: storeType, count: Self.tasks))
        #expect(coordinator.performAndWait { count.value } == Self.tasks)
    }
}

/// A count changed only inside the coordinator's blocks, which run one at a time: no lock of its
/// own (which is why it is `@unchecked`; ThreadSanitizer checks the claim).
final class CoordinatorGuarded: @unchecked Sendable {
    var value = 0
}
