import OpenPredicate
import OpenStoreCore

extension NSManagedObjectContext {
    /// The history transaction a save writes to a store that tracks history: the context's
    /// author and name, the app's bundle ID and process name, and one change per object of the
    /// batch (an update names the properties changed since the last save; a delete keeps the
    /// attributes marked `preservesValueInHistoryOnDeletion`, as last saved).
    func historyDraft(for batch: SaveBatch, coordinator: NSPersistentStoreCoordinator) throws
        -> HistoryTransactionDraft
    {
        let schema = coordinator.schema
        var changes: [HistoryChange] = []
        changes.reserveCapacity(batch.objects.count)
        for key in batch.insertedKeys { changes.append(HistoryChange(key: key, kind: .insert)) }
        for row in batch.changes.updated {
            let entity = schema.entity(row.key.entityID)
            let keys = batch.objects[row.key]?.changedKeys ?? []
            let slots = keys.compactMap { entity.slotsByName[$0] }.filter { !entity.properties[$0].isTransient }.sorted()
            changes.append(HistoryChange(key: row.key, kind: .update, updatedSlots: slots))
        }
        var tombstoneSlots: [Int: [Int]] = [:]
        for key in batch.changes.deleted {
            let entity = schema.entity(key.entityID)
            var tombstone: [Int: StoreValue] = [:]
            let slots = tombstoneSlots[key.entityID] ?? entity.tombstoneSlots
            tombstoneSlots[key.entityID] = slots
            if !slots.isEmpty, let object = batch.objects[key] {
                let names = slots.map { entity.properties[$0].name }
                let values = object.committedValues(forKeys: names)
                for slot in slots {
                    guard case .attribute(let kind) = entity.properties[slot].kind,
                        let value = values[entity.properties[slot].name], !(value is NSNull)
                    else { continue }
                    tombstone[slot] = try StoreValue(value, kind: kind, property: entity.properties[slot].name)
                }
            }
            changes.append(HistoryChange(key: key, kind: .delete, tombstone: tombstone))
        }
        return historyDraft(changes: changes)
    }

    /// A persistent-history transaction by this context, as its saves write one, with `changes`.
    func historyDraft(changes: [HistoryChange] = []) -> HistoryTransactionDraft {
        let process = ProcessInfo.processInfo.processName
        return HistoryTransactionDraft(
            author: transactionAuthor, contextName: name, bundleID: Bundle.main.bundleIdentifier ?? process,
            processID: process, timestamp: Date(), changes: changes)
    }

    /// Runs a persistent-history request against its stores.
    func executeHistory(_ request: NSPersistentHistoryChangeRequest) throws -> NSPersistentHistoryResult {
        guard let coordinator = persistentStoreCoordinator else {
            throw CoreDataError.make(code: NSCoreDataError, reason: "The context has no persistent store coordinator")
        }
        let filter = try HistoryFilter(request.fetchRequest)
        if filter != nil, request.deletes {
            throw CoreDataError.make(
                code: NSPersistentStoreUnsupportedRequestTypeError,
                reason: "A delete-history request cannot have a fetchRequest: history is deleted by token, date or transaction")
        }
        let stores = try historyStores(for: request, coordinator: coordinator)
        if request.deletes { return try deleteHistory(request, stores: stores) }
        var transactions: [NSPersistentHistoryTransaction] = []
        for store in stores {
            let storeID = store.identifier ?? ""
            var after: Int64?
            switch request.boundary {
            case .token(let token): after = token?.storeTokens[storeID]
            case .transaction(let transaction):
                after = transaction.map { $0.storeID == storeID ? $0.transactionNumber : nil } ?? nil
            case .date: after = nil
            }
            var records = try Self.storeCall(store) { try store.rows.history(after: after, limit: nil) }
            if case .date(let date) = request.boundary { records.removeAll { $0.timestamp <= date } }
            let withChanges = request.resultType != .transactionsOnly
            for record in records {
                transactions.append(
                    NSPersistentHistoryTransaction(
                        record: record, storeID: storeID,
                        changes: withChanges
                            ? record.changes.map { change(change: $0, store: store, coordinator: coordinator) } : nil))
            }
        }
        if let filter { transactions = filter.apply(to: transactions) }
        let changes = transactions.flatMap { $0.changes ?? [] }
        switch request.resultType {
        case .transactionsAndChanges, .transactionsOnly:
            return NSPersistentHistoryResult(resultType: request.resultType, result: transactions)
        case .changesOnly:
            // Rebuilt without their transaction, as Apple's `.changesOnly` gives them.
            let detached = changes.map {
                NSPersistentHistoryChange(
                    changeID: $0.changeID, changedObjectID: $0.changedObjectID, changeType: $0.changeType,
                    tombstone: $0.tombstone, updatedProperties: $0.updatedProperties)
            }
            return NSPersistentHistoryResult(resultType: .changesOnly, result: detached)
        case .count:
            return NSPersistentHistoryResult(resultType: .count, result: NSNumber(value: changes.count))
        case .objectIDs:
            var seen: Set<NSManagedObjectID> = []
            let ids = changes.map(\.changedObjectID).filter { seen.insert($0).inserted }
            return NSPersistentHistoryResult(resultType: .objectIDs, result: ids)
        case .statusOnly:
            return NSPersistentHistoryResult(resultType: .statusOnly, result: NSNumber(value: true))
        }
    }

    /// The predicate of `NSPersistentHistoryChangeRequest.fetchRequest`, on transactions or on
    /// changes.
    private enum HistoryFilter {
        case transactions(NSPredicate)
        case changes(NSPredicate)

        init?(_ request: NSFetchRequest<NSFetchRequestResult>?) throws {
            guard let request, let predicate = request.predicate else { return nil }
            switch request.entityName {
            case historyTransactionEntityName: self = .transactions(predicate)
            case historyChangeEntityName: self = .changes(predicate)
            default:
                throw CoreDataError.make(
                    code: NSPersistentStoreUnsupportedRequestTypeError,
                    reason: "NSPersistentHistoryChangeRequest.fetchRequest must come from "
                        + "NSPersistentHistoryTransaction.fetchRequest or NSPersistentHistoryChange.fetchRequest, not an "
                        + "entity named \(request.entityName ?? "nil")")
            }
        }

        func apply(to transactions: [NSPersistentHistoryTransaction]) -> [NSPersistentHistoryTransaction] {
            switch self {
            case .transactions(let predicate):
                return transactions.filter { predicate.evaluate(with: $0) }
            case .changes(let predicate):
                return transactions.compactMap { transaction in
                    guard let changes = transaction.changes else { return transaction }
                    let kept = changes.filter { predicate.evaluate(with: $0) }
                    guard !kept.isEmpty else { return nil }
                    return kept.count == changes.count ? transaction : transaction.keeping(kept)
                }
            }
        }
    }

    private func deleteHistory(_ request: NSPersistentHistoryChangeRequest, stores: [RowBackedPersistentStore]) throws
        -> NSPersistentHistoryResult
    {
        var deletedChanges = 0
        for store in stores {
            let storeID = store.identifier ?? ""
            // Transactions numbered below `before` go.
            var before: Int64?
            switch request.boundary {
            case .token(let token):
                // A token that does not cover this store deletes none of it; nil deletes all.
                if let token {
                    before = token.storeTokens[storeID].map { $0 + 1 }
                } else {
                    before = try lastNumber(of: store).map { $0 + 1 }
                }
            case .transaction(let transaction):
                if let transaction {
                    before = transaction.storeID == storeID ? transaction.transactionNumber + 1 : nil
                } else {
                    before = try lastNumber(of: store).map { $0 + 1 }
                }
            case .date(let date):
                let records = try Self.storeCall(store) { try store.rows.history(after: nil, limit: nil) }
                before = records.first { $0.timestamp >= date }?.number ?? records.last.map { $0.number + 1 }
            }
            guard let before else { continue }
            if request.resultType == .count {
                let records = try Self.storeCall(store) { try store.rows.history(after: nil, limit: nil) }
                deletedChanges += records.filter { $0.number < before }.reduce(0) { $0 + $1.changes.count }
            }
            try Self.storeCall(store) { try store.rows.deleteHistory(before: before) }
        }
        switch request.resultType {
        case .count: return NSPersistentHistoryResult(resultType: .count, result: NSNumber(value: deletedChanges))
        default: return NSPersistentHistoryResult(resultType: request.resultType, result: NSNumber(value: true))
        }
    }

    private func lastNumber(of store: RowBackedPersistentStore) throws -> Int64? {
        try Self.storeCall(store) { try store.rows.lastHistoryTransactionNumber() }
    }

    /// The stores a request reads: its affected stores, else every store that tracks history.
    private func historyStores(for request: NSPersistentHistoryChangeRequest, coordinator: NSPersistentStoreCoordinator)
        throws -> [RowBackedPersistentStore]
    {
        guard let affected = request.affectedStores else {
            return coordinator.persistentStores.compactMap { $0 as? RowBackedPersistentStore }.filter(\.tracksHistory)
        }
        return try affected.map { store in
            guard let rowStore = store as? RowBackedPersistentStore, rowStore.tracksHistory else {
                throw CoreDataError.make(
                    code: NSPersistentStoreUnsupportedRequestTypeError,
                    reason: "The store \(store.url?.path ?? "") was added without NSPersistentHistoryTrackingKey: "
                        + "it keeps no persistent history")
            }
            return rowStore
        }
    }

    /// A store's history call, its "no history" error made an `NSError`.
    static func storeCall<T>(_ store: NSPersistentStore, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as HistoryUnavailableError {
            throw CoreDataError.make(
                code: NSPersistentStoreUnsupportedRequestTypeError,
                reason: "\(error.message) (\(store.url?.path ?? ""))")
        }
    }

    private func change(change: HistoryChange, store: RowBackedPersistentStore, coordinator: NSPersistentStoreCoordinator)
        -> NSPersistentHistoryChange
    {
        let schema = coordinator.schema.entity(change.key.entityID)
        let entity = coordinator.entityDescriptions[change.key.entityID - 1]
        let id = NSManagedObjectID(origin: store.idOrigin(entities: coordinator.entityDescriptions), key: change.key)
        let type = NSPersistentHistoryChangeType(rawValue: change.kind.rawValue) ?? .update
        var updated: Set<NSPropertyDescription>?
        if change.kind == .update, let slots = change.updatedSlots {
            updated = Set(slots.compactMap { entity.propertiesByName[schema.properties[$0].name] })
        }
        var tombstone: [AnyHashable: Any]?
        if change.kind == .delete {
            var values: [AnyHashable: Any] = [:]
            for (slot, value) in change.tombstone {
                guard case .attribute(let kind) = schema.properties[slot].kind, let swift = value.swiftValue(kind: kind) else {
                    continue
                }
                values[schema.properties[slot].name] = swift
            }
            tombstone = values
        }
        return NSPersistentHistoryChange(
            changeID: change.changeID, changedObjectID: id, changeType: type, tombstone: tombstone,
            updatedProperties: updated)
    }
}
