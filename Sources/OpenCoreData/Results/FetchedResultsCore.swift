import Foundation
import OpenPredicate
import OpenStoreCore

/// The state and change tracking of a fetched results controller, shared by the controller and
/// by the `NSFetchedResultsController<NSFetchRequestResult>` view its delegate gets.
///
/// After `performFetch()` with a delegate, the core follows its context's changes (see
/// `ContextChanges`): each change report places only the objects that changed — an object that
/// still fits between its neighbours keeps its place, the others are placed by binary search —
/// then derives the report from the old and new layouts (`FetchedResultsChanges`), so what is
/// reported always turns the old sections into the new ones.
final class FetchedResultsCore: ContextChangeObserver {
    /// Delegate methods found not implemented (their defaults say so when called).
    enum DelegateMethod {
        case difference
        case sectionIndexTitle
    }

    let context: NSManagedObjectContext
    let sectionNameKeyPath: String?
    let cacheName: String?
    /// The request as the controller was given it (an `NSFetchRequest<ResultType>`).
    let request: AnyFetchRequest
    /// Runs the request (kept typed by the controller).
    private let fetch: () throws -> [NSManagedObject]
    private let makePlan: () throws -> FetchPlan

    weak var delegate: NSFetchedResultsControllerDelegate?
    /// The controller the delegate is given (held weakly: the controller holds the core).
    weak var reportingController: NSFetchedResultsController<NSFetchRequestResult>?
    /// The index title of a section name when the delegate has none (the controller's method).
    var defaultIndexTitle: (String) -> String? = FetchedResultsCore.capitalizedFirstLetter
    var unimplemented: Set<DelegateMethod> = []

    private(set) var layout: FetchedResultsLayout
    /// The sections `sections()` made, by generation. They share the layout's objects: a change
    /// report drops them before it lays the objects out again in place.
    private var sectionCache: (generation: Int, sections: [FetchedSection])?
    private(set) var hasFetched = false
    /// Bumped at every change of `layout`, so that views of it can be cached.
    private(set) var generation = 0
    private var plan: FetchPlan?
    private var entityNames: Set<String> = []
    /// The object IDs last reported, in order (for differences).
    /// The IDs of the objects last reported, in order (made from the layout when something reads
    /// them after reports that nothing read them for; see `wantsIDs`).
    private var reportedIDs: [NSManagedObjectID] {
        get {
            if let storedIDs { return storedIDs }
            let ids = layout.objects.map(\.objectID)
            storedIDs = ids
            return ids
        }
        set { storedIDs = newValue }
    }
    private var storedIDs: [NSManagedObjectID]? = []
    /// Whether a report needs the IDs (a snapshot sequence, or a delegate taking differences).
    private var wantsIDs: Bool {
        isStreaming || (sectionNameKeyPath == nil && !unimplemented.contains(.difference) && delegate != nil)
    }
    /// The continuations of the `snapshots` sequences being iterated.
    private let streams = SnapshotStreams()

    init(
        context: NSManagedObjectContext, request: AnyFetchRequest, sectionNameKeyPath: String?, cacheName: String?,
        fetch: @escaping () throws -> [NSManagedObject], makePlan: @escaping () throws -> FetchPlan
    ) {
        self.context = context
        self.request = request
        self.sectionNameKeyPath = sectionNameKeyPath
        self.cacheName = cacheName
        self.fetch = fetch
        self.makePlan = makePlan
        layout = FetchedResultsLayout(sectioned: sectionNameKeyPath != nil)
    }

    // MARK: - Fetching

    /// Runs the request and lays out its results; from then on, changes are tracked.
    func performFetch() throws {
        let settings = request.settings
        guard let descriptors = settings.sortDescriptors, !descriptors.isEmpty else {
            throw CoreDataError.make(
                code: NSCoreDataError,
                reason: "An instance of NSFetchedResultsController requires a fetch request with sort descriptors")
        }
        guard settings.resultType == .managedObjectResultType else {
            throw CoreDataError.make(
                code: NSCoreDataError,
                reason: "NSFetchedResultsController tracks managed objects: its fetch request's resultType must be "
                    + "managedObjectResultType")
        }
        let plan = try makePlan()
        guard let schema = context.persistentStoreCoordinator?.schema else {
            throw CoreDataError.make(code: NSCoreDataError, reason: "The context has no persistent store coordinator")
        }
        self.plan = plan
        entityNames = Set(plan.entityIDs.map { schema.entity($0).name })
        let layout = try cachedOrFetchedLayout(plan: plan)
        let (old, oldIDs) = (self.layout, reportedIDs)
        self.layout = layout
        generation += 1
        reportedIDs = layout.objects.map(\.objectID)
        hasFetched = true
        context.changeState.addObserver(self)
        yieldSnapshot {
            Self.difference(oldIDs, self.reportedIDs, FetchedResultsChanges(from: old, to: layout, changed: []))
        }
    }

    /// The results from the controller's cache when it is current (see `FetchedResultsCache`),
    /// else fetched (and cached, with a cache name).
    private func cachedOrFetchedLayout(plan: FetchPlan) throws -> FetchedResultsLayout {
        let cacheable = context.parent == nil && !context.hasPendingChanges(in: plan)
        let cache = cacheName.flatMap { name in
            cacheable
                ? FetchedResultsCache(
                    name: name, request: request, sectionNameKeyPath: sectionNameKeyPath, plan: plan, context: context)
                : nil
        }
        if let cached = cache?.read(), let layout = try restored(cached) { return layout }
        let layout = try batchedLayout(plan: plan) ?? laidOut(try fetch(), refusingSplitSections: true)
        cache?.write(layout)
        return layout
    }

    /// A cached layout with this context's objects (faults that load a batch at a time: the
    /// request's `fetchBatchSize`, else `FetchedResultsCache.batchSize`); nil if an object's
    /// URI names no store of the coordinator.
    private func restored(_ cached: (uris: [URL], sections: [(name: String, count: Int)])) throws -> FetchedResultsLayout? {
        guard let coordinator = context.persistentStoreCoordinator else { return nil }
        var objects: [NSManagedObject] = []
        objects.reserveCapacity(cached.uris.count)
        for uri in cached.uris {
            guard let id = coordinator.managedObjectID(forURIRepresentation: uri) else { return nil }
            objects.append(context.object(with: id))
        }
        let batchSize = request.settings.fetchBatchSize
        try context.prepare(objects, batchSize: batchSize > 0 ? batchSize : FetchedResultsCache.batchSize, prefetching: [])
        guard sectionNameKeyPath != nil else { return FetchedResultsLayout(objects: objects, nameIndexes: nil, names: []) }
        var names = SectionNames()
        var indexes: [Int] = []
        indexes.reserveCapacity(objects.count)
        for section in cached.sections { indexes += repeatElement(names.index(of: section.name), count: section.count) }
        return FetchedResultsLayout(objects: objects, nameIndexes: indexes, names: names.names)
    }

    /// With a `fetchBatchSize` and a section key path the store can read, the layout from one
    /// fetch of each result's ID and section value, so that no object is loaded (they stay
    /// faults that load a batch at a time); nil otherwise (pending changes to merge, a child
    /// context, a key path only objects can answer).
    private func batchedLayout(plan: FetchPlan) throws -> FetchedResultsLayout? {
        let settings = request.settings
        guard settings.fetchBatchSize > 0, let sectionNameKeyPath, context.parent == nil,
            !context.hasPendingChanges(in: plan)
        else { return nil }
        let rows = NSFetchRequest<NSDictionary>()
        rows.settings = settings
        rows.affectedStores = request.affectedStores
        rows.resultType = .dictionaryResultType
        rows.fetchBatchSize = 0
        rows.propertiesToFetch = ["objectID", sectionNameKeyPath]
        guard let dictionaries = try? context.fetch(rows) else { return nil }
        var objects: [NSManagedObject] = []
        var values: [Any?] = []
        objects.reserveCapacity(dictionaries.count)
        values.reserveCapacity(dictionaries.count)
        for row in dictionaries {
            guard let id = row["objectID"] as? NSManagedObjectID else { return nil }
            objects.append(context.object(with: id))
            values.append(row[sectionNameKeyPath])
        }
        try context.prepare(objects, batchSize: settings.fetchBatchSize, prefetching: [])
        return try laidOut(objects, refusingSplitSections: true) { values[$0] }
    }

    /// Objects in result order as a layout: each one's section name read.
    ///
    /// - Throws: When `refusingSplitSections` and a section name comes back after another
    ///   (the section key path does not agree with the first sort descriptor).
    private func laidOut(
        _ objects: [NSManagedObject], refusingSplitSections: Bool, sectionValue: ((Int) -> Any?)? = nil
    ) throws -> FetchedResultsLayout {
        guard let sectionNameKeyPath else { return FetchedResultsLayout(objects: objects, nameIndexes: nil, names: []) }
        var names = SectionNames()
        var indexes: [Int] = []
        indexes.reserveCapacity(objects.count)
        var closed: Set<Int> = []
        for (position, object) in objects.enumerated() {
            let value = sectionValue.map { $0(position) } ?? object.value(forKeyPath: sectionNameKeyPath)
            let index = names.index(of: Self.sectionName(value))
            if let last = indexes.last, last != index {
                closed.insert(last)
                if refusingSplitSections && closed.contains(index) {
                    throw CoreDataError.make(
                        code: NSCoreDataError,
                        reason: "The fetched object at index \(position) has an out of order section name "
                            + "'\(names.names[index])'. Objects must be sorted by section name")
                }
            }
            indexes.append(index)
        }
        return FetchedResultsLayout(objects: objects, nameIndexes: indexes, names: names.names)
    }

    /// The section name of an object: the string form of its value at the section name key
    /// path, `""` for nil.
    func sectionName(of object: NSManagedObject) -> String {
        guard let sectionNameKeyPath else { return "" }
        return Self.sectionName(object.value(forKeyPath: sectionNameKeyPath))
    }

    /// The section name of a value at the section name key path.
    static func sectionName(_ value: Any?) -> String {
        switch value {
        case nil, is NSNull: return ""
        case let string as String: return string
        case let number as NSNumber: return number.description
        case let value?: return String(describing: value)
        }
    }

    /// Apple's default index title: the capitalized first letter of the name (nil for "").
    static func capitalizedFirstLetter(_ name: String) -> String? {
        name.first.map { String($0).capitalized }
    }

    /// The index title of a section name: the delegate's, if it has a method for it, else
    /// the controller's `sectionIndexTitle(forSectionName:)`.
    func indexTitle(forSectionName name: String) -> String? {
        if let delegate, let controller = reportingController, !unimplemented.contains(.sectionIndexTitle) {
            let title = delegate.controller(controller, sectionIndexTitleForSectionName: name)
            if !unimplemented.contains(.sectionIndexTitle) { return title }
        }
        return defaultIndexTitle(name)
    }

    // MARK: - Tracking

    func contextDidChange(_ changes: ContextChanges) {
        guard hasFetched, delegate != nil || isStreaming else { return }
        if changes.invalidatedAll {
            // Apple's rule: after a reset, every object is gone until `performFetch()` again.
            hasFetched = false
            context.changeState.removeObserver(self)
            report(FetchedResultsLayout(sectioned: sectionNameKeyPath != nil), changed: [])
            return
        }
        var candidates: [ObjectIdentifier: NSManagedObject] = [:]
        for objects in [changes.inserted, changes.updated, changes.deleted] {
            for object in objects where entityNames.contains(object.entity.name ?? "") {
                candidates[ObjectIdentifier(object)] = object
            }
        }
        for id in changes.updatedElsewhere where entityNames.contains(id.entity.name ?? "") {
            let object = context.object(with: id)
            candidates[ObjectIdentifier(object)] = object
        }
        if candidates.isEmpty {
            if changes.idsChanged { reportIDChanges() }
            return
        }
        // Placing them reads their values: the rows of faults load in one call per store.
        context.loadRows(of: context.uncachedFaults(Array(candidates.values)))
        let settings = request.settings
        let new: FetchedResultsLayout
        if settings.fetchLimit > 0 || settings.fetchOffset > 0 {
            // A window: an object leaving it lets another in, which only the store knows.
            guard let objects = try? fetch(), let layout = try? laidOut(objects, refusingSplitSections: false) else {
                return
            }
            new = layout
        } else {
            let placement = placing(Array(candidates.values))
            // The old objects are laid out again in place, unless something else holds them:
            // the sections handed out are made again from the new layout.
            sectionCache = nil
            if wantsIDs { _ = reportedIDs }  // made from the old objects while it has them
            var objects = layout.objects
            let oldSections = layout.withoutObjects()
            layout = oldSections
            let placed = placement.layout(arranging: &objects, sectioned: sectionNameKeyPath != nil)
            guard
                let changes = FetchedResultsChanges(
                    from: oldSections, to: placed, placing: candidates, at: placement.positions)
            else {
                // The whole comparison reads the old objects: laid out again as they were.
                layout = oldSections.withObjects(placement.oldObjects(from: placed.objects))
                report(placed, changed: Set(candidates.keys))
                return
            }
            report(placed, changes: changes, changed: Set(candidates.keys))
            return
        }
        report(new, changed: Set(candidates.keys))
    }

    /// Whether an object belongs in the results now.
    private func isMember(_ object: NSManagedObject) -> Bool {
        guard object.context === context, !object.isDeleted, entityNames.contains(object.entity.name ?? "") else {
            return false
        }
        guard let predicate = plan?.predicate else { return true }
        return (try? predicate.evaluate(validating: object)) ?? false
    }

    /// Orders objects by the plan's sort descriptors, reading each object's sort values once
    /// (one placing compares the same objects many times; key-value reads dominate).
    /// A class, so that reading keys (which adds to `known`) inside comparisons needs no
    /// exclusive access to a captured variable.
    private final class SortOrder {
        let descriptors: [OpenPredicate.NSSortDescriptor]
        /// The descriptors' keys where they are plain keys (see `NSSortDescriptor.plainKey`).
        private let plainKeys: [String?]
        /// The descriptors' directions, read once.
        private let ascending: [Bool]
        /// Each object's sort keys, read once (see `SortKey`).
        @exclusivity(unchecked) private var known: [ObjectIdentifier: [SortKey]] = [:]

        /// `objects`: about how many objects' keys will be read (room is made for them once).
        init(_ descriptors: [OpenPredicate.NSSortDescriptor], objects: Int) {
            self.descriptors = descriptors
            plainKeys = descriptors.map(\.plainKey)
            ascending = descriptors.map(\.ascending)
            known.reserveCapacity(objects)
        }

        /// The object's sort keys, one per descriptor, read once and kept.
        func keys(of object: NSManagedObject) -> [SortKey] {
            if let keys = known[ObjectIdentifier(object)] { return keys }
            let keys = descriptors.indices.map { key($0, of: object) }
            known[ObjectIdentifier(object)] = keys
            return keys
        }

        /// The object's sort key for one descriptor, not kept.
        private func key(_ index: Int, of object: NSManagedObject) -> SortKey {
            // A plain key is read from the object directly (no key-value protocol lookup).
            guard let key = plainKeys[index] else { return descriptors[index].sortKey(of: object) }
            return SortKey(object.value(forKey: key))
        }

        /// Whether an object with keys `a` sorts before one with keys `b`.
        func precedes(_ a: [SortKey], _ b: [SortKey]) -> Bool {
            for index in descriptors.indices {
                switch descriptors[index].compareKeys(a[index], b[index], ascending: ascending[index]) {
                case .orderedAscending: return true
                case .orderedDescending: return false
                case .orderedSame: continue
                }
            }
            return false
        }

        /// How an object with keys `keys` sorts against `object`, whose keys are read as the
        /// comparison needs them and not kept: a binary search or a neighbour reads most objects
        /// once, and most comparisons end at the first key.
        func compare(_ keys: [SortKey], _ object: NSManagedObject) -> ComparisonResult {
            for index in descriptors.indices {
                let descriptor = descriptors[index]
                // A plain key's value is compared as read, with no key made of it.
                let result =
                    if let key = plainKeys[index] {
                        descriptor.compareKey(keys[index], toValue: object.value(forKey: key), ascending: ascending[index])
                    } else {
                        descriptor.compareKeys(keys[index], descriptor.sortKey(of: object), ascending: ascending[index])
                    }
                if result != .orderedSame { return result }
            }
            return .orderedSame
        }
    }

    /// Where `candidates` (objects that may have changed) go in the layout. An old member that
    /// still belongs, keeps its section name and still sorts between the objects before and
    /// after it keeps its place; the others leave, and the members that have no place are sorted
    /// and placed by binary search (after objects that sort the same).
    private func placing(_ candidates: [NSManagedObject]) -> Placement {
        let old = layout
        let order = SortOrder(plan?.sortDescriptors ?? [], objects: candidates.count)
        var placement = Placement(oldCount: old.objects.count)
        let oldNameIndexes = old.sections.map { placement.names.index(of: $0.name) }
        var member: [ObjectIdentifier: Bool] = [:]
        var oldPositions: [Int] = []
        var toPlace: [NSManagedObject] = []
        for (object, position) in zip(candidates, old.positions(of: candidates)) {
            let id = ObjectIdentifier(object)
            member[id] = isMember(object)
            if let position {
                oldPositions.append(position)
                placement.positions.old[id] = position
            } else if member[id] == true {
                toPlace.append(object)
            }
        }
        oldPositions.sort()

        // What keeps its place, by old position.
        placement.kept.reserveCapacity(old.objects.count)
        placement.keptNames.reserveCapacity(old.objects.count)
        func keep(_ range: Range<Int>) {
            guard !range.isEmpty else { return }
            placement.kept += range
            var section = old.section(at: range.lowerBound)
            var start = range.lowerBound
            while start < range.upperBound {
                let end = min(range.upperBound, old.sections[section].end)
                placement.keptNames += repeatElement(oldNameIndexes[section], count: end - start)
                start = end
                section += 1
            }
        }
        var next = 0
        for (rank, position) in oldPositions.enumerated() {
            keep(next..<position)
            next = position + 1
            let object = old.objects[position]
            guard member[ObjectIdentifier(object)] == true else {
                placement.departing.append((position, object))
                continue
            }
            // The next object that is not a candidate: it keeps its place.
            var following = rank + 1
            var after = position + 1
            while following < oldPositions.count && oldPositions[following] == after {
                following += 1
                after += 1
            }
            let nameIndex = placement.names.index(of: sectionName(of: object))
            let keys = order.keys(of: object)
            let fits =
                nameIndex == oldNameIndexes[old.section(at: position)]
                && (placement.kept.last.map { order.compare(keys, old.objects[$0]) != .orderedAscending } ?? true)
                && (after < old.objects.count ? order.compare(keys, old.objects[after]) != .orderedDescending : true)
            if fits {
                // Its new position is known once the placed objects are (below).
                placement.positions.new[ObjectIdentifier(object)] = placement.kept.count
                placement.kept.append(position)
                placement.keptNames.append(nameIndex)
            } else {
                placement.departing.append((position, object))
                toPlace.append(object)
            }
        }
        keep(next..<old.objects.count)

        // Where each placed object goes among the kept ones (by binary search, in the order of
        // their keys, read once each).
        let keys = toPlace.map { order.keys(of: $0) }
        var start = 0
        for placed in keys.indices.sorted(by: { order.precedes(keys[$0], keys[$1]) }) {
            // Upper bound: the first kept object that sorts after the placed one.
            var low = start, high = placement.kept.count
            while low < high {
                let middle = (low + high) / 2
                if order.compare(keys[placed], old.objects[placement.kept[middle]]) == .orderedAscending {
                    high = middle
                } else {
                    low = middle + 1
                }
            }
            let object = toPlace[placed]
            placement.placed.append((low, object, placement.names.index(of: sectionName(of: object))))
            start = low
        }
        placement.finish()
        return placement
    }

    /// Where a change report puts the changed objects (see `placing(_:)`): which old objects
    /// keep their places, which leave them, and where the placed ones go among the kept.
    private struct Placement {
        /// The number of old objects.
        let oldCount: Int
        /// The old positions of the objects that keep their places, ascending.
        var kept: [Int] = []
        /// The section name index of each kept object (in `names`).
        var keptNames: [Int] = []
        /// The old objects that leave their places (gone, or placed again), by old position,
        /// ascending: with `kept`, every old position once.
        var departing: [(position: Int, object: NSManagedObject)] = []
        /// The placed objects in new order: each goes before the kept object at `keptBefore`
        /// of `kept` (after those placed before it), with its section name index.
        var placed: [(keptBefore: Int, object: NSManagedObject, name: Int)] = []
        var names = SectionNames()
        /// Where the changed objects were and are (see `PlacedPositions`).
        var positions = PlacedPositions(old: [:], new: [:], oldOfUnchanged: { _ in nil })

        init(oldCount: Int) { self.oldCount = oldCount }

        /// The new position of the kept object at `index` of `kept`: after the objects placed
        /// before it (those placed before a kept object with an index up to its own).
        func newPosition(ofKept index: Int) -> Int {
            var low = 0, high = placed.count
            while low < high {
                let middle = (low + high) / 2
                if placed[middle].keptBefore <= index { low = middle + 1 } else { high = middle }
            }
            return index + low
        }

        /// Completes `positions` once every object has its place.
        mutating func finish() {
            for (id, index) in positions.new { positions.new[id] = newPosition(ofKept: index) }
            // The n-th placed object goes after the n objects placed before it.
            let placedAt = placed.indices.map { placed[$0].keptBefore + $0 }
            for (index, at) in placedAt.enumerated() { positions.new[ObjectIdentifier(placed[index].object)] = at }
            // Every other new position holds a kept object: the n-th not placed is the n-th kept.
            positions.oldOfUnchanged = { [kept] position in
                var low = 0, high = placedAt.count
                while low < high {
                    let middle = (low + high) / 2
                    if placedAt[middle] < position { low = middle + 1 } else { high = middle }
                }
                return kept[position - low]
            }
        }

        /// The new layout, its objects laid out in `objects` (the old ones, in old order): the
        /// kept objects moved rather than copied, so that none is retained or released (a
        /// report over 10^5 objects did both to every one of them), the departing ones released,
        /// the placed ones put in. Where `objects` is shared, its first change copies it.
        func layout(arranging objects: inout [NSManagedObject], sectioned: Bool) -> FetchedResultsLayout {
            let newCount = kept.count + placed.count
            // Room for the new objects (retained fillers, taken out again below).
            if newCount > oldCount, let filler = placed.first?.object {
                objects.append(contentsOf: repeatElement(filler, count: newCount - oldCount))
            }
            let count = objects.count
            var taken: [NSManagedObject] = []
            taken.reserveCapacity(departing.count + count - oldCount)
            objects.withUnsafeMutableBufferPointer { buffer in
                let base = buffer.baseAddress.unsafelyUnwrapped
                // The departing objects and the fillers out, then the kept ones to the front.
                for (position, _) in departing { taken.append((base + position).move()) }
                for position in oldCount..<count { taken.append((base + position).move()) }
                var write = 0, read = 0
                for end in departing.lazy.map(\.position) + [oldCount] {
                    if write != read && end > read { (base + write).moveInitialize(from: base + read, count: end - read) }
                    write += end - read
                    read = end + 1
                }
                // From the end: each run of kept objects to its new place, the placed ones
                // between (the unfilled part always as long as the placed objects left).
                var end = newCount, keptEnd = kept.count
                for (keptBefore, object, _) in placed.reversed() {
                    let run = keptEnd - keptBefore
                    (base + end - run).moveInitialize(from: base + keptBefore, count: run)
                    end -= run + 1
                    keptEnd = keptBefore
                    (base + end).initialize(to: object)
                }
                // Fewer objects than before: the end filled with departed objects, released
                // with the end below.
                for position in newCount..<count { (base + position).initialize(to: taken.removeLast()) }
            }
            objects.removeLast(count - newCount)
            guard sectioned else { return FetchedResultsLayout(objects: objects, nameIndexes: nil, names: names.names) }
            var nameIndexes: [Int] = []
            nameIndexes.reserveCapacity(newCount)
            var keptTaken = 0
            for (keptBefore, _, name) in placed {
                nameIndexes += keptNames[keptTaken..<keptBefore]
                nameIndexes.append(name)
                keptTaken = keptBefore
            }
            nameIndexes += keptNames[keptTaken...]
            return FetchedResultsLayout(objects: objects, nameIndexes: nameIndexes, names: names.names)
        }

        /// The old objects in old order again, from the new ones (for the whole comparison).
        func oldObjects(from objects: [NSManagedObject]) -> [NSManagedObject] {
            [NSManagedObject](unsafeUninitializedCapacity: oldCount) { buffer, count in
                let base = buffer.baseAddress.unsafelyUnwrapped
                for (index, position) in kept.enumerated() {
                    (base + position).initialize(to: objects[newPosition(ofKept: index)])
                }
                for (position, object) in departing { (base + position).initialize(to: object) }
                count = oldCount
            }
        }
    }

    // MARK: - Reporting

    /// Makes `new` the layout and tells the delegate what changed, if anything did: `changes`
    /// when given, else what `FetchedResultsChanges(from:to:changed:)` finds.
    private func report(
        _ new: FetchedResultsLayout, changes placed: FetchedResultsChanges? = nil, changed: Set<ObjectIdentifier>
    ) {
        let old = layout
        let changes = placed ?? FetchedResultsChanges(from: old, to: new, changed: changed)
        // Read before the layout changes (they may be made from it).
        let oldIDs = wantsIDs ? reportedIDs : nil
        // The new layout holds the objects (a placing took them from the old one), even where
        // nothing changed and nothing is reported.
        layout = new
        var ids: (old: [NSManagedObjectID], new: [NSManagedObjectID])?
        if let oldIDs {
            let newIDs = new.objects.map(\.objectID)
            guard !changes.isEmpty || oldIDs != newIDs else { return }
            ids = (oldIDs, newIDs)
        } else {
            // Nothing reads the IDs: a change of IDs alone (a save's) has no one to tell, and
            // the IDs are made from the layout when something next asks for them.
            guard !changes.isEmpty else { return }
        }
        generation += 1
        storedIDs = ids?.new
        if let ids { yieldSnapshot { Self.difference(ids.old, ids.new, changes) } }
        guard let delegate, let controller = reportingController else { return }
        if sectionNameKeyPath == nil && !unimplemented.contains(.difference), let ids {
            delegate.controller(controller, didChangeContentWith: Self.difference(ids.old, ids.new, changes))
            if !unimplemented.contains(.difference) { return }
        }
        guard !changes.isEmpty else { return }
        delegate.controllerWillChangeContent(controller)
        for index in changes.deletedSections {
            delegate.controller(
                controller, didChange: deletedSectionInfo(old, index, changes), atSectionIndex: index, for: .delete)
        }
        for index in changes.insertedSections {
            delegate.controller(controller, didChange: sectionInfo(new, index), atSectionIndex: index, for: .insert)
        }
        for change in changes.deleted {
            delegate.controller(controller, didChange: change.object, at: change.at, for: .delete, newIndexPath: nil)
        }
        for change in changes.moved {
            delegate.controller(controller, didChange: change.object, at: change.from, for: .move, newIndexPath: change.to)
        }
        for change in changes.inserted {
            delegate.controller(controller, didChange: change.object, at: nil, for: .insert, newIndexPath: change.at)
        }
        for change in changes.updated {
            delegate.controller(controller, didChange: change.object, at: change.from, for: .update, newIndexPath: change.to)
        }
        delegate.controllerDidChangeContent(controller)
    }

    /// After a save gave inserted objects permanent IDs: the difference of the IDs alone.
    private func reportIDChanges() {
        guard wantsIDs else {
            storedIDs = nil  // made again when read
            return
        }
        report(layout, changed: [])
    }

    /// The difference between the IDs last reported and the new ones, all sections in a row:
    /// deleted and inserted objects, moves (with associated offsets), and objects whose ID
    /// changed (removed under the old ID, inserted under the new one).
    static func difference(
        _ oldIDs: [NSManagedObjectID], _ newIDs: [NSManagedObjectID], _ changes: FetchedResultsChanges
    ) -> CollectionDifference<NSManagedObjectID> {
        var stays = [Bool](repeating: true, count: oldIDs.count)
        var inserted = [Bool](repeating: false, count: newIDs.count)
        for position in changes.deletedPositions { stays[position] = false }
        for position in changes.insertedPositions { inserted[position] = true }
        var movedTo: [Int: Int] = [:]
        var movedFrom: [Int: Int] = [:]
        for move in changes.movedPositions {
            stays[move.old] = false
            inserted[move.new] = true
            guard oldIDs[move.old] == newIDs[move.new] else { continue }
            movedTo[move.old] = move.new
            movedFrom[move.new] = move.old
        }
        // The objects that stayed, in the same order in both: one whose ID changed is removed
        // under the old ID and inserted under the new one.
        var newOffset = 0
        for offset in oldIDs.indices where stays[offset] {
            while inserted[newOffset] { newOffset += 1 }
            if oldIDs[offset] != newIDs[newOffset] {
                stays[offset] = false
                inserted[newOffset] = true
            }
            newOffset += 1
        }
        var steps: [CollectionDifference<NSManagedObjectID>.Change] = []
        for (offset, id) in oldIDs.enumerated() where !stays[offset] {
            steps.append(.remove(offset: offset, element: id, associatedWith: movedTo[offset]))
        }
        for (offset, id) in newIDs.enumerated() where inserted[offset] {
            steps.append(.insert(offset: offset, element: id, associatedWith: movedFrom[offset]))
        }
        // The steps are valid by construction (see `FetchedResultsChanges`); Swift's own
        // difference, quadratic for large changes, is only the fallback.
        return CollectionDifference(steps) ?? newIDs.difference(from: oldIDs)
    }

    // MARK: - Snapshots

    /// Whether a `snapshots` sequence is being iterated.
    private var isStreaming: Bool { !streams.continuations.isEmpty }

    /// A sequence of snapshots: the current one first (once fetched), then one per change.
    func snapshots() -> AsyncStream<FetchedResultsSnapshot> {
        let (stream, continuation) = AsyncStream<FetchedResultsSnapshot>.makeStream()
        let number = streams.reserveNumber()
        continuation.onTermination = { [weak streams] _ in streams?.remove(number) }
        context.performAndWaitUnchecked {
            if hasFetched {
                let insertions = reportedIDs.enumerated().map { offset, id in
                    CollectionDifference<NSManagedObjectID>.Change.insert(offset: offset, element: id, associatedWith: nil)
                }
                continuation.yield(snapshot(difference: CollectionDifference(insertions) ?? reportedIDs.difference(from: [])))
            }
            streams.add(continuation, number: number)
        }
        return stream
    }

    /// Hands every sequence the current results with their difference from the last ones
    /// (computed only when a sequence is iterated).
    private func yieldSnapshot(difference: () -> CollectionDifference<NSManagedObjectID>) {
        let continuations = streams.continuations
        guard !continuations.isEmpty else { return }
        let snapshot = snapshot(difference: difference())
        for continuation in continuations { continuation.yield(snapshot) }
    }

    private func snapshot(difference: CollectionDifference<NSManagedObjectID>) -> FetchedResultsSnapshot {
        let sections = layout.sections.map { section in
            FetchedResultsSnapshot.Section(
                name: section.name, indexTitle: indexTitle(forSectionName: section.name),
                objectIDs: Array(reportedIDs[section.start..<section.end]))
        }
        return FetchedResultsSnapshot(sections: sections, difference: difference)
    }

    deinit {
        for continuation in streams.continuations { continuation.finish() }
    }

    /// The sections of the current layout (made once per layout; see `sectionCache`).
    func sections() -> [FetchedSection] {
        if let sectionCache, sectionCache.generation == generation { return sectionCache.sections }
        let layout = self.layout
        let sections = layout.sections.indices.map { sectionInfo(layout, $0) }
        sectionCache = (generation, sections)
        return sections
    }

    /// A deleted section of the old layout as the delegate sees it. Where a report laid the
    /// old objects out again in place (the old layout keeps only its sections), the section's
    /// objects are those the changes say left it: every one did, or it would not be deleted.
    private func deletedSectionInfo(_ old: FetchedResultsLayout, _ index: Int, _ changes: FetchedResultsChanges)
        -> FetchedSection
    {
        let section = old.sections[index]
        guard old.objects.isEmpty, section.count > 0 else { return sectionInfo(old, index) }
        var members =
            changes.deleted.lazy.filter { $0.at[0] == index }.map { ($0.at[1], $0.object) }
            + changes.moved.lazy.filter { $0.from[0] == index }.map { ($0.from[1], $0.object) }
        members.sort { $0.0 < $1.0 }
        return FetchedSection(
            name: section.name, indexTitle: indexTitle(forSectionName: section.name),
            objects: ArraySlice(members.map(\.1)))
    }

    /// A section of a layout as the delegate sees it.
    func sectionInfo(_ layout: FetchedResultsLayout, _ index: Int) -> FetchedSection {
        let section = layout.sections[index]
        return FetchedSection(
            name: section.name, indexTitle: indexTitle(forSectionName: section.name),
            objects: layout.objects[section.start..<section.end])
    }
}

/// Section names, each once, numbered in the order first seen.
struct SectionNames {
    private(set) var names: [String] = []
    private var indexes: [String: Int] = [:]

    mutating func index(of name: String) -> Int {
        if let index = indexes[name] { return index }
        names.append(name)
        indexes[name] = names.count - 1
        return names.count - 1
    }
}

/// A section of a fetched results controller's results.
final class FetchedSection: NSFetchedResultsSectionInfo {
    let name: String
    let indexTitle: String?
    let members: ArraySlice<NSManagedObject>

    init(name: String, indexTitle: String?, objects: ArraySlice<NSManagedObject>) {
        self.name = name
        self.indexTitle = indexTitle
        members = objects
    }

    var numberOfObjects: Int { members.count }
    var objects: [Any]? { Array(members) }
}

/// The continuations of a results controller's `snapshots` sequences, by number. A sequence's
/// end removes its continuation from whatever thread ends it.
private final class SnapshotStreams: @unchecked Sendable {
    // @unchecked Sendable: every access goes through `lock`.

    private let lock = NSLock()
    private var byNumber: [Int: AsyncStream<FetchedResultsSnapshot>.Continuation] = [:]
    private var nextNumber = 0

    var continuations: [AsyncStream<FetchedResultsSnapshot>.Continuation] { lock.withLock { Array(byNumber.values) } }

    func reserveNumber() -> Int {
        lock.withLock {
            defer { nextNumber += 1 }
            return nextNumber
        }
    }

    func add(_ continuation: AsyncStream<FetchedResultsSnapshot>.Continuation, number: Int) {
        lock.withLock { byNumber[number] = continuation }
    }

    func remove(_ number: Int) {
        _ = lock.withLock { byNumber.removeValue(forKey: number) }
    }
}
