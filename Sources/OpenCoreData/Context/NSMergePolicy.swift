import OpenPredicate

/// The kinds of merge policy, with Apple's raw values.
///
/// See [NSMergePolicyType](https://developer.apple.com/documentation/coredata/nsmergepolicytype).
public enum NSMergePolicyType: UInt, Sendable {
    /// A save fails when an object changed in the store since it was fetched
    /// (`NSManagedObjectMergeError`). The default policy of every context.
    case errorMergePolicyType = 0
    /// Conflicts are merged property by property; the store's changes win.
    case mergeByPropertyStoreTrumpMergePolicyType = 1
    /// Conflicts are merged property by property; the context's changes win.
    case mergeByPropertyObjectTrumpMergePolicyType = 2
    /// The context's version of each object replaces the store's entirely.
    case overwriteMergePolicyType = 3
    /// The context's changes to conflicting objects are dropped; the store's version stays.
    case rollbackMergePolicyType = 4
}

/// How a context resolves conflicts found when it saves: optimistic-locking conflicts
/// (`NSMergeConflict`: a row changed or deleted by someone else since the context fetched it)
/// and uniqueness-constraint conflicts (`NSConstraintConflict`).
///
/// ```swift
/// context.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
/// // or, the same policy:
/// context.mergePolicy = NSMergePolicy.mergeByPropertyObjectTrump
/// ```
///
/// The store refuses a save with conflicts as a whole; the context hands them to its policy's
/// `resolve(mergeConflicts:)`, which either throws (`NSErrorMergePolicy`: the save fails with
/// `NSManagedObjectMergeError` or `NSManagedObjectConstraintMergeError`, `"conflictList"` in
/// `userInfo`, the store and the context's changes as they were) or changes the context's
/// objects, after which the save is tried again (at most four times in all).
///
/// Optimistic-locking conflicts, by policy:
/// - **mergeByPropertyStoreTrump**: property by property, a property the store changed takes
///   the store's value, the others keep the context's; to-many relationships get both sides'
///   additions and removals. The object is then saved over the store's version.
/// - **mergeByPropertyObjectTrump**: the same, except that a property both changed keeps the
///   context's value.
/// - **overwrite**: the context's object is saved as it is over the store's version.
/// - **rollback**: the context's changes to the object (deletion included) are dropped; it takes
///   the store's values.
///
/// Uniqueness-constraint conflicts with a stored row (Apple's "upsert"): with the two
/// merge-by-property policies and overwrite, the inserted object takes over the stored row's
/// identity (its `objectID` becomes the row's): store-trump keeps the row's non-nil values and
/// fills the rest from the object, object-trump keeps the values set on the object and fills
/// the rest from the row, overwrite keeps the object's values; rollback drops the inserted
/// object. Several inserted objects with the same values become one (the first inserted), the
/// others leave the context and relationships to them point to the one kept.
///
/// **Differences from Apple:** where Apple's behaviour is not documented these are choices: a
/// row deleted in the store wins over every policy (the context's object leaves the context, as
/// after merging a deletion; a pending deletion of an object changed in the store still
/// proceeds except under rollback); a constraint conflict where an *updated* (not inserted)
/// object took values another row has cannot be merged and fails with the error, whatever the
/// policy; `resolve(constraintConflicts:)` and `resolve(optimisticLockingConflicts:)` are
/// called through `resolve(mergeConflicts:)`.
/// See [NSMergePolicy](https://developer.apple.com/documentation/coredata/nsmergepolicy).
open class NSMergePolicy: NSObject, @unchecked Sendable {
    // @unchecked Sendable: immutable once made (`mergeType` is set only by `init`).

    /// The kind of policy.
    open private(set) var mergeType: NSMergePolicyType

    /// Creates a policy of a kind.
    ///
    /// - Parameter ty: The kind of policy.
    public init(merge ty: NSMergePolicyType) {
        mergeType = ty
        super.init()
    }

    /// The default policy: a save with conflicts fails (`NSErrorMergePolicy`).
    open class var error: NSMergePolicy { sharedError }
    /// Property by property, the store's changes win (`NSMergeByPropertyStoreTrumpMergePolicy`).
    open class var mergeByPropertyStoreTrump: NSMergePolicy { sharedStoreTrump }
    /// Property by property, the context's changes win (`NSMergeByPropertyObjectTrumpMergePolicy`).
    open class var mergeByPropertyObjectTrump: NSMergePolicy { sharedObjectTrump }
    /// The context's objects replace the store's (`NSOverwriteMergePolicy`).
    open class var overwrite: NSMergePolicy { sharedOverwrite }
    /// The context's conflicting changes are dropped (`NSRollbackMergePolicy`).
    open class var rollback: NSMergePolicy { sharedRollback }

    /// Resolves the conflicts of a save: the `NSMergeConflict`s through
    /// `resolve(optimisticLockingConflicts:)`, then the `NSConstraintConflict`s through
    /// `resolve(constraintConflicts:)`. The context calls it when a save finds conflicts.
    ///
    /// - Throws: For `NSErrorMergePolicy`, `NSManagedObjectConstraintMergeError` when there are
    ///   constraint conflicts, else `NSManagedObjectMergeError`, with `"conflictList"` in
    ///   `userInfo`.
    open func resolve(mergeConflicts list: [Any]) throws {
        if mergeType == .errorMergePolicyType { throw Self.mergeError(list) }
        let lockingConflicts = list.compactMap { $0 as? NSMergeConflict }
        let constraintConflicts = list.compactMap { $0 as? NSConstraintConflict }
        if !lockingConflicts.isEmpty { try resolve(optimisticLockingConflicts: lockingConflicts) }
        if !constraintConflicts.isEmpty { try resolve(constraintConflicts: constraintConflicts) }
    }

    /// Resolves optimistic-locking conflicts by changing the conflicting objects as the policy
    /// says (see the type's description).
    ///
    /// - Throws: `NSManagedObjectMergeError` for `NSErrorMergePolicy`.
    open func resolve(optimisticLockingConflicts list: [NSMergeConflict]) throws {
        if mergeType == .errorMergePolicyType { throw Self.mergeError(list) }
        for conflict in list { resolveLocking(conflict) }
    }

    /// Resolves uniqueness-constraint conflicts as the policy says (see the type's description).
    ///
    /// - Throws: `NSManagedObjectConstraintMergeError` for `NSErrorMergePolicy`, or for a
    ///   conflict no policy can merge.
    open func resolve(constraintConflicts list: [NSConstraintConflict]) throws {
        if mergeType == .errorMergePolicyType { throw Self.mergeError(list) }
        for conflict in list { try resolveConstraint(conflict) }
    }

    /// Equal when both are of the same kind.
    open override func isEqual(_ object: Any?) -> Bool {
        (object as? NSMergePolicy)?.mergeType == mergeType
    }

    /// Agrees with `isEqual(_:)`.
    open override var hash: Int { Int(mergeType.rawValue) }

    /// The policy's kind, as Apple's description shows it.
    open override var description: String { "<NSMergePolicy: \(ObjectIdentifier(self))> type \(mergeType.rawValue)" }
}

// The five shared policies are `NSMergePolicy`s, which never change once made (and are
// Sendable): the `nonisolated(unsafe)` below is only for their Apple type, `AnyObject`.
private let sharedError = NSMergePolicy(merge: .errorMergePolicyType)
private let sharedStoreTrump = NSMergePolicy(merge: .mergeByPropertyStoreTrumpMergePolicyType)
private let sharedObjectTrump = NSMergePolicy(merge: .mergeByPropertyObjectTrumpMergePolicyType)
private let sharedOverwrite = NSMergePolicy(merge: .overwriteMergePolicyType)
private let sharedRollback = NSMergePolicy(merge: .rollbackMergePolicyType)

/// The default merge policy of every context: a save with conflicts fails with
/// `NSManagedObjectMergeError`. An `NSMergePolicy` of `.errorMergePolicyType`.
///
/// See [NSErrorMergePolicy](https://developer.apple.com/documentation/coredata/nserrormergepolicy).
nonisolated(unsafe) public let NSErrorMergePolicy: AnyObject = sharedError
/// A property-by-property merge where the store's changes win. An `NSMergePolicy` of
/// `.mergeByPropertyStoreTrumpMergePolicyType`.
///
/// See [NSMergeByPropertyStoreTrumpMergePolicy](https://developer.apple.com/documentation/coredata/nsmergebypropertystoretrumpmergepolicy).
nonisolated(unsafe) public let NSMergeByPropertyStoreTrumpMergePolicy: AnyObject = sharedStoreTrump
/// A property-by-property merge where the context's changes win. An `NSMergePolicy` of
/// `.mergeByPropertyObjectTrumpMergePolicyType`.
///
/// See [NSMergeByPropertyObjectTrumpMergePolicy](https://developer.apple.com/documentation/coredata/nsmergebypropertyobjecttrumpmergepolicy).
nonisolated(unsafe) public let NSMergeByPropertyObjectTrumpMergePolicy: AnyObject = sharedObjectTrump
/// The context's version of each conflicting object replaces the store's. An `NSMergePolicy`
/// of `.overwriteMergePolicyType`.
///
/// See [NSOverwriteMergePolicy](https://developer.apple.com/documentation/coredata/nsoverwritemergepolicy).
nonisolated(unsafe) public let NSOverwriteMergePolicy: AnyObject = sharedOverwrite
/// The context's changes to conflicting objects are dropped. An `NSMergePolicy` of
/// `.rollbackMergePolicyType`.
///
/// See [NSRollbackMergePolicy](https://developer.apple.com/documentation/coredata/nsrollbackmergepolicy).
nonisolated(unsafe) public let NSRollbackMergePolicy: AnyObject = sharedRollback
