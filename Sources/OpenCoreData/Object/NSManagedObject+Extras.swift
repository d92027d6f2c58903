/// What an object keeps only once a saved object of it changes, has read a fetched property, or
/// was assigned a store: most objects carry none of it, new ones included (one reference to
/// nothing instead of four fields in every object). Touched only through its object, on its
/// context's queue: no dynamic exclusivity checks (`@exclusivity(unchecked)`).
final class ObjectExtras {
    /// The values last saved or fetched, once they differ from the current ones (the first
    /// write through `NSManagedObject.values` keeps them here); nil while they are the current
    /// values.
    @exclusivity(unchecked) var committed: PropertyValues?
    /// The values properties had before their first change since the context last announced
    /// its changes (`changedValuesForCurrentEvent()`).
    @exclusivity(unchecked) var eventOldValues: [String: Any] = [:]
    /// Results of fetched properties read since the object was last a fault, by name.
    @exclusivity(unchecked) var fetchedValues: [String: [Any]] = [:]
    /// The store `NSManagedObjectContext.assign(_:to:)` chose for this inserted object.
    weak var assignedStore: NSPersistentStore?

    /// What is left when the object becomes a fault again: only the assigned store, if any.
    func keepingOnlyStore() -> ObjectExtras? {
        guard let assignedStore else { return nil }
        let kept = ObjectExtras()
        kept.assignedStore = assignedStore
        return kept
    }
}

extension NSManagedObject {
    /// The object's extras, made on first need.
    var ensuredExtras: ObjectExtras {
        if let extras { return extras }
        let made = ObjectExtras()
        extras = made
        return made
    }

    /// The object's current values (to-many relationships as arrays or `RelationshipFault`s),
    /// decoded from the fetched row first if they are still pending. A write keeps the values
    /// before it as the committed values (`committed`) if they were not kept yet.
    var values: PropertyValues {
        get {
            materializeValues()
            return storedValues
        }
        _modify {
            materializeValues()
            keepCommittedValues()
            yield &storedValues
        }
        set {
            materializeValues()
            keepCommittedValues()
            storedValues = newValue
        }
    }

    /// The values last saved or fetched (empty for an inserted object: nothing is kept apart
    /// for it, so that its writes before the first save copy nothing).
    var committed: PropertyValues {
        get {
            materializeValues()
            if let committed = extras?.committed { return committed }
            return inserted ? PropertyValues(layout: layout) : storedValues
        }
        set {
            materializeValues()
            ensuredExtras.committed = newValue
        }
    }

    /// The current values become the committed ones (after a save, a fetch or a refresh).
    func commitValues() {
        extras?.committed = nil
    }

    /// Keeps the committed values apart before the current ones change (an inserted object has
    /// none).
    private func keepCommittedValues() {
        if !inserted, extras?.committed == nil { ensuredExtras.committed = storedValues }
    }

    /// A to-many relationship's fault at `slot` becomes its members, in the current values and,
    /// where it is the same fault, in the committed ones (without keeping the committed values
    /// apart when they are the current ones: both change alike).
    func replaceFault(_ fault: RelationshipFault, at slot: Int, with members: [NSManagedObject]) {
        materializeValues()
        storedValues[slot: slot] = members
        if let extras, let committed = extras.committed, committed[slot: slot] as? RelationshipFault === fault {
            extras.committed?[slot: slot] = members
        }
    }

    /// The values properties had before their first change since the context last announced
    /// its changes (`changedValuesForCurrentEvent()`).
    var eventOldValues: [String: Any] {
        get { extras?.eventOldValues ?? [:] }
        _modify {
            let extras = ensuredExtras
            yield &extras.eventOldValues
        }
        set {
            if newValue.isEmpty && extras == nil { return }
            ensuredExtras.eventOldValues = newValue
        }
    }

    /// Results of fetched properties read since the object was last a fault, by name.
    var fetchedValues: [String: [Any]] {
        get { extras?.fetchedValues ?? [:] }
        set {
            if newValue.isEmpty && extras == nil { return }
            ensuredExtras.fetchedValues = newValue
        }
    }

    /// The store `NSManagedObjectContext.assign(_:to:)` chose for this inserted object.
    var assignedStore: NSPersistentStore? {
        get { extras?.assignedStore }
        set {
            if newValue == nil && extras == nil { return }
            ensuredExtras.assignedStore = newValue
        }
    }
}
