import OpenPredicate
import OpenStoreCore

extension NSManagedObjectContext {
    /// The conflicts a store reported for a batch, as `NSMergeConflict`s and
    /// `NSConstraintConflict`s of this context's objects.
    func conflicts(_ error: SaveConflictError, batch: SaveBatch, coordinator: NSPersistentStoreCoordinator) -> [Any] {
        let store = batch.store
        let origin = store.idOrigin(entities: coordinator.entityDescriptions)
        var list: [Any] = []
        for conflict in error.versionConflicts {
            guard let object = batch.objects[conflict.key] else { continue }
            let persisted = conflict.current.map { decode($0, origin: origin) { self.object(with: $0) } }
            let merge = NSMergeConflict(
                source: object, newVersion: Int(conflict.current?.version ?? 0), oldVersion: Int(conflict.expectedVersion),
                cachedSnapshot: snapshotDictionary(object.committed, entity: object.entity),
                persistedSnapshot: persisted.map { snapshotDictionary($0, entity: object.entity) })
            merge.persistedValues = persisted
            list.append(merge)
        }
        for violation in error.constraintConflicts {
            let entity = coordinator.schema.entity(violation.entityID)
            let names = violation.slots.map { entity.properties[$0].name }
            let objects = violation.keys.compactMap { batch.objects[$0] }
            var databaseObject: NSManagedObject?
            var databaseValues: PropertyValues?
            if let row = violation.existing {
                databaseObject = object(with: id(for: row.key, in: store, coordinator: coordinator))
                databaseValues = decode(row, origin: origin) { self.object(with: $0) }
            }
            let conflict = NSConstraintConflict(
                constraint: names, database: databaseObject,
                databaseSnapshot: databaseObject.flatMap { object in
                    databaseValues.map { snapshotDictionary($0, entity: object.entity) }
                },
                conflicting: objects,
                conflictingSnapshots: objects.map { $0.inserted ? [:] : snapshotDictionary($0.committed, entity: $0.entity) })
            conflict.databaseValues = databaseValues
            conflict.databaseVersion = violation.existing?.version ?? 0
            list.append(conflict)
        }
        return list
    }

    /// A snapshot as Apple's conflicts show it: every attribute and to-one relationship (to-ones
    /// as object IDs), nil as `NSNull`, no to-many relationships.
    func snapshotDictionary(_ values: PropertyValues, entity: NSEntityDescription) -> [String: Any] {
        var snapshot: [String: Any] = [:]
        for property in entity.properties where !property.isTransient {
            switch property {
            case let relationship as NSRelationshipDescription where !relationship.isToMany:
                snapshot[property.name] = (values[property.name] as? NSManagedObject)?.objectID ?? ValueSemantics.null
            case is NSAttributeDescription:
                snapshot[property.name] = values[property.name] ?? ValueSemantics.null
            default:
                continue
            }
        }
        return snapshot
    }
}
