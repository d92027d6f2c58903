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
