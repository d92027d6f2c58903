import OpenPredicate

/// The type of the store that keeps everything in memory (`"InMemory"`).
public let NSInMemoryStoreType = "InMemory"
/// The type of the SQLite store (`"SQLite"`).
public let NSSQLiteStoreType = "SQLite"
/// The type of Apple's binary atomic store (`"Binary"`); not available on Linux yet.
public let NSBinaryStoreType = "Binary"

/// Option: open the store read-only (an `NSNumber`/`Bool`). **Default:** `false`.
public let NSReadOnlyPersistentStoreOption = "NSReadOnlyPersistentStoreOption"

/// Metadata key: the store's type.
public let NSStoreTypeKey = "NSStoreType"
/// Metadata key: the store's UUID, which is also its `identifier`.
public let NSStoreUUIDKey = "NSStoreUUID"

/// Option: how long, in seconds, to wait for the store's lock (an `NSNumber`). Set by
/// `NSPersistentStoreDescription.timeout`.
public let NSPersistentStoreTimeoutOption = "NSPersistentStoreTimeoutOption"
/// Option: SQLite pragmas, a dictionary of pragma names to values. Set by
/// `NSPersistentStoreDescription.setValue(_:forPragmaNamed:)`.
public let NSSQLitePragmasOption = "NSSQLitePragmasOption"
/// Option: migrate a store of an older model version when adding it (an `NSNumber`/`Bool`).
public let NSMigratePersistentStoresAutomaticallyOption = "NSMigratePersistentStoresAutomaticallyOption"
/// Option: infer the mapping model of such a migration (an `NSNumber`/`Bool`).
public let NSInferMappingModelAutomaticallyOption = "NSInferMappingModelAutomaticallyOption"

/// Metadata key: the version hash of each entity of the model the store was made with
/// (`[String: Data]`, as `NSManagedObjectModel.entityVersionHashesByName`).
public let NSStoreModelVersionHashesKey = "NSStoreModelVersionHashes"
