import OpenPredicate

// Store option keys that set-up code written for Apple's Core Data names, with Apple's values.
// Each says what this package does with it: most are accepted (so that the code builds and
// the store opens) and ignored, because what they switch on does not exist here.

/// Option: let the binary store decode archived values without secure coding (an `NSNumber`).
///
/// **Differences from Apple:** accepted and ignored: the binary store is not available here.
public let NSBinaryStoreInsecureDecodingCompatibilityOption = "NSBinaryStoreInsecureDecodingCompatibilityOption"
/// Option: the classes the binary store may decode (a set of class names).
///
/// **Differences from Apple:** accepted and ignored: the binary store is not available here.
public let NSBinaryStoreSecureDecodingClasses = "NSBinaryStoreSecureDecodingClasses"
/// Option: record persistent history (an `NSNumber`/`Bool`).
///
/// **Differences from Apple:** accepted and ignored: persistent history is not recorded here.
public let NSPersistentHistoryTrackingKey = "NSPersistentHistoryTrackingKey"
/// Option: post `NSPersistentStoreRemoteChange` when another coordinator or process changes the
/// store (an `NSNumber`/`Bool`). Its value is Apple's
/// (`"NSPersistentStoreRemoteChangeNotificationOptionKey"`).
///
/// **Differences from Apple:** accepted and ignored: no remote change notification is posted.
public let NSPersistentStoreRemoteChangeNotificationPostOptionKey = "NSPersistentStoreRemoteChangeNotificationOptionKey"
/// Option: rebuild the SQLite file with `VACUUM` when saving (an `NSNumber`/`Bool`).
///
/// **Differences from Apple:** accepted and ignored.
public let NSSQLiteManualVacuumOption = "NSSQLiteManualVacuumOption"
/// Option: run SQLite's `ANALYZE` when adding the store (an `NSNumber`/`Bool`).
///
/// **Differences from Apple:** accepted and ignored.
public let NSSQLiteAnalyzeOption = "NSSQLiteAnalyzeOption"
/// Option: the data protection class of the store's files (a `FileProtectionType` value).
///
/// **Differences from Apple:** accepted and ignored: Linux has no data protection classes.
public let NSPersistentStoreFileProtectionKey = "NSPersistentStoreFileProtectionKey"
/// Option: do not compare the store's version hashes with the model's (an `NSNumber`/`Bool`).
///
/// **Differences from Apple:** accepted and ignored: a store of another model is refused.
public let NSIgnorePersistentStoreVersioningOption = "NSIgnorePersistentStoreVersioningOption"
/// Option: `destroyPersistentStore(at:ofType:options:)` destroys the store even when it cannot
/// be opened (an `NSNumber`/`Bool`).
///
/// **Differences from Apple:** accepted and ignored: `destroyPersistentStore` never opens the
/// store, so it always does this.
public let NSPersistentStoreForceDestroyOption = "NSPersistentStoreForceDestroyOption"
/// Option: the most connections the SQLite store opens for concurrent reads (an `NSNumber`).
///
/// **Differences from Apple:** accepted and ignored: the store has one connection.
public let NSPersistentStoreConnectionPoolMaxSizeKey = "NSPersistentStoreConnectionPoolMaxSizeKey"
