import OpenPredicate
import OpenStoreCore

/// The changes one save (or batch operation) made to one store, with who made them and when.
///
/// See [NSPersistentHistoryTransaction](https://developer.apple.com/documentation/coredata/nspersistenthistorytransaction).
open class NSPersistentHistoryTransaction: NSObject, NSCopying, @unchecked Sendable {
    // @unchecked Sendable: immutable once made by the store that read it.

    /// When the save happened.
    public let timestamp: Date
    /// The changes, in the order they were recorded; nil when fetched with `.transactionsOnly`.
    public let changes: [NSPersistentHistoryChange]?
    /// The identifier of the store changed (`NSStoreUUIDKey`).
    public let storeID: String
    /// The bundle identifier of the saving app (on Linux, `Bundle.main.bundleIdentifier`, else
    /// the process name).
    public let bundleID: String
    /// The saving process's name (`ProcessInfo.processName`), as Apple records it.
    public let processID: String
    /// The saving context's `name`.
    public let contextName: String?
    /// The saving context's `transactionAuthor`.
    public let author: String?
    /// A token covering this transaction (and those before it) of its store.
    public let token: NSPersistentHistoryToken
    /// The transaction's number in its store (increasing, never reused).
    public let transactionNumber: Int64

    /// A copy holding only `changes` (rebuilt, so that each points to the copy).
    func keeping(_ changes: [NSPersistentHistoryChange]) -> NSPersistentHistoryTransaction {
        NSPersistentHistoryTransaction(copying: self, changes: changes)
    }

    private init(copying other: NSPersistentHistoryTransaction, changes: [NSPersistentHistoryChange]) {
        timestamp = other.timestamp
        self.changes = changes.map {
            NSPersistentHistoryChange(
                changeID: $0.changeID, changedObjectID: $0.changedObjectID, changeType: $0.changeType,
                tombstone: $0.tombstone, updatedProperties: $0.updatedProperties)
        }
        storeID = other.storeID
        bundleID = other.bundleID
        processID = other.processID
        contextName = other.contextName
        author = other.author
        token = other.token
        transactionNumber = other.transactionNumber
        super.init()
        for change in self.changes ?? [] { change.attach(to: self) }
    }

    init(
        record: HistoryTransactionRecord, storeID: String, changes: [NSPersistentHistoryChange]?
    ) {
        timestamp = record.timestamp
        self.changes = changes
        self.storeID = storeID
        bundleID = record.bundleID ?? ""
        processID = record.processID ?? ""
        contextName = record.contextName
        author = record.author
        token = NSPersistentHistoryToken(storeTokens: [storeID: record.number])
        transactionNumber = record.number
        super.init()
        for change in changes ?? [] { change.attach(to: self) }
    }

    /// A notification whose `userInfo` holds the IDs of the objects the transaction inserted,
    /// updated and deleted (`NSInsertedObjectIDsKey`, `NSUpdatedObjectIDsKey`,
    /// `NSDeletedObjectIDsKey`, as sets), for `mergeChanges(fromContextDidSave:)`.
    ///
    /// **Differences from Apple:** Apple does not document the notification's name; here it is
    /// `NSManagedObjectContextDidSaveObjectIDs`, without an object. A transaction fetched with
    /// `.transactionsOnly` gives empty sets.
    public func objectIDNotification() -> Notification {
        var inserted: Set<NSManagedObjectID> = [], updated: Set<NSManagedObjectID> = []
        var deleted: Set<NSManagedObjectID> = []
        for change in changes ?? [] {
            switch change.changeType {
            case .insert: inserted.insert(change.changedObjectID)
            case .update: updated.insert(change.changedObjectID)
            case .delete: deleted.insert(change.changedObjectID)
            }
        }
        return Notification(
            name: .NSManagedObjectContextDidSaveObjectIDs, object: nil,
            userInfo: [NSInsertedObjectIDsKey: inserted, NSUpdatedObjectIDsKey: updated, NSDeletedObjectIDsKey: deleted])
    }

    /// The transaction itself (transactions are immutable).
    open func copy(with zone: NSZone? = nil) -> Any { self }

    /// The number, the store, the author and the number of changes.
    open override var description: String {
        "<NSPersistentHistoryTransaction \(transactionNumber) store \(storeID) author \(author ?? "nil") "
            + "context \(contextName ?? "nil") changes \(changes.map { String($0.count) } ?? "nil")>"
    }
}
