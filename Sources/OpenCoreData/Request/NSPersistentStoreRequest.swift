import OpenPredicate

/// The kinds of request a store executes, with Apple's raw values.
///
/// See [NSPersistentStoreRequestType](https://developer.apple.com/documentation/coredata/nspersistentstorerequesttype).
public enum NSPersistentStoreRequestType: UInt, Sendable {
    /// A fetch request.
    case fetchRequestType = 1
    /// A save request.
    case saveRequestType = 2
    /// A batch insert request.
    case batchInsertRequestType = 5
    /// A batch update request.
    case batchUpdateRequestType = 6
    /// A batch delete request.
    case batchDeleteRequestType = 7
}

/// The common part of the requests a coordinator sends to its stores.
///
/// See [NSPersistentStoreRequest](https://developer.apple.com/documentation/coredata/nspersistentstorerequest).
open class NSPersistentStoreRequest: NSObject, NSCopying {
    /// The stores to search; `nil` means every store of the coordinator. **Default:** `nil`.
    open var affectedStores: [NSPersistentStore]?

    /// The kind of request.
    open var requestType: NSPersistentStoreRequestType { .fetchRequestType }

    /// Creates a request that affects every store.
    public override init() {
        super.init()
    }

    /// Returns a copy with the same affected stores.
    open func copy(with zone: NSZone? = nil) -> Any {
        let copy = NSPersistentStoreRequest()
        copy.affectedStores = affectedStores
        return copy
    }
}
