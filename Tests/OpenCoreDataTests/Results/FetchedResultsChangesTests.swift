import Foundation
@testable import OpenCoreData
import TestSupport
import Testing

/// A controller places only the objects that changed, and finds what changed from them alone
/// (`FetchedResultsChanges(from:to:placing:)`): random layouts from a fixed seed, where only
/// some objects enter, leave or move, must give the same changes as the comparison of the whole
/// layouts (`FetchedResultsChanges(from:to:changed:)`).
@Suite struct FetchedResultsChangesTests {
    /// An object of the layouts, with the keys it sorts and is sectioned by.
    struct Item {
        let object: NSManagedObject
        var group: Int
        var rank: Int
        let serial: Int
    }

    static func layout(_ items: [Item], sectioned: Bool) -> FetchedResultsLayout {
        let sorted = items.sorted { ($0.group, $0.rank, $0.serial) < ($1.group, $1.rank, $1.serial) }
        return FetchedResultsLayout(
            objects: sorted.map(\.object), nameIndexes: sectioned ? sorted.map(\.group) : nil,
            names: (0..<6).map { "group \($0)" })
    }

    /// What a change set says, by position: comparable across the two ways of finding it.
    static func summary(_ changes: FetchedResultsChanges) -> [String] {
        [
            "sections -\(changes.deletedSections) +\(changes.insertedSections)",
            "deleted \(changes.deletedPositions) \(changes.deleted.map(\.at))",
            "inserted \(changes.insertedPositions) \(changes.inserted.map(\.at))",
            "moved \(changes.movedPositions.map { [$0.old, $0.new] }) \(changes.moved.map { [$0.from, $0.to] })",
            "updated \(changes.updated.map { [$0.from, $0.to] }) \(changes.updated.map { ObjectIdentifier($0.object) })",
        ]
    }

    @Test(arguments: [true, false])
    func placedChangesAreTheChangesOfTheWholeLayouts(sectioned: Bool) {
        let entity = NSEntityDescription()
        entity.name = "Card"
        var random = SplitMix64(seed: 20_261_130)
        var serial = 0
        func item() -> Item {
            serial += 1
            return Item(
                object: NSManagedObject(entity: entity, insertInto: nil), group: Int.random(in: 0..<6, using: &random),
                rank: Int.random(in: 0..<40, using: &random), serial: serial)
        }
        var placedAtAll = 0
        for round in 0..<400 {
            var items = (0..<Int.random(in: 0..<120, using: &random)).map { _ in item() }
            let old = Self.layout(items, sectioned: sectioned)
            // Some objects change keys (a little, a lot or not at all), leave or arrive; the
            // others keep theirs.
            var changed = Set<ObjectIdentifier>()
            var changedObjects: [ObjectIdentifier: NSManagedObject] = [:]
            let changes = Int.random(in: 0...(round % 3 == 0 ? 40 : 6), using: &random)
            for _ in 0..<changes where !items.isEmpty {
                let index = Int.random(in: items.indices, using: &random)
                changed.insert(ObjectIdentifier(items[index].object))
                changedObjects[ObjectIdentifier(items[index].object)] = items[index].object
                switch Int.random(in: 0..<6, using: &random) {
                case 0: items.remove(at: index)
                case 1: items[index].group = Int.random(in: 0..<6, using: &random)
                case 2: items[index].rank += Int.random(in: -1...1, using: &random)
                case 3: items[index].rank = Int.random(in: 0..<40, using: &random)
                case 4: break  // changed values that do not sort
                default:
                    let new = item()
                    items.append(new)
                    changed.insert(ObjectIdentifier(new.object))
                    changedObjects[ObjectIdentifier(new.object)] = new.object
                }
            }
            let new = Self.layout(items, sectioned: sectioned)
            let whole = FetchedResultsChanges(from: old, to: new, changed: changed)
            guard
                // From the old sections alone, as a report gives them (its objects laid out anew).
                let placed = FetchedResultsChanges(
                    from: old.withoutObjects(), to: new, placing: changedObjects,
                    at: PlacedPositions(old, new, changed: changed))
            else { continue }
            placedAtAll += 1
            #expect(Self.summary(placed) == Self.summary(whole), "round \(round)")
        }
        // Sections have distinct names here: every round takes the placed way.
        #expect(placedAtAll == 400)
    }

    /// Two sections of one name (a section key that is not the first sort key): the placed way
    /// declines, and the controller compares the whole layouts.
    @Test func splitSectionsAreLeftToTheWholeComparison() {
        let entity = NSEntityDescription()
        entity.name = "Card"
        let objects = (0..<3).map { _ in NSManagedObject(entity: entity, insertInto: nil) }
        let old = FetchedResultsLayout(objects: objects, nameIndexes: [0, 1, 0], names: ["a", "b"])
        let new = FetchedResultsLayout(objects: objects, nameIndexes: [0, 1, 1], names: ["a", "b"])
        let changed: Set = [ObjectIdentifier(objects[2])]
        #expect(
            FetchedResultsChanges(
                from: old, to: new, placing: [ObjectIdentifier(objects[2]): objects[2]],
                at: PlacedPositions(old, new, changed: changed)) == nil)
        #expect(FetchedResultsChanges(from: old, to: new, changed: [ObjectIdentifier(objects[2])]).moved.count == 1)
    }

    /// A report finds the changed objects' positions by one pass over the objects when the
    /// layout's table is not made (`positions(of:)`): the same answers as the table, for objects
    /// in the layout and out of it, before and after the table is made.
    @Test func positionsOfSomeObjectsAgreeWithTheTable() {
        let entity = NSEntityDescription()
        entity.name = "Card"
        var random = SplitMix64(seed: 33)
        for round in 0..<50 {
            let all = (0..<Int.random(in: 0..<300, using: &random)).map { _ in
                NSManagedObject(entity: entity, insertInto: nil)
            }
            let members = all.filter { _ in Bool.random(using: &random) }
            let layout = FetchedResultsLayout(objects: members, nameIndexes: nil, names: [])
            let wanted = all.filter { _ in Int.random(in: 0..<4, using: &random) == 0 }.shuffled(using: &random)
            let scanned = layout.positions(of: wanted)
            let table = layout.positions
            let expected = wanted.map { object in members.firstIndex { $0 === object } }
            #expect(scanned == expected, "round \(round)")
            #expect(wanted.map { table[ObjectIdentifier($0)] } == expected, "round \(round)")
            #expect(layout.positions(of: wanted) == expected, "round \(round)")
        }
    }
}

extension PlacedPositions {
    /// The positions the controller's placing hands over, read from the layouts' tables.
    init(_ old: FetchedResultsLayout, _ new: FetchedResultsLayout, changed: Set<ObjectIdentifier>) {
        let oldPositions = old.positions, newPositions = new.positions
        self.init(
            old: Dictionary(uniqueKeysWithValues: changed.compactMap { id in oldPositions[id].map { (id, $0) } }),
            new: Dictionary(uniqueKeysWithValues: changed.compactMap { id in newPositions[id].map { (id, $0) } }),
            oldOfUnchanged: { oldPositions[ObjectIdentifier(new.objects[$0])] })
    }
}
