import OpenPredicate
import OpenStoreCore

/// Keys of the `userInfo` of `NSManagedObjectContextDidSave` and `ObjectsDidChange`
/// notifications: sets of the objects inserted, updated and deleted.
public let NSInsertedObjectsKey = "inserted"
/// See `NSInsertedObjectsKey`.
public let NSUpdatedObjectsKey = "updated"
/// See `NSInsertedObjectsKey`.
public let NSDeletedObjectsKey = "deleted"

extension Notification.Name {
    /// Posted by a context after it saved, with the saved objects under `NSInsertedObjectsKey`,
    /// `NSUpdatedObjectsKey` and `NSDeletedObjectsKey`. The name is Apple's
    /// (`"NSManagingContextDidSaveChangesNotification"`).
    public static let NSManagedObjectContextDidSave = Notification.Name("NSManagingContextDidSaveChangesNotification")
}

extension NSManagedObjectContext {
    /// Saves every insertion, change and deletion to the coordinator's stores, all or nothing.
    ///
    /// The save posts `NSManagedObjectContextWillSave`, then calls `prepareForDeletion()` on
    /// deleted objects not told yet and `willSave()` on every inserted, updated and deleted
    /// object (again on those `willSave()` changed: its changes are saved too); after the stores
    /// committed, `didSave()` on each, and deleted objects turn into faults. Then it posts
    /// `NSManagedObjectContextDidSave` and `NSManagedObjectContextDidSaveObjectIDs`.
    ///
    /// Before writing, delete rules run (cascade, nullify), every changed object is validated
    /// (`validateForInsert()`, `validateForUpdate()`, `validateForDelete()`: the model's rules
    /// for each property, and the deny delete rule; see `NSManagedObject+Validation`), and
    /// inserted objects get permanent IDs. Validation failures of all the objects are thrown
    /// together, and nothing is written. Each changed or deleted object carries the
    /// version (`Z_OPT`) it was fetched at: a store whose row has another version, or that would
    /// break a uniqueness constraint, refuses the save, and the conflicts go to the context's
    /// `mergePolicy` (`NSMergePolicy.resolve(mergeConflicts:)`); when the policy resolves them,
    /// the save is tried again, up to four attempts in all. A failed save leaves the stores as
    /// they were and the context's changes in place. An object deleted while still a fault (its
    /// values never loaded) carries no version and is deleted whatever the store's version is.
    ///
    /// - Throws: A validation error (`NSValidationMissingMandatoryPropertyError`,
    ///   `NSValidationNumberTooLargeError`, `NSValidationRelationshipDeniedDeleteError`, …), or
    ///   for several `NSValidationMultipleErrorsError` with each under `NSDetailedErrorsKey`; a
    ///   fault that could not be loaded since the last save (see `NSManagedObjectContext+Faults`);
    ///   `NSManagedObjectMergeError` or
    ///   `NSManagedObjectConstraintMergeError` with `"conflictList"` in `userInfo`
    ///   (`NSMergeConflict`s or `NSConstraintConflict`s) under `NSErrorMergePolicy`; or the
    ///   store's error (an SQLite store whose `COMMIT` reported an I/O error says the outcome
    ///   is unknown: `NSPersistentStoreSaveError` with
    ///   `"NSPersistentStoreSaveOutcomeUnknown"` set).
    ///
    /// A save to several stores runs in two phases: every store checks and writes its part
    /// without making it visible (an SQLite store inside its open transaction), and only when all
    /// have accepted do they commit, so a conflict or error in any leaves all as they were. A
    /// commit that fails after another store committed is reported with
    /// `"NSPersistentStoreSaveOutcomeUnknown"` set (`NSPersistentStoreSaveError`).
    public func save() throws {
        announcedInserts = AnnouncedInserts()
        defer { announcedInserts = nil }
        processPendingChanges()
        guard hasChanges else {
            // Inserted objects deleted again changed nothing that is left.
            deletedInserts = []
            return
        }
        guard let coordinator = persistentStoreCoordinator else {
            throw CoreDataError.make(code: NSCoreDataError, reason: "The context has no persistent store coordinator")
        }
        NotificationCenter.default.post(name: .NSManagedObjectContextWillSave, object: self)
        // Delete rules, then `willSave()` on every changed object, until neither changes more.
        try announceWillSave(applyingDeleteRules: applyDeleteRules)
        // The first store written to (an inserted object has none until its permanent ID).
        let written: NSPersistentStore?
        do {
            // In a scope of their own: the save to the stores takes the inserted objects' list
            // as their last reference (see `didSave(inserted:updated:deleted:versioned:)`).
            let inserted = insertedList.objects, deleted = deletedList.objects
            let updated = changedList.filter { $0.isUpdated }
            try checkFaultFailures(updated: updated)
            if parent == nil { try updateDerivedAttributes(inserted: inserted, updated: updated) }
            try validateForSave(inserted: inserted, updated: updated, deleted: deleted)
            // A child context saves into its parent, not to the stores.
            if let parent {
                saveIntoParent(parent, inserted: inserted, updated: updated, deleted: deleted)
                return
            }
            written = (updated.first ?? deleted.first)?.objectID.persistentStore ?? coordinator.persistentStores.first
        }
        let instruments = (written as? RowBackedPersistentStore)?.instruments
        try coordinator.whileOpen {
            guard let instruments else {
                try saveToStores(coordinator: coordinator, instruments: nil)
                return
            }
            _ = try instruments.measure(.save, rows: { $0 }) {
                try saveToStores(coordinator: coordinator, instruments: instruments)
            }
        }
    }

    /// Writes the context's changes to the stores, letting the merge policy resolve conflicts
    /// (up to `saveAttempts` tries); the number of objects saved.
    @discardableResult
    private func saveToStores(coordinator: NSPersistentStoreCoordinator, instruments: StoreInstruments?) throws -> Int {
        var attempt = 1
        while true {
            var inserted = insertedList.objects
            let deleted = deletedList.objects, updated = changedList.filter { $0.isUpdated }
            // Objects given their permanent IDs now are placed in their batches in the same pass.
            let batches = SaveBatches(schema: coordinator.schema)
            let placed = try assignPermanentIDs(
                for: inserted, sole: insertedEntity.sole, coordinator: coordinator, placingIn: batches)
            // Computed before validation; again only after a merge policy changed values.
            if attempt > 1 { try updateDerivedAttributes(inserted: inserted, updated: updated) }
            do {
                try write(
                    inserted: placed ? [] : inserted, updated: updated, deleted: deleted, into: batches,
                    coordinator: coordinator)
            } catch let refusal as StoreRefusal {
                instruments?.recordConflicts(refusal.conflicts.count)
                let policy = mergePolicy as? NSMergePolicy ?? NSMergePolicy.error
                guard attempt < Self.saveAttempts else { throw NSMergePolicy.mergeError(refusal.conflicts) }
                try policy.resolve(mergeConflicts: refusal.conflicts)
                instruments?.recordRetry()
                attempt += 1
                continue
            }
            let count = inserted.count + updated.count + deleted.count
            let ids = didSave(inserted: &inserted, updated: updated, deleted: deleted, versioned: true)
            postDidSave(updated: updated, deleted: deleted, ids: ids)
            return count
        }
    }

    /// How many times a save is tried when its merge policy resolves conflicts.
    static let saveAttempts = 4

    /// The version (`Z_OPT`) a save gives a row: one more, or 1 after the largest (a damaged
    /// store's row may hold any number).
    static func version(after version: Int64) -> Int64 {
        version < Int64.max ? version + 1 : 1
    }

    /// Writes one batch per store; a store's conflicts come back as a `StoreRefusal` holding
    /// `NSMergeConflict`s or `NSConstraintConflict`s. `batches` may hold inserted objects placed
    /// already (`assignPermanentIDs(for:coordinator:placingIn:)`), not in `inserted`.
    private func write(
        inserted: [NSManagedObject], updated: [NSManagedObject], deleted: [NSManagedObject], into batches: SaveBatches,
        coordinator: NSPersistentStoreCoordinator
    ) throws {
        func key(of object: NSManagedObject) throws -> ObjectKey {
            guard let key = object.storeKey else {
                throw CoreDataError.make(code: NSPersistentStoreSaveError, reason: "\(object.objectID) has no permanent ID")
            }
            return key
        }
        // Inserted objects' rows are made as their store binds them (`InsertedObjects`).
        try inserted.forEachUnretained { object in
            let key = try key(of: object)
            try batches.batch(for: object)._withUnsafeGuaranteedRef { $0.insert(object, key: key) }
        }
        try updated.forEachUnretained { object in
            let key = try key(of: object)
            try batches.batch(for: object)._withUnsafeGuaranteedRef { batch in
                let row = try object.storeRow(
                    key: key, version: Self.version(after: object.version), properties: batch.properties(of: key.entityID))
                batch.changes.updated.append(row)
                batch.written.append(Unmanaged.passUnretained(object))
                if object.version > 0 { batch.changes.expectedVersions[key] = object.version }
            }
        }
        try deleted.forEachUnretained { object in
            guard let key = object.storeKey else { return }
            try batches.batch(for: object)._withUnsafeGuaranteedRef { batch in
                batch.changes.deleted.append(key)
                batch.written.append(Unmanaged.passUnretained(object))
                if !object.isFault && object.version > 0 { batch.changes.expectedVersions[key] = object.version }
            }
        }
        let order = batches.order
        for batch in order { batch.changes.inserted = InsertedRows(InsertedObjects(batch)) }
        for batch in order where batch.store.tracksHistory {
            batch.changes.history = try historyDraft(for: batch, coordinator: coordinator)
        }
        if order.count == 1, let batch = order.first {
            do {
                try batch.store.rows.apply(batch.changes)
            } catch let error as SaveConflictError {
                throw StoreRefusal(conflicts: conflicts(error, batch: batch, coordinator: coordinator))
            }
            return
        }
        // Several stores: each checks and writes its part first, and only when every one has
        // accepted do they commit, so a conflict or a failure in one leaves all as they were.
        var prepared: [PreparedSave] = []
        for batch in order {
            do {
                prepared.append(try batch.store.rows.prepare(batch.changes))
            } catch let error as SaveConflictError {
                prepared.forEach { $0.rollBack() }
                throw StoreRefusal(conflicts: conflicts(error, batch: batch, coordinator: coordinator))
            } catch {
                prepared.forEach { $0.rollBack() }
                throw error
            }
        }
        for (index, save) in prepared.enumerated() {
            do {
                try save.commit()
            } catch {
                prepared.dropFirst(index + 1).forEach { $0.rollBack() }
                guard index > 0 else { throw error }
                throw CoreDataError.make(
                    code: NSPersistentStoreSaveError,
                    reason: "The save reached \(index) of \(prepared.count) stores before one failed to commit: "
                        + error.localizedDescription,
                    userInfo: [NSUnderlyingErrorKey: error, "NSPersistentStoreSaveOutcomeUnknown": true])
            }
        }
    }

    /// Chooses the store a newly inserted object is saved to (by default, the first store whose
    /// configuration holds its entity).
    ///
    /// - Parameters:
    ///   - object: An inserted `NSManagedObject` that has not been saved yet.
    ///   - store: One of the coordinator's stores; its configuration must hold the entity, or
    ///     the save fails with an error naming the entity.
    public func assign(_ object: Any, to store: NSPersistentStore) {
        guard let object = object as? NSManagedObject, object.storeKey == nil else { return }
        object.assignedStore = store
        if object.inserted { insertedEntity = .several }
    }

    /// Gives inserted objects permanent IDs now (a save does it too).
    ///
    /// - Throws: When no store of the coordinator holds an object's entity.
    public func obtainPermanentIDs(for objects: [NSManagedObject]) throws {
        guard let coordinator = persistentStoreCoordinator else {
            throw CoreDataError.make(code: NSCoreDataError, reason: "The context has no persistent store coordinator")
        }
        _ = try assignPermanentIDs(for: objects, coordinator: coordinator, placingIn: nil)
    }

    /// `obtainPermanentIDs(for:)`; with `batches`, a save's, each inserted object is placed in
    /// its store's batch as it takes its ID, while it is in the processor's cache (a separate
    /// pass over 10^5 objects costs a cache miss on each). Whether every object was placed so:
    /// false when one had its permanent ID already (none is placed then).
    ///
    /// `sole`: the entity of every object, none assigned a store or given a permanent ID, as
    /// `insertedEntity` knows of a save's inserted objects: they are one group then, made
    /// without a pass over them (each is checked as it takes its ID, and one that does not fit
    /// after all is given its ID apart, its key reserved in vain).
    private func assignPermanentIDs(
        for objects: [NSManagedObject], sole: NSEntityDescription? = nil, coordinator: NSPersistentStoreCoordinator,
        placingIn batches: SaveBatches?
    ) throws -> Bool {
        // Objects grouped by store and entity, so that each group reserves its keys at once
        // (for the SQLite store, one transaction per group rather than one per object). A group
        // takes no reference to its objects (`objects` holds them): dropping references to 10^5
        // new objects would be a pass over them.
        var groups: [PermanentIDGroup] = []
        var allTemporary = true
        if let sole {
            let (store, entityID) = try placement(of: sole, among: nil, coordinator: coordinator)
            let unretained = objects.withUnsafeBufferPointer {
                $0.withMemoryRebound(to: Unmanaged<NSManagedObject>.self) { Array($0) }
            }
            groups = [PermanentIDGroup(store: store, entityID: entityID, objects: unretained)]
        } else {
            (groups, allTemporary) = try permanentIDGroups(of: objects, coordinator: coordinator)
        }
        // From now on some inserted objects have permanent IDs (until the save empties the list).
        if !groups.isEmpty, !insertedList.isEmpty { insertedEntity = .several }
        let parent = self.parent
        let placing = allTemporary ? batches : nil
        // Objects of `sole`'s group that did not fit it after all.
        var misfits: [NSManagedObject] = []
        for group in groups {
            let keys = try group.store.rows.newPrimaryKeys(forEntity: group.entityID, count: group.objects.count)
            guard keys.count == group.objects.count else {
                throw CoreDataError.make(
                    code: NSPersistentStoreSaveError,
                    reason: "The store gave \(keys.count) keys for \(group.objects.count) objects")
            }
            let maker = PermanentIDMaker(store: group.store, coordinator: coordinator)
            // The registry moves the group's objects at once after the loop when that is cheaper,
            // else each in the loop.
            let atOnce = registry.movesAtOnce(
                count: group.objects.count, to: maker.origin, entityID: group.entityID, keys: keys)
            var skipped: Set<Int> = []
            // The context's base for the store's IDs, and the entity they give the group's: an
            // object of this context and that entity description takes its ID without looking
            // either up again.
            let base = homeBase(for: maker.origin)
            let entity = maker.entity(for: ObjectKey(entityID: group.entityID, primaryKey: 0))
            let batch = placing?.batch(for: group.store)
            batch?._withUnsafeGuaranteedRef { $0.reserveInserts(group.objects.count) }
            for (position, (unretained, primaryKey)) in zip(group.objects, keys).enumerated() {
                let object = unretained.takeUnretainedValue()
                if let sole, object.storeKey != nil || object.entity !== sole || object.assignedStore != nil {
                    misfits.append(object)
                    skipped.insert(position)
                    continue
                }
                let key = ObjectKey(entityID: group.entityID, primaryKey: primaryKey)
                // Neither ID is made here unless a parent needs them: `objectID` makes them.
                let temporary = (origin: object.idOrigin, key: object.identityKey)
                if !(object.entity === entity && object.belongs(to: self) && object.takePermanentIdentity(key, base: base)) {
                    object.objectID = maker.id(for: key)
                }
                if !atOnce { registry.reregister(object, from: temporary, to: (maker.origin, key)) }
                if let parent {
                    let (id, temporaryID) = (object.objectID, NSManagedObjectID(origin: temporary.origin, key: temporary.key))
                    parent.performAndWait { parent.adoptPermanentID(id, replacing: temporaryID) }
                }
                batch?._withUnsafeGuaranteedRef { $0.insert(object, key: key) }
            }
            guard atOnce else { continue }
            if skipped.isEmpty {
                registry.move(group.objects, to: maker.origin, entityID: group.entityID, keys: keys)
            } else {
                let kept = keys.indices.filter { !skipped.contains($0) }
                registry.move(
                    kept.map { group.objects[$0] }, to: maker.origin, entityID: group.entityID, keys: kept.map { keys[$0] })
            }
        }
        guard !misfits.isEmpty else { return placing != nil }
        // Misfits with a permanent ID already are placed as they are; the others get theirs apart.
        let temporary = misfits.filter { $0.storeKey == nil }
        if let placing {
            for object in misfits {
                guard let key = object.storeKey else { continue }
                try placing.batch(for: object)._withUnsafeGuaranteedRef { $0.insert(object, key: key) }
            }
        }
        _ = try assignPermanentIDs(for: temporary, coordinator: coordinator, placingIn: placing)
        return placing != nil
    }

    /// `objects` without a permanent ID grouped by the store they are saved to and their entity,
    /// in order; and whether every one was without a permanent ID.
    private func permanentIDGroups(
        of objects: [NSManagedObject], coordinator: NSPersistentStoreCoordinator
    ) throws -> (groups: [PermanentIDGroup], allTemporary: Bool) {
        struct GroupKey: Hashable {
            let store: ObjectIdentifier
            let entityID: Int
        }
        var groups: [PermanentIDGroup] = []
        var groupIndex: [GroupKey: Int] = [:]
        // The store and schema number of each entity's objects that have no assigned store.
        var placements: [ObjectIdentifier: (store: RowBackedPersistentStore, entityID: Int)] = [:]
        // The group of the last object's entity, when it had no assigned store: objects of one
        // entity usually come in a row.
        var last: (entity: ObjectIdentifier, group: Int)?
        var allTemporary = true
        for object in objects {
            guard object.storeKey == nil else {
                allTemporary = false
                continue
            }
            let assigned = object.assignedStore
            let entity = object.entity
            if assigned == nil, let last, last.entity == ObjectIdentifier(entity) {
                groups[last.group].objects.append(.passUnretained(object))
                continue
            }
            let placement: (store: RowBackedPersistentStore, entityID: Int)
            if assigned == nil, let known = placements[ObjectIdentifier(entity)] {
                placement = known
            } else {
                placement = try self.placement(of: entity, among: assigned.map { [$0] }, coordinator: coordinator)
                if assigned == nil { placements[ObjectIdentifier(entity)] = placement }
            }
            let (store, entityID) = placement
            let groupKey = GroupKey(store: ObjectIdentifier(store), entityID: entityID)
            let group: Int
            if let index = groupIndex[groupKey] {
                group = index
                groups[index].objects.append(.passUnretained(object))
            } else {
                group = groups.count
                groupIndex[groupKey] = groups.count
                groups.append(PermanentIDGroup(store: store, entityID: entityID, objects: [.passUnretained(object)]))
            }
            last = assigned == nil ? (ObjectIdentifier(entity), group) : nil
        }
        return (groups, allTemporary)
    }

    /// Cascade deletes destinations and nullify removes the deleted object from inverses; deny
    /// is left to `validateForDelete()`, which refuses while destinations that are not deleted
    /// remain.
    private func applyDeleteRules() throws {
        // Deleted objects, then inserted objects deleted before this save; both lists grow as
        // cascades delete more.
        var index = 0
        var forgotten = 0
        while index < deletedList.count || forgotten < deletedInserts.count {
            let object: NSManagedObject
            if index < deletedList.count {
                object = deletedList.objects[index]
                index += 1
            } else {
                object = deletedInserts[forgotten]
                forgotten += 1
            }
            prepareForDeletion(object)
            for case let relationship as NSRelationshipDescription in object.entity.properties {
                let destinations =
                    relationship.isToMany
                    ? object.members(relationship)
                    : (object.primitiveValue(forKey: relationship.name) as? NSManagedObject).map { [$0] } ?? []
                guard !destinations.isEmpty else { continue }
                switch relationship.deleteRule {
                case .cascadeDeleteRule:
                    for destination in destinations { delete(destination) }
                case .nullifyDeleteRule:
                    guard let inverse = relationship.inverseRelationship else { continue }
                    for destination in destinations where !destination.isDeleted {
                        destination.removeInverse(inverse, object)
                    }
                case .noActionDeleteRule, .denyDeleteRule:
                    // Deny is checked by `validateForDelete()`, once every rule has run.
                    continue
                }
            }
        }
    }

    /// The store that takes new objects of an entity (the first of `candidates`, or of the
    /// coordinator's stores, whose configuration has it) and the entity's schema number.
    private func placement(
        of entity: NSEntityDescription, among candidates: [NSPersistentStore]?, coordinator: NSPersistentStoreCoordinator
    ) throws -> (store: RowBackedPersistentStore, entityID: Int) {
        let entityName = entity.name ?? ""
        guard let entityID = coordinator.schema.entityIDsByName[entityName],
            let store = Self.firstStore(
                holding: entity, among: candidates ?? coordinator.persistentStores, coordinator: coordinator)
        else {
            throw CoreDataError.make(
                code: NSPersistentStoreSaveError, reason: "No persistent store holds objects of the entity \(entityName)")
        }
        return (store, entityID)
    }

    /// The first of `stores` whose configuration holds `entity` (where a new object of it is
    /// saved unless it was assigned a store).
    static func firstStore(
        holding entity: NSEntityDescription, among stores: [NSPersistentStore], coordinator: NSPersistentStoreCoordinator
    ) -> RowBackedPersistentStore? {
        let entityName = entity.name ?? ""
        return stores.compactMap { $0 as? RowBackedPersistentStore }.first { store in
            coordinator.managedObjectModel.entities(forConfigurationName: store.configurationName)?
                .contains { $0.name == entityName } ?? false
        }
    }
}

extension NSManagedObject {
    /// The object's row for its store: a value per slot of its entity (`properties`, the
    /// schema's), under `key`, its store key.
    fileprivate func storeRow(key: ObjectKey, version: Int64, properties: [PropertySchema]) throws -> RowSnapshot {
        fireFault()
        var values: [StoreValue] = []
        values.reserveCapacity(properties.count)
        // Schema slots are layout slots (both follow the entity's `properties`).
        let current = self.values
        let bySlot = current.layout.count == properties.count
        // By index: binding each `PropertySchema` would copy it (and retain its strings).
        for slot in properties.indices {
            // An attribute's value converted where it is held (copying it out retains it).
            if bySlot, !properties[slot].isTransient, case .attribute(let kind) = properties[slot].kind,
                kind != .transformable
            {
                values.append(try current.storeValue(slot: slot, kind: kind, property: properties[slot].name))
                continue
            }
            let value = bySlot ? current[slot: slot] : current[properties[slot].name]
            switch properties[slot].kind {
            case _ where properties[slot].isTransient || value == nil:
                values.append(.null)
            case .attribute(let kind):
                var stored = value
                if kind == .transformable, let attribute = entity.attributesByName[properties[slot].name] {
                    stored = try AttributeValueTransform.storedValue(value, of: attribute)
                }
                values.append(try StoreValue(stored, kind: kind, property: properties[slot].name))
            case .toOne:
                values.append(
                    ValueSemantics.objectCast(value, to: NSManagedObject.self)?.storeKey.map(StoreValue.object) ?? .null)
            case .toMany:
                var members = value as? [NSManagedObject] ?? []
                if ValueSemantics.objectCast(value, to: RelationshipFault.self) != nil,
                    let relationship = entity.relationshipsByName[properties[slot].name]
                {
                    // Members deleted in this save leave the row: read them as objects (a
                    // store that cannot give them fails the save rather than write none).
                    members = try loadedMembers(relationship)
                }
                values.append(.objects(members.compactMap { $0.isDeleted ? nil : $0.storeKey }))
            }
        }
        return RowSnapshot(key: key, version: version, values: values)
    }
}

/// A save's batches, one per store, in the order their stores were first met (a class: its
/// state is changed in place, with no dynamic exclusivity check per object).
final class SaveBatches {
    let schema: StoreSchema
    // Used by one save, on its context's queue.
    @exclusivity(unchecked) private(set) var order: [SaveBatch] = []
    @exclusivity(unchecked) private var byStore: [ObjectIdentifier: SaveBatch] = [:]
    /// The batch of the last object's ID origin (one store's): objects of one store come in a
    /// row. Unretained (`order` holds the batches): no reference taken per object.
    @exclusivity(unchecked) private var last: (origin: ObjectIdentifier, batch: Unmanaged<SaveBatch>)?

    init(schema: StoreSchema) {
        self.schema = schema
    }

    /// The batch of the store that holds `object`'s row, made when first asked for.
    func batch(for object: NSManagedObject) throws -> Unmanaged<SaveBatch> {
        let origin = object.idOrigin
        if let last, last.origin == ObjectIdentifier(origin) { return last.batch }
        guard let store = origin.store as? RowBackedPersistentStore else {
            throw CoreDataError.make(code: NSPersistentStoreSaveError, reason: "No store holds \(object.objectID)")
        }
        let batch = batch(for: store)
        last = (ObjectIdentifier(origin), batch)
        return batch
    }

    /// The batch of `store`, made when first asked for.
    func batch(for store: RowBackedPersistentStore) -> Unmanaged<SaveBatch> {
        if let known = byStore[ObjectIdentifier(store)] { return .passUnretained(known) }
        let batch = SaveBatch(store: store, schema: schema)
        byStore[ObjectIdentifier(store)] = batch
        order.append(batch)
        return .passUnretained(batch)
    }
}

/// The rows one save writes to one store, and the objects they come from: the inserted objects
/// first (`insertedKeys.count` of them), then the updated and the deleted.
final class SaveBatch {
    let store: RowBackedPersistentStore
    let schema: StoreSchema
    // Built and read by one save, on its context's queue (a store reads the inserted rows
    // through `InsertedObjects`, which copies what it needs): no dynamic exclusivity checks (two a row).
    @exclusivity(unchecked) var changes = SaveChanges()
    /// The objects whose rows the batch writes, in order, unretained: the save holds them in its
    /// lists while the batch lives (retaining and releasing each touched every object once more).
    @exclusivity(unchecked) var written: [Unmanaged<NSManagedObject>] = []
    /// The store keys of the inserted objects, the first of `written`.
    @exclusivity(unchecked) var insertedKeys: [ObjectKey] = []
    /// The schema's properties of the last entity whose row was made: objects of one entity come
    /// in a row.
    @exclusivity(unchecked) private var lastProperties: (entityID: Int, properties: [PropertySchema])?
    /// The objects by row key, for the conflicts a store reports (made then: most saves have none).
    lazy var objects: [ObjectKey: NSManagedObject] = Dictionary(
        written.compactMap { written in
            let object = written.takeUnretainedValue()
            return object.storeKey.map { ($0, object) }
        }, uniquingKeysWith: { _, last in last })

    init(store: RowBackedPersistentStore, schema: StoreSchema) {
        self.store = store
        self.schema = schema
    }

    /// Makes room for `count` more inserted objects (see `insert(_:key:)`).
    func reserveInserts(_ count: Int) {
        insertedKeys.reserveCapacity(insertedKeys.count + count)
        written.reserveCapacity(written.count + count)
    }

    /// Adds an inserted object, whose row has `key`; before any updated or deleted object.
    func insert(_ object: NSManagedObject, key: ObjectKey) {
        insertedKeys.append(key)
        written.append(Unmanaged.passUnretained(object))
    }

    /// The properties of the schema's entity `entityID`, the rows' slots.
    func properties(of entityID: Int) -> [PropertySchema] {
        if let lastProperties, lastProperties.entityID == entityID { return lastProperties.properties }
        let properties = schema.entity(entityID).properties
        lastProperties = (entityID, properties)
        return properties
    }
}

/// A batch's inserted objects as the rows its store inserts, each made from its object's
/// storage when the store reads it (see `InsertedRows`).
///
/// The objects are unretained, as in `SaveBatch.written`: the store reads the rows within the
/// save's `RowStore.apply(_:)` or `prepare(_:)` call, while the save holds the objects.
final class InsertedObjects: InsertedRowSource {
    /// Immutable, so that reading them takes no reference.
    private let keys: [ObjectKey]
    private let objects: [Unmanaged<NSManagedObject>]
    private let schema: StoreSchema

    /// The inserted objects of `batch`, once it holds all of its objects.
    init(_ batch: SaveBatch) {
        keys = batch.insertedKeys
        objects = batch.written
        schema = batch.schema
    }

    var count: Int { keys.count }

    func key(at index: Int) -> ObjectKey { keys[index] }

    func row(at index: Int) throws -> RowSnapshot {
        let key = keys[index]
        return try objects[index]._withUnsafeGuaranteedRef { object in
            try object.storeRow(key: key, version: 1, properties: schema.entities[key.entityID - 1].properties)
        }
    }
}

/// A save a store refused, with its conflicts as the merge policy receives them.
struct StoreRefusal: Error, @unchecked Sendable {
    // @unchecked Sendable: thrown and caught within one save, on the context's queue; the conflicts
    // (which hold the context's objects) never leave it.

    let conflicts: [Any]
}

/// New objects that take their permanent IDs together: of one entity, saved to one store
/// (see `assignPermanentIDs(for:sole:coordinator:placingIn:)`), held unretained.
private struct PermanentIDGroup {
    let store: RowBackedPersistentStore
    let entityID: Int
    var objects: [Unmanaged<NSManagedObject>]
}
