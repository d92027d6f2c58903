import OpenPredicate
import OpenStoreCore

extension NSManagedObjectContext {
    /// Runs an `NSBatchInsertRequest` in the first store that holds its entity: rows made from
    /// the request's values, keys reserved in the store, rows whose uniqueness-constraint values a
    /// stored row has turned into updates of it, all written as one save of rows
    /// (`RowStore.apply`), never as objects of this context.
    func executeBatchInsert(_ request: NSBatchInsertRequest) throws -> NSBatchInsertResult {
        guard let coordinator = persistentStoreCoordinator else {
            throw CoreDataError.make(code: NSCoreDataError, reason: "The context has no persistent store coordinator")
        }
        let model = coordinator.managedObjectModel
        guard let entity = model.entitiesByName[request.entityName],
            let schemaEntity = coordinator.schema.entity(named: request.entityName)
        else {
            throw CoreDataError.make(
                code: NSCoreDataError,
                reason: "An NSBatchInsertRequest names the entity \(request.entityName), which is not in the model")
        }
        request.resolve(entity)
        let fetch = NSFetchRequest<NSFetchRequestResult>(entityName: request.entityName)
        fetch.affectedStores = request.affectedStores
        let plan = try FetchPlanBuilder(model: model, schema: coordinator.schema).plan(for: fetch)
        guard let store = try affectedStores(of: fetch, plan: plan, in: coordinator).first else {
            throw CoreDataError.make(
                code: NSCoreDataError, reason: "No store of the coordinator holds \(request.entityName) objects")
        }
        guard store.type != NSInMemoryStoreType else {
            throw CoreDataError.make(
                code: NSPersistentStoreUnsupportedRequestTypeError,
                reason: "NSBatchInsertRequest is not supported by the in-memory store (as with Apple's Core Data: batch "
                    + "requests run in SQL stores); insert the objects and save() instead")
        }
        var maker = BatchRowMaker(entity: entity, schema: schemaEntity, entityID: plan.entityID)
        try maker.readValues(of: request, context: self)
        var changes = try maker.changes(in: store)
        if store.tracksHistory {
            changes.history = historyDraft(
                changes: changes.inserted.map { HistoryChange(key: $0.key, kind: .insert) }
                    + changes.updated.map { HistoryChange(key: $0.key, kind: .update, updatedSlots: maker.givenSlots[$0.key]) })
        }
        if !changes.isEmpty {
            do {
                try store.rows.apply(changes)
            } catch is SaveConflictError {
                throw CoreDataError.make(
                    code: NSPersistentStoreSaveConflictsError,
                    reason: "A batch insert conflicted with a save that changed the same rows meanwhile; nothing was inserted")
            }
        }
        switch request.resultType {
        case .statusOnly: return NSBatchInsertResult(result: NSNumber(value: true), resultType: .statusOnly)
        case .count: return NSBatchInsertResult(result: NSNumber(value: maker.order.count), resultType: .count)
        case .objectIDs:
            let ids = PermanentIDMaker(store: store, coordinator: coordinator)
            return NSBatchInsertResult(result: maker.order.map(ids.id(for:)), resultType: .objectIDs)
        }
    }
}

/// The rows of a batch insert, made from the request's values: one value per slot of the entity,
/// attributes given converted to their stored kind, the others the model's default values.
struct BatchRowMaker {
    let entity: NSEntityDescription
    let schema: EntitySchema
    let entityID: Int
    /// The values given for each object, by slot (nil: not given), in the request's order.
    private var given: [[StoreValue?]] = []
    /// The rows' keys in the request's order, once written (an update's is its stored row's).
    private(set) var order: [ObjectKey] = []
    /// The slots each updated row was given, for its history.
    private(set) var givenSlots: [ObjectKey: [Int]] = [:]
    /// Each stored attribute's slot, kind and description.
    private let attributes: [(slot: Int, kind: AttributeKind, attribute: NSAttributeDescription)]
    private let slotsByName: [String: Int]
    /// Each attribute's default value in the model, by slot.
    private let defaults: [StoreValue?]

    init(entity: NSEntityDescription, schema: EntitySchema, entityID: Int) {
        self.entity = entity
        self.schema = schema
        self.entityID = entityID
        var attributes: [(Int, AttributeKind, NSAttributeDescription)] = []
        var slots: [String: Int] = [:]
        for (slot, property) in schema.properties.enumerated() {
            guard case .attribute(let kind) = property.kind, !property.isTransient, !property.isDerived,
                let attribute = entity.attributesByName[property.name]
            else { continue }
            attributes.append((slot, kind, attribute))
            slots[property.name] = slot
        }
        self.attributes = attributes
        slotsByName = slots
        var defaults = [StoreValue?](repeating: nil, count: schema.properties.count)
        for (slot, kind, attribute) in attributes {
            defaults[slot] = attribute.defaultValue.flatMap {
                try? StoreValue(attributeValue: $0, attribute: attribute, kind: kind)
            }
        }
        self.defaults = defaults
    }

    /// Reads the request's objects: its dictionaries, or its handler's, until it returns `true`.
    mutating func readValues(of request: NSBatchInsertRequest, context: NSManagedObjectContext) throws {
        if let objects = request.objectsToInsert {
            given.reserveCapacity(objects.count)
            for object in objects { given.append(try values(object)) }
        } else if let handler = request.dictionaryHandler {
            while true {
                let dictionary = NSMutableDictionary()
                if handler(dictionary) { break }
                var object: [String: Any] = [:]
                for (key, value) in dictionary { object["\(key)"] = value }
                given.append(try values(object))
            }
        } else if let handler = request.managedObjectHandler {
            let objectClass = context.managedObjectClass(for: entity)
            while true {
                let object = objectClass.init(entity: entity, insertInto: nil)
                if handler(object) { break }
                var values: [String: Any] = [:]
                for (_, _, attribute) in attributes {
                    if let value = object.value(forKey: attribute.name) { values[attribute.name] = value }
                }
                given.append(try self.values(values))
            }
        } else {
            throw CoreDataError.make(
                code: NSCoreDataError,
                reason: "An NSBatchInsertRequest for \(entity.name ?? "") has no objectsToInsert, dictionaryHandler or "
                    + "managedObjectHandler")
        }
    }

    /// The values of one object, by slot.
    private func values(_ object: [String: Any]) throws -> [StoreValue?] {
        var values = [StoreValue?](repeating: nil, count: schema.properties.count)
        for (name, value) in object {
            guard let slot = slotsByName[name], case .attribute(let kind) = schema.properties[slot].kind,
                let attribute = entity.attributesByName[name]
            else {
                throw CoreDataError.make(
                    code: NSManagedObjectValidationError,
                    reason: "An NSBatchInsertRequest gives \(name), which is not a stored attribute of \(entity.name ?? "")",
                    userInfo: ["NSValidationErrorKey": name])
            }
            values[slot] = try StoreValue(attributeValue: value, attribute: attribute, kind: kind)
        }
        return values
    }

    /// The save of rows: new rows with keys reserved in `store`, and for each object whose
    /// uniqueness-constraint values a stored row has, an update of that row with the values
    /// given. Of two objects with the same constraint values, the later one is written.
    mutating func changes(in store: RowBackedPersistentStore) throws -> SaveChanges {
        let constraints = store.rows.schema.uniquenessConstraints(applyingTo: entityID)
        var objects = given
        if !constraints.isEmpty { objects = Self.laterWins(objects, constraints: constraints) }
        var existing: [Int: RowSnapshot] = [:]
        if !constraints.isEmpty { existing = try storedRows(matching: objects, constraints: constraints, in: store) }
        var changes = SaveChanges()
        let insertCount = objects.indices.count - existing.count
        let keys = insertCount > 0 ? try store.rows.newPrimaryKeys(forEntity: entityID, count: insertCount) : []
        changes.inserted.reserveCapacity(insertCount)
        order.reserveCapacity(objects.count)
        var nextKey = 0
        for (index, object) in objects.enumerated() {
            if var row = existing[index] {
                var slots: [Int] = []
                for (slot, value) in object.enumerated() {
                    guard let value else { continue }
                    row.values[slot] = value
                    slots.append(slot)
                }
                changes.expectedVersions[row.key] = row.version
                row.version = NSManagedObjectContext.version(after: row.version)
                givenSlots[row.key] = slots
                changes.updated.append(row)
                order.append(row.key)
                continue
            }
            let key = ObjectKey(entityID: entityID, primaryKey: keys[nextKey])
            nextKey += 1
            var values = [StoreValue](repeating: .null, count: schema.properties.count)
            for (slot, property) in schema.properties.enumerated() {
                if case .toMany = property.kind { values[slot] = .objects([]) }
            }
            for (slot, _, _) in attributes { values[slot] = object[slot] ?? defaults[slot] ?? .null }
            changes.inserted.append(RowSnapshot(key: key, version: 1, values: values))
            order.append(key)
        }
        return changes
    }

    /// `objects` without those a later one replaces: the same values for a constraint.
    private static func laterWins(_ objects: [[StoreValue?]], constraints: [(entityID: Int, slots: [Int])]) -> [[StoreValue?]] {
        var replaced = Set<Int>()
        for constraint in constraints {
            var last: [UniqueValueKey: Int] = [:]
            for (index, object) in objects.enumerated() {
                guard let key = UniqueValueKey(constraint.slots.map { object[$0] ?? .null }) else { continue }
                if let earlier = last[key] { replaced.insert(earlier) }
                last[key] = index
            }
        }
        return replaced.isEmpty ? objects : objects.indices.filter { !replaced.contains($0) }.map { objects[$0] }
    }

    /// The stored rows that have an object's values for a constraint, by the object's index:
    /// fetched by `IN` lists of each constraint's values, matched in memory.
    private func storedRows(
        matching objects: [[StoreValue?]], constraints: [(entityID: Int, slots: [Int])], in store: RowBackedPersistentStore
    ) throws -> [Int: RowSnapshot] {
        var found: [Int: RowSnapshot] = [:]
        let storeSchema = store.rows.schema
        for constraint in constraints {
            let names = constraint.slots.map { storeSchema.entity(constraint.entityID).properties[$0].name }
            var wanted: [UniqueValueKey: Int] = [:]
            for (index, object) in objects.enumerated() where found[index] == nil {
                if let key = UniqueValueKey(constraint.slots.map { object[$0] ?? .null }) { wanted[key] = index }
            }
            guard !wanted.isEmpty else { continue }
            let lists = constraint.slots.map { slot in
                guard case .attribute(let kind) = storeSchema.entity(constraint.entityID).properties[slot].kind else {
                    return [Any]()
                }
                return Array(Set(objects.compactMap { $0[slot] }.filter { $0 != .null })).compactMap { $0.swiftValue(kind: kind) }
            }
            let predicate = NSCompoundPredicate(
                andPredicateWithSubpredicates: zip(names, lists).map { NSPredicate(format: "%K IN %@", $0, $1) })
            let family = storeSchema.entity(constraint.entityID).familyIDs
            let plan = FetchPlan(entityID: constraint.entityID, entityIDs: family, predicate: predicate, output: .rows)
            guard case .rows(let rows) = try store.rows.execute(plan) else { continue }
            for row in rows {
                guard let key = UniqueValueKey(constraint.slots.map { row.values[$0] }), let index = wanted[key] else { continue }
                found[index] = row
            }
        }
        return found
    }
}

extension StoreValue {
    /// The stored form of a value an app gives an attribute: through its value transformer for a
    /// transformable attribute, then converted to the attribute's kind (`init(_:kind:property:)`).
    init(attributeValue value: Any?, attribute: NSAttributeDescription, kind: AttributeKind) throws {
        var value = value
        if kind == .transformable { value = try AttributeValueTransform.storedValue(value, of: attribute) }
        try self.init(value, kind: kind, property: attribute.name)
    }
}
