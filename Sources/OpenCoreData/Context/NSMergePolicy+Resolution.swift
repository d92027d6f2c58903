import OpenPredicate
import OpenStoreCore

extension NSMergePolicy {
    /// The error of a save with unresolved conflicts: `NSManagedObjectConstraintMergeError` when
    /// the list has a constraint conflict, else `NSManagedObjectMergeError`, the conflicts under
    /// `"conflictList"`.
    static func mergeError(_ list: [Any]) -> NSError {
        let constraints = list.compactMap { $0 as? NSConstraintConflict }
        if let first = constraints.first {
            let entity = first.conflictingObjects.first?.entity.name ?? "?"
            return CoreDataError.make(
                code: NSManagedObjectConstraintMergeError,
                reason: "Could not merge changes: \(constraints.count) uniqueness constraint conflict(s), the first on \(entity) "
                    + "\(first.constraint) with values \(first.constraintValues)",
                userInfo: ["conflictList": list])
        }
        let locking = list.compactMap { $0 as? NSMergeConflict }
        let names = locking.prefix(3).map { "\($0.sourceObject.objectID)" }.joined(separator: ", ")
        return CoreDataError.make(
            code: NSManagedObjectMergeError,
            reason: "Could not merge changes: \(locking.count) object(s) changed in the store since they were fetched (\(names))",
            userInfo: ["conflictList": list])
    }

    // MARK: - Optimistic locking

    /// Changes a conflicting object as the policy says, so that the next save attempt writes
    /// over the store's current version.
    func resolveLocking(_ conflict: NSMergeConflict) {
        let object = conflict.sourceObject
        guard let context = object.context else { return }
        guard let persisted = conflict.persistedValues else {
            context.forgetDeletedElsewhere(object)
            object.deleted = true
            object.context = nil
            return
        }
        let storeVersion = Int64(conflict.newVersionNumber)
        switch mergeType {
        case .errorMergePolicyType:
            return
        case .rollbackMergePolicyType:
            if object.deleted { context.undoDeletion(object) }
            context.forgetChange(object)
            object.values = persisted
            object.committed = persisted
            object.clearChangedKeys()
            object.eventOldValues = [:]
            object.version = storeVersion
            object.awake(fromSnapshotEvents: .mergePolicy)
        case .overwriteMergePolicyType:
            object.version = storeVersion
        case .mergeByPropertyStoreTrumpMergePolicyType, .mergeByPropertyObjectTrumpMergePolicyType:
            object.version = storeVersion
            guard !object.deleted else { return }
            let storeTrumps = mergeType == .mergeByPropertyStoreTrumpMergePolicyType
            for property in object.entity.properties where !property.isTransient && !(property is NSFetchedPropertyDescription) {
                let name = property.name
                let stored = persisted[name], base = object.materialized(object.committed[name])
                let mine = object.materialized(object.values[name])
                if let relationship = property as? NSRelationshipDescription, relationship.isToMany {
                    object.values[name] = Self.mergedMembers(stored: stored, base: base, mine: mine)
                    continue
                }
                let storeChanged = !Self.same(stored, base)
                let localChanged = object.isChangedKey(name)
                if storeChanged && (!localChanged || storeTrumps) { object.values[name] = stored }
            }
            object.committed = persisted
            object.awake(fromSnapshotEvents: .mergePolicy)
        }
    }

    /// A to-many relationship with both sides' changes: the store's members, plus those the
    /// context added, minus those it removed (in the store's order, additions last).
    static func mergedMembers(stored: Any?, base: Any?, mine: Any?) -> [NSManagedObject] {
        let storedMembers = stored as? [NSManagedObject] ?? []
        let baseIDs = Set((base as? [NSManagedObject] ?? []).map(\.objectID))
        let mineMembers = mine as? [NSManagedObject] ?? []
        let mineIDs = Set(mineMembers.map(\.objectID))
        var result = storedMembers.filter { !baseIDs.contains($0.objectID) || mineIDs.contains($0.objectID) }
        var present = Set(result.map(\.objectID))
        for member in mineMembers where !baseIDs.contains(member.objectID) && present.insert(member.objectID).inserted {
            result.append(member)
        }
        return result
    }

    /// Whether two property values are the same (objects by ID, values by equality).
    static func same(_ a: Any?, _ b: Any?) -> Bool {
        switch (a, b) {
        case (nil, nil): return true
        case (let x as NSManagedObject, let y as NSManagedObject): return x.objectID == y.objectID
        case (let x as [NSManagedObject], let y as [NSManagedObject]): return x.map(\.objectID) == y.map(\.objectID)
        case (let x?, let y?):
            guard let x = x as? AnyHashable, let y = y as? AnyHashable else { return false }
            return x == y
        default: return false
        }
    }

    // MARK: - Uniqueness constraints

    /// Merges the objects of a constraint conflict into one, as the policy says.
    func resolveConstraint(_ conflict: NSConstraintConflict) throws {
        let objects = conflict.conflictingObjects.filter { $0.context != nil }
        guard let context = objects.first?.context else { return }
        let inserted = objects.filter(\.inserted)
        let storeTrumps = mergeType == .mergeByPropertyStoreTrumpMergePolicyType
        if let database = conflict.databaseObject, let databaseValues = conflict.databaseValues {
            // Two stored rows can't become one: only inserted objects merge into a stored row.
            guard inserted.count == objects.count, let survivor = inserted.first else { throw Self.mergeError([conflict]) }
            let databaseID = database.objectID
            if mergeType == .rollbackMergePolicyType {
                for object in inserted { discard(object, into: context.object(with: databaseID), context: context) }
                return
            }
            let own = survivor.values
            let ownKeys = survivor.changedKeys
            context.adoptStoredIdentity(survivor, id: databaseID)
            survivor.committed = databaseValues
            survivor.version = conflict.databaseVersion
            var merged = databaseValues
            for property in survivor.entity.properties where !property.isTransient && !(property is NSFetchedPropertyDescription)
            {
                let name = property.name
                if let relationship = property as? NSRelationshipDescription, relationship.isToMany {
                    merged[name] = Self.mergedMembers(stored: databaseValues[name], base: nil, mine: own[name])
                    continue
                }
                switch mergeType {
                case .overwriteMergePolicyType: merged[name] = own[name]
                case .mergeByPropertyObjectTrumpMergePolicyType where ownKeys.contains(name) || databaseValues[name] == nil:
                    merged[name] = own[name]
                case .mergeByPropertyStoreTrumpMergePolicyType where databaseValues[name] == nil: merged[name] = own[name]
                default: continue
                }
            }
            survivor.values = merged
            survivor.changedKeys = Set(survivor.entity.properties.filter { !$0.isTransient }.map(\.name))
            for other in inserted.dropFirst() {
                merge(other, into: survivor, storeTrumps: storeTrumps)
                discard(other, into: survivor, context: context)
            }
            return
        }
        // Only objects of the save collide: keep the one that has a row, else the first.
        let stored = objects.filter { !$0.inserted }
        guard stored.count <= 1, let survivor = stored.first ?? objects.first else { throw Self.mergeError([conflict]) }
        for other in inserted where other !== survivor {
            if mergeType != .rollbackMergePolicyType { merge(other, into: survivor, storeTrumps: storeTrumps) }
            discard(other, into: survivor, context: context)
        }
    }

    /// Copies the values set on `other` into `survivor`: all of them, or (store-trump) only
    /// where the survivor has none.
    private func merge(_ other: NSManagedObject, into survivor: NSManagedObject, storeTrumps: Bool) {
        for name in other.changedKeys {
            guard let property = survivor.entity.propertiesByName[name], !property.isTransient else { continue }
            if let relationship = property as? NSRelationshipDescription, relationship.isToMany {
                survivor.values[name] = Self.mergedMembers(stored: survivor.values[name], base: nil, mine: other.values[name])
            } else if !storeTrumps || survivor.values[name] == nil {
                survivor.values[name] = other.values[name]
            }
            survivor.noteChangedKey(name)
        }
        survivor.context?.objectDidChange(survivor)
    }

    /// Drops an inserted object and points every relationship of the context's objects that
    /// held it to `replacement` instead.
    private func discard(_ object: NSManagedObject, into replacement: NSManagedObject, context: NSManagedObjectContext) {
        context.discardInsertion(object)
        for candidate in context.registry.values where !candidate.isFault {
            for (name, value) in candidate.values {
                if let target = value as? NSManagedObject, target === object {
                    candidate.values[name] = replacement
                    candidate.noteChangedKey(name)
                    context.objectDidChange(candidate)
                } else if let members = value as? [NSManagedObject], members.contains(where: { $0 === object }) {
                    var replaced: [NSManagedObject] = []
                    for member in members {
                        let next = member === object ? replacement : member
                        if !replaced.contains(where: { $0 === next }) { replaced.append(next) }
                    }
                    candidate.values[name] = replaced
                    candidate.noteChangedKey(name)
                    context.objectDidChange(candidate)
                }
            }
        }
    }
}
