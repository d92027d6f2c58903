import Foundation

/// A fetched results controller's results at one moment: the objects in order, and the
/// sections as runs of equal section names over them.
struct FetchedResultsLayout {
    /// A run of objects with one section name.
    struct Section {
        var name: String
        var start: Int
        var count: Int
        var end: Int { start + count }
    }

    private(set) var objects: [NSManagedObject] = []
    private(set) var sections: [Section] = []
    /// Where each object sits in `objects`, by identity: made on first use, as a change report
    /// finds the few positions it needs without it (see `positions(of:)`).
    var positions: ObjectPositions { positionTable.table(of: objects) }
    /// The table `positions` makes, shared by the copies of this layout (whose objects never
    /// change).
    private var positionTable = PositionTable()

    /// No objects: no sections with a section key path, one empty section without.
    init(sectioned: Bool) {
        if !sectioned { sections = [Section(name: "", start: 0, count: 0)] }
    }

    /// Objects in order with the index of each one's name in `names`; without `names`, one
    /// section named "" holds every object (even none).
    init(objects: [NSManagedObject], nameIndexes: [Int]?, names: [String]) {
        self.objects = objects
        guard let nameIndexes else {
            sections = [Section(name: "", start: 0, count: objects.count)]
            return
        }
        var start = 0
        while start < nameIndexes.count {
            var end = start + 1
            while end < nameIndexes.count && nameIndexes[end] == nameIndexes[start] { end += 1 }
            sections.append(Section(name: names[nameIndexes[start]], start: start, count: end - start))
            start = end
        }
    }

    /// The same sections with no objects: what a change report keeps of the old layout while
    /// it lays the objects out again (see `withObjects(_:)`).
    func withoutObjects() -> FetchedResultsLayout { withObjects([]) }

    /// The same sections over `objects` (as many as the sections hold, or none).
    func withObjects(_ objects: [NSManagedObject]) -> FetchedResultsLayout {
        var layout = self
        layout.objects = objects
        layout.positionTable = PositionTable()
        return layout
    }

    /// The section holding the object at `index` of `objects`.
    func section(at index: Int) -> Int {
        var low = 0, high = sections.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if sections[middle].start <= index { low = middle } else { high = middle - 1 }
        }
        return low
    }

    /// The index path of the object at `index` of `objects`.
    func indexPath(at index: Int) -> IndexPath {
        let section = section(at: index)
        return IndexPath(indexes: [section, index - sections[section].start])
    }

    /// The positions in `objects` of `wanted` (nil for one not there): from `positions` if made,
    /// else by one pass over the objects, looking each up in a table of the wanted ones.
    func positions(of wanted: [NSManagedObject]) -> [Int?] {
        if let table = positionTable.made { return wanted.map { table[ObjectIdentifier($0)] } }
        let wantedAt = ObjectPositions(wanted)
        var found = [Int?](repeating: nil, count: wanted.count)
        ObjectPositions.forEachAddress(in: objects) { position, address in
            if let index = wantedAt[address: address] { found[index] = position }
        }
        return found
    }

    /// The index in `objects` of an index path, if it names an object.
    func index(of indexPath: IndexPath) -> Int? {
        guard indexPath.count == 2, sections.indices.contains(indexPath[0]) else { return nil }
        let section = sections[indexPath[0]]
        guard indexPath[1] >= 0, indexPath[1] < section.count else { return nil }
        return section.start + indexPath[1]
    }
}

/// Where the changed objects of a change report were and are, and where each unchanged object
/// was: all that `FetchedResultsChanges(from:to:placing:at:)` needs of the two layouts'
/// positions, which the controller's placing knows without a table of every object.
struct PlacedPositions {
    /// The old positions of the changed objects that were in the old layout.
    var old: [ObjectIdentifier: Int]
    /// The new positions of the changed objects that are in the new layout.
    var new: [ObjectIdentifier: Int]
    /// The old position of the unchanged object at a new position.
    var oldOfUnchanged: (Int) -> Int?
}

/// What changed between two layouts, in the batch-update convention: deletions and move
/// sources at their old index paths, insertions and move destinations at their new ones.
///
/// Applying it to the old sections — removing deleted and moved objects, then deleted sections,
/// then inserting new sections, then inserted and moved objects, each in ascending order —
/// gives the new sections exactly. Sections are matched by name (the n-th section of a name
/// with the n-th). An object that stays in its section and keeps its place relative to the
/// other staying objects is never a move: if it changed, it is an update.
struct FetchedResultsChanges {
    var deletedSections: [Int] = []
    var insertedSections: [Int] = []
    var deleted: [(object: NSManagedObject, at: IndexPath)] = []
    var inserted: [(object: NSManagedObject, at: IndexPath)] = []
    var moved: [(object: NSManagedObject, from: IndexPath, to: IndexPath)] = []
    var updated: [(object: NSManagedObject, from: IndexPath, to: IndexPath)] = []
    /// The old positions in `objects` of the deleted objects, ascending.
    var deletedPositions: [Int] = []
    /// The new positions in `objects` of the inserted objects, ascending.
    var insertedPositions: [Int] = []
    /// The old and new positions in `objects` of the objects that moved, in new order. Every
    /// other object in both layouts stayed: those keep their order in both.
    var movedPositions: [(old: Int, new: Int)] = []

    var isEmpty: Bool {
        deletedSections.isEmpty && insertedSections.isEmpty && deleted.isEmpty && inserted.isEmpty && moved.isEmpty
            && updated.isEmpty
    }

    /// The changes from `old` to `new`; `changed` holds the objects whose values may have
    /// changed (staying ones among them are updates).
    init(from old: FetchedResultsLayout, to new: FetchedResultsLayout, changed: Set<ObjectIdentifier>) {
        let newSectionOf = matchSections(old, new)
        let oldPositions = old.positions, newPositions = new.positions
        for (index, object) in old.objects.enumerated() where newPositions[ObjectIdentifier(object)] == nil {
            deleted.append((object, old.indexPath(at: index)))
            deletedPositions.append(index)
        }
        // Which old objects may have changed, by old position (one lookup per changed object
        // rather than one per object).
        var changedAt = [Bool](repeating: false, count: old.objects.count)
        for id in changed {
            if let index = oldPositions[id] { changedAt[index] = true }
        }
        // Objects in both that stay in their (staying) section are candidates to stay.
        var candidates: [(old: Int, new: Int, changed: Bool)] = []
        var movers: [(old: Int, new: Int)] = []
        candidates.reserveCapacity(new.objects.count)
        var newSection = 0
        // The old section of the last old position looked up: positions mostly rise by one.
        var oldSection = 0
        for (index, object) in new.objects.enumerated() {
            while new.sections[newSection].end <= index { newSection += 1 }
            guard let oldIndex = oldPositions[ObjectIdentifier(object)] else {
                inserted.append((object, new.indexPath(at: index)))
                insertedPositions.append(index)
                continue
            }
            if oldIndex < old.sections[oldSection].start || oldIndex >= old.sections[oldSection].end {
                oldSection = old.section(at: oldIndex)
            }
            if newSectionOf[oldSection] == newSection {
                candidates.append((oldIndex, index, changedAt[oldIndex]))
            } else {
                movers.append((oldIndex, index))
            }
        }
        let staying = Self.staying(candidates)
        for (position, candidate) in candidates.enumerated() {
            if staying[position] {
                if candidate.changed {
                    updated.append(
                        (new.objects[candidate.new], old.indexPath(at: candidate.old), new.indexPath(at: candidate.new)))
                }
            } else {
                movers.append((candidate.old, candidate.new))
            }
        }
        setMoves(movers, old, new)
    }

    /// The changes from `old` to `new` when only the objects in `changed` may have entered,
    /// left, moved or changed section, every other object keeping its section's name and its
    /// order among the others (how the controller places changed objects): the changes
    /// `init(from:to:changed:)` finds, in time that grows with the changed objects rather than
    /// with the results. Nil where a section holding unchanged objects might not stay (a name
    /// with more than one section), which that initializer handles. Reads no object of `old`
    /// (whose objects a report has already laid out again in `new`): only its sections.
    init?(
        from old: FetchedResultsLayout, to new: FetchedResultsLayout, placing changed: [ObjectIdentifier: NSManagedObject],
        at positions: PlacedPositions
    ) {
        guard Self.namesAreDistinct(old), Self.namesAreDistinct(new) else { return nil }
        let newSectionOf = matchSections(old, new)
        // Where each changed object was and is.
        var candidatesInSection = [Int](repeating: 0, count: old.sections.count)
        var inBoth: [(old: Int, new: Int)] = []
        var changedInNew: [Int] = []
        var gone: [(position: Int, object: NSManagedObject)] = []
        for (id, object) in changed {
            let oldIndex = positions.old[id], newIndex = positions.new[id]
            if let oldIndex { candidatesInSection[old.section(at: oldIndex)] += 1 }
            if let newIndex { changedInNew.append(newIndex) }
            switch (oldIndex, newIndex) {
            case (let oldIndex?, nil): gone.append((oldIndex, object))
            case (nil, let newIndex?): insertedPositions.append(newIndex)
            case (let oldIndex?, let newIndex?): inBoth.append((oldIndex, newIndex))
            case (nil, nil): break
            }
        }
        // Unchanged objects stay, with their sections.
        for (section, count) in candidatesInSection.enumerated()
        where count < old.sections[section].count && newSectionOf[section] == nil {
            return nil
        }
        gone.sort { $0.position < $1.position }
        insertedPositions.sort()
        changedInNew.sort()
        deletedPositions = gone.map(\.position)
        deleted = gone.map { ($0.object, old.indexPath(at: $0.position)) }
        inserted = insertedPositions.map { (new.objects[$0], new.indexPath(at: $0)) }

        // As `staying(_:)` decides with every unchanged object in order: a changed object that
        // stays in its section stays if its old position is between those of the unchanged
        // objects around its new one, and then as many of those between the same two as keep
        // their order; the others move.
        inBoth.sort { $0.new < $1.new }
        var movers: [(old: Int, new: Int)] = []
        var next = 0
        while next < inBoth.count {
            // The changed objects (in `changedInNew`) between two unchanged ones, and those.
            var run = Self.lowerBound(of: inBoth[next].new, in: changedInNew)
            while run > 0 && changedInNew[run - 1] == changedInNew[run] - 1 { run -= 1 }
            let lower = changedInNew[run] - 1
            var upper = lower + 1
            while run < changedInNew.count && changedInNew[run] == upper {
                run += 1
                upper += 1
            }
            let lowerBound = lower >= 0 ? positions.oldOfUnchanged(lower) ?? -1 : -1
            let upperBound = upper < new.objects.count ? positions.oldOfUnchanged(upper) ?? Int.max : Int.max
            var fitting: [(old: Int, new: Int)] = []
            while next < inBoth.count && inBoth[next].new < upper {
                let candidate = inBoth[next]
                next += 1
                let staysInSection = newSectionOf[old.section(at: candidate.old)] == new.section(at: candidate.new)
                if staysInSection && candidate.old > lowerBound && candidate.old < upperBound {
                    fitting.append(candidate)
                } else {
                    movers.append(candidate)
                }
            }
            var stays = [Bool](repeating: false, count: fitting.count)
            for chosen in Self.increasingSubsequence(fitting.map(\.old)) { stays[chosen] = true }
            for (position, candidate) in fitting.enumerated() {
                if stays[position] {
                    updated.append(
                        (new.objects[candidate.new], old.indexPath(at: candidate.old), new.indexPath(at: candidate.new)))
                } else {
                    movers.append(candidate)
                }
            }
        }
        setMoves(movers, old, new)
    }

    /// Matches the sections of `old` and `new` (the n-th of a name with the n-th of that name;
    /// matched sections whose order is kept stay, the others are deleted and inserted), sets
    /// `deletedSections` and `insertedSections`, and returns each old section's new index, nil
    /// for a deleted one.
    private mutating func matchSections(_ old: FetchedResultsLayout, _ new: FetchedResultsLayout) -> [Int?] {
        func keys(_ layout: FetchedResultsLayout) -> [SectionKey] {
            var seen: [String: Int] = [:]
            return layout.sections.map { section in
                defer { seen[section.name, default: 0] += 1 }
                return SectionKey(name: section.name, occurrence: seen[section.name] ?? 0)
            }
        }
        let newSectionByKey = Dictionary(uniqueKeysWithValues: keys(new).enumerated().map { ($1, $0) })
        let matches = keys(old).enumerated().compactMap { old, key in newSectionByKey[key].map { (old, $0) } }
        var newSectionOf = [Int?](repeating: nil, count: old.sections.count)
        var newSectionStays = [Bool](repeating: false, count: new.sections.count)
        for chosen in Self.increasingSubsequence(matches.map(\.1)) {
            newSectionOf[matches[chosen].0] = matches[chosen].1
            newSectionStays[matches[chosen].1] = true
        }
        deletedSections = newSectionOf.indices.filter { newSectionOf[$0] == nil }
        insertedSections = newSectionStays.indices.filter { !newSectionStays[$0] }
        return newSectionOf
    }

    /// Sets `movedPositions` (in new order) and `moved`.
    private mutating func setMoves(_ movers: [(old: Int, new: Int)], _ old: FetchedResultsLayout, _ new: FetchedResultsLayout) {
        movedPositions = movers.sorted { $0.new < $1.new }
        for mover in movedPositions {
            moved.append((new.objects[mover.new], old.indexPath(at: mover.old), new.indexPath(at: mover.new)))
        }
    }

    private static func namesAreDistinct(_ layout: FetchedResultsLayout) -> Bool {
        Set(layout.sections.lazy.map(\.name)).count == layout.sections.count
    }

    /// The first index of `sorted` whose value is not below `value`.
    private static func lowerBound(of value: Int, in sorted: [Int]) -> Int {
        var low = 0, high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle] < value { low = middle + 1 } else { high = middle }
        }
        return low
    }

    private struct SectionKey: Hashable {
        let name: String
        let occurrence: Int
    }

    /// Which candidates (in new order, with their old positions) stay: the largest set whose
    /// old positions increase, keeping every unchanged candidate when the unchanged ones are in
    /// order among themselves (the usual case: they did not change, so neither did their order),
    /// and then as many changed ones as fit between them.
    private static func staying(_ candidates: [(old: Int, new: Int, changed: Bool)]) -> [Bool] {
        var stays = [Bool](repeating: false, count: candidates.count)
        var last = -1
        let unchangedInOrder = candidates.allSatisfy { candidate in
            guard !candidate.changed else { return true }
            defer { last = candidate.old }
            return candidate.old > last
        }
        guard unchangedInOrder else {
            for chosen in increasingSubsequence(candidates.map(\.old)) { stays[chosen] = true }
            return stays
        }
        // Changed candidates between two unchanged ones stay if they fit between them.
        var lowerBound = -1
        var gap: [Int] = []
        func closeGap(below upperBound: Int) {
            guard !gap.isEmpty else { return }
            let fitting = gap.filter { candidates[$0].old > lowerBound && candidates[$0].old < upperBound }
            for chosen in increasingSubsequence(fitting.map { candidates[$0].old }) { stays[fitting[chosen]] = true }
            gap = []
        }
        for (position, candidate) in candidates.enumerated() {
            if candidate.changed {
                gap.append(position)
            } else {
                closeGap(below: candidate.old)
                stays[position] = true
                lowerBound = candidate.old
            }
        }
        closeGap(below: Int.max)
        return stays
    }

    /// The positions of a longest strictly increasing subsequence of `values`.
    static func increasingSubsequence(_ values: [Int]) -> [Int] {
        guard !values.isEmpty else { return [] }
        // tails[k]: position of the smallest last value of an increasing run of length k + 1.
        var tails: [Int] = []
        var previous = [Int](repeating: -1, count: values.count)
        for (position, value) in values.enumerated() {
            var low = 0, high = tails.count
            while low < high {
                let middle = (low + high) / 2
                if values[tails[middle]] < value { low = middle + 1 } else { high = middle }
            }
            if low > 0 { previous[position] = tails[low - 1] }
            if low == tails.count { tails.append(position) } else { tails[low] = position }
        }
        var result: [Int] = []
        var position = tails[tails.count - 1]
        while position >= 0 {
            result.append(position)
            position = previous[position]
        }
        return result.reversed()
    }
}

/// Where each object of a layout sits, by identity: an open-addressing table of object addresses
/// and positions, never changed once made, hashed by a multiply rather than `Hasher` (one
/// lookup per object of 10^5).
struct ObjectPositions {
    /// Object addresses (0: empty) and their positions side by side (one cache line per probe),
    /// `mask + 1` slots, at most half full.
    private var slots: [(address: UInt, index: Int)] = []
    private var mask = 0

    init() {}

    init(_ objects: [NSManagedObject]) {
        var capacity = 16
        while capacity < objects.count * 2 { capacity *= 2 }
        let mask = capacity - 1
        self.mask = mask
        slots = Array(repeating: (0, 0), count: capacity)
        slots.withUnsafeMutableBufferPointer { slots in
            Self.forEachAddress(in: objects) { index, address in
                var slot = Self.home(of: address, mask: mask)
                while slots[slot].address != 0 && slots[slot].address != address { slot = (slot + 1) & mask }
                slots[slot] = (address, index)
            }
        }
    }

    /// Calls `body` with each object's position and address: the references read as
    /// addresses, nothing retained or released.
    @inline(__always)
    static func forEachAddress(in objects: [NSManagedObject], _ body: (Int, UInt) -> Void) {
        objects.withUnsafeBytes { references in
            for (index, address) in references.bindMemory(to: UInt.self).enumerated() { body(index, address) }
        }
    }

    @inline(__always)
    private static func home(of address: UInt, mask: Int) -> Int {
        // Fibonacci hashing of the address (its low bits are alignment).
        Int(truncatingIfNeeded: (address &* 0x9E37_79B9_7F4A_7C15) >> 32) & mask
    }

    /// The position of the object with this identity; nil for one not in the layout.
    subscript(id: ObjectIdentifier) -> Int? { self[address: UInt(bitPattern: id)] }

    /// The position of the object at this address; nil for one not in the layout.
    @inline(__always)
    subscript(address address: UInt) -> Int? {
        guard mask > 0 else { return nil }
        var slot = Self.home(of: address, mask: mask)
        while true {
            let stored = slots[slot]
            if stored.address == address { return stored.index }
            if stored.address == 0 { return nil }
            slot = (slot + 1) & mask
        }
    }
}

/// A layout's `ObjectPositions`, made on first use (see `FetchedResultsLayout.positions`).
private final class PositionTable {
    /// The table, once made. Used on the controller's context's queue only.
    @exclusivity(unchecked) private(set) var made: ObjectPositions?

    func table(of objects: [NSManagedObject]) -> ObjectPositions {
        if let made { return made }
        let table = ObjectPositions(objects)
        made = table
        return table
    }
}
