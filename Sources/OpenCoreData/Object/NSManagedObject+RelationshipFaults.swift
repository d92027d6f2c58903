import OpenPredicate
import OpenStoreCore

extension NSManagedObject {
    /// Whether reading a relationship would fire a fault: the object itself is a fault, its
    /// to-many relationship has not been read since it was fetched, or its to-one destination is
    /// a fault. Asking fires nothing. **Default:** `false` for a key that names no relationship.
    ///
    /// **Differences from Apple:** a key that is not a relationship answers `false` instead of
    /// stopping the process.
    /// See [hasFault(forRelationshipNamed:)](https://developer.apple.com/documentation/coredata/nsmanagedobject/hasfault(forrelationshipnamed:)).
    public func hasFault(forRelationshipNamed key: String) -> Bool {
        guard entity.relationshipsByName[key] != nil else { return false }
        if faulted { return true }
        let value = values[key]
        if ValueSemantics.objectCast(value, to: RelationshipFault.self) != nil { return true }
        return ValueSemantics.objectCast(value, to: NSManagedObject.self)?.isFault ?? false
    }

    /// The IDs of the objects in a relationship (in order for an ordered one), without firing
    /// the relationship's fault or making its objects: from the row fetched for the object, or
    /// one query for the members of a to-many relationship not read yet.
    ///
    /// A key that names no relationship of the entity stops the process with an
    /// `NSInvalidArgumentException`; `objectIDs(validatingRelationshipNamed:)` throws instead.
    /// See [objectIDs(forRelationshipNamed:)](https://developer.apple.com/documentation/coredata/nsmanagedobject/objectids(forrelationshipnamed:)).
    public func objectIDs(forRelationshipNamed key: String) -> [NSManagedObjectID] {
        do {
            return try objectIDs(validatingRelationshipNamed: key)
        } catch {
            AppleException.invalidArgument(error.localizedDescription)
        }
    }

    /// The throwing twin of `objectIDs(forRelationshipNamed:)`.
    ///
    /// **Differences from Apple:** an OpenCoreData addition.
    public func objectIDs(validatingRelationshipNamed key: String) throws -> [NSManagedObjectID] {
        guard let relationship = entity.relationshipsByName[key] else {
            throw CoreDataError.make(
                code: NSManagedObjectValidationError,
                reason: "objectIDsForRelationshipNamed: \(key) is not a relationship of the entity \(entity.name ?? "")")
        }
        if faulted, let context, let key = storeKey, let store = objectID.persistentStore,
            let coordinator = context.persistentStoreCoordinator, let row = context.cachedRow(of: self),
            let slot = coordinator.schema.entity(key.entityID).slotsByName[relationship.name], slot < row.values.count
        {
            let maker = PermanentIDMaker(store: store, coordinator: coordinator)
            switch row.values[slot] {
            case .object(let destination): return [maker.id(for: destination)]
            case .objects(let destinations): return destinations.map(maker.id(for:))
            case .null where relationship.isToMany:
                return try RelationshipFault(owner: key, slot: slot, keys: nil, maker: maker).memberIDs()
            default: return []
            }
        }
        fireFault()
        let value = values[relationship.name]
        if let destinations = value as? [NSManagedObject] { return destinations.map(\.objectID) }
        if let fault = ValueSemantics.objectCast(value, to: RelationshipFault.self) { return try fault.memberIDs() }
        return ValueSemantics.objectCast(value, to: NSManagedObject.self).map { [$0.objectID] } ?? []
    }
}
