import Foundation
import OpenCoreData
import TestSupport
import Testing

/// Random batches of changes, from a fixed seed, under three fetched results controllers on
/// every store: by sections with a total order, by sections with ties, and without sections
/// (followed through `CollectionDifference`s). Changes come from the controllers' own context
/// (announced by `processPendingChanges()` or a save, or taken back by `rollback()`), and from
/// another context's saves, merged by `mergeChanges(fromContextDidSave:)` or automatically.
///
/// After each batch:
/// - applying the reported changes, in order and by the batch-update convention, to the
///   sections and rows before the batch gives exactly the controller's sections and rows now;
/// - with a total order, those equal a fresh fetch of the same request; with ties, they hold
///   the same objects, sorted, in contiguous sections;
/// - the difference applied to the IDs before gives the IDs now;
/// - a batch that changes no key (only `note`) reports updates only.
@Suite struct RandomFetchedResultsTests {
    /// Batches per store type: at least 10,000 in all without PostgreSQL.
    static func batches(for storeType: String) -> Int {
        switch storeType {
        case NSInMemoryStoreType: 6_000
        case NSSQLiteStoreType: 4_000
        default: 500
        }
    }

    static let model: NSManagedObjectModel = {
        let card = NSEntityDescription()
        card.name = "Card"
        card.properties = [
            attribute("name", .stringAttributeType), attribute("group", .stringAttributeType),
            attribute("rank", .integer64AttributeType), attribute("live", .booleanAttributeType),
            attribute("note", .stringAttributeType),
        ]
        let model = NSManagedObjectModel()
        model.entities = [card]
        return model
    }()

    /// What one controller told its delegate.
    final class Recorder: NSFetchedResultsControllerDelegate {
        enum Event {
            /// The section's name and objects as the delegate was given them.
            case section(NSFetchedResultsChangeType, Int, String, [ObjectIdentifier])
            case object(NSFetchedResultsChangeType, ObjectIdentifier, IndexPath?, IndexPath?)
        }
        /// The events of each report (from `controllerWillChangeContent` on), in order.
        var reports: [[Event]] = []
        var calls: [String] = []

        func controllerWillChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {
            calls.append("will")
            reports.append([])
        }

        func controller(
            _ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange sectionInfo: NSFetchedResultsSectionInfo,
            atSectionIndex sectionIndex: Int, for type: NSFetchedResultsChangeType
        ) {
            calls.append("section")
            let members = (sectionInfo.objects ?? []).compactMap { ($0 as? NSManagedObject).map(ObjectIdentifier.init) }
            reports[reports.count - 1].append(.section(type, sectionIndex, sectionInfo.name, members))
        }

        func controller(
            _ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any, at indexPath: IndexPath?,
            for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?
        ) {
            calls.append("object")
            guard let object = anObject as? NSManagedObject else { return }
            reports[reports.count - 1].append(.object(type, ObjectIdentifier(object), indexPath, newIndexPath))
        }

        func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {
            calls.append("did")
        }
    }

    /// A recorder that follows differences (implementing the method replaces the others).
    final class DifferenceRecorder: NSFetchedResultsControllerDelegate {
        var differences: [CollectionDifference<NSManagedObjectID>] = []
        var otherCalls = 0

        func controller(
            _ controller: NSFetchedResultsController<NSFetchRequestResult>,
            didChangeContentWith diff: CollectionDifference<NSManagedObjectID>
        ) {
            differences.append(diff)
        }

        func controllerWillChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {
            otherCalls += 1
        }
    }

    typealias Sections = [(name: String, objects: [ObjectIdentifier])]

    static func sections(of controller: NSFetchedResultsController<NSManagedObject>) -> Sections {
        (controller.sections ?? []).map { section in
            (section.name, (section.objects ?? []).compactMap { ($0 as? NSManagedObject).map(ObjectIdentifier.init) })
        }
    }

    /// The old sections with the reported changes applied (batch-update convention); records
    /// an issue and returns nil when a change does not fit.
    static func applying(_ events: [Recorder.Event], to old: Sections, context: String) -> Sections? {
        var sections = old
        var removals: [(IndexPath, ObjectIdentifier)] = []
        var additions: [(IndexPath, ObjectIdentifier)] = []
        var deletedSections: [Int] = []
        var insertedSections: [(Int, String)] = []
        var updates: [(IndexPath, IndexPath, ObjectIdentifier)] = []
        for event in events {
            switch event {
            case .section(.delete, let index, let name, let members):
                // A deleted section is given as it was, with its objects.
                guard old.indices.contains(index), old[index].name == name, old[index].objects == members else {
                    Issue.record("\(context): deleted section \(index) is not the old one")
                    return nil
                }
                deletedSections.append(index)
            case .section(.insert, let index, let name, _): insertedSections.append((index, name))
            case .section(let type, _, _, _):
                Issue.record("\(context): a section change of type \(type)")
                return nil
            case .object(.delete, let id, let from?, nil): removals.append((from, id))
            case .object(.insert, let id, nil, let to?): additions.append((to, id))
            case .object(.move, let id, let from?, let to?):
                removals.append((from, id))
                additions.append((to, id))
            case .object(.update, let id, let from?, let to?): updates.append((from, to, id))
            case .object(let type, _, let from, let to):
                Issue.record("\(context): \(type) from \(String(describing: from)) to \(String(describing: to))")
                return nil
            }
        }
        for (path, id) in removals.sorted(by: { $0.0 > $1.0 }) {
            guard sections.indices.contains(path.section), sections[path.section].objects.indices.contains(path.row),
                sections[path.section].objects[path.row] == id
            else {
                Issue.record("\(context): nothing to remove at \(path)")
                return nil
            }
            sections[path.section].objects.remove(at: path.row)
        }
        for (path, _, id) in updates {
            guard old.indices.contains(path.section), old[path.section].objects.indices.contains(path.row),
                old[path.section].objects[path.row] == id
            else {
                Issue.record("\(context): the update at \(path) names another object")
                return nil
            }
        }
        for index in deletedSections.sorted(by: >) {
            guard sections.indices.contains(index), sections[index].objects.isEmpty else {
                Issue.record("\(context): section \(index) deleted while it holds objects")
                return nil
            }
            sections.remove(at: index)
        }
        for (index, name) in insertedSections.sorted(by: { $0.0 < $1.0 }) {
            guard index <= sections.count else {
                Issue.record("\(context): section inserted at \(index) of \(sections.count)")
                return nil
            }
            sections.insert((name, []), at: index)
        }
        for (path, id) in additions.sorted(by: { $0.0 < $1.0 }) {
            guard sections.indices.contains(path.section), path.row <= sections[path.section].objects.count else {
                Issue.record("\(context): nowhere to insert at \(path)")
                return nil
            }
            sections[path.section].objects.insert(id, at: path.row)
        }
        for (_, path, id) in updates {
            guard sections.indices.contains(path.section), sections[path.section].objects.indices.contains(path.row),
                sections[path.section].objects[path.row] == id
            else {
                Issue.record("\(context): the update's new index path \(path) names another object")
                return nil
            }
        }
        return sections
    }

    static func same(_ a: Sections, _ b: Sections) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { $0.name == $1.name && $0.objects == $1.objects }
    }

    @Test(arguments: ContextFixture.storeTypes)
    func reportedChangesTurnTheOldResultsIntoTheNewOnes(storeType: String) async throws {
        let folder = try TemporaryFolder()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: Self.model)
        try coordinator.addPersistentStore(
            ofType: storeType, configurationName: nil, at: try folder.storeURL(for: storeType, name: "Cards.sqlite"))
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let other = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        other.persistentStoreCoordinator = coordinator
        var random = SplitMix64(seed: 20_261_127)
        let groups = ["A", "B", "C", "D", "E"]
        var nextName = 0
        func insertCard(in context: NSManagedObjectContext) {
            let card = NSEntityDescription.insertNewObject(forEntityName: "Card", into: context)
            card.setValue(String(format: "n%05d", nextName), forKey: "name")
            nextName += 1
            card.setValue(groups.randomElement(using: &random), forKey: "group")
            card.setValue(Int64.random(in: 0..<8, using: &random), forKey: "rank")
            card.setValue(Bool.random(using: &random), forKey: "live")
        }
        try context.performAndWait {
            for _ in 0..<40 { insertCard(in: context) }
            try context.save()
        }

        func request(_ sort: [String]) -> NSFetchRequest<NSManagedObject> {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Card")
            request.predicate = NSPredicate(format: "live == YES")
            request.sortDescriptors = sort.map { NSSortDescriptor(key: $0, ascending: true) }
            return request
        }
        let total = NSFetchedResultsController(
            fetchRequest: request(["group", "rank", "name"]), managedObjectContext: context, sectionNameKeyPath: "group",
            cacheName: nil)
        let ties = NSFetchedResultsController(
            fetchRequest: request(["group", "rank"]), managedObjectContext: context, sectionNameKeyPath: "group",
            cacheName: nil)
        let flat = NSFetchedResultsController(
            fetchRequest: request(["rank", "name"]), managedObjectContext: context, sectionNameKeyPath: nil, cacheName: nil)
        let totalRecorder = Recorder()
        let tiesRecorder = Recorder()
        let flatRecorder = DifferenceRecorder()
        try context.performAndWait {
            total.delegate = totalRecorder
            ties.delegate = tiesRecorder
            flat.delegate = flatRecorder
            try total.performFetch()
            try ties.performFetch()
            try flat.performFetch()
        }

        var lastSave: Notification?
        let saves = NotificationCenter.default.addObserver(
            forName: .NSManagedObjectContextDidSave, object: other, queue: nil
        ) { lastSave = $0 }
        defer { NotificationCenter.default.removeObserver(saves) }

        for batch in 0..<Self.batches(for: storeType) {
            // A long run: between batches, let the other tests' tasks have this thread (a 2-core
            // machine has two cooperative threads, and some tests wait for tasks to start).
            await Task.yield()
            let label = "\(storeType) batch \(batch)"
            let (before, beforeTies, beforeIDs) = context.performAndWait {
                (Self.sections(of: total), Self.sections(of: ties), flat.fetchedObjects?.map(\.objectID) ?? [])
            }
            totalRecorder.reports = []
            tiesRecorder.reports = []
            totalRecorder.calls = []
            flatRecorder.differences = []
            let noteOnly = Int.random(in: 0..<10, using: &random) == 0
            let kind = Int.random(in: 0..<10, using: &random)
            // Own changes (announced or saved), or another context's save, merged.
            let changing = kind < 6 ? context : other
            // Another context's saves: merged automatically every third batch, else by hand.
            let mergesAutomatically = changing === other && batch % 3 == 0
            context.automaticallyMergesChangesFromParent = mergesAutomatically
            try changing.performAndWait {
                // The other context starts from the store as it is (it merges nothing itself).
                if changing === other { other.reset() }
                let all = try changing.fetch(NSFetchRequest<NSManagedObject>(entityName: "Card"))
                for _ in 0..<Int.random(in: 1...4, using: &random) {
                    guard let card = all.randomElement(using: &random), !card.isDeleted else { continue }
                    // (A rollback takes back earlier batches' unsaved changes of keys too.)
                    if noteOnly && kind != 5 {
                        card.setValue("note \(batch)", forKey: "note")
                        continue
                    }
                    switch Int.random(in: 0..<7, using: &random) {
                    case 0: insertCard(in: changing)
                    case 1: changing.delete(card)
                    case 2: card.setValue(groups.randomElement(using: &random), forKey: "group")
                    case 3: card.setValue(Int64.random(in: 0..<8, using: &random), forKey: "rank")
                    case 4: card.setValue(!(card.value(forKey: "live") as? Bool ?? false), forKey: "live")
                    case 5: card.setValue("note \(batch)", forKey: "note")
                    default: card.setValue(String(format: "m%05d", Int.random(in: 0..<99_999, using: &random)), forKey: "name")
                    }
                }
                if changing === other || kind == 4 { try changing.save() }
                if kind == 5 {
                    changing.processPendingChanges()
                    changing.rollback()
                }
            }
            if changing === other {
                if mergesAutomatically {
                    context.performAndWait {}  // after the merge the save queued
                } else {
                    let notification = try #require(lastSave)
                    context.performAndWait { context.mergeChanges(fromContextDidSave: notification) }
                }
            }
            try context.performAndWait {
                let now = Self.sections(of: total)
                var applied = before
                for report in totalRecorder.reports {
                    applied = try #require(Self.applying(report, to: applied, context: "\(label) total"))
                }
                #expect(Self.same(applied, now), "\(label): the reports do not give the new sections")
                let fetched = try context.fetch(total.fetchRequest).map(ObjectIdentifier.init)
                #expect(now.flatMap(\.objects) == fetched, "\(label): the sections differ from a fetch")
                #expect(Set(now.map(\.name)).count == now.count, "\(label): a section name twice")

                let nowTies = Self.sections(of: ties)
                var appliedTies = beforeTies
                for report in tiesRecorder.reports {
                    appliedTies = try #require(Self.applying(report, to: appliedTies, context: "\(label) ties"))
                }
                #expect(Self.same(appliedTies, nowTies), "\(label): the reports (ties) do not give the new sections")
                #expect(Set(nowTies.flatMap(\.objects)) == Set(fetched), "\(label): ties hold other objects")
                let tieObjects = ties.fetchedObjects ?? []
                let sorted = zip(tieObjects, tieObjects.dropFirst()).allSatisfy { a, b in
                    let ga = a.value(forKey: "group") as? String ?? "", gb = b.value(forKey: "group") as? String ?? ""
                    let ra = a.value(forKey: "rank") as? Int64 ?? 0, rb = b.value(forKey: "rank") as? Int64 ?? 0
                    return ga < gb || (ga == gb && ra <= rb)
                }
                #expect(sorted, "\(label): ties out of order")

                let nowIDs = flat.fetchedObjects?.map(\.objectID) ?? []
                var ids = beforeIDs
                for difference in flatRecorder.differences {
                    guard let applied = ids.applying(difference) else {
                        Issue.record("\(label): a difference that does not apply")
                        break
                    }
                    ids = applied
                }
                #expect(ids == nowIDs, "\(label): the differences do not give the new IDs")
                #expect(flatRecorder.otherCalls == 0)
                // (A rollback takes back earlier batches' unsaved changes of keys too.)
                if noteOnly && kind != 5 {
                    let moves = totalRecorder.reports.joined().filter {
                        if case .object(let type, _, _, _) = $0 { return type != .update }
                        return true
                    }
                    #expect(moves.isEmpty, "\(label): a change of no key reported \(moves.count) non-updates")
                }
                // Each report: will, its section changes, its object changes, did; never empty.
                var calls = totalRecorder.calls[...]
                while let start = calls.firstIndex(of: "will") {
                    let end = try #require(calls[start...].firstIndex(of: "did"), "\(label): no did")
                    let report = calls[(start + 1)..<end]
                    #expect(!report.isEmpty, "\(label): a report of nothing")
                    #expect(!report.drop { $0 == "section" }.contains("section"), "\(label): a section change late")
                    #expect(!report.contains("will"), "\(label): reports overlap")
                    calls = calls[(end + 1)...]
                }
                #expect(calls.isEmpty, "\(label): calls outside a report")
            }
        }
    }
}
