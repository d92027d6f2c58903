import OpenPredicate

/// How an object changed in a persistent-history change, with Apple's raw values.
///
/// See [NSPersistentHistoryChangeType](https://developer.apple.com/documentation/coredata/nspersistenthistorychangetype).
public enum NSPersistentHistoryChangeType: Int, Sendable {
    /// The object was inserted.
    case insert = 0
    /// The object was updated.
    case update = 1
    /// The object was deleted.
    case delete = 2
}

/// One object's insertion, update or deletion in a persistent-history transaction.
///
/// See [NSPersistentHistoryChange](https://developer.apple.com/documentation/coredata/nspersistenthistorychange).
open class NSPersistentHistoryChange: NSObject, NSCopying, @unchecked Sendable {
    // @unchecked Sendable: immutable once made by the store that read it.

    /// The change's number in its store (increasing, Apple's `ACHANGE.Z_PK`).
    public let changeID: Int64
    /// The object that changed (for a delete, the ID it had).
    public let changedObjectID: NSManagedObjectID
    /// Whether it was inserted, updated or deleted.
    public let changeType: NSPersistentHistoryChangeType
    /// For a delete, the values of the attributes marked `preservesValueInHistoryOnDeletion`,
    /// by attribute name (a nil value is left out); nil for inserts and updates.
    public let tombstone: [AnyHashable: Any]?
    /// For an update, the properties the save wrote; nil for inserts and deletes (and for an
    /// update whose record names properties this model does not have).
    public let updatedProperties: Set<NSPropertyDescription>?
    /// The transaction holding the change; nil when fetched with `.changesOnly` (and once the
    /// transaction is released: it is held weakly, as the transaction holds its changes).
    open private(set) weak var transaction: NSPersistentHistoryTransaction?

    init(
        changeID: Int64, changedObjectID: NSManagedObjectID, changeType: NSPersistentHistoryChangeType,
        tombstone: [AnyHashable: Any]?, updatedProperties: Set<NSPropertyDescription>?
    ) {
        self.changeID = changeID
        self.changedObjectID = changedObjectID
        self.changeType = changeType
        self.tombstone = tombstone
        self.updatedProperties = updatedProperties
        super.init()
    }

    func attach(to transaction: NSPersistentHistoryTransaction) { self.transaction = transaction }

    /// The change itself (changes are immutable).
    open func copy(with zone: NSZone? = nil) -> Any { self }

    /// The type, the object and the properties.
    open override var description: String {
        let properties = updatedProperties.map { " " + $0.map(\.name).sorted().joined(separator: ",") } ?? ""
        return "<NSPersistentHistoryChange \(changeID) \(changeType) \(changedObjectID)\(properties)>"
    }
}
