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
        /// An object not saved yet.
        case temporary(UUID)
    }

    let identity: Identity
    private let entityDescription: NSEntityDescription
    private weak var store: NSPersistentStore?

    init(entity: NSEntityDescription, identity: Identity, store: NSPersistentStore?) {
        entityDescription = entity
        self.identity = identity
        self.store = store
        super.init()
    }

    /// A new temporary ID for an object inserted into a context.
    static func temporary(for entity: NSEntityDescription) -> NSManagedObjectID {
        NSManagedObjectID(entity: entity, identity: .temporary(UUID()), store: nil)
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
    /// `x-coredata:///<Entity>/t<UUID>` for a temporary ID.
    open func uriRepresentation() -> URL {
        let entityName = entityDescription.name ?? ""
        let text: String
        switch identity {
        case .permanent(let storeIdentifier, let key):
            text = "x-coredata://\(storeIdentifier)/\(entityName)/p\(key.primaryKey)"
        case .temporary(let token):
            text = "x-coredata:///\(entityName)/t\(token.uuidString)"
        }
        return URL(string: text) ?? URL(fileURLWithPath: "/")
    }

    /// IDs are immutable: a copy is the ID itself.
    open func copy(with zone: NSZone? = nil) -> Any { self }

    /// Equal when both name the same row of the same store, or are the same temporary ID.
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSManagedObjectID else { return false }
        return other === self || (other.identity == identity && other.entityDescription.name == entityDescription.name)
    }

    /// Agrees with `isEqual(_:)`.
    open override var hash: Int { identity.hashValue }

    /// The URI representation, as Apple's description shows it.
    open override var description: String { "\(uriRepresentation().absoluteString)" }
}
