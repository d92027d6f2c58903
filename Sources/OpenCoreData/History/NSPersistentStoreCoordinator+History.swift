import OpenPredicate
import OpenStoreCore

extension NSPersistentStoreCoordinator {
    /// A token covering every persistent-history transaction the stores have now.
    ///
    /// - Parameter stores: The stores the token covers; nil for every store that tracks
    ///   history (`NSPersistentHistoryTrackingKey`). Stores that do not are left out.
    /// - Returns: The token; nil when no store given tracks history. A store without any
    ///   transaction yet is covered with number 0 (fetching after the token returns all of its
    ///   transactions).
    /// See [currentPersistentHistoryToken(fromStores:)](https://developer.apple.com/documentation/coredata/nspersistentstorecoordinator/currentpersistenthistorytoken(fromstores:)).
    public func currentPersistentHistoryToken(fromStores stores: [Any]?) -> NSPersistentHistoryToken? {
        let candidates = stores.map { $0.compactMap { $0 as? NSPersistentStore } } ?? persistentStores
        var tokens: [String: Int64] = [:]
        for case let store as RowBackedPersistentStore in candidates where store.tracksHistory {
            guard let number = try? store.rows.lastHistoryTransactionNumber() else {
                tokens[store.identifier ?? ""] = 0
                continue
            }
            tokens[store.identifier ?? ""] = number
        }
        return tokens.isEmpty ? nil : NSPersistentHistoryToken(storeTokens: tokens)
    }
}
