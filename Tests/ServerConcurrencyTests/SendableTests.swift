import CoreData
import Foundation
import TestSupport
import Testing

/// Compiles only when `T` is `Sendable`.
private func requireSendable<T: Sendable>(_: T.Type) {}

/// The types a server shares between tasks are `Sendable`, as in Apple's SDK: this file
/// compiles only if they are (the checks are the compiler's, in the Swift 6 language mode).
/// `NSManagedObject` is not, and cannot be made so: an object stays with its context.
@Suite struct SendableTests {
    @Test func theSharedTypesAreSendable() {
        requireSendable(NSPersistentContainer.self)
        requireSendable(NSPersistentStoreCoordinator.self)
        requireSendable(NSManagedObjectContext.self)
        requireSendable(NSManagedObjectModel.self)
        requireSendable(NSEntityDescription.self)
        requireSendable(NSPropertyDescription.self)
        requireSendable(NSAttributeDescription.self)
        requireSendable(NSRelationshipDescription.self)
        requireSendable(NSFetchedPropertyDescription.self)
        requireSendable(NSDerivedAttributeDescription.self)
        requireSendable(NSExpressionDescription.self)
        requireSendable(NSManagedObjectID.self)
        requireSendable(NSMergePolicy.self)
        requireSendable(NSManagedObjectContext.ScheduledTaskType.self)
        // The app's own.
        requireSendable(AppState.self)
        requireSendable(AccountSnapshot.self)
        requireSendable(Receipt.self)
        requireSendable(Totals.self)
    }
}
