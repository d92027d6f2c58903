import OpenPredicate
import OpenStoreCore

/// A uniqueness-constraint conflict found when a context saved: objects of the save that share
/// the values of one of their entity's `uniquenessConstraints` with each other
/// (`databaseObject` nil) or with an object already in the store.
///
/// Under `NSErrorMergePolicy` the save throws `NSManagedObjectConstraintMergeError` with the
/// conflicts under `"conflictList"` in `userInfo`:
///
/// ```swift
/// do { try context.save() } catch let error as NSError where error.code == NSManagedObjectConstraintMergeError {
///     for case let conflict as NSConstraintConflict in error.userInfo["conflictList"] as? [Any] ?? [] {
///         print(conflict.constraint, conflict.constraintValues, conflict.databaseObject?.objectID as Any)
///     }
/// }
/// ```
///
/// Snapshots hold every attribute and to-one relationship (to-ones as `NSManagedObjectID`s,
/// nil values as `NSNull`).
///
/// **Differences from Apple:** `conflictingSnapshots` holds an empty dictionary for an inserted
/// object, where Apple's holds `NSNull`.
/// See [NSConstraintConflict](https://developer.apple.com/documentation/coredata/nsconstraintconflict).
open class NSConstraintConflict: NSObject {
    /// The names of the properties of the constraint.
    public let constraint: [String]
    /// The values the objects share, by property name.
    public let constraintValues: [String: Any]
    /// The object whose row in the store has the values; nil when only objects of the save
    /// share them.
    public let databaseObject: NSManagedObject?
    /// The values of `databaseObject`'s row.
    public let databaseSnapshot: [String: Any]?
    /// The objects of the save that have the values.
    public let conflictingObjects: [NSManagedObject]
    /// The values each conflicting object had when last fetched or saved (empty for an
    /// inserted object), in `conflictingObjects` order.
    public let conflictingSnapshots: [[AnyHashable: Any]]
    /// The database row decoded for the context (to-many relationships included), for the
    /// merge policies.
    var databaseValues: PropertyValues?
    /// The version of the database row.
    var databaseVersion: Int64 = 0

    /// Creates a conflict.
    ///
    /// - Parameters:
    ///   - contraint: The names of the constraint's properties (Apple's spelling).
    ///   - databaseObject: The object whose stored row has the values, if any.
    ///   - databaseSnapshot: The values of that row.
    ///   - conflictingObjects: The objects of the save that have the values.
    ///   - conflictingSnapshots: Their last saved values.
    public init(
        constraint contraint: [String], database databaseObject: NSManagedObject?, databaseSnapshot: [AnyHashable: Any]?,
        conflicting conflictingObjects: [NSManagedObject], conflictingSnapshots: [Any]
    ) {
        constraint = contraint
        self.databaseObject = databaseObject
        self.databaseSnapshot = databaseSnapshot.map { snapshot in
            Dictionary(
                snapshot.compactMap { key, value in (key.base as? String).map { ($0, value) } }, uniquingKeysWith: { a, _ in a })
        }
        self.conflictingObjects = conflictingObjects
        self.conflictingSnapshots = conflictingSnapshots.map { $0 as? [AnyHashable: Any] ?? [:] }
        var values: [String: Any] = [:]
        if let first = conflictingObjects.first {
            for name in contraint { values[name] = first.values[name] ?? ValueSemantics.null }
        }
        constraintValues = values
        super.init()
    }

    /// The constraint, its values and the objects.
    open override var description: String {
        "NSConstraintConflict (constraint \(constraint), values \(constraintValues), database object "
            + "\(databaseObject.map { "\($0.objectID)" } ?? "nil"), conflicting objects \(conflictingObjects.map(\.objectID)))"
    }
}
