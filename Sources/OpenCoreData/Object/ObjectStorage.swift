// The parts of an object's storage beyond its own fields (see `NSManagedObject`): one word
// for what it links to, one for where its entity and ID come from, one byte of flags.

import OpenStoreCore

/// What an object keeps beyond a fault's fields, in one word: its fetched row (with the
/// destination it keeps, a `KeptRow`), its batch while a batched fault, or once it has values,
/// extras or a made ID of its own, its state, which then holds the row and the batch too.
enum ObjectLink {
    /// The fetched row (see `NSManagedObject.fetchedRow`).
    case row([StoreValue])
    /// The fetched row and the first destination read from it (see `KeptRow`).
    case kept(KeptRow)
    /// The batch of a batched fault (see `NSManagedObject.batchMember`).
    case batch(FaultBatch)
    case state(ObjectState)
}

/// A pending object's fetched row and the destination of the first to-one relationship read
/// from it, which the object keeps alive (see `NSManagedObject.keptDestination`).
final class KeptRow {
    var row: [StoreValue]
    var destination: NSManagedObject

    init(row: [StoreValue], destination: NSManagedObject) {
        self.row = row
        self.destination = destination
    }
}

/// What an object keeps once it has values of its own, extras or a made ID (see `ObjectLink`).
final class ObjectState {
    /// The object's current values (see `NSManagedObject.storedValues`).
    var values: PropertyValues
    /// See `NSManagedObject.extras`.
    var extras: ObjectExtras?
    /// See `NSManagedObject.fetchedRow`.
    var fetchedRow: [StoreValue]?
    /// See `NSManagedObject.keptDestination`.
    var keptDestination: NSManagedObject?
    /// The object's ID, once made (see `NSManagedObject.objectID`).
    var id: NSManagedObjectID?
    /// The batch of a batched fault that has a state too (see `NSManagedObject.batchMember`).
    var batch: FaultBatch?
    /// A row version beyond the object's 32-bit field (see `NSManagedObject.version`).
    var wideVersion: Int64 = 0

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
