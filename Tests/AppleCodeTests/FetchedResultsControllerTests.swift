import CoreData
import Foundation
import TestSupport
import XCTest

/// A feed entry, as Xcode generates the class ("Manual/None"), with the mechanical port.
public class FeedEntry: NSManagedObject {
    @nonobjc public class func fetchRequest() -> NSFetchRequest<FeedEntry> {
        NSFetchRequest<FeedEntry>(entityName: "FeedEntry")
    }

    /// Every entry, typed (the generated `fetchRequest()` is ambiguous without a type).
    static var all: NSFetchRequest<FeedEntry> { fetchRequest() }

    @Managed public var title: String
    @Managed public var topic: String
    @Managed public var score: Int64
    @Managed public var isPublished: Bool
    @Managed public var note: String?
}

/// Records what a fetched results controller tells its delegate, one line per call.
final class ChangeRecorder: NSObject, NSFetchedResultsControllerDelegate {
    var events: [String] = []

    func controllerWillChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {
        events.append("will")
    }

    func controller(
        _ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange sectionInfo: NSFetchedResultsSectionInfo,
        atSectionIndex sectionIndex: Int, for type: NSFetchedResultsChangeType
    ) {
        events.append("section \(type) \(sectionIndex) \(sectionInfo.name)")
    }

    func controller(
        _ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any, at indexPath: IndexPath?,
        for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?
    ) {
        // After `reset()` the objects are no longer valid: their values cannot be read.
        let entry = anObject as? FeedEntry
        let title = entry?.managedObjectContext == nil && entry?.isFault == true ? "(gone)" : entry?.title ?? "?"
        let from = indexPath.map { "\($0.section).\($0.row)" } ?? "-"
        let to = newIndexPath.map { "\($0.section).\($0.row)" } ?? "-"
        events.append("\(type) \(title) \(from)>\(to)")
    }

    func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {
        events.append("did")
    }

    /// The events since the last call.
    func take() -> [String] {
        defer { events = [] }
        return events
    }
}

/// Follows a controller without sections through `CollectionDifference`s only.
final class DifferenceRecorder: NSObject, NSFetchedResultsControllerDelegate {
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

/// `NSFetchedResultsController` case by case, as Apple documents it, on every store.
final class FetchedResultsControllerTests: XCTestCase {
    static let model: NSManagedObjectModel = {
        let entry = NSEntityDescription()
        entry.name = "FeedEntry"
        entry.managedObjectClassName = NSStringFromClass(FeedEntry.self)
        entry.properties = [
            attribute("title", type: .string, optional: false), attribute("topic", type: .string, optional: false),
            attribute("score", type: .integer64, optional: false), attribute("isPublished", type: .boolean, optional: false),
            attribute("note", type: .string),
        ]
        let tag = NSEntityDescription()
        tag.name = "Tag"
        tag.properties = [attribute("label", type: .string, optional: false)]
        let model = NSManagedObjectModel()
        model.entities = [entry, tag]
        return model
    }()

    /// A container whose view context holds published entries in two topics:
    /// News (Alpha 30, Beta 20) and Sports (Gamma 50), and an unpublished Delta (News, 10).
    func makeContainer(_ kind: StoreKind) throws -> NSPersistentContainer {
        let container = try AppleCodeTests.makeContainer(named: "Feed", model: Self.model, kind)
        let context = container.viewContext
        entry("Alpha", "News", 30, in: context)
        entry("Beta", "News", 20, in: context)
        entry("Gamma", "Sports", 50, in: context)
        entry("Delta", "News", 10, published: false, in: context)
        try context.save()
        return container
    }

    @discardableResult
    func entry(_ title: String, _ topic: String, _ score: Int64, published: Bool = true, in context: NSManagedObjectContext)
        -> FeedEntry
    {
        let entry = FeedEntry(context: context)
        entry.title = title
        entry.topic = topic
        entry.score = score
        entry.isPublished = published
        return entry
    }

    /// Published entries by topic, then by score, highest first.
    func makeController(_ context: NSManagedObjectContext, sections: Bool = true) -> NSFetchedResultsController<FeedEntry> {
        let request = FeedEntry.all
        request.predicate = NSPredicate(format: "isPublished == YES")
        request.sortDescriptors = [
            NSSortDescriptor(key: "topic", ascending: true), NSSortDescriptor(key: "score", ascending: false),
        ]
        return NSFetchedResultsController(
            fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: sections ? "topic" : nil,
            cacheName: nil)
    }

    /// A controller on the view context of a new container of `kind`, followed by a recorder.
    func followed(_ kind: StoreKind) throws -> (NSManagedObjectContext, NSFetchedResultsController<FeedEntry>, ChangeRecorder) {
        let container = try makeContainer(kind)
        let controller = makeController(container.viewContext)
        let recorder = ChangeRecorder()
        controller.delegate = recorder
        try controller.performFetch()
        return (container.viewContext, controller, recorder)
    }

    func titles(_ controller: NSFetchedResultsController<FeedEntry>) -> [[String]] {
        (controller.sections ?? []).map { section in (section.objects ?? []).map { ($0 as? FeedEntry)?.title ?? "?" } }
    }

    func testSectionsAndLookups() throws {
        for kind in StoreKind.allCases {
            let container = try makeContainer(kind)
            let controller = makeController(container.viewContext)
            XCTAssertNil(controller.fetchedObjects)
            XCTAssertNil(controller.sections)
            try controller.performFetch()
            XCTAssertEqual(controller.fetchedObjects?.map(\.title), ["Alpha", "Beta", "Gamma"], "\(kind)")
            XCTAssertEqual(controller.sections?.map(\.name), ["News", "Sports"])
            XCTAssertEqual(controller.sections?.map(\.numberOfObjects), [2, 1])
            XCTAssertEqual(controller.sections?.map(\.indexTitle), ["N", "S"])
            XCTAssertEqual(controller.sectionIndexTitles, ["N", "S"])
            XCTAssertEqual(controller.section(forSectionIndexTitle: "S", at: 1), 1)
            XCTAssertEqual(controller.sectionIndexTitle(forSectionName: "weather"), "W")
            let beta = controller.object(at: IndexPath(row: 1, section: 0))
            XCTAssertEqual(beta.title, "Beta")
            XCTAssertEqual(controller.indexPath(forObject: beta), IndexPath(row: 1, section: 0))
            let gamma = controller.object(at: IndexPath(item: 0, section: 1))
            XCTAssertEqual(controller.indexPath(forObject: gamma)?.section, 1)
            XCTAssertEqual(titles(controller), [["Alpha", "Beta"], ["Gamma"]])
        }
    }

    func testOneSectionWithoutAKeyPathEvenWhenEmpty() throws {
        let container = try makeContainer(.inMemory)
        let request = FeedEntry.all
        request.predicate = NSPredicate(format: "score > 1000")
        request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
        let controller = NSFetchedResultsController(
            fetchRequest: request, managedObjectContext: container.viewContext, sectionNameKeyPath: nil, cacheName: nil)
        try controller.performFetch()
        XCTAssertEqual(controller.sections?.count, 1)
        XCTAssertEqual(controller.sections?.first?.name, "")
        XCTAssertEqual(controller.sections?.first?.numberOfObjects, 0)
        XCTAssertEqual(controller.fetchedObjects?.count, 0)
    }

    func testANewSectionAppearsBeforeItsObject() throws {
        for kind in StoreKind.allCases {
            let (context, controller, recorder) = try followed(kind)
            entry("Epsilon", "Cooking", 5, in: context)
            context.processPendingChanges()
            XCTAssertEqual(
                recorder.take(), ["will", "section insert 0 Cooking", "insert Epsilon ->0.0", "did"], "\(kind)")
            XCTAssertEqual(titles(controller), [["Epsilon"], ["Alpha", "Beta"], ["Gamma"]])
        }
    }

    func testTheLastObjectOfASectionLeavingDeletesTheSection() throws {
        for kind in StoreKind.allCases {
            let (context, controller, recorder) = try followed(kind)
            context.delete(controller.object(at: IndexPath(row: 0, section: 1)))
            try context.save()
            XCTAssertEqual(recorder.take(), ["will", "section delete 1 Sports", "delete Gamma 1.0>-", "did"], "\(kind)")
            XCTAssertEqual(controller.sections?.map(\.name), ["News"])
        }
    }

    func testAnObjectEntersAndLeavesThePredicate() throws {
        for kind in StoreKind.allCases {
            let (context, controller, recorder) = try followed(kind)
            let delta = try XCTUnwrap(
                context.fetch(FeedEntry.all).first { $0.title == "Delta" })
            delta.isPublished = true
            context.processPendingChanges()
            XCTAssertEqual(recorder.take(), ["will", "insert Delta ->0.2", "did"], "\(kind)")
            delta.isPublished = false
            context.processPendingChanges()
            XCTAssertEqual(recorder.take(), ["will", "delete Delta 0.2>-", "did"], "\(kind)")
            XCTAssertEqual(titles(controller), [["Alpha", "Beta"], ["Gamma"]])
        }
    }

    func testASortKeyChangeMovesAndAChangeInPlaceUpdates() throws {
        for kind in StoreKind.allCases {
            let (context, controller, recorder) = try followed(kind)
            let beta = controller.object(at: IndexPath(row: 1, section: 0))
            beta.score = 40  // now above Alpha (30)
            context.processPendingChanges()
            XCTAssertEqual(recorder.take(), ["will", "move Beta 0.1>0.0", "did"], "\(kind)")
            // A sort key that changes but keeps the order: an update, not a move to the same place.
            beta.score = 35
            context.processPendingChanges()
            XCTAssertEqual(recorder.take(), ["will", "update Beta 0.0>0.0", "did"], "\(kind)")
            // A change of no key at all: an update.
            controller.object(at: IndexPath(row: 0, section: 1)).note = "edited"
            context.processPendingChanges()
            XCTAssertEqual(recorder.take(), ["will", "update Gamma 1.0>1.0", "did"], "\(kind)")
            // A section key change: a move to the other section.
            beta.topic = "Sports"
            context.processPendingChanges()
            XCTAssertEqual(recorder.take(), ["will", "move Beta 0.0>1.1", "did"], "\(kind)")
            XCTAssertEqual(titles(controller), [["Alpha"], ["Gamma", "Beta"]])
        }
    }

    func testAnUnrelatedInsertCallsNothing() throws {
        let (context, controller, recorder) = try followed(.sqlite)
        let tag = NSManagedObject(entity: try XCTUnwrap(Self.model.entitiesByName["Tag"]), insertInto: context)
        tag.setValue("misc", forKey: "label")
        entry("Zeta", "News", 1, published: false, in: context)
        try context.save()
        XCTAssertEqual(recorder.take(), [])
    }

    func testSeveralChangesArriveInOneReportInOrder() throws {
        let (context, controller, recorder) = try followed(.inMemory)
        context.delete(controller.object(at: IndexPath(row: 0, section: 1)))  // Gamma: Sports empties
        controller.object(at: IndexPath(row: 1, section: 0)).score = 99  // Beta overtakes Alpha
        entry("Eta", "Arts", 1, in: context)  // a new first section
        controller.object(at: IndexPath(row: 0, section: 0)).note = "x"  // Alpha changes in place
        context.processPendingChanges()
        XCTAssertEqual(
            recorder.take(),
            [
                "will", "section delete 1 Sports", "section insert 0 Arts", "delete Gamma 1.0>-", "move Beta 0.1>1.0",
                "insert Eta ->0.0", "update Alpha 0.0>1.1", "did",
            ])
        XCTAssertEqual(titles(controller), [["Eta"], ["Beta", "Alpha"]])
    }

    func testChangesMergedFromABackgroundSave() throws {
        for kind in StoreKind.allCases {
            let container = try makeContainer(kind)
            let context = container.newBackgroundContext()
            let controller = makeController(context)
            let recorder = ChangeRecorder()
            try context.performAndWait {
                controller.delegate = recorder
                try controller.performFetch()
            }
            let background = container.newBackgroundContext()
            var notification: Notification?
            let observer = NotificationCenter.default.addObserver(
                forName: .NSManagedObjectContextDidSave, object: background, queue: nil
            ) { notification = $0 }
            defer { NotificationCenter.default.removeObserver(observer) }
            try background.performAndWait {
                let all = try background.fetch(FeedEntry.all)
                for entry in all {
                    switch entry.title {
                    case "Alpha": entry.score = 1  // below Beta
                    case "Delta": entry.isPublished = true  // never loaded by the controller's context
                    case "Gamma": background.delete(entry)
                    default: break
                    }
                }
                self.entry("Theta", "Sports", 70, in: background)
                try background.save()
            }
            let merged = try XCTUnwrap(notification)
            context.performAndWait { context.mergeChanges(fromContextDidSave: merged) }
            XCTAssertEqual(
                recorder.take(),
                [
                    "will", "delete Gamma 1.0>-", "move Alpha 0.0>0.2", "insert Delta ->0.1", "insert Theta ->1.0", "did",
                ], "\(kind)")
            context.performAndWait {
                XCTAssertEqual(titles(controller), [["Beta", "Delta", "Alpha"], ["Theta"]])
            }
        }
    }

    func testWithoutADelegateTheResultsAreASnapshot() throws {
        let container = try makeContainer(.inMemory)
        let context = container.viewContext
        let controller = makeController(context)
        try controller.performFetch()
        entry("Iota", "News", 99, in: context)
        try context.save()
        XCTAssertEqual(controller.fetchedObjects?.map(\.title), ["Alpha", "Beta", "Gamma"])
        try controller.performFetch()
        XCTAssertEqual(controller.fetchedObjects?.map(\.title), ["Iota", "Alpha", "Beta", "Gamma"])
    }

    func testRefreshReportsAnUpdate() throws {
        let (context, controller, recorder) = try followed(.sqlite)
        context.refresh(controller.object(at: IndexPath(row: 0, section: 1)), mergeChanges: false)
        context.processPendingChanges()
        XCTAssertEqual(recorder.take(), ["will", "update Gamma 1.0>1.0", "did"])
    }

    func testResetReportsEveryObjectDeleted() throws {
        let (context, controller, recorder) = try followed(.inMemory)
        context.reset()
        XCTAssertEqual(
            recorder.take(),
            [
                "will", "section delete 0 News", "section delete 1 Sports", "delete (gone) 0.0>-", "delete (gone) 0.1>-",
                "delete (gone) 1.0>-", "did",
            ])
        XCTAssertEqual(controller.fetchedObjects?.count, 0)
        try controller.performFetch()
        XCTAssertEqual(controller.fetchedObjects?.map(\.title), ["Alpha", "Beta", "Gamma"])
    }

    func testADifferenceReplacesTheOtherCallbacksWithoutSections() throws {
        for kind in StoreKind.allCases {
            let container = try makeContainer(kind)
            let context = container.viewContext
            let controller = makeController(context, sections: false)
            let recorder = DifferenceRecorder()
            controller.delegate = recorder
            try controller.performFetch()
            var ids = try XCTUnwrap(controller.fetchedObjects?.map(\.objectID))
            let kappa = entry("Kappa", "News", 25, in: context)  // between Alpha (30) and Beta (20)
            controller.object(at: IndexPath(row: 0, section: 0)).score = 0  // Alpha to the end of News
            context.processPendingChanges()
            XCTAssertEqual(recorder.differences.count, 1, "\(kind)")
            ids = try XCTUnwrap(ids.applying(try XCTUnwrap(recorder.differences.last)))
            XCTAssertEqual(ids, controller.fetchedObjects?.map(\.objectID))
            let moves = recorder.differences.last?.insertions.filter {
                if case .insert(_, _, let associated) = $0 { return associated != nil }
                return false
            }
            XCTAssertEqual(moves?.count, 1, "Alpha's move keeps its pairing")
            // The save gives Kappa its permanent ID: the difference swaps the IDs.
            XCTAssertTrue(kappa.objectID.isTemporaryID)
            try context.save()
            XCTAssertEqual(recorder.differences.count, 2)
            ids = try XCTUnwrap(ids.applying(try XCTUnwrap(recorder.differences.last)))
            XCTAssertEqual(ids, controller.fetchedObjects?.map(\.objectID))
            XCTAssertFalse(ids.contains { $0.isTemporaryID })
            XCTAssertEqual(recorder.otherCalls, 0)
        }
    }

    func testRequestsItCannotFollowAreErrors() throws {
        let container = try makeContainer(.inMemory)
        let unsorted = NSFetchedResultsController(
            fetchRequest: FeedEntry.all, managedObjectContext: container.viewContext, sectionNameKeyPath: nil,
            cacheName: nil)
        XCTAssertThrowsError(try unsorted.performFetch()) { error in
            XCTAssertTrue("\(error)".contains("requires a fetch request with sort descriptors"), "\(error)")
        }
        // Sections by topic but sorted by score: Delta (News, 10), Omega (Sports, 15), Beta (News, 20).
        entry("Omega", "Sports", 15, in: container.viewContext)
        let request = FeedEntry.all
        request.sortDescriptors = [NSSortDescriptor(key: "score", ascending: true)]
        let outOfOrder = NSFetchedResultsController(
            fetchRequest: request, managedObjectContext: container.viewContext, sectionNameKeyPath: "topic",
            cacheName: nil)
        XCTAssertThrowsError(try outOfOrder.performFetch()) { error in
            XCTAssertTrue("\(error)".contains("out of order section name 'News'"), "\(error)")
        }
    }

    func testSnapshotsFollowTheResultsWithoutADelegate() async throws {
        for kind in StoreKind.allCases {
            let container = try makeContainer(kind)
            let context = container.newBackgroundContext()
            let controller = makeController(context)
            var snapshots = controller.snapshots.makeAsyncIterator()
            try await context.perform { try controller.performFetch() }
            let nextFirst = await snapshots.next()
            let first = try XCTUnwrap(nextFirst)
            XCTAssertEqual(first.sections.map(\.name), ["News", "Sports"], "\(kind)")
            XCTAssertEqual(first.sections.map(\.indexTitle), ["N", "S"])
            XCTAssertEqual(first.difference.insertions.count, 3)
            var ids = try XCTUnwrap([NSManagedObjectID]().applying(first.difference))
            XCTAssertEqual(ids, first.objectIDs)
            await context.perform {
                let beta = controller.object(at: IndexPath(row: 1, section: 0))
                beta.score = 99  // a move within News
                self.entry("Lambda", "Arts", 3, in: context)  // a new section
            }
            let names = await context.perform { controller.fetchedObjects?.map(\.objectID) }
            let nextSecond = await snapshots.next()
            let second = try XCTUnwrap(nextSecond)
            XCTAssertEqual(second.sections.map(\.name), ["Arts", "News", "Sports"])
            ids = try XCTUnwrap(ids.applying(second.difference))
            XCTAssertEqual(ids, second.objectIDs)
            XCTAssertEqual(ids, names)
            // The save gives Lambda its permanent ID.
            try await context.perform { try context.save() }
            let nextThird = await snapshots.next()
            let third = try XCTUnwrap(nextThird)
            ids = try XCTUnwrap(ids.applying(third.difference))
            XCTAssertEqual(ids, third.objectIDs)
            XCTAssertFalse(ids.contains { $0.isTemporaryID })
            XCTAssertEqual(third.difference.insertions.count, 1)
        }
    }

    func testSnapshotsStartedAfterSavesNobodyWatchedShowTheCurrentIDs() async throws {
        for kind in StoreKind.allCases {
            let container = try makeContainer(kind)
            let context = container.newBackgroundContext()
            let controller = makeController(context)
            let recorder = ChangeRecorder()
            // A delegate of object changes only: the controller keeps no IDs while it reports.
            try await context.perform {
                controller.delegate = recorder
                try controller.performFetch()
                self.entry("Lambda", "Arts", 3, in: context)
                try context.save()
            }
            let events = recorder.take()
            XCTAssertTrue(events.contains { $0.hasPrefix("insert Lambda") }, "\(kind): \(events)")
            let current = await context.perform { controller.fetchedObjects?.map(\.objectID) ?? [] }
            XCTAssertFalse(current.contains { $0.isTemporaryID }, "\(kind)")
            // A sequence begun now starts from the IDs the results have now.
            var snapshots = controller.snapshots.makeAsyncIterator()
            let nextFirst = await snapshots.next()
            let first = try XCTUnwrap(nextFirst)
            XCTAssertEqual(first.objectIDs, current, "\(kind)")
            var ids = try XCTUnwrap([NSManagedObjectID]().applying(first.difference))
            XCTAssertEqual(ids, current)
            await context.perform { self.entry("Mu", "News", 7, in: context) }
            let nextSecond = await snapshots.next()
            let second = try XCTUnwrap(nextSecond)
            ids = try XCTUnwrap(ids.applying(second.difference))
            XCTAssertEqual(ids, second.objectIDs)
            let after = await context.perform { controller.fetchedObjects?.map(\.objectID) }
            XCTAssertEqual(ids, after)
        }
    }

    func testABatchedControllerLoadsOnlyWhatItReads() throws {
        let container = try makeContainer(.sqlite)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            for index in 0..<1_000 { entry(String(format: "E%04d", index), "T\(index % 7)", Int64(index), in: context) }
            try context.save()
            context.reset()
        }
        let request = FeedEntry.all
        request.predicate = NSPredicate(format: "isPublished == YES")
        request.sortDescriptors = [
            NSSortDescriptor(key: "topic", ascending: true), NSSortDescriptor(key: "score", ascending: false),
        ]
        request.fetchBatchSize = 20
        let controller = NSFetchedResultsController(
            fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: "topic", cacheName: nil)
        let recorder = ChangeRecorder()
        try context.performAndWait {
            controller.delegate = recorder
            try controller.performFetch()
            let objects = try XCTUnwrap(controller.fetchedObjects)
            XCTAssertEqual(objects.count, 1_003)
            XCTAssertEqual(objects.filter { !$0.isFault }.count, 0, "performFetch loaded objects")
            XCTAssertEqual(controller.sections?.map(\.name), ["News", "Sports", "T0", "T1", "T2", "T3", "T4", "T5", "T6"])
            XCTAssertEqual(controller.sections?.map(\.numberOfObjects), [2, 1, 143, 143, 143, 143, 143, 143, 142])
            // One object read: its batch loads, not the rest.
            XCTAssertEqual(controller.object(at: IndexPath(row: 5, section: 3)).title, "E0960")
            XCTAssertLessThanOrEqual(objects.filter { !$0.isFault }.count, 40)
            // A change is placed by reading a few objects, not all.
            entry("Mu", "T4", 500, in: context)
        }
        XCTAssertEqual(recorder.take(), ["will", "insert Mu ->6.72", "did"])
        context.performAndWait {
            let loaded = controller.fetchedObjects?.filter { !$0.isFault }.count ?? 0
            XCTAssertLessThanOrEqual(loaded, 200, "placing one object loaded \(loaded)")
        }
    }

    func testACacheSurvivesARestartUntilTheRequestOrTheStoreChanges() throws {
        let first = try makeContainer(.sqlite)
        let url = try XCTUnwrap(first.persistentStoreCoordinator.persistentStores.first?.url)
        let cacheName = "feed-\(UUID().uuidString)"
        defer { NSFetchedResultsController<FeedEntry>.deleteCache(withName: cacheName) }
        func controller(on context: NSManagedObjectContext, predicate: String = "isPublished == YES", cached: Bool = true)
            -> NSFetchedResultsController<FeedEntry>
        {
            let controller = makeController(context)
            controller.fetchRequest.predicate = NSPredicate(format: predicate)
            return NSFetchedResultsController(
                fetchRequest: controller.fetchRequest, managedObjectContext: context, sectionNameKeyPath: "topic",
                cacheName: cached ? cacheName : nil)
        }
        /// Whether the controller laid its results out without loading them, then its titles.
        func fetch(_ controller: NSFetchedResultsController<FeedEntry>) throws -> (fromCache: Bool, titles: [[String]]) {
            try controller.managedObjectContext.performAndWait {
                try controller.performFetch()
                let unloaded = controller.fetchedObjects?.allSatisfy(\.isFault) ?? false
                return (unloaded, titles(controller))
            }
        }
        let written = try fetch(controller(on: first.newBackgroundContext()))
        XCTAssertEqual(written.titles, [["Alpha", "Beta"], ["Gamma"]])
        XCTAssertFalse(written.fromCache)

        // A restart: another coordinator on the same file.
        let restarted = NSPersistentContainer(name: "Feed", managedObjectModel: Self.model)
        restarted.persistentStoreDescriptions = [NSPersistentStoreDescription(url: url)]
        var loadError: Error?
        restarted.loadPersistentStores { _, error in loadError = error }
        XCTAssertNil(loadError)
        let context = restarted.newBackgroundContext()
        let read = try fetch(controller(on: context))
        XCTAssertTrue(read.fromCache, "the cache was not used")
        XCTAssertEqual(read.titles, [["Alpha", "Beta"], ["Gamma"]])
        XCTAssertFalse(try fetch(controller(on: context, cached: false)).fromCache)

        // Another request under the same name refuses the cache (and writes its own).
        let other = try fetch(controller(on: restarted.newBackgroundContext(), predicate: "score > 25"))
        XCTAssertFalse(other.fromCache)
        XCTAssertEqual(other.titles, [["Alpha"], ["Gamma"]])
        XCTAssertTrue(try fetch(controller(on: restarted.newBackgroundContext(), predicate: "score > 25")).fromCache)
        XCTAssertFalse(try fetch(controller(on: restarted.newBackgroundContext())).fromCache)

        // A change of the store's rows since refuses it too.
        XCTAssertTrue(try fetch(controller(on: restarted.newBackgroundContext())).fromCache)
        try context.performAndWait {
            let delta = try XCTUnwrap(try context.fetch(FeedEntry.all).first { $0.title == "Delta" })
            delta.isPublished = true
            try context.save()
        }
        let changed = try fetch(controller(on: first.newBackgroundContext()))
        XCTAssertFalse(changed.fromCache)
        XCTAssertEqual(changed.titles, [["Alpha", "Beta", "Delta"], ["Gamma"]])

        NSFetchedResultsController<FeedEntry>.deleteCache(withName: cacheName)
        XCTAssertFalse(try fetch(controller(on: first.newBackgroundContext())).fromCache)
    }

    func testIndexTitlesComeFromTheDelegateElseTheController() throws {
        final class Titles: NSObject, NSFetchedResultsControllerDelegate {
            func controller(
                _ controller: NSFetchedResultsController<NSFetchRequestResult>,
                sectionIndexTitleForSectionName sectionName: String
            ) -> String? {
                sectionName.lowercased()
            }
        }
        final class TwoLetters: NSFetchedResultsController<FeedEntry> {
            override func sectionIndexTitle(forSectionName sectionName: String) -> String? {
                String(sectionName.prefix(2))
            }
        }
        let container = try makeContainer(.inMemory)
        let request = makeController(container.viewContext).fetchRequest
        let subclassed = TwoLetters(
            fetchRequest: request, managedObjectContext: container.viewContext, sectionNameKeyPath: "topic",
            cacheName: nil)
        try subclassed.performFetch()
        XCTAssertEqual(subclassed.sectionIndexTitles, ["Ne", "Sp"])
        let titles = Titles()
        subclassed.delegate = titles
        try subclassed.performFetch()
        XCTAssertEqual(subclassed.sections?.map(\.indexTitle), ["news", "sports"])
        XCTAssertEqual(subclassed.section(forSectionIndexTitle: "sports", at: 0), 1)
        XCTAssertEqual(subclassed.section(forSectionIndexTitle: "weather", at: 7), 1)
    }
}
