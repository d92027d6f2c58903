import Logging
import OpenPredicate
import OpenSQLStore
import OpenStoreCore

/// A persistent store whose objects live in a `RowStore` back end: what contexts fetch from and
/// save to (the in-memory and SQLite stores).
class RowBackedPersistentStore: NSPersistentStore {
    /// The back end that keeps the rows and runs fetch plans.
    let rows: RowStore
    /// Posts `NSPersistentStoreRemoteChange` when the store's history grows (see
    /// `RemoteChangeWatcher`); nil unless the options ask for it.
    var remoteChangeWatcher: RemoteChangeWatcher?
    /// Whether the store was added with `NSPersistentHistoryTrackingKey` set: its saves then
    /// carry a `HistoryTransactionDraft` (read once, not per save).
    let tracksHistory: Bool
    /// The store's metrics and spans (see `StoreInstruments`).
    let instruments: StoreInstruments

    /// - Parameters:
    ///   - system: `db.system.name` of the store's spans and metrics.
    ///   - namespace: `db.namespace` of its spans.
    init(
        rows: RowStore, coordinator: NSPersistentStoreCoordinator, configurationName: String?, url: URL,
        options: [AnyHashable: Any]?, system: String, namespace: String
    ) {
        self.rows = rows
        tracksHistory = Self.optionFlag(options?[NSPersistentHistoryTrackingKey])
        instruments = StoreInstruments(system: system, namespace: namespace)
        super.init(persistentStoreCoordinator: coordinator, configurationName: configurationName, at: url, options: options)
    }

    /// The SQL trace a SQL store's options ask for: the `NSPersistentStoreLoggerKey` logger's,
    /// values redacted unless `NSPersistentStoreLoggerShowsValuesKey`; nil without a logger, or
    /// with one whose level is above `.debug`.
    static func sqlTrace(_ options: [AnyHashable: Any]?) -> SQLTrace? {
        guard let logger = options?[NSPersistentStoreLoggerKey] as? Logger else { return nil }
        return SQLTrace.store(logger: logger, showsValues: optionFlag(options?[NSPersistentStoreLoggerShowsValuesKey]))
    }

    deinit { remoteChangeWatcher?.stop() }
}
