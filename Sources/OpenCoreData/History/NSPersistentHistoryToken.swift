import OpenPredicate

/// A bookmark in persistent history: for each store, the number of the last transaction it
/// covers. Fetching history after a token returns only later transactions.
///
/// ```swift
/// let token = coordinator.currentPersistentHistoryToken(fromStores: nil)
/// let data = try NSKeyedArchiver.archivedData(withRootObject: token!, requiringSecureCoding: true)
/// ```
///
/// Tokens are opaque, equal when they cover the same transactions of the same stores, and
/// archive with secure coding (keep the last one processed between launches).
/// See [NSPersistentHistoryToken](https://developer.apple.com/documentation/coredata/nspersistenthistorytoken).
open class NSPersistentHistoryToken: NSObject, NSCopying, NSSecureCoding, @unchecked Sendable {
    // @unchecked Sendable: immutable once made.

    /// Transaction numbers by store identifier (`NSStoreUUIDKey`).
    let storeTokens: [String: Int64]

    init(storeTokens: [String: Int64]) {
        self.storeTokens = storeTokens
        super.init()
    }

    /// Whether the token can be archived with secure coding: always true.
    public class var supportsSecureCoding: Bool { true }

    /// Archives the token (its transaction numbers by store).
    public func encode(with coder: NSCoder) {
        let stores = NSMutableDictionary()
        for (store, number) in storeTokens { stores[NSString(string: store)] = NSNumber(value: number) }
        coder.encode(stores, forKey: "storeTokens")
    }

    /// Unarchives a token archived by `encode(with:)`; nil when the archive holds none.
    public required init?(coder: NSCoder) {
        guard
            let stores = coder.decodeObject(
                of: [NSDictionary.self, NSString.self, NSNumber.self], forKey: "storeTokens") as? NSDictionary
        else { return nil }
        var tokens: [String: Int64] = [:]
        for (key, value) in stores {
            guard let store = key as? String ?? (key as? NSString).map(String.init), let number = value as? NSNumber
            else { continue }
            tokens[store] = number.int64Value
        }
        storeTokens = tokens
        super.init()
    }

    /// The token itself (tokens are immutable).
    open func copy(with zone: NSZone? = nil) -> Any { self }

    /// Equal when both cover the same transactions of the same stores.
    open override func isEqual(_ object: Any?) -> Bool {
        (object as? NSPersistentHistoryToken)?.storeTokens == storeTokens
    }

    /// A hash consistent with `isEqual(_:)`.
    open override var hash: Int {
        var hasher = Hasher()
        for store in storeTokens.keys.sorted() {
            hasher.combine(store)
            hasher.combine(storeTokens[store])
        }
        return hasher.finalize()
    }

    /// The transaction numbers by store, as Apple's description shows them.
    open override var description: String {
        "<NSPersistentHistoryToken - "
            + storeTokens.keys.sorted().map { "\($0): \(storeTokens[$0] ?? 0)" }.joined(separator: ", ")
            + ">"
    }
}
