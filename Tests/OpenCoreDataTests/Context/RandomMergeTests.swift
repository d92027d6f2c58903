import Foundation
import OpenCoreData
import TestSupport
import Testing

/// Two contexts change the same employees at random and save in turn under random merge
/// policies, on every way two contexts can share a store; a plain model in the test says what
/// each save must leave, from Apple's documented rules:
///
/// - a saved object conflicts when its row changed since the context last read or saved it
///   (optimistic locking, whole rows);
/// - `NSErrorMergePolicy` refuses the whole save when anything conflicts, and changes nothing;
/// - by property, a property changed by the context and by the store keeps the store's value
///   (`NSMergeByPropertyStoreTrumpMergePolicy`) or the context's (`…ObjectTrump…`); a property
///   changed on one side only keeps that change;
/// - `NSOverwriteMergePolicy` writes the context's whole object, `NSRollbackMergePolicy` drops
///   its changes to the conflicting object and takes the store's;
/// - after a save, the context's objects hold what was saved;
/// - a fetch with `shouldRefreshRefetchedObjects` gives unchanged objects the store's values
///   (and its version), and leaves changed ones as they are.
///
/// After every save the store (read by a fresh context) and both contexts' objects must match
/// the model. Seeded: a failure names its setup, seed, round and save.
@Suite struct RandomMergeTests {
    /// An employee's attributes.
    struct Values: Equatable, CustomStringConvertible {
        var name: String
        var salary: Decimal?
        var born: Date?

        static let keys = ["name", "salary", "born"]

        subscript(key: String) -> Any? {
            get {
                switch key {
                case "name": name
                case "salary": salary
                default: born
                }
            }
            set {
                switch key {
                case "name": name = newValue as? String ?? name
                case "salary": salary = newValue as? Decimal
                default: born = newValue as? Date
                }
            }
        }

        init(name: String, salary: Decimal?, born: Date?) {
            (self.name, self.salary, self.born) = (name, salary, born)
        }

        init(_ object: NSManagedObject) {
            self.init(
                name: object.value(forKey: "name") as? String ?? "?", salary: object.value(forKey: "salary") as? Decimal,
                born: object.value(forKey: "born") as? Date)
        }

        func equals(_ other: Values, at key: String) -> Bool {
            switch key {
            case "name": name == other.name
            case "salary": salary == other.salary
            default: born == other.born
            }
        }

        var description: String {
            "\(name) \(salary.map { "\($0)" } ?? "-") \(born.map { "\($0.timeIntervalSinceReferenceDate)" } ?? "-")"
        }
    }

    /// What a context has of one employee: the row it last read or saved, and its values now.
    struct View {
        var snapshot: Values
        var version: Int
        var current: Values
    }

    static let policies: [(String, AnyObject)] = [
        ("error", NSErrorMergePolicy), ("store trump", NSMergeByPropertyStoreTrumpMergePolicy),
        ("object trump", NSMergeByPropertyObjectTrumpMergePolicy), ("overwrite", NSOverwriteMergePolicy),
        ("rollback", NSRollbackMergePolicy),
    ]

    @Test(arguments: MergeConflictTests.setups.indices, [UInt64(1), 2])
    func randomConflictsResolveAsDocumented(_ setup: Int, _ seed: UInt64) throws {
        let (backend, shared) = MergeConflictTests.setups[setup]
        let fixture = try SaveConflictFixture(backend, sharedCoordinator: shared)
        defer { fixture.cleanUp() }
        var random = SplitMix64(seed: seed)
        var counter = 0
        func fresh(_ key: String) -> Any {
            counter += 1
            switch key {
            case "name": return "E\(counter)"
            case "salary": return Decimal(counter) * 1_000
            default: return Date(timeIntervalSinceReferenceDate: Double(counter) * 3_600)
            }
        }

        // Eight employees saved by the first context, read by the second.
        let count = 8
        let contexts = [fixture.first, fixture.second]
        var objects: [[NSManagedObject]] = [[], []]
        var store: [(values: Values, version: Int)] = []
        for index in 0..<count {
            let values = Values(name: "E0-\(index)", salary: Decimal(index) * 100, born: nil)
            objects[0].append(
                fixture.insert("Employee", ["name": values.name, "salary": values.salary as Any], into: fixture.first))
            store.append((values, 1))
        }
        try fixture.first.save()
        let read = try fixture.fetch("Employee", in: fixture.second)
        objects[1] = (0..<count).map { index in read.first { $0.value(forKey: "name") as? String == "E0-\(index)" } ?? read[0] }
        var views = [store.map { View(snapshot: $0.values, version: 1, current: $0.values) }]
        views.append(views[0])
        for object in objects[1] { _ = object.value(forKey: "salary") }

        var conflicted = 0
        for round in 0..<12 {
            // Both contexts change some employees, then save in a random order.
            for side in 0..<2 {
                for index in 0..<count where Int.random(in: 0..<3, using: &random) == 0 {
                    for key in Values.keys where Bool.random(using: &random) {
                        let value = fresh(key)
                        objects[side][index].setValue(value, forKey: key)
                        views[side][index].current[key] = value
                    }
                }
            }
            for side in [0, 1].shuffled(using: &random) {
                let label = "\(backend) shared \(shared) seed \(seed) round \(round) side \(side)"
                if Int.random(in: 0..<3, using: &random) == 0 {
                    // A fetch with `shouldRefreshRefetchedObjects`: unchanged objects take the
                    // store's values and version; changed ones keep theirs (and still conflict).
                    let request = NSFetchRequest<NSManagedObject>(entityName: "Employee")
                    request.shouldRefreshRefetchedObjects = true
                    _ = try contexts[side].fetch(request)
                    for index in 0..<count where views[side][index].current == views[side][index].snapshot {
                        views[side][index] = View(
                            snapshot: store[index].values, version: store[index].version, current: store[index].values)
                    }
                }
                let changed = (0..<count).filter { views[side][$0].current != views[side][$0].snapshot }
                let conflicts = changed.filter { views[side][$0].version != store[$0].version }
                conflicted += conflicts.isEmpty ? 0 : 1
                var (policyName, policy) = Self.policies[Int.random(in: 0..<Self.policies.count, using: &random)]
                contexts[side].mergePolicy = policy
                if policyName == "error" {
                    if conflicts.isEmpty {
                        try contexts[side].save()
                    } else {
                        #expect(throws: NSError.self, "\(label)") { try contexts[side].save() }
                        try expectStore(matches: store, fixture, label: "\(label) after a refused save")
                        (policyName, policy) = Self.policies[Int.random(in: 1..<Self.policies.count, using: &random)]
                        contexts[side].mergePolicy = policy
                        try contexts[side].save()
                    }
                } else {
                    try contexts[side].save()
                }
                // The model of the save.
                for index in changed {
                    let view = views[side][index]
                    let stored = store[index].values
                    var saved = view.current
                    if conflicts.contains(index) {
                        switch policyName {
                        case "store trump", "object trump":
                            for key in Values.keys {
                                let mine = !view.current.equals(view.snapshot, at: key)
                                let theirs = !stored.equals(view.snapshot, at: key)
                                let keepMine = policyName == "object trump" ? mine : mine && !theirs
                                saved[key] = keepMine ? view.current[key] : stored[key]
                            }
                        case "rollback":
                            // Nothing written: the context takes the row as it is.
                            views[side][index] = View(snapshot: stored, version: store[index].version, current: stored)
                            continue
                        default:
                            break  // overwrite: the context's whole object
                        }
                    }
                    store[index] = (saved, store[index].version + 1)
                    views[side][index] = View(snapshot: saved, version: store[index].version, current: saved)
                }
                try expectStore(matches: store, fixture, label: "\(label) \(policyName)")
                for index in 0..<count {
                    #expect(Values(objects[side][index]) == views[side][index].current, "\(label) \(policyName) object \(index)")
                }
            }
        }
        // The rounds met conflicts to resolve.
        #expect(conflicted > 5)
    }

    /// The store holds the model's values (read by a fresh context, matched by salary order
    /// free of names, which change).
    func expectStore(matches store: [(values: Values, version: Int)], _ fixture: SaveConflictFixture, label: String) throws {
        let stored = try fixture.stored("Employee", "TRUEPREDICATE").map(Values.init)
        let expected = store.map(\.values)
        #expect(stored.count == expected.count, "\(label)")
        for values in expected where !stored.contains(values) {
            Issue.record("\(label): the store lacks \(values); it has \(stored)")
        }
    }
}
