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
/// Option: record persistent history (an `NSNumber`/`Bool`): every save writes a transaction
/// with its changes, in the save's own transaction, that `NSPersistentHistoryChangeRequest`
/// reads. The SQLite and PostgreSQL stores write Apple's tables (`ATRANSACTION`, `ACHANGE`,
/// `ATRANSACTIONSTRING`), creating them when a store is opened with this option for the first
/// time; the in-memory store keeps history in memory. **Default:** off.
///
/// Keep it on for every coordinator that writes the store: saves made through a coordinator
/// that added the store without it record no history (Apple warns the same way), so readers
/// of the history miss them.
///
/// **Differences from Apple:** a store added without this option refuses history requests with
/// `NSPersistentStoreUnsupportedRequestTypeError`; it neither reads nor deletes the history
/// tables a file may have.
public let NSPersistentHistoryTrackingKey = "NSPersistentHistoryTrackingKey"
/// Option: post `NSPersistentStoreRemoteChange` when another coordinator or process changes the
/// store (an `NSNumber`/`Bool`). Its value is Apple's
/// (`"NSPersistentStoreRemoteChangeNotificationOptionKey"`).
///
/// The coordinator then posts `NSPersistentStoreRemoteChange` when the store gains
/// persistent-history transactions; the store must also track history
/// (`NSPersistentHistoryTrackingKey`). **Default:** off.
///
/// **Differences from Apple:** the SQLite and in-memory stores poll their newest transaction
/// number every 0.1 s (see `Notification.Name.NSPersistentStoreRemoteChange`) instead of being
/// told by the system; the PostgreSQL store is woken by a `NOTIFY` from the saving server and
/// also polls every second.
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
/// Option: do not compare the store's version hashes with the model's (an `NSNumber`/`Bool`):
/// a store written with another version of the model opens as long as its tables and
/// columns hold what the model needs (`NSPersistentStoreIncompatibleSchemaError` otherwise), and
/// no migration runs. Use it for read-only opens across versions that differ only in what the
/// store's layout does not show (optionality, defaults, validation, version hash modifiers).
/// **Default:** off.
public let NSIgnorePersistentStoreVersioningOption = "NSIgnorePersistentStoreVersioningOption"
/// Option: `destroyPersistentStore(at:ofType:options:)` destroys the store even when it cannot
/// be opened (an `NSNumber`/`Bool`).
///
/// **Differences from Apple:** accepted and ignored: `destroyPersistentStore` never opens the
/// store, so it always does this.
public let NSPersistentStoreForceDestroyOption = "NSPersistentStoreForceDestroyOption"
/// Option: the most connections the store opens (an `NSNumber`), and so the number of requests
/// it runs at once. The PostgreSQL store's pool size (**default** 8). The SQLite store's
/// connection for saves and, on a file in WAL mode, the read-only connections its fetches run on
/// side by side (**default:** the machine's active cores, at least 2, plus the one for saves; 1
/// runs fetches on the connection for saves, one at a time). Apple leaves the default to each
/// store.
public let NSPersistentStoreConnectionPoolMaxSizeKey = "NSPersistentStoreConnectionPoolMaxSizeKey"

/// Option: the swift-log `Logger` of the store (a `Logging.Logger`). The SQL stores log each
/// statement at `.debug` and, at `.trace`, its bound values (redacted: `bind[1] = <integer>`,
/// unless `NSPersistentStoreLoggerShowsValuesKey`), its row count and time; the PostgreSQL store
/// also gives it to postgres-nio for the pool's messages from `.info` up (connections failing or
/// closing). The logger's own level chooses: above `.debug`, the store logs no SQL (and the
/// process-wide `NSPersistentStoreCoordinator.sqlDebugLevel` applies). Set it on a description
/// with `NSPersistentStoreDescription.logger`. **Default:** none.
///
/// ```swift
/// var logger = Logger(label: "app.store")
/// logger.logLevel = .debug                                   // statements; .trace adds details
/// try coordinator.addPersistentStore(
///     ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: [NSPersistentStoreLoggerKey: logger])
/// ```
///
/// **Differences from Apple:** an OpenCoreData addition; the in-memory store ignores it.
public let NSPersistentStoreLoggerKey = "NSPersistentStoreLoggerKey"
/// Option: the store's `Logger` (`NSPersistentStoreLoggerKey`) shows bound values as they are,
/// rather than as their kind (an `NSNumber`/`Bool`). **Default:** false: values can be personal
/// data, and logs travel.
///
/// **Differences from Apple:** an OpenCoreData addition.
public let NSPersistentStoreLoggerShowsValuesKey = "NSPersistentStoreLoggerShowsValuesKey"
