// The parts of an object's storage beyond its own fields (see `NSManagedObject`): one word
// for what it links to, one for where its entity, ID and context come from, one byte of flags.

import OpenStoreCore
import Synchronization

/// What an object keeps beyond a fault's fields, in one word: its fetched row, its batch while a
/// batched fault, or once it has values, extras or a made ID of its own, its state, which then
/// holds the row and the batch too.
enum ObjectLink {
    /// The fetched row (see `NSManagedObject.fetchedRow`).
    case row([StoreValue])
    /// The fetched row, in the block of rows its fetch read (see `RowBlock`); the row's index in
    /// the block is kept where the version otherwise is, and its version in the block.
    case block(RowBlock)
    /// The batch of a batched fault (see `NSManagedObject.batchMember`).
    case batch(FaultBatch)
    case state(ObjectState)
}

/// What an object keeps once it has values of its own, extras or a made ID (see `ObjectLink`).
///
/// Touched only through its object, on its context's queue, as the object's own fields are:
/// dynamic exclusivity checks are left out (`@exclusivity(unchecked)`), on every read.
final class ObjectState {
    /// The object's current values (see `NSManagedObject.storedValues`).
    @exclusivity(unchecked) var values: PropertyValues
    /// See `NSManagedObject.extras`.
    @exclusivity(unchecked) var extras: ObjectExtras?
    /// See `NSManagedObject.fetchedRow`.
    @exclusivity(unchecked) var fetchedRow: [StoreValue]?
    /// The object's ID, once made (see `NSManagedObject.objectID`).
    @exclusivity(unchecked) var id: NSManagedObjectID?
    /// The batch of a batched fault that has a state too (see `NSManagedObject.batchMember`).
    @exclusivity(unchecked) var batch: FaultBatch?
    /// A row version beyond the object's 32-bit field (see `NSManagedObject.version`).
    @exclusivity(unchecked) var wideVersion: Int64 = 0

    init(values: PropertyValues) {
        self.values = values
    }
}

/// Where an object's entity, ID and context come from, in one word: its entity alone while it
/// has neither an identity nor a context (no allocation for a new object), else a `HomeBase`
/// that objects share.
enum ObjectHome {
    case entity(NSEntityDescription)
    case base(HomeBase)
}

/// The context and ID origin an object has, shared by every object of a context whose IDs come
/// from one origin (`NSManagedObjectContext.homeBase(for:)`), so that an object holds its
/// context through one strong reference rather than a weak one of its own: weak references
/// live in a side table whose counts are atomic, at the cost of two of them per object, made
/// and dropped.
///
/// The base holds the context weakly (the context holds its bases), and the context's registry,
/// its origin and, for an object with no identity or an identity whose origin has another
/// description of the object's entity, that entity, strongly. The registry is there so that
/// an object leaving it (in its `deinit`, on any thread) or looking a destination up in it
/// need not load and retain the context: a weakly referenced object's retains take the
/// runtime's slow path.
final class HomeBase {
    /// The context; nil for objects of none, or once it is gone.
    weak var context: NSManagedObjectContext?
    /// The context's registry (nil with no context), which may outlive it.
    let registry: ObjectRegistry?
    /// The origin of the objects' IDs; nil while they have none.
    let origin: IDOrigin?
    /// The objects' entity where `origin` does not give it (see above); nil otherwise.
    let entity: NSEntityDescription?
    /// Whether a fault of this base fetched with its row fires by taking that row, without
    /// asking its context (`NSManagedObject.fireFault()`): true while the context lives, is not
    /// a child and has no staleness interval, as the context keeps it for the bases it made
    /// (`NSManagedObjectContext.homeBase(for:)`); false for other bases.
    let firesFromFetchedRow = Atomic(false)

    init(context: NSManagedObjectContext?, origin: IDOrigin?, entity: NSEntityDescription?) {
        self.context = context
        registry = context?.registry
        self.origin = origin
        self.entity = entity
    }
}

/// An object's flags, in one byte.
struct ObjectFlags: OptionSet {
    let rawValue: UInt8
    static let faulted = ObjectFlags(rawValue: 1 << 0)
    static let valuesArePending = ObjectFlags(rawValue: 1 << 1)
    static let inserted = ObjectFlags(rawValue: 1 << 2)
    static let deleted = ObjectFlags(rawValue: 1 << 3)
    static let preparedForDeletion = ObjectFlags(rawValue: 1 << 4)
    static let keyPathStandIn = ObjectFlags(rawValue: 1 << 5)
    /// The object has no values of its own yet and reads its entity's defaults.
    static let defaultValues = ObjectFlags(rawValue: 1 << 6)
    /// The object's row is gone from its store and the object was turned into a deleted object
    /// with no values (`NSManagedObjectContext.shouldDeleteInaccessibleFaults`).
    static let inaccessible = ObjectFlags(rawValue: 1 << 7)

    @inline(__always)
    mutating func set(_ flag: ObjectFlags, _ on: Bool) {
        if on { insert(flag) } else { remove(flag) }
    }
}
