import Foundation

/// The kinds of change a fetched results controller reports, with Apple's raw values.
///
/// See [NSFetchedResultsChangeType](https://developer.apple.com/documentation/coredata/nsfetchedresultschangetype).
public enum NSFetchedResultsChangeType: UInt, Sendable {
    /// An object entered the results (or a section appeared).
    case insert = 1
    /// An object left the results (or a section disappeared).
    case delete = 2
    /// An object changed place.
    case move = 3
    /// An object changed and kept its place.
    case update = 4
}

/// A section of a fetched results controller.
///
/// See [NSFetchedResultsSectionInfo](https://developer.apple.com/documentation/coredata/nsfetchedresultssectioninfo).
public protocol NSFetchedResultsSectionInfo {
    /// The section's name: the string form of its objects' value at the section name key path
    /// (`""` for nil, and for the one section of a controller without a section key path).
    var name: String { get }
    /// The section's index title (see `NSFetchedResultsController.sectionIndexTitle(forSectionName:)`).
    var indexTitle: String? { get }
    /// How many objects the section holds.
    var numberOfObjects: Int { get }
    /// The section's objects, in order.
    var objects: [Any]? { get }
}

/// What a fetched results controller tells about changes to its results.
///
/// Every method is optional (each has a default that does nothing). When the controller's
/// results change, it calls, on its context's queue:
///
/// 1. `controller(_:didChangeContentWith:)` with a `CollectionDifference` of object IDs — only
///    for a controller without a section key path, and if the delegate implements it, in which
///    case nothing else is called (Apple's rule);
/// 2. otherwise `controllerWillChangeContent(_:)`, then each section change (deletions, then
///    insertions), then each object change (deletions, moves, insertions, updates, each in
///    ascending order), then `controllerDidChangeContent(_:)`.
///
/// Index paths follow the batch-update convention: deletions and move sources at old index
/// paths, insertions and move destinations at new ones; an update gives both. A change that
/// does not touch the results calls nothing.
///
/// **Differences from Apple:** `controller` is the controller itself when it was made as
/// `NSFetchedResultsController<NSFetchRequestResult>`; for any other result type it is a
/// view of the same controller (same results, same sections) but not the same instance, because
/// a Swift generic class of one type is not one of another. `didChangeContentWith` with an
/// `NSDiffableDataSourceSnapshotReference` (UIKit) does not exist.
/// See [NSFetchedResultsControllerDelegate](https://developer.apple.com/documentation/coredata/nsfetchedresultscontrollerdelegate).
public protocol NSFetchedResultsControllerDelegate: AnyObject {
    /// Called before the controller reports a set of changes.
    func controllerWillChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>)

    /// Called for each object that was inserted, deleted, moved or updated.
    ///
    /// - Parameters:
    ///   - controller: The controller that reports the change.
    ///   - anObject: The object (a managed object).
    ///   - indexPath: Its old index path; nil for an insertion.
    ///   - type: The kind of change.
    ///   - newIndexPath: Its new index path; nil for a deletion.
    func controller(
        _ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any, at indexPath: IndexPath?,
        for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?)

    /// Called for each section that appeared (`.insert`, at its new index) or disappeared
    /// (`.delete`, at its old index), before the object changes.
    func controller(
        _ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange sectionInfo: NSFetchedResultsSectionInfo,
        atSectionIndex sectionIndex: Int, for type: NSFetchedResultsChangeType)

    /// Called after the controller reported a set of changes.
    func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>)

    /// The index title of a section; when not implemented, the controller's
    /// `sectionIndexTitle(forSectionName:)` (the capitalized first letter of the name).
    func controller(
        _ controller: NSFetchedResultsController<NSFetchRequestResult>, sectionIndexTitleForSectionName sectionName: String
    ) -> String?

    /// Called instead of every other change method when the controller has no section key
    /// path: the difference between the old and the new object IDs, in order. Moves carry
    /// their `associatedWith` offsets. An object whose ID changed (a save gave an inserted
    /// object its permanent ID) is removed under its old ID and inserted under its new one.
    func controller(
        _ controller: NSFetchedResultsController<NSFetchRequestResult>,
        didChangeContentWith diff: CollectionDifference<NSManagedObjectID>)
}

extension NSFetchedResultsControllerDelegate {
    /// Does nothing.
    public func controllerWillChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {}

    /// Does nothing.
    public func controller(
        _ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any, at indexPath: IndexPath?,
        for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?
    ) {}

    /// Does nothing.
    public func controller(
        _ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange sectionInfo: NSFetchedResultsSectionInfo,
        atSectionIndex sectionIndex: Int, for type: NSFetchedResultsChangeType
    ) {}

    /// Does nothing.
    public func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {}

    /// Not implemented: the controller's own `sectionIndexTitle(forSectionName:)` decides.
    public func controller(
        _ controller: NSFetchedResultsController<NSFetchRequestResult>, sectionIndexTitleForSectionName sectionName: String
    ) -> String? {
        controller.core.unimplemented.insert(.sectionIndexTitle)
        return nil
    }

    /// Not implemented: the other change methods are called.
    public func controller(
        _ controller: NSFetchedResultsController<NSFetchRequestResult>,
        didChangeContentWith diff: CollectionDifference<NSManagedObjectID>
    ) {
        controller.core.unimplemented.insert(.difference)
    }
}

extension IndexPath {
    /// An index path of a row in a section: `[section, row]`.
    ///
    /// **Differences from Apple:** UIKit declares it; corelibs' Foundation does not, so
    /// OpenCoreData does, for code that reads a fetched results controller's index paths.
    public init(row: Int, section: Int) {
        self.init(indexes: [section, row])
    }

    /// An index path of an item in a section: `[section, item]` (see `init(row:section:)`).
    public init(item: Int, section: Int) {
        self.init(indexes: [section, item])
    }

    /// The first index: the section (see `init(row:section:)`).
    public var section: Int {
        get { self[0] }
        set { self[0] = newValue }
    }

    /// The second index: the row in the section (see `init(row:section:)`).
    public var row: Int {
        get { self[1] }
        set { self[1] = newValue }
    }

    /// The second index: the item in the section (see `init(row:section:)`).
    public var item: Int {
        get { self[1] }
        set { self[1] = newValue }
    }
}
