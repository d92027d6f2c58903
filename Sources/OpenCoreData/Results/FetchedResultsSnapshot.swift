import Foundation

/// One state of a fetched results controller's results, as object IDs in sections, with what
/// changed since the state before it: what `NSFetchedResultsController.snapshots` yields.
///
/// **Differences from Apple:** an OpenCoreData addition, for Swift concurrency; Apple's nearest
/// is the `NSDiffableDataSourceSnapshot` a delegate gets (UIKit and AppKit).
public struct FetchedResultsSnapshot: Sendable, Equatable {
    /// One section: its name, its index title and its objects' IDs in order.
    public struct Section: Sendable, Equatable {
        /// The section's name (see `NSFetchedResultsSectionInfo.name`).
        public let name: String
        /// The section's index title (see `NSFetchedResultsSectionInfo.indexTitle`).
        public let indexTitle: String?
        /// The IDs of the section's objects, in order.
        public let objectIDs: [NSManagedObjectID]
    }

    /// The sections, in order (one, named "", for a controller without a section key path).
    public let sections: [Section]

    /// How the IDs of all sections in a row (`objectIDs`) differ from those of the snapshot
    /// before in the same sequence: everything inserted for the first one. Moves carry their
    /// `associatedWith` offsets; an object whose ID changed (a save gave an inserted object its
    /// permanent ID) is removed under its old ID and inserted under its new one.
    public let difference: CollectionDifference<NSManagedObjectID>

    /// The IDs of every section's objects, in order.
    public var objectIDs: [NSManagedObjectID] { sections.flatMap(\.objectIDs) }
}

extension NSFetchedResultsController {
    /// The results as they change, for `for await`: the current snapshot first (as soon as
    /// `performFetch()` has run), then one after each change report, each with its difference
    /// from the one before.
    ///
    /// ```swift
    /// try await context.perform { try controller.performFetch() }
    /// for await snapshot in controller.snapshots {
    ///     feed.send(snapshot.objectIDs, changes: snapshot.difference)
    /// }
    /// ```
    ///
    /// While a sequence is iterated the controller follows changes even without a delegate.
    /// Each access makes a new sequence; it ends when the loop stops or the controller is
    /// freed. Snapshots are buffered until read.
    ///
    /// **Differences from Apple:** an OpenCoreData addition (see `FetchedResultsSnapshot`).
    public var snapshots: AsyncStream<FetchedResultsSnapshot> { core.snapshots() }
}
