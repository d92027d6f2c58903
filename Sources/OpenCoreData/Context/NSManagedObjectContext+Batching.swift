import OpenPredicate
import OpenStoreCore

/// The results of one fetch with a `fetchBatchSize`: every matching object's ID, in result
/// order, and which windows of `size` results have had their rows loaded.
///
/// Apple returns an `NSArray` proxy that records the IDs and fetches the data of `batchSize`
/// objects at a time as elements are touched. A Swift `[ResultType]` cannot be a proxy, so the
/// closest honest form is used: the array holds faults, and the first fault of a window
/// `[n * size, (n + 1) * size)` to fire loads the rows of the whole window from the store in one
/// call (`RowStore.rows(for:)`), so touching the objects of a window costs one store call. The
/// array itself (its count, its identities) is complete from the start, as Apple's is.
///
/// Memory stays bounded by windows rather than results: at most `loadedWindowLimit` windows
/// hold loaded values at a time. When another window loads, the unchanged objects of the window
/// loaded longest ago are turned back into faults (their values dropped, as Apple's batched
/// array lets the objects of batches no longer accessed go); touching one of them again reloads
/// its whole window in one call. Objects with unsaved changes are never turned back.
final class FaultBatch {
    /// How many windows keep their values at once: the one being read and the one before, so
    /// that code reading across a window boundary does not reload.
    static let loadedWindowLimit = 2
    /// The fetched objects' IDs, in result order, as what an ID holds (an origin and a row key):
    /// no ID is made for an object until it is asked for (a window makes its own when it loads).
    let identities: BatchIdentities
    /// The batch size (more than 0).
    let size: Int
    /// Relationship key paths to prefetch for each window when it loads.
    let prefetching: [[String]]
    /// The starts of the windows whose values are loaded, oldest first.
    var loadedWindows: [Int] = []
    /// The base of the objects that link the batch alone (see `ObjectLink.batch`): the first
    /// fault's; others keep their place in a state.
    let base: HomeBase

    init(identities: BatchIdentities, size: Int, prefetching: [[String]], base: HomeBase) {
        self.identities = identities
        self.size = size
        self.prefetching = prefetching
        self.base = base
    }

    /// Where a fault of a batched fetch sits: its batch and its index in the results.
    struct Member {
        let batch: FaultBatch
        let index: Int
    }
}

extension NSManagedObjectContext {
    // MARK: - After a fetch

    /// Gets fetched objects ready: with a batch size, records the faults among them so that
    /// they load a window at a time (`table`: the batch table that uniques them, if any);
    /// otherwise prefetches the relationship key paths now.
    func prepare(_ objects: [NSManagedObject], batchSize: Int, prefetching: [[String]], table: BatchTable? = nil) throws {
        guard batchSize > 0 else {
            if !prefetching.isEmpty { try prefetch(prefetching, from: objects) }
            return
        }
        let identities = table.map(BatchIdentities.table) ?? BatchIdentities(objects)
        let base = objects.lazy.compactMap(\.base).first ?? HomeBase(context: self, origin: nil, entity: nil)
        let batch = FaultBatch(identities: identities, size: batchSize, prefetching: prefetching, base: base)
        for (index, object) in objects.enumerated() where object.isFault && cachedRow(of: object) == nil {
            object.batchMember = FaultBatch.Member(batch: batch, index: index)
        }
    }

    /// Loads the rows of the window of `batch` that holds `index`, in one store call per store,
    /// into the row cache, then prefetches the batch's relationship key paths for the window.
    func loadBatch(_ batch: FaultBatch, around index: Int) {
        let start = index / batch.size * batch.size
        let window = start..<min(batch.identities.count, start + batch.size)
        var wanted: [RowIdentity] = []
        var objects: [NSManagedObject] = []
        for position in window {
            guard let object = object(of: batch, at: position) else { continue }
            objects.append(object)
            if object.batchMember?.batch === batch { object.batchMember = nil }
            // The object at `index` is firing (no longer marked a fault): its row is wanted too.
            if position == index || (object.isFault && cachedRow(of: object) == nil) {
                wanted.append(RowIdentity(origin: object.idOrigin, key: object.identityKey))
            }
        }
        loadRows(of: wanted)
        batch.loadedWindows.removeAll { $0 == start }
        batch.loadedWindows.append(start)
        while batch.loadedWindows.count > FaultBatch.loadedWindowLimit {
            releaseWindow(of: batch, at: batch.loadedWindows.removeFirst())
        }
        if !batch.prefetching.isEmpty {
            try? prefetch(batch.prefetching, from: objects)
        }
    }

    /// Turns the unchanged, loaded objects of the window of `batch` starting at `start` back into
    /// faults that reload with their window (see `FaultBatch`).
    private func releaseWindow(of batch: FaultBatch, at start: Int) {
        for index in start..<min(batch.identities.count, start + batch.size) {
            guard let object = object(of: batch, at: index), !object.isFault, !object.hasChanges else { continue }
            object.refault(keepChanges: false)
            object.batchMember = FaultBatch.Member(batch: batch, index: index)
        }
    }

    /// The object at `position` of a batch's results, if it is alive.
    private func object(of batch: FaultBatch, at position: Int) -> NSManagedObject? {
        switch batch.identities {
        case .table(let table): return registry.object(in: table, at: position)
        case .uniform(let origin, let entityID, let primaryKeys):
            return registry[origin, ObjectKey(entityID: entityID, primaryKey: primaryKeys[position])]
        case .mixed(let identities): return registry[identities[position].origin, identities[position].key]
        }
    }

    /// Caches the rows of saved objects (see `NSManagedObjectContext+RowCache`): one
    /// `rows(for:)` call per store.
    func loadRows(of identities: [RowIdentity]) {
        var byStore: [ObjectIdentifier: (store: RowBackedPersistentStore, identities: [RowIdentity], keys: [ObjectKey])] = [:]
        for identity in identities {
            guard !identity.origin.isTemporary, let store = identity.origin.store as? RowBackedPersistentStore else { continue }
            byStore[ObjectIdentifier(store), default: (store, [], [])].identities.append(identity)
            byStore[ObjectIdentifier(store)]?.keys.append(identity.key)
        }
        for (store, identities, keys) in byStore.values {
            guard let rows = try? store.rows.rows(for: keys) else { continue }
            let fetchedAt = rowCacheTimestamp()
            // Rows come in the order of `keys`, missing ones left out: walk both together.
            var next = 0
            for row in rows {
                while next < keys.count && keys[next] != row.key { next += 1 }
                guard next < keys.count else { break }
                cache(row, for: registry[identities[next].origin, identities[next].key], fetchedAt: fetchedAt)
            }
        }
    }

    /// The saved objects among `objects` that are faults with no row in the cache (no ID made).
    func uncachedFaults(_ objects: [NSManagedObject]) -> [RowIdentity] {
        objects.compactMap { object in
            guard object.isFault, object.storeKey != nil, cachedRow(of: object) == nil else { return nil }
            return RowIdentity(origin: object.idOrigin, key: object.identityKey)
        }
    }

    // MARK: - Prefetching

    /// The request's `relationshipKeyPathsForPrefetching`, split into steps and checked: each
    /// step must be a relationship of the entity reached so far.
    ///
    /// - Throws: An `NSError` naming the key path and entity when a step is not a relationship.
    func prefetchPaths<ResultType>(of request: NSFetchRequest<ResultType>, coordinator: NSPersistentStoreCoordinator) throws
        -> [[String]]
    {
        guard request.resultType == .managedObjectResultType, let paths = request.relationshipKeyPathsForPrefetching,
            !paths.isEmpty, let name = request.entityName, let root = coordinator.managedObjectModel.entitiesByName[name]
        else { return [] }
        return try paths.map { path in
            let steps = path.split(separator: ".").map(String.init)
            var entity = root
            for step in steps {
                guard let relationship = entity.relationshipsByName[step], let destination = relationship.destinationEntity
                else {
                    throw FetchRequestError(
                        "relationshipKeyPathsForPrefetching: keypath \(path) is not a relationship path from entity "
                            + "\(root.name ?? "") (\(step) is not a relationship of \(entity.name ?? ""))",
                        culprit: path
                    ).nsError
                }
                entity = destination
            }
            return steps
        }
    }

    /// Loads the destinations of relationship key paths into the row cache, one store call per
    /// step (and per store), so that firing their faults later asks the store for nothing.
    ///
    /// Sources whose rows are neither loaded nor cached (results fetched without property
    /// values) have their rows loaded first, in one call.
    func prefetch(_ paths: [[String]], from objects: [NSManagedObject]) throws {
        guard let coordinator = persistentStoreCoordinator, parent == nil else { return }
        loadRows(of: uncachedFaults(objects))
        for steps in paths {
            var sources = objects
            for step in steps {
                loadMembers(of: sources, step, coordinator: coordinator)
                var destinations: [NSManagedObjectID] = []
                var seen = Set<NSManagedObjectID>()
                for source in sources {
                    for id in (try? source.objectIDs(validatingRelationshipNamed: step)) ?? [] where seen.insert(id).inserted {
                        destinations.append(id)
                    }
                }
                loadRows(
                    of: destinations.compactMap { id in
                        guard let key = id.key, cachedRow(for: id, key: key) == nil, registry[id]?.isFault ?? true else {
                            return nil
                        }
                        return RowIdentity(origin: id.origin, key: key)
                    })
                sources = destinations.map { object(with: $0) }
            }
        }
    }

    /// Reads the members of a to-many relationship for the sources that lack them (a cached row
    /// whose store did not load them, or an unread relationship fault that does not know them):
    /// one store call per store and slot, rather than one per source when each is read.
    private func loadMembers(of sources: [NSManagedObject], _ name: String, coordinator: NSPersistentStoreCoordinator) {
        struct Wanted {
            let store: RowBackedPersistentStore
            let slot: Int
            var owners: [ObjectKey] = []
            var faults: [ObjectKey: RelationshipFault] = [:]
            var sources: [ObjectKey: NSManagedObject] = [:]
        }
        struct Group: Hashable {
            let store: ObjectIdentifier
            let slot: Int
        }
        var wanted: [Group: Wanted] = [:]
        for source in sources {
            guard let relationship = source.entity.relationshipsByName[name], relationship.isToMany,
                let key = source.storeKey, let store = source.objectID.persistentStore as? RowBackedPersistentStore,
                let slot = coordinator.schema.entity(key.entityID).slotsByName[name]
            else { continue }
            let group = Group(store: ObjectIdentifier(store), slot: slot)
            if source.isFault {
                guard let row = cachedRow(of: source), slot < row.values.count, row.values[slot] == .null else { continue }
                wanted[group, default: Wanted(store: store, slot: slot)].owners.append(key)
                wanted[group]?.sources[key] = source
            } else if let fault = ValueSemantics.objectCast(source.values[name], to: RelationshipFault.self), fault.keys == nil {
                wanted[group, default: Wanted(store: store, slot: slot)].owners.append(key)
                wanted[group]?.faults[key] = fault
            }
        }
        for group in wanted.values {
            guard let members = try? group.store.rows.members(of: group.owners, slot: group.slot) else { continue }
            for owner in group.owners {
                let keys = members[owner] ?? []
                if let fault = group.faults[owner] {
                    fault.keys = keys
                } else if let source = group.sources[owner] {
                    updateCachedRow(of: source) { $0.values[group.slot] = .objects(keys) }
                }
            }
        }
    }
}

/// An object's ID without the ID: its origin and row key (for a temporary ID, its number).
struct RowIdentity {
    let origin: IDOrigin
    let key: ObjectKey
}

/// The identities of a batched fetch's objects, in result order. Rows of one store and entity
/// (the common case) are those of the batch table that uniques them, or else keep only their
/// primary keys, 8 bytes a row; a mix keeps `RowIdentity`s, 24 bytes a row.
enum BatchIdentities {
    /// Read through the registry, under its lock (see `BatchTable`).
    case table(BatchTable)
    case uniform(origin: IDOrigin, entityID: Int, primaryKeys: [Int64])
    case mixed([RowIdentity])

    init(_ objects: [NSManagedObject]) {
        guard let first = objects.first else {
            self = .mixed([])
            return
        }
        let origin = first.idOrigin
        let entityID = first.identityKey.entityID
        var primaryKeys: [Int64] = []
        primaryKeys.reserveCapacity(objects.count)
        for object in objects {
            let key = object.identityKey
            guard object.idOrigin === origin, key.entityID == entityID else {
                self = .mixed(objects.map { RowIdentity(origin: $0.idOrigin, key: $0.identityKey) })
                return
            }
            primaryKeys.append(key.primaryKey)
        }
        self = .uniform(origin: origin, entityID: entityID, primaryKeys: primaryKeys)
    }

    var count: Int {
        switch self {
        case .table(let table): table.count
        case .uniform(_, _, let primaryKeys): primaryKeys.count
        case .mixed(let identities): identities.count
        }
    }
}
