import OpenPredicate

/// A persistent store: where a coordinator keeps the objects of some of its entities.
///
/// This is the store's description (type, location, configuration, options); loading and
/// fetching come with the coordinator.
///
/// See [NSPersistentStore](https://developer.apple.com/documentation/coredata/nspersistentstore).
open class NSPersistentStore: NSObject {
    /// Creates a store for a coordinator.
    ///
    /// - Parameters:
    ///   - root: The coordinator the store belongs to.
    ///   - name: The configuration whose entities the store holds; `nil` for the default (all).
    ///   - url: The store's location.
    ///   - options: Store options (`NSReadOnlyPersistentStoreOption`, …).
    public init(
        persistentStoreCoordinator root: NSPersistentStoreCoordinator?, configurationName name: String?, at url: URL,
        options: [AnyHashable: Any]?
    ) {
        persistentStoreCoordinator = root
        configurationName = name ?? NSManagedObjectModel.defaultConfigurationName
        self.url = url
        self.options = options
        super.init()
    }

    /// The coordinator the store belongs to; held weakly.
    open private(set) weak var persistentStoreCoordinator: NSPersistentStoreCoordinator?

    /// The configuration whose entities the store holds. **Default:** `"PF_DEFAULT_CONFIGURATION_NAME"`.
    open var configurationName: String

    /// The store's location.
    open var url: URL?

    /// The options the store was added with.
    open private(set) var options: [AnyHashable: Any]?

    /// The store's unique identifier (its UUID, kept in its metadata). **Default:** a new UUID.
    // swift-format-ignore: NeverUseImplicitlyUnwrappedOptionals
    // Apple's type, so that `if let` and plain uses both compile as they do on Apple.
    open var identifier: String! = UUID().uuidString

    /// The store's type name. **Default:** the class's `type`.
    open var type: String { Swift.type(of: self).storeTypeName }

    /// Whether the store refuses changes. **Default:** `false`.
    open var isReadOnly: Bool = false

    /// The name of the store type this class implements.
    class var storeTypeName: String { "" }

    /// What the store's object IDs share, made by `idOrigin(entities:)`.
    private var cachedIDOrigin: IDOrigin?

    /// The origin of the store's permanent IDs: one for the store's life, or until its
    /// `identifier` changes (IDs made before keep the identifier they were made with).
    func idOrigin(entities: [NSEntityDescription]) -> IDOrigin {
        metadataLock.lock()
        defer { metadataLock.unlock() }
        let identifier = self.identifier ?? ""
        if let origin = cachedIDOrigin, origin.storeIdentifier == identifier { return origin }
        let origin = IDOrigin(store: self, identifier: identifier, entities: entities)
        cachedIDOrigin = origin
        return origin
    }

    /// Metadata set with `metadata` or the coordinator's `setMetadata(_:for:)`.
    private var storedMetadata: [String: Any] = [:]
    private let metadataLock = NSLock()

    /// The store's metadata: what the store records about itself, plus keys set by the app.
    ///
    /// ```swift
    /// var metadata = store.metadata ?? [:]
    /// metadata["lastImport"] = Date()
    /// coordinator.setMetadata(metadata, for: store)
    /// ```
    ///
    /// Always holds `NSStoreTypeKey` (the store's `type`), `NSStoreUUIDKey` (its `identifier`)
    /// and, for a store of a coordinator, `NSStoreModelVersionHashesKey` (the model's
    /// `entityVersionHashesByName`); setting the metadata replaces every other key, and values
    /// given for those three are ignored.
    ///
    /// **Default:** those keys only.
    ///
    /// **Differences from Apple:** the in-memory store keeps metadata in memory only; the store's
    /// UUID cannot be changed through its metadata (object IDs carry it).
    /// See [metadata](https://developer.apple.com/documentation/coredata/nspersistentstore/metadata).
    // swift-format-ignore: NeverUseImplicitlyUnwrappedOptionals
    // Apple's type, so that `if let` and plain uses both compile as they do on Apple.
    open var metadata: [String: Any]! {
        get {
            metadataLock.lock()
            var metadata = storedMetadata
            metadataLock.unlock()
            metadata[NSStoreTypeKey] = type
            metadata[NSStoreUUIDKey] = identifier ?? ""
            if let model = persistentStoreCoordinator?.managedObjectModel {
                metadata[NSStoreModelVersionHashesKey] = model.entityVersionHashesByName
            }
            return metadata
        }
        set {
            var metadata = newValue ?? [:]
            metadata[NSStoreTypeKey] = nil
            metadata[NSStoreUUIDKey] = nil
            metadata[NSStoreModelVersionHashesKey] = nil
            metadataLock.lock()
            storedMetadata = metadata
            metadataLock.unlock()
        }
    }
}
