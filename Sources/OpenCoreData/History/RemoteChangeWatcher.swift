import OpenPredicate
import OpenStoreCore

extension Notification.Name {
    /// Posted by a coordinator when one of its stores added with
    /// `NSPersistentStoreRemoteChangeNotificationPostOptionKey` gains persistent-history
    /// transactions. `object` is the coordinator; `userInfo` has `NSStoreUUIDKey`,
    /// `NSPersistentStoreURLKey` and `NSPersistentHistoryTokenKey` (a token covering the newest
    /// transaction).
    ///
    /// **Differences from Apple:** the store notices new transactions by polling its newest
    /// transaction number (`RowStore.lastHistoryTransactionNumber()`) every 0.1 s, so the
    /// notification comes up to that long after the save, from any process or coordinator
    /// (this coordinator's own saves included, as Apple's are). The store must also track
    /// history: without `NSPersistentHistoryTrackingKey` nothing is posted.
    /// See [NSPersistentStoreRemoteChange](https://developer.apple.com/documentation/foundation/nsnotification/name-swift.struct/nspersistentstoreremotechange).
    public static let NSPersistentStoreRemoteChange = Notification.Name("NSPersistentStoreRemoteChangeNotification")
}

/// `userInfo` key of `NSPersistentStoreRemoteChange`: the store's URL.
public let NSPersistentStoreURLKey = "storeURL"
/// `userInfo` key of `NSPersistentStoreRemoteChange`: an `NSPersistentHistoryToken` covering
/// the newest transaction.
public let NSPersistentHistoryTokenKey = "historyToken"

/// Watches a store's newest persistent-history transaction number and posts
/// `NSPersistentStoreRemoteChange` when it grows.
///
/// A timer on a private queue calls `check()` every `interval`; another store kind with a push
/// mechanism (PostgreSQL's `NOTIFY`) calls `check()` when woken instead. The history stays the
/// source of truth: a notification only says "read the history after your token".
final class RemoteChangeWatcher: @unchecked Sendable {
    // @unchecked Sendable: `lastSeen` and `timer` are behind `lock`; `store` is a weak reference,
    // which the runtime reads and clears atomically.

    private weak var store: RowBackedPersistentStore?
    private let lock = NSLock()
    private var lastSeen: Int64?
    private var timer: DispatchSourceTimer?
    private static let queue = DispatchQueue(label: "OpenCoreData.RemoteChangeWatcher")

    /// How often the store is polled.
    static let interval: DispatchTimeInterval = .milliseconds(100)

    init(store: RowBackedPersistentStore) {
        self.store = store
        lastSeen = try? store.rows.lastHistoryTransactionNumber()
    }

    /// Starts polling, every `interval`.
    func start(interval: DispatchTimeInterval = RemoteChangeWatcher.interval) {
        let timer = DispatchSource.makeTimerSource(queue: Self.queue)
        timer.schedule(deadline: .now() + interval, repeating: interval)
        timer.setEventHandler { [weak self] in self?.check() }
        lock.lock()
        self.timer = timer
        lock.unlock()
        timer.resume()
    }

    /// Stops polling (when the store is removed).
    func stop() {
        lock.lock()
        let timer = self.timer
        self.timer = nil
        lock.unlock()
        timer?.cancel()
    }

    /// Posts `NSPersistentStoreRemoteChange` if the store has a transaction newer than the last
    /// one seen. Returns whether it posted.
    @discardableResult
    func check() -> Bool {
        guard let store, let coordinator = store.persistentStoreCoordinator,
            let number = try? store.rows.lastHistoryTransactionNumber()
        else { return false }
        lock.lock()
        let isNew = number > (lastSeen ?? 0)
        if isNew { lastSeen = number }
        lock.unlock()
        guard isNew else { return false }
        let storeID = store.identifier ?? ""
        var info: [AnyHashable: Any] = [
            NSStoreUUIDKey: storeID, NSPersistentHistoryTokenKey: NSPersistentHistoryToken(storeTokens: [storeID: number]),
        ]
        if let url = store.url { info[NSPersistentStoreURLKey] = url }
        NotificationCenter.default.post(name: .NSPersistentStoreRemoteChange, object: coordinator, userInfo: info)
        return true
    }

    deinit { timer?.cancel() }
}

extension RowBackedPersistentStore {
    /// Whether the store was added with `NSPersistentStoreRemoteChangeNotificationPostOptionKey`
    /// set.
    var postsRemoteChanges: Bool { Self.optionFlag(options?[NSPersistentStoreRemoteChangeNotificationPostOptionKey]) }

    /// An option's Boolean value (`Bool`, `NSNumber`, or a string such as `"YES"`).
    static func optionFlag(_ value: Any?) -> Bool {
        switch value {
        case let value as Bool: return value
        case let value as NSNumber: return value.boolValue
        case let value as String: return (value as NSString).boolValue
        default: return false
        }
    }

    /// Starts the remote-change watcher when the options ask for it (and history is tracked),
    /// polling every `interval`; nil when it does not.
    @discardableResult
    func startWatchingRemoteChanges(interval: DispatchTimeInterval = RemoteChangeWatcher.interval) -> RemoteChangeWatcher? {
        guard postsRemoteChanges, tracksHistory, remoteChangeWatcher == nil else { return nil }
        let watcher = RemoteChangeWatcher(store: self)
        remoteChangeWatcher = watcher
        watcher.start(interval: interval)
        return watcher
    }
}
