import OpenPredicate
import OpenStoreCore
import Synchronization

/// The identity of a managed object: its entity, and either its row in a persistent store
/// (permanent) or a token given when it was inserted (temporary, until its first save).
///
/// IDs are immutable and can be passed between contexts and threads; a saved object gets a new,
/// permanent ID, so keep the one `obtainPermanentIDs(for:)` or `save()` gives. Two IDs are equal
/// when they name the same row of the same store (or are the same temporary ID).
///
/// See [NSManagedObjectID](https://developer.apple.com/documentation/coredata/nsmanagedobjectid).
open class NSManagedObjectID: NSObject, NSCopying, @unchecked Sendable {
    // @unchecked Sendable: immutable (its origin and key are `let`s; the origin is Sendable).

    /// What the ID shares with the other IDs of its store (or, temporary, of its entity).
    let origin: IDOrigin
    /// A permanent ID's row; for a temporary ID, entity 1 of its origin and the ID's number.
    let rowKey: ObjectKey

    init(origin: IDOrigin, key: ObjectKey) {
        self.origin = origin
        rowKey = key
        super.init()
    }

    /// The number of the last temporary identity given.
    private static let counter = Atomic<Int64>(0)
    /// Makes temporary IDs unique across processes too, as their URIs may be shown or logged.
    private static let processToken = UUID().uuidString

    /// The row key of a new temporary identity: entity 1 of its origin and a number no other
    /// temporary identity of this process has.
    static func nextTemporaryKey() -> ObjectKey {
        ObjectKey(entityID: 1, primaryKey: counter.add(1, ordering: .relaxed).newValue)
    }

    /// A new temporary ID for an object that has none.
    static func temporary(for entity: NSEntityDescription) -> NSManagedObjectID {
        NSManagedObjectID(origin: entity.temporaryIDOrigin, key: nextTemporaryKey())
    }

    /// The entity of the object.
    open var entity: NSEntityDescription { origin.entity(for: rowKey) }

    /// The store that holds the object; nil for a temporary ID.
    open var persistentStore: NSPersistentStore? { origin.store }

    /// Whether the object has not been saved yet.
    open var isTemporaryID: Bool { origin.isTemporary }

    /// The row key of a permanent ID.
    var key: ObjectKey? { origin.isTemporary ? nil : rowKey }

    /// A URL that names the object across launches, as Apple spells it:
    /// `x-coredata://<store UUID>/<Entity>/p<primary key>` for a saved object, and
    /// `x-coredata:///<Entity>/t<UUID><n>` for a temporary ID.
    open func uriRepresentation() -> URL {
        let entityName = entity.name ?? ""
        let text =
            origin.isTemporary
            ? "x-coredata:///\(entityName)/\(uriKeyComponent)"
            : "x-coredata://\(origin.storeIdentifier)/\(entityName)/\(uriKeyComponent)"
        return URL(string: text) ?? URL(fileURLWithPath: "/")
    }

    /// The last path component of `uriRepresentation()` (`p` and the primary key, or `t`, this
    /// process's token and the temporary number), made without the URI.
    package var uriKeyComponent: String {
        origin.isTemporary ? "t\(Self.processToken)\(rowKey.primaryKey)" : "p\(rowKey.primaryKey)"
    }

    /// IDs are immutable: a copy is the ID itself.
    open func copy(with zone: NSZone? = nil) -> Any { self }

    /// Equal when both name the same row of the same store, or are the same temporary ID.
    open override func isEqual(_ object: Any?) -> Bool {
        // A set or dictionary of IDs compares them here: the ID in `object` is read without
        // the dynamic cast of an `Any?` (see `ExactValue.storedObject(_:)`).
        guard let other = ExactValue.storedObject(object) as? NSManagedObjectID ?? object as? NSManagedObjectID else {
            return false
        }
        return other === self || isSameID(as: other)
    }

    /// `isEqual(_:)` for two IDs, without the cast (for the context's registry). IDs of one
    /// store share their origin, so the usual comparison is of two pointers and a key; IDs made
    /// by two coordinators of one store file compare by the store's identifier and entity name.
    final func isSameID(as other: NSManagedObjectID) -> Bool {
        guard rowKey == other.rowKey else { return false }
        if origin === other.origin { return true }
        return !origin.isTemporary && !other.origin.isTemporary && origin.storeIdentifier == other.origin.storeIdentifier
            && entity.name == other.entity.name
    }

    /// Agrees with `isEqual(_:)`: the row key (or number) alone. Equal IDs have equal keys, and
    /// hashing the store's UUID for every fetched row would cost more than the rare collision.
    /// A cheap mix rather than SipHash: `NSObject`'s `hash(into:)` feeds `hash` to a seeded
    /// `Hasher` anyway, so dictionaries of IDs stay as well spread.
    open override var hash: Int {
        Int(truncatingIfNeeded: rowKey.primaryKey) &* 0x9E37_79B9 &+ (origin.isTemporary ? -1 : rowKey.entityID)
    }

    /// The URI representation, as Apple's description shows it.
    open override var description: String { "\(uriRepresentation().absoluteString)" }
}

/// What the IDs of one store share — the store (held weakly), its identifier and the model's
/// entities by schema number — so that an ID is two words: its origin and its row key. Made once
/// per store (`NSPersistentStore.idOrigin(entities:)`); temporary IDs share one origin per entity.
final class IDOrigin: @unchecked Sendable {
    // @unchecked Sendable: immutable but for `store`, a weak reference, which the runtime reads and
    // clears atomically.

    private(set) weak var store: NSPersistentStore?
    let storeIdentifier: String
    /// The entities, by schema number (`entities[n - 1]`).
    let entities: [NSEntityDescription]
    /// The entities' layouts, by schema number like `entities`, where they are fixed (see
    /// `NSEntityDescription.hasFixedLayout`) when the origin is made: a fault finds its layout
    /// here without retaining its entity (entities are weakly referenced, so retaining one is
    /// the runtime's slow path).
    private let layouts: [PropertyLayout?]
    let isTemporary: Bool

    /// The origin of a store's permanent IDs.
    init(store: NSPersistentStore, identifier: String, entities: [NSEntityDescription]) {
        self.store = store
        storeIdentifier = identifier
        self.entities = entities
        layouts = Self.layouts(of: entities)
        isTemporary = false
    }

    /// The origin of an entity's temporary IDs.
    init(temporaryFor entity: NSEntityDescription) {
        storeIdentifier = ""
        entities = [entity]
        layouts = Self.layouts(of: entities)
        isTemporary = true
    }

    private static func layouts(of entities: [NSEntityDescription]) -> [PropertyLayout?] {
        entities.map { $0.hasFixedLayout ? $0.propertyLayout : nil }
    }

    /// The layout of the entity with a schema number, if it was fixed when the origin was made.
    @inline(__always)
    func layout(forEntityNumber number: Int) -> PropertyLayout? {
        layouts.indices.contains(number - 1) ? layouts[number - 1] : nil
    }

    /// The entity of a key (an empty one for a number the model lacks).
    @inline(__always)
    func entity(for key: ObjectKey) -> NSEntityDescription {
        entities.indices.contains(key.entityID - 1) ? entities[key.entityID - 1] : NSEntityDescription()
    }
}
