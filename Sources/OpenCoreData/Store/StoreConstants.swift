import OpenPredicate

/// The type of the store that keeps everything in memory (`"InMemory"`).
public let NSInMemoryStoreType = "InMemory"
/// The type of the SQLite store (`"SQLite"`).
public let NSSQLiteStoreType = "SQLite"
/// The type of the PostgreSQL store (`"PostgreSQL"`): Apple's layout in a schema of a PostgreSQL
/// database that many app servers share; its URL is `postgres://user:password@host:port/database?schema=…`.
///
/// **Differences from Apple:** Apple's Core Data has no PostgreSQL store; this constant is this
/// package's addition.
public let NSPostgreSQLStoreType = "PostgreSQL"
/// The type of Apple's binary atomic store (`"Binary"`); not available on Linux yet.
public let NSBinaryStoreType = "Binary"

/// Option: open the store read-only (an `NSNumber`/`Bool`). **Default:** `false`. Honoured.
public let NSReadOnlyPersistentStoreOption = "NSReadOnlyPersistentStoreOption"

/// Metadata key: the store's type.
public let NSStoreTypeKey = "NSStoreType"
/// Metadata key: the store's UUID, which is also its `identifier`.
public let NSStoreUUIDKey = "NSStoreUUID"

/// Option: how long, in seconds, to wait for the store's lock (an `NSNumber`). Set by
/// `NSPersistentStoreDescription.timeout`.
///
/// **Differences from Apple:** the SQLite store ignores it and waits 5 seconds. The PostgreSQL
/// store waits this long for a connection of its pool (**Default:** 60 seconds), so that a
/// server that is gone fails a fetch or a fault after this time.
public let NSPersistentStoreTimeoutOption = "NSPersistentStoreTimeoutOption"
/// Option: SQLite pragmas, a dictionary of pragma names to values. Set by
/// `NSPersistentStoreDescription.setValue(_:forPragmaNamed:)`.
///
/// **Differences from Apple:** accepted and ignored: the store keeps its own settings (WAL
/// journal for a new file).
public let NSSQLitePragmasOption = "NSSQLitePragmasOption"
/// Option: migrate a store of an older model version when adding it (an `NSNumber`/`Bool`).
///
/// **Differences from Apple:** accepted and ignored: there is no migration yet, and a store of
/// another model is refused.
public let NSMigratePersistentStoresAutomaticallyOption = "NSMigratePersistentStoresAutomaticallyOption"
/// Option: infer the mapping model of such a migration (an `NSNumber`/`Bool`).
///
/// **Differences from Apple:** accepted and ignored (see
/// `NSMigratePersistentStoresAutomaticallyOption`).
public let NSInferMappingModelAutomaticallyOption = "NSInferMappingModelAutomaticallyOption"

/// Metadata key: the version hash of each entity of the model the store was made with
/// (`[String: Data]`, as `NSManagedObjectModel.entityVersionHashesByName`).
public let NSStoreModelVersionHashesKey = "NSStoreModelVersionHashes"
