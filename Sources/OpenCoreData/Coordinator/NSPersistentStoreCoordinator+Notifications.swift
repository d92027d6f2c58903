import OpenPredicate

/// `userInfo` key of `NSPersistentStoreCoordinatorStoresWillChange` / `DidChange`: the stores
/// added (an array of `NSPersistentStore`).
public let NSAddedPersistentStoresKey = "added"
/// `userInfo` key of `NSPersistentStoreCoordinatorStoresWillChange` / `DidChange`: the stores
/// removed (an array of `NSPersistentStore`).
public let NSRemovedPersistentStoresKey = "removed"
/// `userInfo` key of `NSPersistentStoreCoordinatorStoresDidChange`: a store whose UUID changed.
///
/// **Differences from Apple:** never posted here (a store's UUID changes only by migration).
public let NSUUIDChangedPersistentStoresKey = "changedUUID"

extension Notification.Name {
    /// Posted by a coordinator before a store is added (`addPersistentStore(…)`) or removed
    /// (`remove(_:)`), with the store under `NSAddedPersistentStoresKey` or
    /// `NSRemovedPersistentStoresKey`; the notification's `object` is the coordinator.
    ///
    /// **Differences from Apple:** for an added store, the store is already open (its
    /// metadata is read) when this is posted.
    /// See [NSPersistentStoreCoordinatorStoresWillChange](https://developer.apple.com/documentation/foundation/nsnotification/name-swift.struct/nspersistentstorecoordinatorstoreswillchange).
    public static let NSPersistentStoreCoordinatorStoresWillChange = Notification.Name(
        "NSPersistentStoreCoordinatorStoresWillChangeNotification")

    /// Posted by a coordinator after a store was added or removed, with the store under
    /// `NSAddedPersistentStoresKey` or `NSRemovedPersistentStoresKey`; the notification's
    /// `object` is the coordinator.
    ///
    /// See [NSPersistentStoreCoordinatorStoresDidChange](https://developer.apple.com/documentation/foundation/nsnotification/name-swift.struct/nspersistentstorecoordinatorstoresdidchange).
    public static let NSPersistentStoreCoordinatorStoresDidChange = Notification.Name(
        "NSPersistentStoreCoordinatorStoresDidChangeNotification")
}

extension NSPersistentStoreCoordinator {
    /// Posts `NSPersistentStoreCoordinatorStoresWillChange`.
    func postStoresWillChange(added: [NSPersistentStore], removed: [NSPersistentStore]) {
        NotificationCenter.default.post(
            name: .NSPersistentStoreCoordinatorStoresWillChange, object: self, userInfo: Self.storeChanges(added, removed))
    }

    /// Posts `NSPersistentStoreCoordinatorStoresDidChange`.
    func postStoresDidChange(added: [NSPersistentStore], removed: [NSPersistentStore]) {
        NotificationCenter.default.post(
            name: .NSPersistentStoreCoordinatorStoresDidChange, object: self, userInfo: Self.storeChanges(added, removed))
    }

    private static func storeChanges(_ added: [NSPersistentStore], _ removed: [NSPersistentStore]) -> [String: Any] {
        var info: [String: Any] = [:]
        if !added.isEmpty { info[NSAddedPersistentStoresKey] = added }
        if !removed.isEmpty { info[NSRemovedPersistentStoresKey] = removed }
        return info
    }
}
