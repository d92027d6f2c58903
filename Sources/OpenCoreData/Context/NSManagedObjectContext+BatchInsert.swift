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
        guard let entity = model.entitiesByName[request.entityName] else {
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
        var maker = BatchRowMaker(entity: entity, entityID: plan.entityID, schema: coordinator.schema)
        try maker.readValues(of: request, context: self)
        var changes = try maker.changes(in: store)
        if store.tracksHistory {
            changes.history = historyDraft(
                changes: changes.inserted.keys.map { HistoryChange(key: $0, kind: .insert) }
                    + changes.updated.map { HistoryChange(key: $0.key, kind: .update, updatedSlots: maker.givenSlots[$0.key]) })
        }
        try applyBatchChanges(changes, in: store, named: "NSBatchInsertRequest")
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
    /// Each object's values by slot, in the request's order: those given, the model's defaults
    /// for the other attributes, no members for to-manys, nil for to-ones.
    private var objects: [[StoreValue]] = []
    /// Which slots each object gave, `maskWords` words an object, a bit a slot: kept only for an
    /// entity with uniqueness constraints (whose objects may update stored ones).
    private var givenMasks: [UInt64] = []
    private let maskWords: Int
    private let constraints: [(entityID: Int, slots: [Int])]
    /// An object's values before any is given.
    private let template: [StoreValue]
    /// The rows' keys in the request's order, once written (an update's is its stored row's).
    private(set) var order: [ObjectKey] = []
    /// The slots each updated row was given, for its history.
    private(set) var givenSlots: [ObjectKey: [Int]] = [:]
    /// Each stored attribute's slot and kind, by name (no reference to count on each value).
    private let attributes: [String: (slot: Int, kind: AttributeKind)]
    /// The attributes the objects named so far (up to 8), looked through before `attributes`:
    /// comparing a few short names costs less than hashing one, and objects name the same ones.
    private var recent: [(name: String, slot: Int, kind: AttributeKind)] = []
    /// The transformable attributes, by slot: their values go through their transformers.
    private let transformable: [Int: NSAttributeDescription]

    init(entity: NSEntityDescription, entityID: Int, schema storeSchema: StoreSchema) {
        self.entity = entity
        schema = storeSchema.entity(entityID)
        self.entityID = entityID
        constraints = storeSchema.uniquenessConstraints(applyingTo: entityID)
        var attributes: [String: (slot: Int, kind: AttributeKind)] = [:]
        var transformable: [Int: NSAttributeDescription] = [:]
        var template = [StoreValue](repeating: .null, count: schema.properties.count)
        let descriptions = entity.attributesByName
        for (slot, property) in schema.properties.enumerated() {
            switch property.kind {
            case .toMany:
                template[slot] = .objects([])
            case .attribute(let kind) where !property.isTransient && !property.isDerived:
                guard let attribute = descriptions[property.name] else { continue }
                attributes[property.name] = (slot, kind)
                if kind == .transformable { transformable[slot] = attribute }
                if let value = attribute.defaultValue,
                    let stored = try? StoreValue(attributeValue: value, attribute: attribute, kind: kind)
                {
                    template[slot] = stored
                }
            default:
                continue
            }
        }
        self.attributes = attributes
        self.transformable = transformable
        self.template = template
        maskWords = constraints.isEmpty ? 0 : (schema.properties.count + 63) / 64
    }

    /// Reads the request's objects: its dictionaries, or its handler's, until it returns `true`.
    mutating func readValues(of request: NSBatchInsertRequest, context: NSManagedObjectContext) throws {
        if let given = request.objectsToInsert {
            objects.reserveCapacity(given.count)
            givenMasks.reserveCapacity(given.count * maskWords)
            for object in given { try append(object) }
        } else if let handler = request.dictionaryHandler {
            while true {
                let dictionary = NSMutableDictionary()
                if handler(dictionary) { break }
                var object: [String: Any] = [:]
                for (key, value) in dictionary { object["\(key)"] = value }
                try append(object)
            }
        } else if let handler = request.managedObjectHandler {
            let objectClass = context.managedObjectClass(for: entity)
            while true {
                let object = objectClass.init(entity: entity, insertInto: nil)
                if handler(object) { break }
                var values: [String: Any] = [:]
                for name in attributes.keys {
                    if let value = object.value(forKey: name) { values[name] = value }
                }
                try append(values)
            }
        } else {
            throw CoreDataError.make(
                code: NSCoreDataError,
                reason: "An NSBatchInsertRequest for \(entity.name ?? "") has no objectsToInsert, dictionaryHandler or "
                    + "managedObjectHandler")
        }
    }

    /// Adds one object's values.
    private mutating func append(_ object: [String: Any]) throws {
        var values = template
        let mask = givenMasks.count
        if maskWords > 0 { givenMasks.append(contentsOf: repeatElement(0, count: maskWords)) }
        for (name, value) in object {
            guard let (slot, kind) = attribute(named: name) else {
                throw CoreDataError.make(
                    code: NSManagedObjectValidationError,
                    reason: "An NSBatchInsertRequest gives \(name), which is not a stored attribute of \(entity.name ?? "")",
                    userInfo: ["NSValidationErrorKey": name])
            }
            if kind == .transformable, let attribute = transformable[slot] {
                values[slot] = try StoreValue(attributeValue: value, attribute: attribute, kind: kind)
            } else {
                values[slot] = try StoreValue(value, kind: kind, property: name)
            }
            if maskWords > 0 { givenMasks[mask + slot / 64] |= 1 << UInt64(slot % 64) }
        }
        objects.append(values)
    }

    /// The slot and kind of the stored attribute `name`, nil for another name.
    private mutating func attribute(named name: String) -> (slot: Int, kind: AttributeKind)? {
        for entry in recent where entry.name == name { return (entry.slot, entry.kind) }
        guard let found = attributes[name] else { return nil }
        if recent.count < 8 { recent.append((name, found.slot, found.kind)) }
        return found
    }

    /// The slots object `index` gave, ascending.
    private func given(_ index: Int) -> [Int] {
        (0..<schema.properties.count).filter { givenMasks[index * maskWords + $0 / 64] & (1 << UInt64($0 % 64)) != 0 }
    }

    /// The save of rows: new rows with keys reserved in `store`, and for each object whose
    /// uniqueness-constraint values a stored row has, an update of that row with the values
    /// given. Of two objects with the same constraint values, the later one is written.
    mutating func changes(in store: RowBackedPersistentStore) throws -> SaveChanges {
        var indices = Array(objects.indices)
        var existing: [Int: RowSnapshot] = [:]
        if !constraints.isEmpty {
            indices = laterWins()
            existing = try storedRows(of: indices, in: store)
        }
        var changes = SaveChanges()
        var inserted: [RowSnapshot] = []
        let insertCount = indices.count - existing.count
        let keys = insertCount > 0 ? try store.rows.newPrimaryKeys(forEntity: entityID, count: insertCount) : []
        inserted.reserveCapacity(insertCount)
        order.reserveCapacity(indices.count)
        var nextKey = 0
        for index in indices {
            guard var row = existing[index] else {
                let key = ObjectKey(entityID: entityID, primaryKey: keys[nextKey])
                nextKey += 1
                inserted.append(RowSnapshot(key: key, version: 1, values: objects[index]))
                order.append(key)
                continue
            }
            let slots = given(index)
            for slot in slots { row.values[slot] = objects[index][slot] }
            changes.expectedVersions[row.key] = row.version
            row.version = NSManagedObjectContext.version(after: row.version)
            givenSlots[row.key] = slots
            changes.updated.append(row)
            order.append(row.key)
        }
        changes.inserted = InsertedRows(inserted)
        return changes
    }

    /// The objects' indices without those a later object replaces: the same values for a constraint.
    private func laterWins() -> [Int] {
        var replaced = Set<Int>()
        for constraint in constraints {
            var last: [UniqueValueKey: Int] = [:]
            for (index, object) in objects.enumerated() {
                guard let key = UniqueValueKey(constraint.slots.map { object[$0] }) else { continue }
                if let earlier = last[key] { replaced.insert(earlier) }
                last[key] = index
            }
        }
        return objects.indices.filter { !replaced.contains($0) }
    }

    /// The stored rows that have an object's values for a constraint, by the object's index:
    /// fetched by `IN` lists of each constraint's values, matched in memory.
    private func storedRows(of indices: [Int], in store: RowBackedPersistentStore) throws -> [Int: RowSnapshot] {
        var found: [Int: RowSnapshot] = [:]
        let storeSchema = store.rows.schema
        for constraint in constraints {
            let properties = constraint.slots.map { storeSchema.entity(constraint.entityID).properties[$0] }
            var wanted: [UniqueValueKey: Int] = [:]
            for index in indices where found[index] == nil {
                if let key = UniqueValueKey(constraint.slots.map { objects[index][$0] }) { wanted[key] = index }
            }
            guard !wanted.isEmpty else { continue }
            let predicates = zip(constraint.slots, properties).map { slot, property in
                guard case .attribute(let kind) = property.kind else { return NSPredicate(value: false) }
                let values = Set(indices.map { objects[$0][slot] }).compactMap { $0.swiftValue(kind: kind) }
                return NSPredicate(format: "%K IN %@", property.name, values)
            }
            let family = storeSchema.entity(constraint.entityID).familyIDs
            let plan = FetchPlan(
                entityID: constraint.entityID, entityIDs: family,
                predicate: NSCompoundPredicate(andPredicateWithSubpredicates: predicates),
                output: .rows)
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
