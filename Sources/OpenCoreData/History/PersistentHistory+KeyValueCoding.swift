import OpenPredicate

/// The entity name of `NSPersistentHistoryTransaction.fetchRequest`.
let historyTransactionEntityName = "NSPersistentHistoryTransaction"
/// The entity name of `NSPersistentHistoryChange.fetchRequest`.
let historyChangeEntityName = "NSPersistentHistoryChange"

extension NSPersistentHistoryTransaction: KeyValueCodable {
    /// A fetch request for filtering history by transaction: set its `predicate` (on `author`,
    /// `bundleID`, `contextName`, `processID`, `storeID`, `timestamp`, `transactionNumber`) and
    /// pass it as `NSPersistentHistoryChangeRequest.fetchRequest`.
    ///
    /// **Differences from Apple:** only the predicate is used (sort descriptors and limits are
    /// ignored); its entity name is `NSPersistentHistoryTransaction` and it has no `entity`.
    /// See [fetchRequest](https://developer.apple.com/documentation/coredata/nspersistenthistorytransaction/fetchrequest).
    public class var fetchRequest: NSFetchRequest<NSFetchRequestResult>? {
        NSFetchRequest<NSFetchRequestResult>(entityName: historyTransactionEntityName)
    }

    /// The value of a property, for predicates: `author`, `bundleID`, `contextName`,
    /// `processID`, `storeID`, `timestamp`, `transactionNumber`, `token`, `changes`; nil for
    /// other keys.
    public func value(forKey key: String) -> Any? {
        switch key {
        case "author": author
        case "bundleID": bundleID
        case "contextName": contextName
        case "processID": processID
        case "storeID": storeID
        case "timestamp": timestamp
        case "transactionNumber": transactionNumber
        case "token": token
        case "changes": changes
        default: nil
        }
    }
}

extension NSPersistentHistoryChange: KeyValueCodable {
    /// A fetch request for filtering history by change: set its `predicate` (on `changeType`,
    /// `changedObjectID`, `changeID`, `changedEntity`) and pass it as
    /// `NSPersistentHistoryChangeRequest.fetchRequest`; each transaction then holds only its
    /// matching changes, and transactions without one are left out.
    ///
    /// **Differences from Apple:** only the predicate is used (sort descriptors and limits are
    /// ignored); its entity name is `NSPersistentHistoryChange` and it has no `entity`;
    /// `changedEntity` (the changed object's entity name) is this package's key.
    /// See [fetchRequest](https://developer.apple.com/documentation/coredata/nspersistenthistorychange/fetchrequest).
    public class var fetchRequest: NSFetchRequest<NSFetchRequestResult>? {
        NSFetchRequest<NSFetchRequestResult>(entityName: historyChangeEntityName)
    }

    /// The value of a property, for predicates: `changeID`, `changedObjectID`, `changeType` (its
    /// raw value), `changedEntity`, `tombstone`, `updatedProperties`, `transaction`; nil for
    /// other keys.
    public func value(forKey key: String) -> Any? {
        switch key {
        case "changeID": changeID
        case "changedObjectID": changedObjectID
        case "changeType": changeType.rawValue
        case "changedEntity": changedObjectID.entity.name
        case "tombstone": tombstone
        case "updatedProperties": updatedProperties
        case "transaction": transaction
        default: nil
        }
    }
}
