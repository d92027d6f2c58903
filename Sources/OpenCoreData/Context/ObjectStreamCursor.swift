import OpenPredicate
import OpenStoreCore

/// The engine of a streaming fetch (`NSManagedObjectContext+Streaming`): one pass over a
/// request's objects, a batch per store call, holding nothing of past batches.
///
/// Each batch is one page from the store (`PagingRowStore`, keyset pagination: the rows after
/// the last one delivered, by the request's sort descriptors then primary key), made into the
/// context's objects as `fetch(_:)` makes them from rows. The cursor keeps only the position
/// (the last row's sort values and key) between batches. Use it on the context's queue.
final class ObjectStreamCursor {
    private let context: NSManagedObjectContext
    private let coordinator: NSPersistentStoreCoordinator
    private var plan: FetchPlan
    private let stores: [(store: RowBackedPersistentStore, pager: PagingRowStore)]
    private let batchSize: Int
    private let returnsObjectsAsFaults: Bool
    private let refreshes: Bool
    /// The store being read, by index in `stores`.
    private var storeIndex = 0
    private var position: FetchPosition?
    /// Results still to deliver under `fetchLimit`; nil without a limit.
    private var remaining: Int?
    /// Results still to skip under `fetchOffset`.
    private var skipping: Int

    /// Checks a request and resolves it once.
    ///
    /// - Throws: An `NSError` (`NSCoreDataError`) for a batch size under 1, a context without a
    ///   coordinator or with a parent, a result type other than managed objects, stores that
    ///   cannot page, or sort descriptors over several stores; what `fetch(_:)` throws for an
    ///   unknown entity or key path.
    init<ResultType>(request: NSFetchRequest<ResultType>, batchSize: Int, context: NSManagedObjectContext) throws {
        func refuse(_ reason: String) -> NSError { CoreDataError.make(code: NSCoreDataError, reason: reason) }
        guard batchSize > 0 else { throw refuse("A streaming fetch needs a batch size of at least 1, not \(batchSize)") }
        guard context.parent == nil else {
            throw refuse(
                "A streaming fetch reads the persistent stores: a child context cannot stream (fetch in its parent, "
                    + "or use fetch(_:))")
        }
        guard let coordinator = context.persistentStoreCoordinator else {
            throw refuse("The context has no persistent store coordinator")
        }
        guard request.resultType == .managedObjectResultType else {
            throw refuse("A streaming fetch returns managed objects; the request's resultType must be .managedObjectResultType")
        }
        let plan = try FetchPlanBuilder(model: coordinator.managedObjectModel, schema: coordinator.schema).plan(for: request)
        switch plan.output {
        case .rows, .keys: break
        case .count, .dictionaries: throw refuse("A streaming fetch returns managed objects, not counts or dictionaries")
        }
        let entityName = coordinator.schema.entity(plan.entityID).name
        let model = coordinator.managedObjectModel
        let candidates = (request.affectedStores ?? coordinator.persistentStores).filter { store in
            model.entities(forConfigurationName: store.configurationName)?.contains { $0.name == entityName } ?? false
        }
        if candidates.isEmpty && coordinator.persistentStores.isEmpty {
            throw refuse("This NSPersistentStoreCoordinator has no persistent stores")
        }
        var stores: [(store: RowBackedPersistentStore, pager: PagingRowStore)] = []
        for candidate in candidates {
            guard let store = candidate as? RowBackedPersistentStore, let pager = store.rows as? PagingRowStore else {
                throw refuse("The store \(candidate.url?.path ?? "?") cannot stream fetch results")
            }
            stores.append((store, pager))
        }
        if stores.count > 1 && !plan.sortDescriptors.isEmpty {
            throw refuse(
                "A streaming fetch sorts within one store: \(entityName) lives in \(stores.count) stores (set affectedStores, "
                    + "or fetch without sort descriptors)")
        }
        self.context = context
        self.coordinator = coordinator
        self.plan = plan
        self.stores = stores
        self.batchSize = batchSize
        returnsObjectsAsFaults = request.returnsObjectsAsFaults
        refreshes = request.shouldRefreshRefetchedObjects
        remaining = plan.limit > 0 ? plan.limit : nil
        skipping = max(plan.offset, 0)
    }

    /// The next batch of objects: at most `batchSize`, empty at the end.
    ///
    /// - Throws: What the store throws; the cursor then stays where it was.
    func nextBatch() throws -> [NSManagedObject] {
        while storeIndex < stores.count && remaining != 0 {
            let (store, pager) = stores[storeIndex]
            var page = plan
            page.limit = min(batchSize, remaining ?? batchSize)
            // One store: its offset is the request's, on its first page; several: skipped here.
            page.offset = stores.count == 1 && position == nil ? skipping : 0
            let result = try pager.page(of: page, after: position)
            if stores.count == 1 && position == nil { skipping = 0 }
            if let end = result.end {
                position = end
            } else {
                position = nil
                storeIndex += 1
            }
            var objects = objects(for: result.rows, store: store)
            if skipping > 0 {
                let skipped = min(skipping, objects.count)
                objects.removeFirst(skipped)
                skipping -= skipped
            }
            if let limit = remaining {
                if objects.count > limit { objects.removeLast(objects.count - limit) }
                remaining = limit - objects.count
            }
            if !objects.isEmpty { return objects }
        }
        return []
    }

    /// A page's rows as the context's objects, as `fetch(_:)` makes them: the registered object
    /// (with its unsaved changes) or a new fault holding its row; objects this context deleted
    /// are left out.
    private func objects(for rows: [RowSnapshot], store: RowBackedPersistentStore) -> [NSManagedObject] {
        var faults = NSManagedObjectContext.FaultMaker(maker: PermanentIDMaker(store: store, coordinator: coordinator))
        let fetchedAt = context.rowCacheTimestamp()
        var objects: [NSManagedObject] = []
        objects.reserveCapacity(rows.count)
        for row in rows {
            let (object, created) = context.registry.object(origin: faults.maker.origin, key: row.key) {
                faults.fault(for: row.key, in: context)
            }
            if object.isDeleted { continue }
            if refreshes, !created, !object.hasChanges, !object.isFault { object.refault(keepChanges: false) }
            if created || object.isFault {
                context.cache(row, for: object, fetchedAt: fetchedAt)
                // A row kept by key (for its age) would stay in the context's cache: fill now.
                if fetchedAt != nil || !returnsObjectsAsFaults { object.fireFault() }
            }
            objects.append(object)
        }
        return objects
    }
}
