import OpenPredicate
import OpenStoreCore

extension NSManagedObjectContext {
    /// Runs a fetch request and returns its results as `ResultType`: managed objects, object
    /// IDs, dictionaries (`NSDictionary`) or one count (`NSNumber`), per the request's
    /// `resultType`.
    ///
    /// With `includesPendingChanges` (the default), unsaved inserted objects that match are
    /// included, changed objects match on their current values, and deleted objects are left
    /// out; dictionary results reflect the stores only, as on Apple. Objects already in the
    /// context are returned as they are (with unsaved changes) unless
    /// `shouldRefreshRefetchedObjects` is set. With a `fetchBatchSize`, objects load a batch at
    /// a time as their faults fire; `relationshipKeyPathsForPrefetching` loads destinations in
    /// one store call per key path step. A child context fetches through its parent (see
    /// `NSManagedObjectContext+Parent`).
    ///
    /// - Throws: An `NSError` naming the culprit: an unknown entity or key path, a rule of the
    ///   request broken, no coordinator or no store, or results that are not `ResultType`.
    public func fetch<ResultType>(_ request: NSFetchRequest<ResultType>) throws -> [ResultType] {
        try fetchResults(request).typed(as: ResultType.self)
    }

    /// Runs an untyped fetch request (see `fetch(_:)`), returning its results as `Any`.
    public func fetch(_ request: NSFetchRequest<NSFetchRequestResult>) throws -> [Any] {
        try runFetch(request)
    }

    /// The number of objects a fetch request would return (its offset and limit included).
    public func count<ResultType>(for request: NSFetchRequest<ResultType>) throws -> Int {
        let counting = request.copyRequest()
        counting.resultType = .countResultType
        return (try runFetch(counting).first as? NSNumber)?.intValue ?? 0
    }

    // MARK: - Running a request

    func runFetch<ResultType>(_ request: NSFetchRequest<ResultType>) throws -> [Any] {
        try fetchResults(request).untyped
    }

    /// Runs a request (see `fetch(_:)`), its results in an array of their own type: inside the
    /// span of its (first) store, timed and counted (see `StoreInstruments`).
    func fetchResults<ResultType>(_ request: NSFetchRequest<ResultType>) throws -> FetchResults {
        guard let coordinator = persistentStoreCoordinator else {
            throw CoreDataError.make(code: NSCoreDataError, reason: "The context has no persistent store coordinator")
        }
        let plan = try FetchPlanBuilder(model: coordinator.managedObjectModel, schema: coordinator.schema).plan(for: request)
        let stores = try affectedStores(of: request, plan: plan, in: coordinator)
        guard let instruments = stores.first?.instruments else {
            return try fetchResults(request, plan: plan, stores: stores, coordinator: coordinator)
        }
        var operation = StoreInstruments.Operation.fetch
        if case .count = plan.output { operation = .count }
        return try instruments.measure(operation, entity: coordinator.schema.entity(plan.entityID).name, rows: \.count) {
            try fetchResults(request, plan: plan, stores: stores, coordinator: coordinator)
        }
    }

    private func fetchResults<ResultType>(
        _ request: NSFetchRequest<ResultType>, plan: FetchPlan, stores: [RowBackedPersistentStore],
        coordinator: NSPersistentStoreCoordinator
    ) throws -> FetchResults {
        var plan = plan
        // With `affectedStores`, pending objects count only in those stores.
        let pendingStores = request.affectedStores == nil ? nil : stores
        if case .dictionaries = plan.output {
            return .dictionaries(try dictionaries(plan, stores: stores, coordinator: coordinator))
        }
        let prefetching = try prefetchPaths(of: request, coordinator: coordinator)
        // Batched: only the IDs now, rows a batch at a time as faults fire.
        let batchSize = parent == nil && request.resultType == .managedObjectResultType ? max(request.fetchBatchSize, 0) : 0
        if batchSize > 0, case .rows = plan.output { plan.output = .keys }
        let usesPendingChanges =
            request.includesPendingChanges && request.resultType != .dictionaryResultType && hasPendingChanges(in: plan)
        // One store and nothing pending: the store's window is the answer.
        if parent == nil && stores.count == 1 && !usesPendingChanges, let store = stores.first {
            if batchSize > 0, case .keys = plan.output {
                return .objects(
                    try batchedObjects(
                        plan, store: store, coordinator: coordinator, batchSize: batchSize, prefetching: prefetching))
            }
            let results: FetchResults
            if case .rows = plan.output, request.resultType == .managedObjectResultType,
                let blocks = try store.rows.rowBlocks(plan)
            {
                results = objects(ofBlocks: blocks, request: request, store: store, coordinator: coordinator)
            } else if case .keys = plan.output, request.resultType == .managedObjectIDResultType,
                let ids = try ids(plan, store: store, coordinator: coordinator)
            {
                results = .ids(ids)
            } else {
                results = try self.results(
                    of: store.rows.execute(plan), plan: plan, request: request, store: store, coordinator: coordinator)
            }
            if case .count = plan.output { return results }
            if request.resultType == .managedObjectResultType && (batchSize > 0 || !prefetching.isEmpty),
                case .objects(let objects) = results
            {
                try prepare(objects, batchSize: batchSize, prefetching: prefetching)
            }
            return results
        }
        // Otherwise: every candidate from every store (through the parent context, if any),
        // merged with pending changes, then ordered and windowed here.
        var wide = plan
        wide.limit = 0
        wide.offset = 0
        wide.output = .keys
        var counting = false
        if case .count = plan.output { counting = true }
        var objects: [NSManagedObject]
        if parent == nil, stores.count == 1, let store = stores.first, usesPendingChanges, !plan.sortDescriptors.isEmpty,
            !counting
        {
            // The store's order stands for its unchanged rows: only the pending objects need
            // placing (see `mergedInOrder`).
            guard case .keys(let keys) = try store.rows.execute(wide) else { return .other([]) }
            let maker = PermanentIDMaker(store: store, coordinator: coordinator)
            objects = try mergedInOrder(keys.map(maker.id(for:)), plan: plan, stores: pendingStores)
        } else {
            let ids = try candidateIDs(
                for: wide, stores: stores, coordinator: coordinator, includesPendingChanges: usesPendingChanges,
                pendingStores: pendingStores)
            objects = ids.map { object(with: $0) }
        }
        if request.shouldRefreshRefetchedObjects {
            // Unchanged objects take the stores' current values (they reload when next read).
            for object in objects where !object.isFault && !object.hasChanges { object.refault(keepChanges: false) }
        }
        if !plan.sortDescriptors.isEmpty && !counting && !(parent == nil && stores.count == 1 && usesPendingChanges) {
            // Sorting reads every candidate: load the rows of faults in one call per store
            // instead of one per fault.
            if parent == nil { loadRows(of: uncachedFaults(objects)) }
            objects = objects.sorted(using: plan.sortDescriptors)
        }
        let window = Array(objects.dropFirst(plan.offset).prefix(plan.limit > 0 ? plan.limit : Int.max))
        switch plan.output {
        case .count: return .other([NSNumber(value: window.count)])
        case .keys where request.resultType == .managedObjectIDResultType: return .ids(window.map(\.objectID))
        default:
            if batchSize == 0 && !request.returnsObjectsAsFaults && request.includesPropertyValues {
                window.forEach { $0.fireFault() }
            }
            try prepare(window, batchSize: batchSize, prefetching: prefetching)
            return .objects(window)
        }
    }

    /// The IDs of the objects that match a plan (keys output, no window) as this context sees
    /// them: the stores' answer (or the parent context's, which counts as this context's store),
    /// then, when `includesPendingChanges`, this context's own changes merged on top (only those
    /// of objects in `pendingStores`, when given).
    func candidateIDs(
        for plan: FetchPlan, stores: [RowBackedPersistentStore], coordinator: NSPersistentStoreCoordinator,
        includesPendingChanges: Bool, pendingStores: [RowBackedPersistentStore]?
    ) throws -> [NSManagedObjectID] {
        var ids: [NSManagedObjectID] = []
        if let parent {
            // The parent's objects are touched on the parent's queue, as Apple does.
            ids = try parent.performAndWaitUnchecked {
                try parent.candidateIDs(
                    for: plan, stores: stores, coordinator: coordinator,
                    includesPendingChanges: parent.hasPendingChanges(in: plan), pendingStores: pendingStores)
            }
        } else {
            for store in stores {
                guard case .keys(let keys) = try store.rows.execute(plan) else { continue }
                let maker = PermanentIDMaker(store: store, coordinator: coordinator)
                ids += keys.map { maker.id(for: $0) }
            }
        }
        return includesPendingChanges ? try merged(ids, plan: plan, stores: pendingStores) : ids
    }

    /// Stores asked: the request's `affectedStores`, or every store of the coordinator whose
    /// configuration holds the entity.
    func affectedStores<ResultType>(
        of request: NSFetchRequest<ResultType>, plan: FetchPlan,
        in coordinator: NSPersistentStoreCoordinator
    ) throws -> [RowBackedPersistentStore] {
        let model = coordinator.managedObjectModel
        let entityName = coordinator.schema.entity(plan.entityID).name
        let candidates = (request.affectedStores ?? coordinator.persistentStores).filter { store in
            guard let entities = model.entities(forConfigurationName: store.configurationName) else { return false }
            return entities.contains { $0.name == entityName }
        }
        let stores = candidates.compactMap { $0 as? RowBackedPersistentStore }
        if stores.isEmpty && coordinator.persistentStores.isEmpty {
            throw CoreDataError.make(code: NSCoreDataError, reason: "This NSPersistentStoreCoordinator has no persistent stores")
        }
        return stores
    }

    /// Whether an object of the fetched entities is inserted, changed or deleted.
    func hasPendingChanges(in plan: FetchPlan) -> Bool {
        guard let schema = persistentStoreCoordinator?.schema else { return false }
        let names = Set(plan.entityIDs.map { schema.entity($0).name })
        func concerned(_ object: NSManagedObject) -> Bool { names.contains(object.entity.name ?? "") }
        return insertedList.contains(where: concerned) || deletedList.contains(where: concerned)
            || changedList.contains(where: concerned)
    }

    /// Store candidates with the context's changes: deleted ones out, changed ones matched on
    /// their current values, inserted ones that match added.
    private func merged(_ fromStores: [NSManagedObjectID], plan: FetchPlan, stores: [RowBackedPersistentStore]?) throws
        -> [NSManagedObjectID]
    {
        let pending = try pendingMatches(plan, stores: stores)
        let matching = Set(pending.map(ObjectIdentifier.init))
        var result: [NSManagedObjectID] = []
        var seen = Set<NSManagedObjectID>()
        for id in fromStores {
            if let object = registry[id], object.isDeleted || (object.hasChanges && !matching.contains(ObjectIdentifier(object)))
            {
                continue
            }
            if seen.insert(id).inserted { result.append(id) }
        }
        for object in pending where seen.insert(object.objectID).inserted { result.append(object.objectID) }
        return result
    }

    /// This context's changed and inserted objects of the plan's entities that match its
    /// predicate on their current values, each once, in the order they changed; only those in
    /// `stores` (an inserted object: the store its save will put it in), when given.
    private func pendingMatches(_ plan: FetchPlan, stores: [RowBackedPersistentStore]?) throws -> [NSManagedObject] {
        guard let coordinator = persistentStoreCoordinator else { return [] }
        let names = Set(plan.entityIDs.map { coordinator.schema.entity($0).name })
        let allowed = stores.map { Set($0.map(ObjectIdentifier.init)) }
        var seen = Set<ObjectIdentifier>()
        var result: [NSManagedObject] = []
        for object in changedList.objects + insertedList.objects
        where !object.isDeleted && names.contains(object.entity.name ?? "") {
            guard seen.insert(ObjectIdentifier(object)).inserted else { continue }
            if let allowed {
                guard let store = destinationStore(of: object, coordinator: coordinator),
                    allowed.contains(ObjectIdentifier(store))
                else { continue }
            }
            if try plan.predicate?.evaluate(validating: object) ?? true { result.append(object) }
        }
        return result
    }

    /// The store an object lives in or, inserted, the store its save will put it in: the one
    /// `assign(_:to:)` chose, else the first whose configuration holds its entity.
    private func destinationStore(of object: NSManagedObject, coordinator: NSPersistentStoreCoordinator) -> NSPersistentStore? {
        object.objectID.persistentStore ?? object.assignedStore
            ?? Self.firstStore(holding: object.entity, among: coordinator.persistentStores, coordinator: coordinator)
    }

    /// One store's sorted candidates with this context's changes merged in order: rows of
    /// unchanged objects keep the store's order; changed objects that still match and inserted
    /// ones that match are sorted among themselves and placed by binary search (after equal
    /// rows, as a stable sort of the appended list would); deleted and changed objects leave the
    /// store's list. Sorting only the pending objects reads far fewer values than re-sorting
    /// every candidate.
    private func mergedInOrder(_ sortedIDs: [NSManagedObjectID], plan: FetchPlan, stores: [RowBackedPersistentStore]?) throws
        -> [NSManagedObject]
    {
        var base: [NSManagedObject] = []
        base.reserveCapacity(sortedIDs.count)
        for id in sortedIDs {
            if let registered = registry[id], registered.isDeleted || registered.hasChanges { continue }
            base.append(object(with: id))
        }
        let pending = try pendingMatches(plan, stores: stores)
        if pending.isEmpty { return base }
        // The search reads some rows' values: load the rows of faults in one store call rather
        // than one call per fault it fires.
        loadRows(of: uncachedFaults(base))
        func precedes(_ a: NSManagedObject, _ b: NSManagedObject) -> Bool { plan.sortDescriptors.orders(a, before: b) }
        var result: [NSManagedObject] = []
        result.reserveCapacity(base.count + pending.count)
        var next = 0
        for object in pending.sorted(using: plan.sortDescriptors) {
            // Upper bound: the first base object that sorts after `object`.
            var low = next, high = base.count
            while low < high {
                let middle = (low + high) / 2
                if precedes(object, base[middle]) { high = middle } else { low = middle + 1 }
            }
            result += base[next..<low]
            result.append(object)
            next = low
        }
        result += base[next...]
        return result
    }

    /// The objects of a batched fetch from one store, with nothing pending: faults uniqued by a
    /// batch table of the rows where one can hold them (see `ObjectRegistry`), made while
    /// only the table holds the store's keys.
    private func batchedObjects(
        _ plan: FetchPlan, store: RowBackedPersistentStore, coordinator: NSPersistentStoreCoordinator, batchSize: Int,
        prefetching: [[String]]
    ) throws -> [NSManagedObject] {
        guard case .keys(var keys) = try store.rows.execute(plan) else { return [] }
        var faults = FaultMaker(maker: PermanentIDMaker(store: store, coordinator: coordinator))
        let made = registry.fetchedObjects(origin: faults.maker.origin, keys: &keys, inKeyOrder: false) {
            faults.fault(for: $1, in: self)
        }
        try prepare(made.objects, batchSize: batchSize, prefetching: prefetching, table: made.table)
        return made.objects
    }

    /// A store's answer as the request's results: objects (faults filled from the row cache),
    /// IDs, or a count.
    private func results<ResultType>(
        of output: FetchOutput, plan: FetchPlan, request: NSFetchRequest<ResultType>,
        store: RowBackedPersistentStore, coordinator: NSPersistentStoreCoordinator
    ) throws -> FetchResults {
        switch output {
        case .count(let count):
            return .other([NSNumber(value: count)])
        case .keys(let keys):
            let maker = PermanentIDMaker(store: store, coordinator: coordinator)
            if request.resultType == .managedObjectIDResultType { return .ids(keys.map(maker.id(for:))) }
            var faults = FaultMaker(maker: maker)
            var keys = keys
            return .objects(
                registry.fetchedObjects(origin: maker.origin, keys: &keys, inKeyOrder: true) { faults.fault(for: $1, in: self) }
                    .objects)
        case .rows(let rows):
            var faults = FaultMaker(maker: PermanentIDMaker(store: store, coordinator: coordinator))
            let fetchedAt = rowCacheTimestamp()
            // `object(with:)` for every row at once: the registry's lock taken a few times in all,
            // and no ID made; many rows of one entity uniqued by a table of the rows.
            var keys = rows.map(\.key)
            let (objects, created, _) = registry.fetchedObjects(origin: faults.maker.origin, keys: &keys, inKeyOrder: true) {
                faults.fault(for: $1, in: self)
            }
            let refreshes = request.shouldRefreshRefetchedObjects
            let firesFaults = !request.returnsObjectsAsFaults
            // A new fault takes its row as `cache` would give it, without its checks, while no
            // row is cached by key (that copy would have to go) and no fetch time is kept.
            let newFaultsTakeRows = fetchedAt == nil && rowCache.isEmpty
            for index in objects.indices {
                let object = objects[index]
                if created[index], newFaultsTakeRows {
                    object.takeFetchedRow(rows[index].values, version: rows[index].version)
                } else {
                    if refreshes, !created[index], !object.hasChanges, !object.isFault {
                        object.refault(keepChanges: false)
                    }
                    if created[index] || object.isFault || refreshes {
                        cache(rows[index], for: object, fetchedAt: fetchedAt)
                    }
                }
                if firesFaults { object.fireFault() }
            }
            return .objects(objects)
        case .dictionaries(let rows):
            let maker = PermanentIDMaker(store: store, coordinator: coordinator)
            return .dictionaries(rows.foundationResults { maker.id(for: $0) })
        }
    }

    /// The objects of rows a store read into blocks (see `RowBlock`): as `results(of:)` makes
    /// them of rows, new faults reading their values in their block.
    private func objects<ResultType>(
        ofBlocks blocks: [RowBlock], request: NSFetchRequest<ResultType>, store: RowBackedPersistentStore,
        coordinator: NSPersistentStoreCoordinator
    ) -> FetchResults {
        var faults = FaultMaker(maker: PermanentIDMaker(store: store, coordinator: coordinator))
        let fetchedAt = rowCacheTimestamp()
        var keys: [ObjectKey] = []
        keys.reserveCapacity(blocks.reduce(0) { $0 + $1.count })
        for block in blocks { keys.append(contentsOf: block.keys) }
        let refreshes = request.shouldRefreshRefetchedObjects
        let firesFaults = !request.returnsObjectsAsFaults
        // As in `results(of:)`.
        let newFaultsTakeRows = fetchedAt == nil && rowCache.isEmpty
        // The faults' base, which the blocks they link hold for them.
        let base = homeBase(for: faults.maker.origin)
        let links = blocks.map { BlockLink(rows: $0, base: base) }
        // A new fault is made linked to its row (see `FaultMaker.fault(for:in:row:of:)`): the
        // block of the position `make` is given, found from the last one's (positions come in
        // ascending order), held by `links` (passed on without a reference taken per row).
        var cursor = BlockCursor(counts: blocks.map(\.count))
        let unretainedLinks = links.map(Unmanaged.passUnretained)
        let (objects, created, _) = registry.fetchedObjects(origin: faults.maker.origin, keys: &keys, inKeyOrder: true) {
            position, key in
            guard newFaultsTakeRows, let (block, row) = cursor.locate(position) else {
                return faults.fault(for: key, in: self)
            }
            return unretainedLinks[block]._withUnsafeGuaranteedRef { faults.fault(for: key, in: self, row: row, of: $0) }
        }
        var index = 0
        for link in links {
            let block = link.rows
            for row in 0..<block.count {
                let object = objects[index]
                // A fault made here took its row when it was made.
                if !(created[index] && newFaultsTakeRows) {
                    if refreshes, !created[index], !object.hasChanges, !object.isFault {
                        object.refault(keepChanges: false)
                    }
                    if created[index] || object.isFault || refreshes {
                        cache(block.snapshot(ofRow: row), for: object, fetchedAt: fetchedAt)
                    }
                }
                if firesFaults { object.fireFault() }
                index += 1
            }
        }
        return .objects(objects)
    }

    /// Finds the block and row of a position in a fetch's rows laid out in blocks of `counts`
    /// rows, from the last one found (the next position is usually in the same block).
    struct BlockCursor {
        let counts: [Int]
        private var block = 0, start = 0

        init(counts: [Int]) {
            self.counts = counts
        }

        @inline(__always)
        mutating func locate(_ position: Int) -> (block: Int, row: Int)? {
            if position < start { (block, start) = (0, 0) }
            while block < counts.count, position - start >= counts[block] {
                start += counts[block]
                block += 1
            }
            return block < counts.count ? (block, position - start) : nil
        }
    }

    /// The IDs of a key fetch's rows, each made as the store reads its key (no array of keys
    /// first); nil when the store does not read keys that way.
    private func ids(_ plan: FetchPlan, store: RowBackedPersistentStore, coordinator: NSPersistentStoreCoordinator) throws
        -> [NSManagedObjectID]?
    {
        let maker = PermanentIDMaker(store: store, coordinator: coordinator)
        var ids: [NSManagedObjectID] = []
        guard try store.rows.forEachKey(plan, { ids.append(maker.id(for: $0)) }) else { return nil }
        return ids
    }

    private func dictionaries(_ plan: FetchPlan, stores: [RowBackedPersistentStore], coordinator: NSPersistentStoreCoordinator)
        throws -> [NSDictionary]
    {
        var results: [NSDictionary] = []
        for store in stores {
            let maker = PermanentIDMaker(store: store, coordinator: coordinator)
            let storeResults = try store.rows.dictionaryResults(plan) { maker.id(for: $0) }
            // The first store's array is the results (appending would retain and release every
            // dictionary once more, a cache miss each).
            if results.isEmpty { results = storeResults } else { results += storeResults }
        }
        return results
    }

    /// Makes the faults of one fetch's rows: the class of an entity's objects is looked up once
    /// per run of rows of that entity, not once per row.
    struct FaultMaker {
        let maker: PermanentIDMaker
        /// The number of entities the origin has (rows of other numbers get an entity made for
        /// them alone).
        private let entityCount: Int
        private var entityID = 0
        private var managedClass: NSManagedObject.Type = NSManagedObject.self
        /// The entity of `entityID`, held by the maker's origin; and the context's base for the
        /// origin, held by the context: both passed on without a reference taken per row.
        private var entity: Unmanaged<NSEntityDescription>?
        private var base: Unmanaged<HomeBase>?

        init(maker: PermanentIDMaker) {
            self.maker = maker
            entityCount = maker.origin.entities.count
        }

        /// A new fault for a row (not registered); with `block`, one reading its row `row` there
        /// (`BlockLink`, whose base must be the context's for the maker's origin), linked to it
        /// from the start rather than given its base first and the block after (two atomic
        /// operations an object fewer).
        mutating func fault(
            for key: ObjectKey, in context: NSManagedObjectContext, row: Int = 0, of block: BlockLink? = nil
        ) -> NSManagedObject {
            guard key.entityID >= 1, key.entityID <= entityCount else {
                let entity = maker.entity(for: key)
                return context.managedObjectClass(for: entity).fault(
                    entity: entity, base: context.homeBase(for: maker.origin), key: key, row: row, of: block)
            }
            let entity: Unmanaged<NSEntityDescription>
            if key.entityID == entityID, let known = self.entity {
                entity = known
            } else {
                let found = maker.entity(for: key)
                (entityID, managedClass) = (key.entityID, context.managedObjectClass(for: found))
                entity = .passUnretained(found)
                self.entity = entity
            }
            let base = self.base ?? .passUnretained(context.homeBase(for: maker.origin))
            self.base = base
            let managedClass = self.managedClass
            return entity._withUnsafeGuaranteedRef { entity in
                base._withUnsafeGuaranteedRef { base in
                    managedClass.fault(entity: entity, base: base, key: key, row: row, of: block)
                }
            }
        }
    }

    /// The permanent ID of a row of a store.
    func id(for key: ObjectKey, in store: NSPersistentStore, coordinator: NSPersistentStoreCoordinator) -> NSManagedObjectID {
        PermanentIDMaker(store: store, coordinator: coordinator).id(for: key)
    }

    // MARK: - Faults

    /// The row of a saved object, from the store that holds it.
    func storeRow(for objectID: NSManagedObjectID, key: ObjectKey) throws -> RowSnapshot? {
        guard let store = objectID.persistentStore as? RowBackedPersistentStore else { return nil }
        return try store.rows.row(for: key)
    }

    /// Loads the values of a fault that is firing: its fetched row (from the row cache, its
    /// batch's window or its store), kept pending (see `NSManagedObject+PendingValues`), or, in a
    /// child context, the parent context's values. False if the row is gone.
    ///
    /// - Throws: The store's error when it could not be asked (see `NSManagedObject.fireFault()`).
    func loadValues(for object: NSManagedObject) throws -> Bool {
        if isChild, let parent {
            guard let loaded = try parent.performAndWaitUnchecked({ try parent.valuesForChild(of: object.objectID) }) else {
                return false
            }
            object.adopt(decoded: importing(loaded.values), version: loaded.version)
            return true
        }
        guard let key = object.storeKey else { return false }
        // The common case: a fault fetched with its row takes the row as its values where it
        // is (while no staleness interval is set, the row has no age to check).
        if object.linksFetchedRow, stalenessInterval < 0 {
            object.valuesArePending = true
            return true
        }
        var cached = takeCachedRow(of: object, key: key)
        if cached == nil, let member = object.batchMember {
            loadBatch(member.batch, around: member.index)
            cached = takeCachedRow(of: object, key: key)
        }
        guard let row = try cached ?? storeRow(for: object.objectID, key: key) else { return false }
        object.adopt(row: row.values, version: row.version)
        return true
    }

    /// The object for a row of the store whose IDs have `origin`: the registered one, or a new
    /// fault (with no ID made).
    @inline(__always)
    func object(for key: ObjectKey, origin: IDOrigin) -> NSManagedObject {
        registry.object(origin: origin, key: key) {
            let entity = origin.entity(for: key)
            return managedObjectClass(for: entity).fault(entity: entity, base: homeBase(for: origin), key: key)
        }.object
    }

    /// A row's values: attributes as Swift values, relationships through `reference` (objects
    /// of this context, or bare IDs for a child context).
    ///
    /// With `faultingToMany`, a to-many relationship is kept as a `RelationshipFault` (its
    /// members become objects when first read) instead of one reference per member; without,
    /// members the row lacks are read from the store now.
    func decode(
        _ row: RowSnapshot, origin: IDOrigin, faultingToMany: Bool = false, reference: (NSManagedObjectID) -> Any
    ) -> PropertyValues {
        // IDs made with the store and entities looked up once.
        let maker = PermanentIDMaker(origin: origin)
        let layout = maker.entity(for: row.key).propertyLayout
        guard let schemaEntities = persistentStoreCoordinator?.schema.entities,
            schemaEntities.indices.contains(row.key.entityID - 1)
        else { return PropertyValues(layout: layout) }
        let schema = schemaEntities[row.key.entityID - 1].properties
        guard layout.count == schema.count, row.values.count == schema.count else {
            // Not expected (schema slots are layout slots: both follow the entity's
            // `properties`): matched by name rather than put in wrong slots.
            var values = PropertyValues(layout: layout)
            for (index, property) in schema.enumerated() where index < row.values.count {
                guard let slot = layout.slot(named: property.name) else { continue }
                values[slot: slot] = value(
                    of: row.values[index], layout.decodings[slot], owner: row.key, slot: index, layout: layout,
                    layoutSlot: slot, maker: maker,
                    faultingToMany: faultingToMany, reference: reference)
            }
            return values
        }
        var slots: [Any?] = []
        slots.reserveCapacity(layout.count)
        for slot in 0..<layout.count {
            slots.append(
                value(
                    of: row.values[slot], layout.decodings[slot], owner: row.key, slot: slot, layout: layout,
                    layoutSlot: slot, maker: maker,
                    faultingToMany: faultingToMany, reference: reference))
        }
        return PropertyValues(layout: layout, slots: slots)
    }

    /// A stored value as an object keeps it; nil for NULL and transient properties.
    @inline(__always)
    private func value(
        of stored: StoreValue, _ decoding: PropertyLayout.Decoding, owner: ObjectKey, slot: Int, layout: PropertyLayout,
        layoutSlot: Int, maker: PermanentIDMaker, faultingToMany: Bool, reference: (NSManagedObjectID) -> Any
    ) -> Any? {
        switch decoding {
        case .transient:
            return nil
        case .attribute(let kind):
            if case .null = stored { return nil }
            return layout.attributeValue(stored, kind: kind, slot: layoutSlot)
        case .toOne:
            guard case .object(let destination) = stored else { return nil }
            return reference(maker.id(for: destination))
        case .toMany:
            // `.null`: the store did not load the members (see `RowStore`).
            var keys: [ObjectKey]?
            if case .objects(let destinations) = stored { keys = destinations }
            let fault = RelationshipFault(owner: owner, slot: slot, keys: keys, maker: maker)
            // Members the store cannot give now stay a fault, read again when first needed
            // (never none, which a save would write).
            guard !faultingToMany, let ids = try? fault.memberIDs() else { return fault }
            return ids.map(reference)
        }
    }
}

extension Array where Element == OpenPredicate.NSSortDescriptor {
    /// Whether the descriptors, in turn, put `a` before `b`.
    func orders(_ a: Any, before b: Any) -> Bool {
        for descriptor in self {
            switch descriptor.compare(a, to: b) {
            case .orderedAscending: return true
            case .orderedDescending: return false
            case .orderedSame: continue
            }
        }
        return false
    }
}
