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

/// How a context resolves conflicts between its changes and changes saved to the store since
/// it fetched an object (optimistic-locking conflicts).
///
/// ```swift
/// context.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
/// // or, the same policy:
/// context.mergePolicy = NSMergePolicy.mergeByPropertyObjectTrump
/// ```
///
/// **Differences from Apple:** the policies are kept and reported as Apple's are, but nothing
/// enforces them yet: the in-memory store does not detect optimistic-locking conflicts (a later
/// save simply wins), and the SQLite store, when it lands, is where conflicts will be detected
/// and resolved by these policies. `resolve(mergeConflicts:)`,
/// `resolve(optimisticLockingConflicts:)` and `resolve(constraintConflicts:)` are not provided.
/// See [NSMergePolicy](https://developer.apple.com/documentation/coredata/nsmergepolicy).
open class NSMergePolicy: NSObject, @unchecked Sendable {
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

    /// Equal when both are of the same kind.
    open override func isEqual(_ object: Any?) -> Bool {
        (object as? NSMergePolicy)?.mergeType == mergeType
    }

    /// Agrees with `isEqual(_:)`.
    open override var hash: Int { Int(mergeType.rawValue) }

    /// The policy's kind, as Apple's description shows it.
    open override var description: String { "<NSMergePolicy: \(ObjectIdentifier(self))> type \(mergeType.rawValue)" }
}

private let sharedError = NSMergePolicy(merge: .errorMergePolicyType)
private let sharedStoreTrump = NSMergePolicy(merge: .mergeByPropertyStoreTrumpMergePolicyType)
private let sharedObjectTrump = NSMergePolicy(merge: .mergeByPropertyObjectTrumpMergePolicyType)
private let sharedOverwrite = NSMergePolicy(merge: .overwriteMergePolicyType)
private let sharedRollback = NSMergePolicy(merge: .rollbackMergePolicyType)

/// The default merge policy of every context: a save with conflicts fails with
/// `NSManagedObjectMergeError`. An `NSMergePolicy` of `.errorMergePolicyType`.
///
/// See [NSErrorMergePolicy](https://developer.apple.com/documentation/coredata/nserrormergepolicy).
public let NSErrorMergePolicy: AnyObject = sharedError
/// A property-by-property merge where the store's changes win. An `NSMergePolicy` of
/// `.mergeByPropertyStoreTrumpMergePolicyType`.
///
/// See [NSMergeByPropertyStoreTrumpMergePolicy](https://developer.apple.com/documentation/coredata/nsmergebypropertystoretrumpmergepolicy).
public let NSMergeByPropertyStoreTrumpMergePolicy: AnyObject = sharedStoreTrump
/// A property-by-property merge where the context's changes win. An `NSMergePolicy` of
/// `.mergeByPropertyObjectTrumpMergePolicyType`.
///
/// See [NSMergeByPropertyObjectTrumpMergePolicy](https://developer.apple.com/documentation/coredata/nsmergebypropertyobjecttrumpmergepolicy).
public let NSMergeByPropertyObjectTrumpMergePolicy: AnyObject = sharedObjectTrump
/// The context's version of each conflicting object replaces the store's. An `NSMergePolicy`
/// of `.overwriteMergePolicyType`.
///
/// See [NSOverwriteMergePolicy](https://developer.apple.com/documentation/coredata/nsoverwritemergepolicy).
public let NSOverwriteMergePolicy: AnyObject = sharedOverwrite
/// The context's changes to conflicting objects are dropped. An `NSMergePolicy` of
/// `.rollbackMergePolicyType`.
///
/// See [NSRollbackMergePolicy](https://developer.apple.com/documentation/coredata/nsrollbackmergepolicy).
public let NSRollbackMergePolicy: AnyObject = sharedRollback
