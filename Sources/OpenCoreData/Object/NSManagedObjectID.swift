import OpenPredicate
import OpenStoreCore

/// The identity of a managed object: its entity, and either its row in a persistent store
/// (permanent) or a token given when it was inserted (temporary, until its first save).
///
/// IDs are immutable and can be passed between contexts and threads; a saved object gets a new,
/// permanent ID, so keep the one `obtainPermanentIDs(for:)` or `save()` gives. Two IDs are equal
/// when they name the same row of the same store (or are the same temporary ID).
///
/// See [NSManagedObjectID](https://developer.apple.com/documentation/coredata/nsmanagedobjectid).
open class NSManagedObjectID: NSObject, NSCopying, @unchecked Sendable {
    /// How the ID names its object.
    enum Identity: Hashable {
        /// A row of the store with this identifier.
        case permanent(storeIdentifier: String, key: ObjectKey)
        /// An object not saved yet: a number unique in this process.
        case temporary(UInt64)
    }

    let identity: Identity
    private let entityDescription: NSEntityDescription
    private weak var store: NSPersistentStore?
    /// Computed once: IDs are dictionary keys on every fetch.
    private let identityHash: Int

    init(entity: NSEntityDescription, identity: Identity, store: NSPersistentStore?) {
        entityDescription = entity
        self.identity = identity
        self.store = store
        // The row key (or number) alone: equal identities have equal keys, and hashing the
        // store's UUID string for every fetched row would cost more than the rare collision.
        // A cheap mix rather than SipHash: `NSObject`'s `hash(into:)` feeds `hash` to a seeded
        // `Hasher` anyway, so dictionaries of IDs stay as well spread.
        switch identity {
        case .permanent(_, let key):
            identityHash = Int(truncatingIfNeeded: key.primaryKey) &* 0x9E37_79B9 &+ key.entityID
        case .temporary(let number):
            identityHash = Int(truncatingIfNeeded: number) &* 0x9E37_79B9 &- 1
        }
        super.init()
    }

    private static let counterLock = NSLock()
    nonisolated(unsafe) private static var counter: UInt64 = 0
    /// Makes temporary IDs unique across processes too, as their URIs may be shown or logged.
    private static let processToken = UUID().uuidString

    /// A new temporary ID for an object inserted into a context.
    static func temporary(for entity: NSEntityDescription) -> NSManagedObjectID {
        counterLock.lock()
        counter += 1
        let number = counter
        counterLock.unlock()
        return NSManagedObjectID(entity: entity, identity: .temporary(number), store: nil)
    }

    /// The entity of the object.
    open var entity: NSEntityDescription { entityDescription }

    /// The store that holds the object; nil for a temporary ID.
    open var persistentStore: NSPersistentStore? { store }

    /// Whether the object has not been saved yet.
    open var isTemporaryID: Bool {
        if case .temporary = identity { return true }
        return false
    }

    /// The row key of a permanent ID.
    var key: ObjectKey? {
        if case .permanent(_, let key) = identity { return key }
        return nil
    }

    /// A URL that names the object across launches, as Apple spells it:
    /// `x-coredata://<store UUID>/<Entity>/p<primary key>` for a saved object, and
    /// `x-coredata:///<Entity>/t<UUID><n>` for a temporary ID.
    open func uriRepresentation() -> URL {
        let entityName = entityDescription.name ?? ""
        let text: String
        switch identity {
        case .permanent(let storeIdentifier, let key):
            text = "x-coredata://\(storeIdentifier)/\(entityName)/p\(key.primaryKey)"
        case .temporary(let number):
            text = "x-coredata:///\(entityName)/t\(Self.processToken)\(number)"
        }
        return URL(string: text) ?? URL(fileURLWithPath: "/")
    }

    /// IDs are immutable: a copy is the ID itself.
    open func copy(with zone: NSZone? = nil) -> Any { self }

    /// Equal when both name the same row of the same store, or are the same temporary ID.
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSManagedObjectID else { return false }
        return other === self || isSameID(as: other)
    }

    /// `isEqual(_:)` for two IDs, without the cast (for the context's registry).
    final func isSameID(as other: NSManagedObjectID) -> Bool {
        identityHash == other.identityHash && other.identity == identity
            && other.entityDescription.name == entityDescription.name
    }

    /// Agrees with `isEqual(_:)`.
    open override var hash: Int { identityHash }

    /// The URI representation, as Apple's description shows it.
    open override var description: String { "\(uriRepresentation().absoluteString)" }
}
