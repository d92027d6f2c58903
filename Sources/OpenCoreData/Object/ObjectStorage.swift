// The parts of an object's storage beyond its own fields (see `NSManagedObject`): one word
// for everything it references (where its entity, ID and context come from, its fetched row,
// its batch, its state), one byte of flags.

import OpenStoreCore
import Synchronization

/// Everything an object references, in one word: where its entity, ID and context come from
/// (its home) alone, or with its fetched row, its batch while a batched fault, or once it has
/// values, extras or a made ID of its own, its state, which then holds the home, the row and
/// the batch too. Each case but the first two holds the home inside what it links to, shared
/// where that is shared (a block of rows, a batch), so that a fault is three words.
enum ObjectLink {
    /// The entity alone: an object with neither an identity nor a context, and nothing else
    /// (see `ObjectHome.entity`).
    case entity(NSEntityDescription)
    /// The base alone: a fault with no row (see `ObjectHome.base`).
    case base(HomeBase)
    /// The fetched row, of the object's own (see `NSManagedObject.fetchedRow`).
    case row(FetchedRow)
    /// The fetched row, in the block of rows its fetch read (see `BlockLink`); the row's index
    /// in the block is kept where the version otherwise is, and its version in the block.
    case block(BlockLink)
    /// The batch of a batched fault, whose base is the object's (see
    /// `NSManagedObject.batchMember`).
    case batch(FaultBatch)
    case state(ObjectState)

    /// The link to the home alone.
    init(_ home: ObjectHome) {
        switch home {
        case .entity(let entity): self = .entity(entity)
        case .base(let base): self = .base(base)
        }
    }

    /// Whether the object links its home and nothing else.
    var isHomeOnly: Bool {
        switch self {
        case .entity, .base: true
        default: false
        }
    }
}

/// A fetched row an object holds outside a block, with its base (and the destination it keeps,
/// see `NSManagedObject.keptDestination`).
final class FetchedRow {
    let base: HomeBase
    let values: [StoreValue]
    @exclusivity(unchecked) var kept: NSManagedObject?

    init(base: HomeBase, values: [StoreValue], kept: NSManagedObject? = nil) {
        self.base = base
        self.values = values
        self.kept = kept
    }
}

/// A block of fetched rows (`RowBlock`) as the objects made of its rows link it: with their
/// base (one per block: a fetch's objects share one) and the destinations they keep, by row,
/// made on the first one kept.
final class BlockLink {
    let rows: RowBlock
    let base: HomeBase
    /// `rows.values` and `rows.width`, read here without going through the block.
    let values: UnsafeMutablePointer<StoreValue>
    let width: Int
    /// The destination each row's object keeps (see `NSManagedObject.keptDestination`); empty
    /// until one is kept. Touched only on the context's queue.
    @exclusivity(unchecked) private var kept: [NSManagedObject?] = []

    init(rows: RowBlock, base: HomeBase) {
        self.rows = rows
        self.base = base
        values = rows.values
        width = rows.width
    }

    func kept(row: Int) -> NSManagedObject? {
        row < kept.count ? kept[row] : nil
    }

    func setKept(_ object: NSManagedObject?, row: Int) {
        if row >= kept.count {
            guard object != nil else { return }
            kept = Array(repeating: nil, count: rows.count)
        }
        kept[row] = object
    }
}

/// The names of the properties an object changed since its last save (or fetch): a bit per slot
/// of its values' layout for the first 64 slots (no allocation, no hashing of names), any other
/// name in a set made only for it.
struct ChangedKeys {
    private var bits: UInt64 = 0
    /// Names past the bits: slots from the 65th, names outside the layout; nil while none.
    private var others: Set<String>?

    var isEmpty: Bool { bits == 0 && others == nil }

    mutating func insert(_ name: String, layout: PropertyLayout) {
        if let slot = layout.slot(named: name), slot < UInt64.bitWidth {
            bits |= 1 << UInt64(slot)
        } else {
            var names = others ?? []
            names.insert(name)
            others = names
        }
    }

    func contains(_ name: String, layout: PropertyLayout) -> Bool {
        if let slot = layout.slot(named: name), slot < UInt64.bitWidth { return bits & (1 << UInt64(slot)) != 0 }
        return others?.contains(name) ?? false
    }

    /// The names, in slot order, then the others.
    func names(layout: PropertyLayout) -> [String] {
        var names: [String] = []
        var remaining = bits
        while remaining != 0 {
            let slot = remaining.trailingZeroBitCount
            remaining &= remaining - 1
            if slot < layout.count { names.append(layout.names[slot]) }
        }
        if let others { names += others }
        return names
    }
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
    /// Where the object's entity, ID and context come from (see `ObjectHome`).
    @exclusivity(unchecked) var home: ObjectHome
    /// See `NSManagedObject.keptDestination`.
    @exclusivity(unchecked) var kept: NSManagedObject?
    /// The properties changed since the last save (or fetch), by slot of `values.layout` (see
    /// `NSManagedObject.changedKeys`).
    @exclusivity(unchecked) var changed = ChangedKeys()

    init(home: ObjectHome, values: PropertyValues) {
        self.home = home
        self.values = values
    }

    /// What the object links once it has no values, extras or made ID: its row, its batch or
    /// its home alone; nil when it must keep this state (a row or batch whose home is not the
    /// object's base).
    var linkWithoutValues: ObjectLink? {
        if let fetchedRow {
            guard case .base(let base) = home else { return nil }
            return .row(FetchedRow(base: base, values: fetchedRow, kept: kept))
        }
        if let batch {
            guard batch.base === home.base else { return nil }
            return .batch(batch)
        }
        return ObjectLink(home)
    }
}

/// Where an object's entity, ID and context come from, in one word: its entity alone while it
/// has neither an identity nor a context (no allocation for a new object), else a `HomeBase`
/// that objects share.
enum ObjectHome {
    case entity(NSEntityDescription)
    case base(HomeBase)

    /// The base, if the home is one.
    var base: HomeBase? {
        guard case .base(let base) = self else { return nil }
        return base
    }
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

    /// `registry` and `origin` when the base has both, unretained (the two `let`s above hold
    /// them), for `withRegistryAndOrigin(_:)`.
    private let registryAndOrigin: (registry: Unmanaged<ObjectRegistry>, origin: Unmanaged<IDOrigin>)?

    init(context: NSManagedObjectContext?, origin: IDOrigin?, entity: NSEntityDescription?) {
        self.context = context
        let registry = context?.registry
        self.registry = registry
        self.origin = origin
        self.entity = entity
        if let registry, let origin {
            registryAndOrigin = (.passUnretained(registry), .passUnretained(origin))
        } else {
            registryAndOrigin = nil
        }
    }

    /// `body` with the registry and the origin, when the base has both (else nil), neither
    /// retained: the base holds them while it lives, and the caller keeps the base alive. (Read
    /// from their `let`s, each would be retained and released around the call: four atomic
    /// operations for every object leaving its registry, or every to-one read.)
    @inline(__always)
    func withRegistryAndOrigin<Result>(_ body: (ObjectRegistry, IDOrigin) -> Result) -> Result? {
        guard let (registry, origin) = registryAndOrigin else { return nil }
        return registry._withUnsafeGuaranteedRef { registry in
            origin._withUnsafeGuaranteedRef { origin in body(registry, origin) }
        }
    }
}

/// An object's flags, in two bytes.
struct ObjectFlags: OptionSet {
    let rawValue: UInt16
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
    /// The object was inserted since its context last announced its changes: it had no values
    /// before this event, so its changes record none (`changedValuesForCurrentEvent()`).
    static let newInEvent = ObjectFlags(rawValue: 1 << 8)
    /// The save going on has called the object's `willSave()` (`announceWillSave`).
    static let willSaveCalled = ObjectFlags(rawValue: 1 << 9)
    /// The object is among the current `willSave()` round's candidates already.
    static let willSaveCandidate = ObjectFlags(rawValue: 1 << 10)

    @inline(__always)
    mutating func set(_ flag: ObjectFlags, _ on: Bool) {
        if on { insert(flag) } else { remove(flag) }
    }
}
