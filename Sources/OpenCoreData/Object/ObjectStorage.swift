// The parts of an object's storage beyond its own fields (see `NSManagedObject`): one word
// for what it links to, one for where its entity and ID come from, one byte of flags.

/// What an object keeps beyond a fault's fields, in one word: its state once it has values or
/// extras of its own, or while it has none, its batch (a batched fault) or the destination it
/// keeps (see `NSManagedObject.keptDestination`), which need no state of their own.
enum ObjectLink {
    case state(ObjectState)
    case batch(FaultBatch)
    case kept(NSManagedObject)
}

/// What an object keeps once it has values of its own, extras or a made ID (see `ObjectLink`).
final class ObjectState {
    /// The object's current values (see `NSManagedObject.storedValues`).
    var values: PropertyValues
    /// See `NSManagedObject.extras`.
    var extras: ObjectExtras?
    /// See `NSManagedObject.keptDestination`.
    var keptDestination: NSManagedObject?
    /// The object's ID, once made (see `NSManagedObject.objectID`).
    var id: NSManagedObjectID?
    /// The batch of a batched fault that has a state too (see `NSManagedObject.batchMember`).
    var batch: FaultBatch?

    init(values: PropertyValues) {
        self.values = values
    }
}

/// Where an object's entity and ID come from: its entity until it has an identity, then the ID's
/// origin, which has the entity (see `IDOrigin.entity(for:)`); in one word.
enum ObjectHome {
    case entity(NSEntityDescription)
    case origin(IDOrigin)
    /// An identity whose origin has another description of the object's entity.
    case foreign(ForeignHome)
}

/// An object's entity and an ID origin that has another description of it (see `ObjectHome`).
final class ForeignHome {
    let entity: NSEntityDescription
    let origin: IDOrigin

    init(entity: NSEntityDescription, origin: IDOrigin) {
        self.entity = entity
        self.origin = origin
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
