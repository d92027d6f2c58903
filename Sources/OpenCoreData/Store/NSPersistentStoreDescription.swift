import Logging
import OpenPredicate

/// What a persistent store is to be — its type, location, configuration and options — given
/// to `NSPersistentContainer.persistentStoreDescriptions` or to a coordinator's
/// `addPersistentStore(with:completionHandler:)`.
///
/// ```swift
/// let description = NSPersistentStoreDescription()
/// description.type = NSInMemoryStoreType
/// container.persistentStoreDescriptions = [description]
/// container.loadPersistentStores { description, error in
///     if let error { print("\(description.type): \(error)") }
/// }
/// ```
///
/// The convenience properties (`isReadOnly`, `timeout`, `shouldMigrateStoreAutomatically`,
/// `shouldInferMappingModelAutomatically`, the pragmas) are kept in `options` under their option
/// keys, as on Apple, so the store gets them all through its options.
///
/// **Differences from Apple:** `cloudKitContainerOptions` is not provided.
/// See [NSPersistentStoreDescription](https://developer.apple.com/documentation/coredata/nspersistentstoredescription).
open class NSPersistentStoreDescription: NSObject, NSCopying {
    /// The store's type: `NSSQLiteStoreType`, `NSInMemoryStoreType`, … **Default:** `NSSQLiteStoreType`.
    open var type: String = NSSQLiteStoreType

    /// The model configuration whose entities the store holds; `nil` for every entity.
    /// **Default:** `nil`.
    open var configuration: String?

    /// Where the store lives. **Default:** `nil` (the URL given to `init(url:)`).
    open var url: URL?

    /// The store's swift-log `Logger`: its SQL, at `.debug` and `.trace`, with bound values
    /// redacted (see `NSPersistentStoreLoggerKey`). The store gets it in its options under that
    /// key. **Default:** `nil`.
    ///
    /// ```swift
    /// var logger = Logger(label: "app.store")
    /// logger.logLevel = .debug
    /// description.logger = logger
    /// ```
    ///
    /// **Differences from Apple:** an OpenCoreData addition (`options` holds `NSObject`s only, so
    /// the logger is kept beside them).
    open var logger: Logger?

    /// Options for the store: `setOption(_:forKey:)`'s and the convenience properties'.
    ///
    /// **Default:** `NSMigratePersistentStoresAutomaticallyOption` and
    /// `NSInferMappingModelAutomaticallyOption`, both `true`.
    open private(set) var options: [String: NSObject] = [
        NSMigratePersistentStoresAutomaticallyOption: NSNumber(value: true),
        NSInferMappingModelAutomaticallyOption: NSNumber(value: true),
    ]

    /// Whether the store is added later, on another queue: `addPersistentStore(with:completionHandler:)`
    /// and `loadPersistentStores(completionHandler:)` then return at once and call their handler
    /// from a background queue. **Default:** `false` (added before they return).
    open var shouldAddStoreAsynchronously = false

    /// Creates a description for a store at a URL.
    ///
    /// - Parameter url: The store's location.
    public init(url: URL) {
        self.url = url
        super.init()
    }

    /// Creates a description without a URL (set `url`, or use a type that needs none, such as
    /// `NSInMemoryStoreType`).
    public override init() {
        super.init()
    }

    /// Sets an option (`nil` removes it).
    ///
    /// - Parameters:
    ///   - option: The option's value.
    ///   - key: The option's key, such as `NSReadOnlyPersistentStoreOption`.
    open func setOption(_ option: NSObject?, forKey key: String) {
        options[key] = option
    }

    /// Whether the store is opened read-only (`NSReadOnlyPersistentStoreOption`). **Default:** `false`.
    open var isReadOnly: Bool {
        get { flag(NSReadOnlyPersistentStoreOption, default: false) }
        set { options[NSReadOnlyPersistentStoreOption] = NSNumber(value: newValue) }
    }

    /// How long, in seconds, to wait for the store's lock (`NSPersistentStoreTimeoutOption`).
    ///
    /// **Default:** 240 seconds.
    ///
    /// **Differences from Apple:** the in-memory store never waits; the SQLite store does not
    /// read it yet (it waits 5 seconds for a busy file).
    open var timeout: TimeInterval {
        get { (options[NSPersistentStoreTimeoutOption] as? NSNumber)?.doubleValue ?? 240 }
        set { options[NSPersistentStoreTimeoutOption] = NSNumber(value: newValue) }
    }

    /// Whether a store of an older model version is migrated when added
    /// (`NSMigratePersistentStoresAutomaticallyOption`): the store's model is found among the
    /// versions of the model's file and the store migrated in place (see `NSMigrationManager`).
    /// **Default:** `true`.
    open var shouldMigrateStoreAutomatically: Bool {
        get { flag(NSMigratePersistentStoresAutomaticallyOption, default: true) }
        set { options[NSMigratePersistentStoresAutomaticallyOption] = NSNumber(value: newValue) }
    }

    /// Whether such a migration infers its mapping model (`NSInferMappingModelAutomaticallyOption`,
    /// see `NSMappingModel.inferredMappingModel(forSourceModel:destinationModel:)`).
    /// **Default:** `true`.
    open var shouldInferMappingModelAutomatically: Bool {
        get { flag(NSInferMappingModelAutomaticallyOption, default: true) }
        set { options[NSInferMappingModelAutomaticallyOption] = NSNumber(value: newValue) }
    }

    /// The SQLite pragmas set with `setValue(_:forPragmaNamed:)`, kept under
    /// `NSSQLitePragmasOption` in `options`. **Default:** empty.
    open var sqlitePragmas: [String: NSObject] {
        guard let pragmas = options[NSSQLitePragmasOption] as? NSDictionary else { return [:] }
        var result: [String: NSObject] = [:]
        for (key, value) in pragmas {
            if let key = key as? String, let value = value as? NSObject { result[key] = value }
        }
        return result
    }

    /// Sets an SQLite pragma for the store (`nil` removes it); Apple asks for `NSString` values.
    ///
    /// ```swift
    /// description.setValue("WAL" as NSString, forPragmaNamed: "journal_mode")
    /// ```
    ///
    /// The SQLite store sets them on its connection when it is added; `journal_mode` also
    /// chooses a new file's journal mode.
    /// See [setValue(_:forPragmaNamed:)](https://developer.apple.com/documentation/coredata/nspersistentstoredescription/setvalue(_:forpragmanamed:)).
    ///
    /// - Parameters:
    ///   - value: The pragma's value.
    ///   - name: The pragma's name, such as `"journal_mode"`.
    open func setValue(_ value: NSObject?, forPragmaNamed name: String) {
        var pragmas = sqlitePragmas
        pragmas[name] = value
        options[NSSQLitePragmasOption] = pragmas.isEmpty ? nil : NSDictionary(dictionary: pragmas)
    }

    /// A copy with the same type, configuration, URL, options, logger and asynchrony.
    open func copy(with zone: NSZone? = nil) -> Any {
        let copy = NSPersistentStoreDescription()
        copy.type = type
        copy.configuration = configuration
        copy.url = url
        copy.options = options
        copy.logger = logger
        copy.shouldAddStoreAsynchronously = shouldAddStoreAsynchronously
        return copy
    }

    /// The type and URL, as Apple's description shows them:
    /// `<NSPersistentStoreDescription: 0x…> (type: SQLite, url: file:///…/Model.sqlite)`.
    open override var description: String {
        let address = String(UInt(bitPattern: ObjectIdentifier(self).hashValue), radix: 16)
        return "<NSPersistentStoreDescription: 0x\(address)> (type: \(type), url: \(url?.absoluteString ?? "(null)"))"
    }

    private func flag(_ key: String, default value: Bool) -> Bool {
        (options[key] as? NSNumber)?.boolValue ?? value
    }
}
