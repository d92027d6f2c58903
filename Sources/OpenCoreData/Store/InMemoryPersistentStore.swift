import OpenInMemoryStore
import OpenPredicate
import OpenStoreCore

/// `NSInMemoryStoreType`: a store that keeps rows in memory for as long as it is attached;
/// nothing is written anywhere.
final class InMemoryPersistentStore: RowBackedPersistentStore {
    init(
        coordinator: NSPersistentStoreCoordinator, schema: StoreSchema, configurationName: String?, url: URL?,
        options: [AnyHashable: Any]?
    ) {
        super.init(
            rows: InMemoryRowStore(schema: schema), coordinator: coordinator, configurationName: configurationName,
            url: url ?? URL(fileURLWithPath: "/dev/null"), options: options, system: "opencoredata.in_memory",
            namespace: "memory")
        isReadOnly = (options?[NSReadOnlyPersistentStoreOption] as? Bool) ?? false
        startWatchingRemoteChanges()
    }

    override class var storeTypeName: String { NSInMemoryStoreType }
}
