import OpenPredicate

extension NSPersistentStore {
    /// Test hook: runs the remote-change check now instead of waiting for the timer; true when
    /// it posted `NSPersistentStoreRemoteChange`. False for a store that does not post them.
    package func testingCheckForRemoteChanges() -> Bool {
        (self as? RowBackedPersistentStore)?.remoteChangeWatcher?.check() ?? false
    }
}
