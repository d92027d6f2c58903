import OpenPredicate
import OpenStoreCore

extension NSManagedObjectContext {
    /// Runs an `NSBatchUpdateRequest` in each store that holds its entity, as one set-based write
    /// of the store (`RowStore.execute(_:)`), never through objects of this context.
    func executeBatchUpdate(_ request: NSBatchUpdateRequest) throws -> NSBatchUpdateResult {
        guard let coordinator = persistentStoreCoordinator else {
            throw CoreDataError.make(code: NSCoreDataError, reason: "The context has no persistent store coordinator")
        }
        guard let entity = coordinator.managedObjectModel.entitiesByName[request.entityName] else {
            throw CoreDataError.make(
                code: NSCoreDataError,
                reason: "An NSBatchUpdateRequest names the entity \(request.entityName), which is not in the model")
        }
        request.resolve(entity)
        let assignments = try batchAssignments(request.propertiesToUpdate, of: entity, schema: coordinator.schema)
        let fetch = NSFetchRequest<NSFetchRequestResult>(entityName: request.entityName)
        fetch.predicate = request.predicate
        fetch.includesSubentities = request.includesSubentities
        fetch.affectedStores = request.affectedStores
        var plan = try FetchPlanBuilder(model: coordinator.managedObjectModel, schema: coordinator.schema).plan(for: fetch)
        plan.output = .keys
        var updated: [NSManagedObjectID] = []
        var count = 0
        for store in try affectedStores(of: fetch, plan: plan, in: coordinator) {
            var write = BatchWrite(action: .update(assignments), target: .plan(plan))
            write.returnsKeys = request.resultType == .updatedObjectIDsResultType
            if store.tracksHistory { write.history = historyDraft() }
            let outcome: BatchWriteOutcome
            do {
                outcome = try runBatch(write, in: store, named: "NSBatchUpdateRequest")
            } catch is BatchWriteNeedsRowsError {
                outcome = try updateRowByRow(plan: plan, assignments: assignments, in: store)
            }
            count += outcome.count
            let maker = PermanentIDMaker(store: store, coordinator: coordinator)
            updated += (outcome.keys ?? []).map(maker.id(for:))
        }
        switch request.resultType {
        case .statusOnlyResultType: return NSBatchUpdateResult(result: NSNumber(value: true), resultType: .statusOnlyResultType)
        case .updatedObjectsCountResultType:
            return NSBatchUpdateResult(result: NSNumber(value: count), resultType: .updatedObjectsCountResultType)
        case .updatedObjectIDsResultType: return NSBatchUpdateResult(result: updated, resultType: .updatedObjectIDsResultType)
        }
    }

    /// The assignments of `propertiesToUpdate`: constants converted to the attribute's stored
    /// kind (through its value transformer for a transformable one), expressions left to the store.
    private func batchAssignments(_ properties: [AnyHashable: Any]?, of entity: NSEntityDescription, schema: StoreSchema)
        throws -> [BatchAssignment]
    {
        let stored = schema.entity(named: entity.name ?? "")
        guard let properties, !properties.isEmpty else {
            throw CoreDataError.make(
                code: NSCoreDataError, reason: "An NSBatchUpdateRequest for \(entity.name ?? "") has no propertiesToUpdate")
        }
        var assignments: [BatchAssignment] = []
        for (key, value) in properties {
            let name = (key.base as? NSPropertyDescription)?.name ?? (key.base as? String) ?? "\(key.base)"
            guard let attribute = entity.attributesByName[name], !attribute.isTransient,
                let slot = stored?.slotsByName[name], case .attribute(let kind)? = stored?.properties[slot].kind
            else {
                throw CoreDataError.make(
                    code: NSPersistentStoreUnsupportedRequestTypeError,
                    reason: "An NSBatchUpdateRequest can't update \(name): it is not a stored attribute of \(entity.name ?? "")")
            }
            var constant: Any? = value
            if let expression = value as? NSExpression {
                guard expression.expressionType == .constantValue else {
                    assignments.append(BatchAssignment(property: name, value: .expression(expression)))
                    continue
                }
                constant = expression.constantValue
            }
            if kind == .transformable { constant = try AttributeValueTransform.storedValue(constant, of: attribute) }
            assignments.append(
                BatchAssignment(property: name, value: .constant(try StoreValue(constant, kind: kind, property: name))))
        }
        return assignments.sorted { $0.property < $1.property }
    }

    /// A batch update whose values the store's SQL cannot compute (`BatchWriteNeedsRowsError`):
    /// the matched rows are read, each assignment computed by the in-memory engine from the
    /// row's attribute values, and the rows written as one save, each expected at the version
    /// read (a save that changed one meanwhile refuses the update). Rows, not objects: this
    /// context is not told, as with the set-based update.
    private func updateRowByRow(plan: FetchPlan, assignments: [BatchAssignment], in store: RowBackedPersistentStore) throws
        -> BatchWriteOutcome
    {
        var rowsPlan = plan
        rowsPlan.output = .rows
        guard case .rows(let rows) = try store.rows.execute(rowsPlan) else { return BatchWriteOutcome(count: 0, keys: []) }
        let schema = store.rows.schema
        var changes = SaveChanges()
        var history: [HistoryChange] = []
        for var row in rows {
            let entity = schema.entity(row.key.entityID)
            var values: [String: Any] = [:]
            for (slot, property) in entity.properties.enumerated() {
                guard case .attribute(let kind) = property.kind, let value = row.values[slot].swiftValue(kind: kind) else {
                    continue
                }
                values[property.name] = value
            }
            var slots: [Int] = []
            for assignment in assignments {
                guard let slot = entity.slotsByName[assignment.property],
                    case .attribute(let kind) = entity.properties[slot].kind
                else { continue }
                switch assignment.value {
                case .constant(let value): row.values[slot] = value
                case .expression(let expression):
                    row.values[slot] = try StoreValue(
                        expression.expressionValue(with: values, context: nil), kind: kind, property: assignment.property)
                }
                slots.append(slot)
            }
            changes.expectedVersions[row.key] = row.version
            row.version = Self.version(after: row.version)
            changes.updated.append(row)
            history.append(HistoryChange(key: row.key, kind: .update, updatedSlots: slots.sorted()))
        }
        if store.tracksHistory && !history.isEmpty { changes.history = historyDraft(changes: history) }
        try applyBatchChanges(changes, in: store, named: "NSBatchUpdateRequest")
        return BatchWriteOutcome(count: rows.count, keys: rows.map(\.key))
    }
}
