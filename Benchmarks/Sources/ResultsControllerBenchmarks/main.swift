// Prints figures for NSFetchedResultsController following a context's changes: a controller over
// 100,000 objects taking 1,000 random changes per save, its change report timed against a full
// refetch of the same results in the same run. Nothing here is a test.
//
//     cd Benchmarks && swift build -c release --product ResultsControllerBenchmarks && .build/release/ResultsControllerBenchmarks [results.json]
//
// The model, built in code: one entity, `Item`, with name (String, unique), group (String, one
// of 20), rank (Integer 64), live (Boolean, 90% true) and note (String, optional). Each store type
// (SQLite in a temporary folder, then in-memory) gets two identical stores, A and B, each filled
// with the same objects in batches from the same seed and its context reset.
//
// On A, a private-queue context holds a controller (request `live == YES`, sorted by group, rank,
// name; sections by group) with a delegate that counts its calls; B's context holds the same
// request's plain fetch results and no controller. Each round (a fixed-seed generator) makes the
// same 1,000 random changes on both — updates of rank, group, live or note alone, inserts and
// deletes — and times `save()`, which announces them; A's controller reports them inside its save,
// so the change report costs the difference (the median of each round's A − B). A second batch of
// 1,000 changes is announced by `processPendingChanges()` before its save, which times the report
// without the store's write. Then, on A's unchanged data, a full refetch (`performFetch()`) and a
// plain `fetch` of the request are timed. Sides take turns going first.
//
// The merge rounds: another context on each coordinator (C on A's, D on B's) makes the same 1,000
// changes and saves; A and B merge its save with `mergeChanges(fromContextDidSave:)`, timed, the
// difference being the report of merged changes (whose objects the controller reloads).
//
// At the end, A's controller's fetchedObjects must be a fresh fetch of the request (the same
// object IDs in the same order): "consistent: yes", or "no" and exit status 1.
//
// OBJECTS=<n> sets the objects (default 100,000); CHANGES=<n> the changes per save (default
// 1,000); ROUNDS=<n> the rounds (default 10); STORES=sqlite,memory the store types. The table goes
// to stdout; the last line of stdout is the same results as one JSON object, also written to the
// file named by the first argument.
//
// To see where a report's time goes, count only the controller's handling of changes with
// callgrind (which refuses the binary's debug information, so on a stripped copy):
//
//     cp .build/release/ResultsControllerBenchmarks /tmp/rcb && strip --strip-debug /tmp/rcb
//     OBJECTS=10000 ROUNDS=2 STORES=memory valgrind --tool=callgrind \
//         --toggle-collect='$s12OpenCoreData014FetchedResultsB0C16contextDidChange*' /tmp/rcb

import BenchmarkSupport
import CoreData

#if canImport(Glibc)
    import Glibc
#endif

let environment = ProcessInfo.processInfo.environment
let objectCount = Int(environment["OBJECTS"] ?? "") ?? 100_000
let changeCount = Int(environment["CHANGES"] ?? "") ?? 1_000
let rounds = max(1, Int(environment["ROUNDS"] ?? "") ?? 10)
let storeTypes = (environment["STORES"] ?? "sqlite,memory").split(separator: ",").map {
    $0 == "memory" ? NSInMemoryStoreType : NSSQLiteStoreType
}
let groupCount = 20
let clock = ContinuousClock()

extension Duration {
    var milliseconds: Double { Double(components.seconds) * 1e3 + Double(components.attoseconds) / 1e15 }
}

func milliseconds(_ body: () throws -> Void) rethrows -> Double {
    try clock.measure(body).milliseconds
}

func median(_ values: [Double]) -> Double {
    guard !values.isEmpty else { return .nan }
    let sorted = values.sorted()
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

// MARK: - Model

let model: NSManagedObjectModel = {
    let item = NSEntityDescription()
    item.name = "Item"
    item.properties = [
        attribute("name", .stringAttributeType, optional: false), attribute("group", .stringAttributeType, optional: false),
        attribute("rank", .integer64AttributeType, optional: false), attribute("live", .booleanAttributeType, optional: false),
        attribute("note", .stringAttributeType),
    ]
    let model = NSManagedObjectModel()
    model.entities = [item]
    return model
}()

let groups = (0..<groupCount).map { String(format: "group %02d", $0) }

func request() -> NSFetchRequest<NSManagedObject> {
    let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
    request.predicate = NSPredicate(format: "live == YES")
    request.sortDescriptors = ["group", "rank", "name"].map { NSSortDescriptor(key: $0, ascending: true) }
    return request
}

/// Counts what the controller tells it.
final class CountingDelegate: NSObject, NSFetchedResultsControllerDelegate {
    var reports = 0
    var sectionChanges = 0
    var objectChanges: [NSFetchedResultsChangeType: Int] = [:]
    var objectCalls: Int { objectChanges.values.reduce(0, +) }

    func controllerWillChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {
        reports += 1
    }

    func controller(
        _ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange sectionInfo: NSFetchedResultsSectionInfo,
        atSectionIndex sectionIndex: Int, for type: NSFetchedResultsChangeType
    ) {
        sectionChanges += 1
    }

    func controller(
        _ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any, at indexPath: IndexPath?,
        for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?
    ) {
        objectChanges[type, default: 0] += 1
    }

    func reset() {
        reports = 0
        sectionChanges = 0
        objectChanges = [:]
    }
}

// MARK: - Sides

/// One store, one context on it, and the context's objects in the order both sides agree on
/// (by name), which the changes pick from by index.
final class Side {
    let coordinator: NSPersistentStoreCoordinator
    let context: NSManagedObjectContext
    var catalog: [NSManagedObject] = []
    /// Names are the prefix and a number: A and B insert the same names, C and D others.
    private let namePrefix: String
    private var nextName = 0

    /// A new store of `storeType` at `url`, or (with `side`) another context on that side's
    /// coordinator.
    init(storeType: String, url: URL?, namePrefix: String, sharing side: Side? = nil) throws {
        if let side {
            coordinator = side.coordinator
        } else {
            coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
            try coordinator.addPersistentStore(ofType: storeType, configurationName: nil, at: url, options: nil)
        }
        context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        self.namePrefix = namePrefix
    }

    /// Inserts `count` objects from `random` in batches of 10,000, saving each, then resets.
    func fill(_ count: Int, random: inout SplitMix64) throws {
        try context.performAndWait {
            for start in stride(from: 0, to: count, by: 10_000) {
                for _ in start..<min(count, start + 10_000) { insert(&random) }
                try context.save()
            }
            context.reset()
        }
    }

    /// Every object of the store, by name (so that two identical stores list the same objects
    /// at the same indexes).
    func loadCatalog() throws {
        catalog = try context.performAndWait {
            let all = NSFetchRequest<NSManagedObject>(entityName: "Item")
            all.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
            return try context.fetch(all)
        }
    }

    @discardableResult
    private func insert(_ random: inout SplitMix64) -> NSManagedObject {
        let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
        item.setValue(namePrefix + String(format: " %08d", nextName), forKey: "name")
        nextName += 1
        item.setValue(groups[Int.random(in: 0..<groups.count, using: &random)], forKey: "group")
        item.setValue(Int64.random(in: 0..<1_000_000, using: &random), forKey: "rank")
        item.setValue(Int.random(in: 0..<10, using: &random) != 0, forKey: "live")
        item.setValue(Int.random(in: 0..<4, using: &random) == 0 ? nil : "note \(random.next() % 1_000_000)", forKey: "note")
        return item
    }

    /// `count` random changes from `random` (on the context's queue): 30% rank, 15% group, 15%
    /// live, 20% note only, 10% inserts, 10% deletes.
    func change(_ count: Int, random: inout SplitMix64) {
        for _ in 0..<count {
            let kind = Int.random(in: 0..<20, using: &random)
            if kind >= 18 {
                catalog.append(insert(&random))
                continue
            }
            let index = Int.random(in: 0..<catalog.count, using: &random)
            let item = catalog[index]
            switch kind {
            case 0..<6: item.setValue(Int64.random(in: 0..<1_000_000, using: &random), forKey: "rank")
            case 6..<9: item.setValue(groups[Int.random(in: 0..<groups.count, using: &random)], forKey: "group")
            case 9..<12: item.setValue(!(item.value(forKey: "live") as? Bool ?? false), forKey: "live")
            case 12..<16: item.setValue("changed \(random.next() % 1_000_000)", forKey: "note")
            default:
                context.delete(item)
                catalog.swapAt(index, catalog.count - 1)
                catalog.removeLast()
            }
        }
    }
}

// MARK: - Run

/// The last save notification of a context (posted on its queue, read after its save returned).
final class SavedNotification: @unchecked Sendable {
    var notification: Notification?
}

struct Figures {
    var initialFetch = 0.0
    var liveObjects = 0
    var sections = 0
    var saveWith: [Double] = []
    var saveWithout: [Double] = []
    var report: [Double] = []
    var pendingWith: [Double] = []
    var pendingWithout: [Double] = []
    var pendingReport: [Double] = []
    var refetch: [Double] = []
    var plainFetch: [Double] = []
    var mergeWith: [Double] = []
    var mergeWithout: [Double] = []
    var mergeReport: [Double] = []
    var objectCalls: [Double] = []
    var sectionCalls: [Double] = []
    var mergeObjectCalls: [Double] = []
    var consistent = false
}

func run(_ storeType: String, folder: URL) throws -> Figures {
    var figures = Figures()
    func url(_ name: String) -> URL? { storeType == NSSQLiteStoreType ? folder.appendingPathComponent(name) : nil }
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let a = try Side(storeType: storeType, url: url("A.sqlite"), namePrefix: "item")
    let b = try Side(storeType: storeType, url: url("B.sqlite"), namePrefix: "item")
    for side in [a, b] {
        var random = SplitMix64(seed: 20_260_127)
        try side.fill(objectCount, random: &random)
        try side.loadCatalog()
    }
    let controller = NSFetchedResultsController(
        fetchRequest: request(), managedObjectContext: a.context, sectionNameKeyPath: "group", cacheName: nil)
    let delegate = CountingDelegate()
    try a.context.performAndWait {
        controller.delegate = delegate
        figures.initialFetch = try milliseconds { try controller.performFetch() }
        figures.liveObjects = controller.fetchedObjects?.count ?? 0
        figures.sections = controller.sections?.count ?? 0
    }
    // B holds the same results, fetched, so that both contexts keep the same objects alive.
    var plainResults = try b.context.performAndWait { try b.context.fetch(request()) }

    var random = SplitMix64(seed: 0x5EED_F00D)
    for round in 0..<rounds {
        let start = random
        // Changes announced by the save.
        var saves = (with: 0.0, without: 0.0)
        for side in round % 2 == 0 ? [a, b] : [b, a] {
            random = start
            try side.context.performAndWait {
                side.change(changeCount, random: &random)
                let elapsed = try milliseconds { try side.context.save() }
                if side === a { saves.with = elapsed } else { saves.without = elapsed }
            }
        }
        figures.saveWith.append(saves.with)
        figures.saveWithout.append(saves.without)
        figures.report.append(saves.with - saves.without)
        figures.objectCalls.append(Double(delegate.objectCalls))
        figures.sectionCalls.append(Double(delegate.sectionChanges))
        delegate.reset()

        // Changes announced by processPendingChanges(), then saved (untimed).
        let pendingStart = random
        var pending = (with: 0.0, without: 0.0)
        for side in round % 2 == 0 ? [b, a] : [a, b] {
            random = pendingStart
            try side.context.performAndWait {
                side.change(changeCount, random: &random)
                let elapsed = milliseconds { side.context.processPendingChanges() }
                if side === a { pending.with = elapsed } else { pending.without = elapsed }
                try side.context.save()
            }
        }
        figures.pendingWith.append(pending.with)
        figures.pendingWithout.append(pending.without)
        figures.pendingReport.append(pending.with - pending.without)
        delegate.reset()

        // The same results fetched again, both ways.
        try a.context.performAndWait {
            figures.refetch.append(try milliseconds { try controller.performFetch() })
            var fetched: [NSManagedObject] = []
            figures.plainFetch.append(try milliseconds { fetched = try a.context.fetch(request()) })
            guard fetched.count == controller.fetchedObjects?.count else { fatalError("refetch and fetch differ") }
        }
        plainResults = try b.context.performAndWait { try b.context.fetch(request()) }
    }

    // Merged changes: C (on A's coordinator) and D (on B's) make the changes and save.
    let c = try Side(storeType: storeType, url: nil, namePrefix: "other", sharing: a)
    let d = try Side(storeType: storeType, url: nil, namePrefix: "other", sharing: b)
    try c.loadCatalog()
    try d.loadCatalog()
    for round in 0..<rounds {
        let start = random
        var merges = (with: 0.0, without: 0.0)
        for (source, target) in round % 2 == 0 ? [(c, a), (d, b)] : [(d, b), (c, a)] {
            random = start
            let saved = SavedNotification()
            let observer = NotificationCenter.default.addObserver(
                forName: .NSManagedObjectContextDidSave, object: source.context, queue: nil
            ) { saved.notification = $0 }
            try source.context.performAndWait {
                source.change(changeCount, random: &random)
                try source.context.save()
            }
            NotificationCenter.default.removeObserver(observer)
            guard let notification = saved.notification else { fatalError("no save notification") }
            target.context.performAndWait {
                let elapsed = milliseconds { target.context.mergeChanges(fromContextDidSave: notification) }
                if target === a { merges.with = elapsed } else { merges.without = elapsed }
            }
        }
        figures.mergeWith.append(merges.with)
        figures.mergeWithout.append(merges.without)
        figures.mergeReport.append(merges.with - merges.without)
        figures.mergeObjectCalls.append(Double(delegate.objectCalls))
        delegate.reset()
    }
    _ = plainResults

    // The controller's results against a fresh fetch.
    figures.consistent = try a.context.performAndWait {
        let held = (controller.fetchedObjects ?? []).map(\.objectID)
        let fresh = try a.context.fetch(request()).map(\.objectID)
        let names = (controller.sections ?? []).map(\.name)
        return held == fresh && names == names.sorted() && Set(names).count == names.count
            && (controller.sections ?? []).map(\.numberOfObjects).reduce(0, +) == held.count
    }
    // Detached first: a reset would report every object deleted.
    a.context.performAndWait { controller.delegate = nil }
    for side in [a, b, c, d] { side.context.performAndWait { side.context.reset() } }
    return figures
}

// MARK: - Main

let folder = FileManager.default.temporaryDirectory.appendingPathComponent("results-controller-benchmarks-\(getpid())")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }

var results: [String: Any] = ["objects": objectCount, "changes": changeCount, "rounds": rounds]
var columns: [(name: String, figures: Figures)] = []
for storeType in storeTypes {
    let name = storeType == NSSQLiteStoreType ? "SQLite" : "in-memory"
    let figures = try run(storeType, folder: folder.appendingPathComponent(name))
    columns.append((name, figures))
}

func formatted(_ value: Double, _ format: String = "%.1f") -> String { String(format: format, value) }
/// An integer with thousands separated by commas.
func grouped(_ value: Int) -> String {
    let digits = String(value.magnitude)
    var text = ""
    for (offset, digit) in digits.enumerated() {
        if offset > 0 && (digits.count - offset) % 3 == 0 { text += "," }
        text.append(digit)
    }
    return (value < 0 ? "-" : "") + text
}
let changes = grouped(changeCount)
print(
    "NSFetchedResultsController over \(grouped(objectCount)) Items (request live == YES, sorted by group, rank, name; "
        + "sections by group); \(changes) random changes per save; median of \(rounds) rounds")
let lines: [(label: String, key: String, value: (Figures) -> String, number: (Figures) -> Double)] = [
    ("objects in the controller (at start)", "live_objects", { grouped($0.liveObjects) }, { Double($0.liveObjects) }),
    ("sections", "sections", { "\($0.sections)" }, { Double($0.sections) }),
    ("initial performFetch ms", "initial_fetch_ms", { formatted($0.initialFetch) }, { $0.initialFetch }),
    ("save with controller ms", "save_with_ms", { formatted(median($0.saveWith)) }, { median($0.saveWith) }),
    ("save without controller ms", "save_without_ms", { formatted(median($0.saveWithout)) }, { median($0.saveWithout) }),
    ("change report (\(changes) changes) ms", "report_ms", { formatted(median($0.report)) }, { median($0.report) }),
    (
        "processPendingChanges with controller ms", "pending_with_ms", { formatted(median($0.pendingWith)) },
        { median($0.pendingWith) }
    ),
    (
        "processPendingChanges without controller ms", "pending_without_ms", { formatted(median($0.pendingWithout)) },
        { median($0.pendingWithout) }
    ),
    (
        "change report via processPendingChanges ms", "pending_report_ms", { formatted(median($0.pendingReport)) },
        { median($0.pendingReport) }
    ),
    ("full refetch (performFetch) ms", "refetch_ms", { formatted(median($0.refetch)) }, { median($0.refetch) }),
    ("plain fetch ms", "plain_fetch_ms", { formatted(median($0.plainFetch)) }, { median($0.plainFetch) }),
    (
        "report / refetch", "ratio_report_refetch",
        { formatted(median($0.report) / median($0.refetch), "%.2f×") },
        { median($0.report) / median($0.refetch) }
    ),
    (
        "report via pending / refetch", "ratio_pending_report_refetch",
        { formatted(median($0.pendingReport) / median($0.refetch), "%.2f×") },
        { median($0.pendingReport) / median($0.refetch) }
    ),
    (
        "refetch / plain fetch", "ratio_refetch_plain", { formatted(median($0.refetch) / median($0.plainFetch), "%.2f×") },
        { median($0.refetch) / median($0.plainFetch) }
    ),
    (
        "object changes reported per save", "object_calls", { formatted(median($0.objectCalls), "%.0f") },
        { median($0.objectCalls) }
    ),
    (
        "section changes reported per save", "section_calls", { formatted(median($0.sectionCalls), "%.0f") },
        { median($0.sectionCalls) }
    ),
    ("merge with controller ms", "merge_with_ms", { formatted(median($0.mergeWith)) }, { median($0.mergeWith) }),
    ("merge without controller ms", "merge_without_ms", { formatted(median($0.mergeWithout)) }, { median($0.mergeWithout) }),
    (
        "change report, merged (\(changes) changes) ms", "merge_report_ms", { formatted(median($0.mergeReport)) },
        { median($0.mergeReport) }
    ),
    (
        "merged report / refetch", "ratio_merge_report_refetch",
        { formatted(median($0.mergeReport) / median($0.refetch), "%.2f×") }, { median($0.mergeReport) / median($0.refetch) }
    ),
    (
        "object changes reported per merge", "merge_object_calls", { formatted(median($0.mergeObjectCalls), "%.0f") },
        { median($0.mergeObjectCalls) }
    ),
]
let labelWidth = lines.map(\.label.count).max() ?? 0
func padded(_ text: String, _ width: Int, left: Bool = false) -> String {
    let padding = String(repeating: " ", count: max(0, width - text.count))
    return left ? text + padding : padding + text
}
print(padded("", labelWidth, left: true) + columns.map { " | " + padded($0.name, 11) }.joined())
for line in lines {
    print(padded(line.label, labelWidth, left: true) + columns.map { " | " + padded(line.value($0.figures), 11) }.joined())
    for column in columns {
        results["\(line.key)_\(column.name == "SQLite" ? "sqlite" : "memory")"] = line.number(column.figures)
    }
}
let consistent = columns.allSatisfy(\.figures.consistent)
print(
    padded("consistent (fetchedObjects = a fresh fetch)", labelWidth, left: true)
        + columns.map { " | " + padded($0.figures.consistent ? "yes" : "no", 11) }.joined())
print("consistent: \(consistent ? "yes" : "no")")
results["consistent"] = consistent

if let data = try? JSONSerialization.data(withJSONObject: results, options: [.sortedKeys]),
    let text = String(data: data, encoding: .utf8)
{
    print(text)
    if let path = CommandLine.arguments.dropFirst().first {
        try data.write(to: URL(fileURLWithPath: path))
    }
}
exit(consistent ? 0 : 1)
