import OpenPredicate
import OpenStoreCore

extension NSManagedObjectContext {
    /// Runs an `NSBatchDeleteRequest` in each store that holds its entity, never through objects
    /// of this context. Where the entities' delete rules reach no other row (and no deleted row
    /// keeps values in history), the store deletes set-based (`RowStore.execute(_:)`: one
    /// `DELETE … WHERE` the predicate); otherwise the matched keys are read, the rules applied
    /// (`BatchDeletePlan`), and the rows written as one save of rows (`RowStore.apply`).
    func executeBatchDelete(_ request: NSBatchDeleteRequest) throws -> NSBatchDeleteResult {
        guard let coordinator = persistentStoreCoordinator else {
            throw CoreDataError.make(code: NSCoreDataError, reason: "The context has no persistent store coordinator")
        }
        let model = coordinator.managedObjectModel
        var deleted: [NSManagedObjectID] = []
        var count = 0
        for (store, target) in try batchDeleteTargets(of: request, coordinator: coordinator) {
            guard store.type != NSInMemoryStoreType else {
                throw CoreDataError.make(
                    code: NSPersistentStoreUnsupportedRequestTypeError,
                    reason: "NSBatchDeleteRequest is not supported by the in-memory store (as with Apple's Core Data: batch "
                        + "requests run in SQL stores); fetch the objects and delete them with delete(_:) and save()")
            }
            let maker = PermanentIDMaker(store: store, coordinator: coordinator)
            let entityIDs: Set<Int>
            switch target {
            case .plan(let plan): entityIDs = plan.entityIDs
            case .keys(_, let keys): entityIDs = Set(keys.map(\.entityID))
            }
            let entities = entityIDs.map(coordinator.schema.entity)
            if !entities.contains(where: { BatchDeletePlan.rulesReachOthers($0, in: model) })
                && (!store.tracksHistory || entities.allSatisfy(\.tombstoneSlots.isEmpty))
            {
                var write = BatchWrite(action: .delete, target: target)
                write.returnsKeys = request.resultType == .resultTypeObjectIDs
                if store.tracksHistory { write.history = historyDraft() }
                let outcome = try runBatch(write, in: store, named: "NSBatchDeleteRequest")
                count += outcome.count
                deleted += (outcome.keys ?? []).map(maker.id(for:))
                continue
            }
            let matched: [ObjectKey]
            switch target {
            case .plan(let plan):
                guard case .keys(let keys) = try store.rows.execute(plan) else { continue }
                matched = keys
            case .keys(_, let keys):
                matched = try store.rows.rows(for: keys).map(\.key)
            }
            let plan = try BatchDeletePlan(matched: matched, store: store, coordinator: coordinator)
            var changes = SaveChanges(updated: plan.nullified, deleted: plan.deleted, expectedVersions: plan.expectedVersions)
            if store.tracksHistory { changes.history = try plan.history(context: self) }
            try applyBatchChanges(changes, in: store, named: "NSBatchDeleteRequest")
            count += plan.deleted.count
            deleted += plan.deleted.map(maker.id(for:))
        }
        switch request.resultType {
        case .resultTypeStatusOnly: return NSBatchDeleteResult(result: NSNumber(value: true), resultType: .resultTypeStatusOnly)
        case .resultTypeCount: return NSBatchDeleteResult(result: NSNumber(value: count), resultType: .resultTypeCount)
        case .resultTypeObjectIDs: return NSBatchDeleteResult(result: deleted, resultType: .resultTypeObjectIDs)
        }
    }

    /// The stores the request deletes in, each with the rows it deletes there: the keys of the
    /// request's IDs in that store, or the plan of its fetch request.
    private func batchDeleteTargets(of request: NSBatchDeleteRequest, coordinator: NSPersistentStoreCoordinator) throws
        -> [(RowBackedPersistentStore, BatchWrite.Target)]
    {
        if let ids = request.objectIDs {
            var byStore: [ObjectIdentifier: (RowBackedPersistentStore, [ObjectKey])] = [:]
            var order: [ObjectIdentifier] = []
            let entityName = ids.first?.entity.name
            for id in ids {
                guard id.entity.name == entityName else {
                    throw CoreDataError.make(
                        code: NSCoreDataError,
                        reason: "An NSBatchDeleteRequest's object IDs must all be of one entity: \(entityName ?? "") and "
                            + "\(id.entity.name ?? "")")
                }
                guard let key = id.key, let store = id.persistentStore as? RowBackedPersistentStore,
                    store.persistentStoreCoordinator === coordinator
                else {
                    throw CoreDataError.make(
                        code: NSCoreDataError,
                        reason: "\(id) is not the ID of a saved object of this context's coordinator; an NSBatchDeleteRequest "
                            + "deletes saved objects only")
                }
                let storeID = ObjectIdentifier(store)
                if byStore[storeID] == nil {
                    byStore[storeID] = (store, [])
                    order.append(storeID)
                }
                byStore[storeID]?.1.append(key)
            }
            return order.compactMap { byStore[$0] }.map { store, keys in
                var seen = Set<ObjectKey>()
                let unique = keys.filter { seen.insert($0).inserted }
                return (store, .keys(entityID: unique[0].entityID, unique))
            }
        }
        var plan = try FetchPlanBuilder(model: coordinator.managedObjectModel, schema: coordinator.schema)
            .plan(for: request.fetchRequest)
        plan.output = .keys
        let fetch = request.fetchRequest
        if fetch.affectedStores == nil { fetch.affectedStores = request.affectedStores }
        return try affectedStores(of: fetch, plan: plan, in: coordinator).map { ($0, .plan(plan)) }
    }
}

/// What a batch delete writes in one store: the rows deleted (those matched, then those their
/// cascade rules reach) and the rows whose to-one to a deleted row its nullify rule clears.
///
/// Delete rules, relationship by relationship of each deleted row's entity:
/// - cascade: the destinations are deleted too (and their own rules apply);
/// - nullify: a destination that stays keeps no to-one to the deleted row (its inverse is set to
///   nil, the row's version bumped); a to-many inverse needs nothing, its join-table rows or the
///   deleted row's own column go with the row. A mandatory inverse to-one refuses the request, as
///   Apple's does;
/// - deny: a destination that stays refuses the request;
/// - no action: nothing.
struct BatchDeletePlan {
    private(set) var deleted: [ObjectKey] = []
    private(set) var nullified: [RowSnapshot] = []
    private(set) var expectedVersions: [ObjectKey: Int64] = [:]
    /// The slots each nullified row had cleared, for its history.
    private var clearedSlots: [ObjectKey: [Int]] = [:]
    private let store: RowBackedPersistentStore
    private let schema: StoreSchema

    init(matched: [ObjectKey], store: RowBackedPersistentStore, coordinator: NSPersistentStoreCoordinator) throws {
        self.store = store
        schema = coordinator.schema
        let model = coordinator.managedObjectModel
        // Most purges are of entities whose rules reach nothing: then the keys matched are all.
        var entityIDs: [Int] = []
        for key in matched where !entityIDs.contains(key.entityID) { entityIDs.append(key.entityID) }
        guard entityIDs.contains(where: { Self.rulesReachOthers(schema.entity($0), in: model) }) else {
            deleted = matched
            return
        }
        var deleting = Set<ObjectKey>()
        var next = matched.filter { deleting.insert($0).inserted }
        // Inverse to-ones to clear: the destination row, and the slot of its inverse.
        var clearing: [ObjectKey: Set<Int>] = [:]
        var denied: [(key: ObjectKey, relationship: String, destination: ObjectKey)] = []
        // Destinations whose mandatory inverse to-one a nullify rule would clear.
        var mandatory: [(inverse: String, destination: ObjectKey)] = []
        while !next.isEmpty {
            deleted += next
            var reached: [ObjectKey] = []
            for (entityID, keys) in Dictionary(grouping: next, by: \.entityID).sorted(by: { $0.key < $1.key }) {
                let entitySchema = schema.entity(entityID)
                guard let entity = model.entitiesByName[entitySchema.name] else { continue }
                var rows: [ObjectKey: RowSnapshot]?
                for relationship in entity.relationshipsByName.values.sorted(by: { $0.name < $1.name }) {
                    guard Self.reachesOthers(relationship, of: entitySchema),
                        let slot = entitySchema.slotsByName[relationship.name]
                    else { continue }
                    let inverse = relationship.inverseRelationship
                    let inverseSlot = inverse.flatMap { inverse in
                        inverse.entity.name.flatMap { schema.entity(named: $0)?.slotsByName[inverse.name] }
                    }
                    // The destinations, by owner.
                    var destinations: [(owner: ObjectKey, destination: ObjectKey)] = []
                    if relationship.isToMany {
                        for (owner, members) in try store.rows.members(of: keys, slot: slot) {
                            destinations += members.map { (owner, $0) }
                        }
                    } else {
                        if rows == nil {
                            rows = Dictionary(
                                try store.rows.rows(for: keys).map { ($0.key, $0) }, uniquingKeysWith: { a, _ in a })
                        }
                        for key in keys {
                            if case .object(let destination)? = rows?[key]?.values[slot] {
                                destinations.append((key, destination))
                            }
                        }
                    }
                    switch relationship.deleteRule {
                    case .cascadeDeleteRule:
                        for (_, destination) in destinations where deleting.insert(destination).inserted {
                            reached.append(destination)
                        }
                    case .denyDeleteRule:
                        denied += destinations.map { ($0.owner, relationship.name, $0.destination) }
                    case .nullifyDeleteRule:
                        guard let inverse, let inverseSlot else { continue }
                        if !inverse.isOptional {
                            mandatory += destinations.map { ("\(inverse.entity.name ?? "")/\(inverse.name)", $0.destination) }
                        }
                        for (_, destination) in destinations { clearing[destination, default: []].insert(inverseSlot) }
                    default:
                        continue
                    }
                }
            }
            next = reached
        }
        if let refused = denied.first(where: { !deleting.contains($0.destination) }) {
            throw CoreDataError.make(
                code: NSValidationRelationshipDeniedDeleteError,
                reason: "The batch delete was refused: \(refused.key) has an object in \(refused.relationship), whose delete "
                    + "rule is deny; nothing was deleted")
        }
        // Rows the request deletes anyway need neither.
        if let refused = mandatory.first(where: { !deleting.contains($0.destination) }) {
            throw CoreDataError.make(
                code: NSPersistentStoreSaveError,
                reason: "Batch delete failed due to mandatory OTO nullify inverse on \(refused.inverse): "
                    + "\(refused.destination) would be left without it; nothing was deleted")
        }
        let staying = clearing.keys.filter { !deleting.contains($0) }.sorted {
            ($0.entityID, $0.primaryKey) < ($1.entityID, $1.primaryKey)
        }
        for var row in try store.rows.rows(for: staying) {
            let slots = (clearing[row.key] ?? []).sorted()
            for slot in slots { row.values[slot] = .null }
            expectedVersions[row.key] = row.version
            row.version = NSManagedObjectContext.version(after: row.version)
            clearedSlots[row.key] = slots
            nullified.append(row)
        }
    }

    /// Whether deleting a row of `entity` can reach other rows (see `reachesOthers(_:of:)`).
    static func rulesReachOthers(_ entity: EntitySchema, in model: NSManagedObjectModel) -> Bool {
        model.entitiesByName[entity.name]?.relationshipsByName.values.contains { reachesOthers($0, of: entity) } ?? false
    }

    /// Whether the rule of a stored relationship of `entity` acts on other rows: it cascades,
    /// denies, or nullifies an inverse to-one.
    private static func reachesOthers(_ relationship: NSRelationshipDescription, of entity: EntitySchema) -> Bool {
        guard !relationship.isTransient, entity.slotsByName[relationship.name] != nil else { return false }
        switch relationship.deleteRule {
        case .cascadeDeleteRule, .denyDeleteRule: return true
        case .nullifyDeleteRule: return relationship.inverseRelationship.map { !$0.isToMany } ?? false
        default: return false
        }
    }

    /// The persistent-history transaction of the delete, as the context's own saves write it:
    /// tombstones of the deleted rows, the cleared slots of the nullified ones.
    func history(context: NSManagedObjectContext) throws -> HistoryTransactionDraft {
        var changes: [HistoryChange] = []
        changes.reserveCapacity(deleted.count + nullified.count)
        for row in nullified {
            changes.append(HistoryChange(key: row.key, kind: .update, updatedSlots: clearedSlots[row.key] ?? []))
        }
        let keeping = deleted.filter { !schema.entity($0.entityID).tombstoneSlots.isEmpty }
        let rows =
            keeping.isEmpty
            ? [:] : Dictionary(try store.rows.rows(for: keeping).map { ($0.key, $0) }, uniquingKeysWith: { a, _ in a })
        for key in deleted {
            var tombstone: [Int: StoreValue] = [:]
            if let row = rows[key] {
                for slot in schema.entity(key.entityID).tombstoneSlots where row.values[slot] != .null {
                    tombstone[slot] = row.values[slot]
                }
            }
            changes.append(HistoryChange(key: key, kind: .delete, tombstone: tombstone))
        }
        return context.historyDraft(changes: changes)
    }
}
