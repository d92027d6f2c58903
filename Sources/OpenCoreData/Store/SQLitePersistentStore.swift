import OpenPredicate
import OpenSQLStore
import OpenSQLiteStore
import OpenStoreCore

/// `NSSQLiteStoreType`: a Core Data SQLite file in Apple's layout (see `SQLiteRowStore`).
///
/// Adding the store creates the file (WAL journal, metadata with the model's version hashes and
/// a new UUID) or opens an existing one, whose version hashes must equal the model's; with
/// `NSMigratePersistentStoresAutomaticallyOption`, a file of an older version of the model is
/// migrated first (`LightweightMigration`). The
/// store's `identifier` is the file's UUID (`Z_METADATA.Z_UUID`), so object ID URIs stay valid
/// across launches.
///
/// A store at `URL(fileURLWithPath: "/dev/null")` is an in-memory SQLite database, as on Apple
/// (the usual way tests get a fresh SQLite store): each such store starts empty, is its own
/// database, and is gone when it is removed.
///
/// Fetches run as one SQL statement where `SQLCompiler` can compile them, in memory otherwise
/// (`NSPersistentStoreCoordinator.explain(_:in:)` tells which, and why). On a file in WAL mode
/// they read with connections of their own, side by side and never waiting for a save:
/// `NSPersistentStoreConnectionPoolMaxSizeKey` counts them with the store's own connection
/// (**default:** the machine's active cores, at least 2, plus 1; 1 reads on the store's
/// connection, one fetch or save at a time).
///
/// `NSSQLitePragmasOption` pragmas are set on the store's connection when it is added
/// (`journal_mode` also chooses a new file's journal mode: `WAL` unless it says otherwise).
/// Their names must be identifiers and their values identifiers or whole numbers.
///
/// **Differences from Apple:** metadata set with `setMetadata(_:for:)` is kept in memory only.
final class SQLitePersistentStore: RowBackedPersistentStore {
    /// Opens or creates the file.
    /// - Throws: `NSPersistentStoreOpenError` (no URL, unreadable file, not a database),
    ///   `NSPersistentStoreInvalidTypeError` (not a Core Data store),
    ///   `NSPersistentStoreIncompatibleVersionHashError` (another model's store, naming the
    ///   entities), `NSPersistentStoreIncompatibleSchemaError` (tables or columns missing).
    init(
        coordinator: NSPersistentStoreCoordinator, schema: StoreSchema, configurationName: String?, url: URL?,
        options: [AnyHashable: Any]?
    ) throws {
        guard let url, url.isFileURL else {
            throw CoreDataError.make(
                code: NSPersistentStoreOpenError, reason: "A SQLite store needs a file URL, not \(url?.absoluteString ?? "nil")",
                userInfo: [NSStoreTypeKey: NSSQLiteStoreType])
        }
        let readOnly = SQLitePersistentStore.flag(options?[NSReadOnlyPersistentStoreOption])
        let model = coordinator.managedObjectModel
        try LightweightMigration.migrateIfNeeded(at: url, type: NSSQLiteStoreType, model: model, options: options)
        let identifiers = model.versionIdentifiers.compactMap { $0 as? String }.sorted()
        let rows = try SQLiteRowStore.open(
            at: url, schema: schema, readOnly: readOnly, modelVersionHashes: model.entityVersionHashesByName,
            versionIdentifiers: identifiers.isEmpty ? [""] : identifiers,
            pragmas: SQLitePersistentStore.pragmas(options?[NSSQLitePragmasOption]),
            tracksHistory: RowBackedPersistentStore.optionFlag(options?[NSPersistentHistoryTrackingKey]),
            checksVersionHashes: !SQLitePersistentStore.flag(options?[NSIgnorePersistentStoreVersioningOption]),
            trace: Self.sqlTrace(options),
            readerLimit: (options?[NSPersistentStoreConnectionPoolMaxSizeKey] as? NSNumber).map { max($0.intValue - 1, 0) }
                ?? SQLiteRowStore.defaultReaderLimit)
        super.init(
            rows: rows, coordinator: coordinator, configurationName: configurationName, url: url, options: options,
            system: "sqlite", namespace: url.lastPathComponent)
        isReadOnly = readOnly
        if let uuid = rows.storeUUID { identifier = uuid }
        startWatchingRemoteChanges()
    }

    override class var storeTypeName: String { NSSQLiteStoreType }

    /// The pragmas of `NSSQLitePragmasOption` (a dictionary of names to `NSString` or
    /// `NSNumber` values), sorted by name so that they apply in the same order every time.
    private static func pragmas(_ option: Any?) -> [(name: String, value: String)] {
        var pragmas: [(name: String, value: String)] = []
        if let dictionary = option as? NSDictionary {
            for (key, value) in dictionary {
                guard let name = key as? String else { continue }
                switch value {
                case let number as NSNumber: pragmas.append((name, number.stringValue))
                case let text as String: pragmas.append((name, text))
                case let text as NSString: pragmas.append((name, text as String))
                default: pragmas.append((name, "\(value)"))
                }
            }
        } else if let dictionary = option as? [String: Any] {
            return Self.pragmas(NSDictionary(dictionary: dictionary))
        }
        return pragmas.sorted { $0.name < $1.name }
    }

    /// A Boolean option given as `Bool` or `NSNumber`.
    private static func flag(_ value: Any?) -> Bool {
        switch value {
        case let value as Bool: return value
        case let value as NSNumber: return value.boolValue
        default: return false
        }
    }
}
