import OpenPredicate
import OpenStoreCore

extension NSManagedObjectID: PredicateIdentity {
    /// Inside predicates an ID compares as its row key once saved (so it matches the rows a store
    /// holds), and as itself before.
    package var predicateIdentity: AnyHashable { key.map { AnyHashable($0) } ?? AnyHashable(self) }
}

/// A fetched object's to-many relationship until it is first read: then
/// (`NSManagedObject.members(_:)`) its members become objects of the context, read from the
/// store if the row did not bring them. Apple's to-many relationships stay faults the same way;
/// fetching objects with large relationships therefore reads no members, and makes no IDs and no
/// objects, for relationships nobody reads.
final class RelationshipFault {
    /// The owner's row and the relationship's slot in it.
    let owner: ObjectKey
    let slot: Int
    let maker: PermanentIDMaker
    /// The members' keys, once known (from the row, from prefetching, or read on demand).
    var keys: [ObjectKey]?

    init(owner: ObjectKey, slot: Int, keys: [ObjectKey]?, maker: PermanentIDMaker) {
        self.owner = owner
        self.slot = slot
        self.keys = keys
        self.maker = maker
    }

    /// The members' IDs, read from the store the first time if needed.
    ///
    /// - Throws: The store's error when it could not be asked (the members are read again next
    ///   time; they never silently read as none, which a save would write).
    func memberIDs() throws -> [NSManagedObjectID] {
        if keys == nil {
            let store = maker.store as? RowBackedPersistentStore
            keys = try store?.rows.members(of: [owner], slot: slot)[owner] ?? []
        }
        return (keys ?? []).map(maker.id(for:))
    }
}

extension NSManagedObject {
    /// To-many relationships are kept as arrays of distinct objects (in order for an ordered one),
    /// or as a `RelationshipFault` until first read.
    ///
    /// Members that cannot be read (the store failed) read as none this time; the failure goes
    /// to the context, whose next save reports it, and the relationship is read again next time.
    func members(_ relationship: NSRelationshipDescription) -> [NSManagedObject] {
        do {
            return try loadedMembers(relationship)
        } catch {
            context?.recordFaultFailure(error, for: self)
            return []
        }
    }

    /// The members of a to-many relationship, read from the store if they were not yet.
    ///
    /// - Throws: The store's error when it could not be asked.
    func loadedMembers(_ relationship: NSRelationshipDescription) throws -> [NSManagedObject] {
        fireFault()
        guard let slot = values.layout.slot(named: relationship.name) else {
            return values[relationship.name] as? [NSManagedObject] ?? []
        }
        switch values[slot: slot] {
        case let objects as [NSManagedObject]:
            return objects
        case let fault as RelationshipFault:
            let objects = try materialized(fault)
            replaceFault(fault, at: slot, with: objects)
            return objects
        default:
            return []
        }
    }

    /// A kept value with a relationship fault turned into the objects it stands for (none when
    /// the store cannot be read; the failure goes to the context).
    func materialized(_ value: Any?) -> Any? {
        guard let fault = ValueSemantics.objectCast(value, to: RelationshipFault.self) else { return value }
        do {
            return try materialized(fault)
        } catch {
            context?.recordFaultFailure(error, for: self)
            return [NSManagedObject]()
        }
    }

    private func materialized(_ fault: RelationshipFault) throws -> [NSManagedObject] {
        guard let context else { return [] }
        return try fault.memberIDs().map { context.object(with: $0) }
    }

    func toManyValue(_ relationship: NSRelationshipDescription) -> Any {
        let objects = members(relationship)
        return relationship.isOrdered ? NSOrderedSet(array: objects) : Set(objects)
    }

    /// A property's value as users see it (sets for to-many relationships).
    func exportedValue(forKey key: String) -> Any? {
        if let relationship = entity.propertiesByName[key] as? NSRelationshipDescription, relationship.isToMany {
            return toManyValue(relationship)
        }
        return values[key]
    }

    func committedExportedValue(forKey key: String) -> Any? {
        let value = materialized(committed[key])
        if let relationship = entity.propertiesByName[key] as? NSRelationshipDescription, relationship.isToMany {
            let objects = value as? [NSManagedObject] ?? []
            return relationship.isOrdered ? NSOrderedSet(array: objects) : Set(objects)
        }
        return value
    }

    /// Sets a relationship from a user's value and updates the inverse of every object that
    /// joins or leaves it.
    func setRelationship(_ relationship: NSRelationshipDescription, to value: Any?) throws {
        fireFault()
        let newMembers = try destinationObjects(of: value, for: relationship)
        if relationship.isToMany {
            let old = members(relationship)
            let oldIDs = Set(old.map(ObjectIdentifier.init)), newIDs = Set(newMembers.map(ObjectIdentifier.init))
            store(newMembers, forKey: relationship.name)
            guard let inverse = relationship.inverseRelationship else { return }
            for object in old where !newIDs.contains(ObjectIdentifier(object)) { object.removeInverse(inverse, self) }
            for object in newMembers where !oldIDs.contains(ObjectIdentifier(object)) { object.addInverse(inverse, self) }
        } else {
            let old = values[relationship.name] as? NSManagedObject
            let new = newMembers.first
            if old === new { return }
            store(new, forKey: relationship.name)
            guard let inverse = relationship.inverseRelationship else { return }
            old?.removeInverse(inverse, self)
            new?.addInverse(inverse, self)
        }
    }

    /// `object` joins this object's `relationship` (the inverse of a change on `object`).
    func addInverse(_ relationship: NSRelationshipDescription, _ object: NSManagedObject) {
        fireFault()
        if relationship.isToMany {
            guard !members(relationship).contains(where: { $0 === object }) else { return }
            recordChange(forKey: relationship.name)
            // Appended in place: copying the array for each new member made filling a large
            // relationship quadratic.
            guard let slot = values.layout.slot(named: relationship.name) else { return }
            values.modify(slot: slot) { value in
                var current = value as? [NSManagedObject] ?? []
                value = nil
                current.append(object)
                value = current
            }
        } else {
            let old = values[relationship.name] as? NSManagedObject
            guard old !== object else { return }
            if let old, let back = relationship.inverseRelationship { old.removeInverse(back, self) }
            store(object, forKey: relationship.name)
        }
    }

    /// `object` leaves this object's `relationship`.
    func removeInverse(_ relationship: NSRelationshipDescription, _ object: NSManagedObject) {
        fireFault()
        if relationship.isToMany {
            let current = members(relationship)
            guard current.contains(where: { $0 === object }) else { return }
            store(current.filter { $0 !== object }, forKey: relationship.name)
        } else if values[relationship.name] as? NSManagedObject === object {
            store(nil, forKey: relationship.name)
        }
    }

    private func destinationObjects(of value: Any?, for relationship: NSRelationshipDescription) throws -> [NSManagedObject] {
        let objects: [Any]
        switch value {
        case nil, is NSNull: objects = []
        case let set as Set<NSManagedObject>: objects = Array(set)
        case let set as NSOrderedSet: objects = set.array
        case let set as NSSet: objects = set.allObjects
        case let array as [Any]: objects = array
        case let object?: objects = [object]
        }
        var result: [NSManagedObject] = []
        var seen = Set<ObjectIdentifier>()
        for element in objects {
            guard let object = element as? NSManagedObject,
                relationship.destinationEntity.map({ object.entity.isKindOf(entity: $0) }) ?? true
            else {
                throw CoreDataError.make(
                    code: NSManagedObjectValidationError,
                    reason: "Unacceptable type of value for \(relationship.isToMany ? "to-many" : "to-one") relationship: "
                        + "property = \"\(relationship.name)\"; desired type = \(relationship.destinationEntity?.name ?? "?"); "
                        + "given type = \(Swift.type(of: element)); value = \(element).")
            }
            if seen.insert(ObjectIdentifier(object)).inserted { result.append(object) }
        }
        if !relationship.isToMany && result.count > 1 {
            throw CoreDataError.make(
                code: NSManagedObjectValidationError, reason: "A to-one relationship (\(relationship.name)) takes one object")
        }
        return result
    }

    // MARK: - Faulting

    /// Loads the values of a fault from its context's row cache or store. Nothing here stops the
    /// process:
    ///
    /// - a row that no longer exists is an inaccessible fault, which the context turns into a
    ///   deleted object with nil values or reports (`NSManagedObjectContext.shouldDeleteInaccessibleFaults`);
    /// - a store that fails (a lost connection, a locked file) leaves the object a fault whose
    ///   values read as nil until a later read loads them, and the context reports the error at
    ///   its next save (`NSManagedObjectContext.recordFaultFailure(_:for:)`);
    /// - without a context (it is gone) the values read as nil.
    ///
    /// Changed values (of an object refreshed with `mergeChanges`, or changed while it could not
    /// be loaded) are kept over the loaded ones, laid on after `awakeFromFetch()`.
    ///
    /// Inlined to its test, which every read of a property makes; the firing is not.
    @inline(__always)
    final func fireFault() {
        if faulted { fireFaultNow() }
    }

    /// `fireFault()` of a fault.
    @inline(never)
    private final func fireFaultNow() {
        faulted = false
        // The common case, without loading the context: a fault fetched with its row takes the
        // row as its values where it is (what `loadValues(for:)` does for it; such an object has
        // no changes to lay on).
        if linksFetchedRow, withBase({ $0.firesFromFetchedRow.load(ordering: .relaxed) }) == true {
            valuesArePending = true
            awakeFromFetch()
            return
        }
        // One load of the weak reference. An object whose deletion was saved, or whose context is
        // gone, has no values left: its properties read as nil.
        guard let context = self.context else { return }
        let changes = hasChangedKeys ? changedKeys.map { ($0, values[$0]) } : []
        let loaded: Bool
        do {
            loaded = try context.loadValues(for: self)
        } catch {
            faulted = true
            context.recordFaultFailure(error, for: self)
            return
        }
        guard loaded else {
            context.handleInaccessibleFault(self)
            return
        }
        awakeFromFetch()
        for (key, value) in changes { values[key] = value }
    }

    /// Turns the object back into a fault (its values reload when next read); unsaved changes
    /// are dropped unless `keepChanges`. An object that keeps changes reloads at once and gets
    /// `awake(fromSnapshotEvents: .refresh)`; one that becomes a fault gets
    /// `willTurnIntoFault()` / `didTurnIntoFault()` unless `notifying` is false.
    func refault(keepChanges: Bool, notifying: Bool = true) {
        fetchedValues = [:]
        // Changed objects have decoded values: pending ones are dropped with their row.
        valuesArePending = false
        fetchedRow = nil
        keptDestination = nil
        guard !inserted else { return }
        if keepChanges && hasChangedKeys {
            // Firing the fault again keeps the changed values over the loaded ones.
            faulted = true
            fireFault()
            if notifying { awake(fromSnapshotEvents: .refresh) }
        } else {
            let notifies = notifying && !faulted
            if notifies { willTurnIntoFault() }
            dropValues(keeping: extras?.keepingOnlyStore())
            faulted = true
            if notifies { didTurnIntoFault() }
        }
    }

    /// Turns a deleted object whose deletion was saved into a fault with no values:
    /// `willTurnIntoFault()`, then its values go, then `didTurnIntoFault()`.
    func turnIntoDeletedFault() {
        let notifies = !faulted
        if notifies { willTurnIntoFault() }
        fetchedValues = [:]
        valuesArePending = false
        fetchedRow = nil
        keptDestination = nil
        batchMember = nil
        dropValues(keeping: nil)
        faulted = true
        if notifies { didTurnIntoFault() }
    }
}
