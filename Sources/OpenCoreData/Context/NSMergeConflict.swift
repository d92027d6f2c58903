import OpenPredicate
import OpenStoreCore

/// An optimistic-locking conflict found when a context saved: an object the context changed or
/// deleted whose row someone else (another context or coordinator) changed or deleted since the
/// context fetched it.
///
/// Under `NSErrorMergePolicy` the save throws `NSManagedObjectMergeError` with the conflicts
/// under `"conflictList"` in `userInfo`:
///
/// ```swift
/// do { try context.save() } catch let error as NSError where error.code == NSManagedObjectMergeError {
///     for case let conflict as NSMergeConflict in error.userInfo["conflictList"] as? [Any] ?? [] {
///         print(conflict.sourceObject.objectID, conflict.oldVersionNumber, "→", conflict.newVersionNumber)
///     }
/// }
/// ```
///
/// Snapshots hold every attribute and to-one relationship (to-ones as `NSManagedObjectID`s, nil
/// values as `NSNull`), not to-many relationships, as Apple's do.
///
/// **Differences from Apple:** the coordinator keeps no row cache of its own, so every conflict
/// is one between the context and the store: `objectSnapshot` and `cachedSnapshot` both hold
/// the values the context last fetched or saved for the object, and `persistedSnapshot` the
/// store's current row (nil, with `newVersionNumber` 0, when the row was deleted).
/// See [NSMergeConflict](https://developer.apple.com/documentation/coredata/nsmergeconflict).
open class NSMergeConflict: NSObject {
    /// The object whose save conflicted.
    public let sourceObject: NSManagedObject
    /// The values of the object the context's changes are based on.
    public let objectSnapshot: [String: Any]?
    /// The values the context last saw in the store (here the same as `objectSnapshot`).
    public let cachedSnapshot: [String: Any]?
    /// The store's current values; nil when the row was deleted.
    public let persistedSnapshot: [String: Any]?
    /// The store's current version of the row (`Z_OPT`); 0 when it was deleted.
    public let newVersionNumber: Int
    /// The version the context last saw.
    public let oldVersionNumber: Int
    /// The store's row decoded for the context (to-many relationships included), for the
    /// merge policies; nil when it was deleted or when made through the public initializer.
    var persistedValues: PropertyValues?

    /// Creates a conflict.
    ///
    /// - Parameters:
    ///   - srcObject: The object whose save conflicted.
    ///   - newvers: The store's version of the row; 0 when it was deleted (`persnap` is then nil).
    ///   - oldvers: The version the context last saw.
    ///   - cachesnap: The values the context last saw.
    ///   - persnap: The store's current values.
    public init(
        source srcObject: NSManagedObject, newVersion newvers: Int, oldVersion oldvers: Int,
        cachedSnapshot cachesnap: [String: Any]?, persistedSnapshot persnap: [String: Any]?
    ) {
        sourceObject = srcObject
        objectSnapshot = cachesnap
        cachedSnapshot = cachesnap
        persistedSnapshot = persnap
        newVersionNumber = newvers
        oldVersionNumber = oldvers
        super.init()
    }

    /// The object, its versions and whether the store still has it.
    open override var description: String {
        "NSMergeConflict (\(sourceObject.objectID)) oldVersion \(oldVersionNumber) newVersion \(newVersionNumber)"
            + (persistedSnapshot == nil ? " (deleted in the store)" : "")
    }
}
