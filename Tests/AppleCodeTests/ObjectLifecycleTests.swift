import CoreData
import Foundation
import TestSupport
import XCTest

// Subclasses that override the lifecycle methods and record each call, as app code overrides
// them to keep timestamps, clean up files and recompute transient values.

/// What the recording subclasses saw, in order ("Title:hook").
var lifecycleLog: [String] = []

public class RecordedFolder: NSManagedObject {
    @Managed public var name: String
    @Managed public var notes: Set<RecordedNote>?

    /// How many notes the folder still had when it was told it will be deleted.
    var notesWhenPreparedForDeletion: Int?

    public override func prepareForDeletion() {
        super.prepareForDeletion()
        notesWhenPreparedForDeletion = notes?.count
        lifecycleLog.append("\(name):prepareForDeletion")
    }

    public override func willSave() {
        super.willSave()
        lifecycleLog.append("\(name):willSave")
    }
}

public class RecordedNote: NSManagedObject {
    @nonobjc public class func fetchRequest() -> NSFetchRequest<RecordedNote> {
        NSFetchRequest<RecordedNote>(entityName: "Note")
    }

    @Managed public var title: String
    @Managed public var body: String?
    @Managed public var updatedAt: Date?
    @Managed public var folder: RecordedFolder?

    /// `isDeleted` as `didSave()` saw it.
    var deletedWhenSaved: Bool?
    /// The snapshot events received.
    var snapshotEvents: [NSSnapshotEventType] = []
    /// Whether `willSave()` should leave the title alone.
    static var titleInWillSave: String?

    private var tag: String { isFault ? "fault" : (primitiveValue(forKey: "title") as? String ?? "?") }

    public override func awakeFromInsert() {
        super.awakeFromInsert()
        lifecycleLog.append("new:awakeFromInsert")
    }

    public override func awakeFromFetch() {
        super.awakeFromFetch()
        lifecycleLog.append("\(tag):awakeFromFetch")
    }

    public override func willSave() {
        super.willSave()
        lifecycleLog.append("\(tag):willSave")
        if let title = RecordedNote.titleInWillSave, primitiveValue(forKey: "title") == nil { self.title = title }
        // The usual timestamp: set only when it differs, or willSave() would be called forever.
        if !isDeleted && updatedAt == nil { updatedAt = Date(timeIntervalSinceReferenceDate: 1_000) }
    }

    public override func didSave() {
        super.didSave()
        deletedWhenSaved = isDeleted
        lifecycleLog.append("\(tag):didSave")
    }

    public override func prepareForDeletion() {
        super.prepareForDeletion()
        lifecycleLog.append("\(tag):prepareForDeletion")
    }

    public override func willTurnIntoFault() {
        super.willTurnIntoFault()
        lifecycleLog.append("\(tag):willTurnIntoFault")
    }

    public override func didTurnIntoFault() {
        super.didTurnIntoFault()
        lifecycleLog.append("\(tag):didTurnIntoFault")
    }

    public override func awake(fromSnapshotEvents flags: NSSnapshotEventType) {
        super.awake(fromSnapshotEvents: flags)
        snapshotEvents.append(flags)
    }
}

/// A note whose willSave() changes it every time (what Apple's documentation warns against).
final class RestlessNote: NSManagedObject {
    override func willSave() {
        super.willSave()
        setValue(UUID().uuidString, forKey: "body")
    }
}

/// The lifecycle methods subclasses override, called when Apple calls them, on both stores.
final class ObjectLifecycleTests: XCTestCase {
    static let storeTypes = [NSInMemoryStoreType, NSSQLiteStoreType]

    /// A model built in code, as some apps and most libraries' tests do.
    static func makeModel() -> NSManagedObjectModel {
        let folder = NSEntityDescription()
        folder.name = "Folder"
        folder.managedObjectClassName = NSStringFromClass(RecordedFolder.self)
        let note = NSEntityDescription()
        note.name = "Note"
        note.managedObjectClassName = NSStringFromClass(RecordedNote.self)

        let notes = relationship("notes", to: note, maxCount: 0, deleteRule: .cascadeDeleteRule)
        let owner = relationship("folder", to: folder, maxCount: 1)
        inverses(notes, owner)
        folder.properties = [attribute("name", type: .string, optional: false), notes]
        note.properties = [
            attribute("title", type: .string, optional: false), attribute("body", type: .string),
            attribute("updatedAt", type: .date), owner,
        ]
        let model = NSManagedObjectModel()
        model.entities = [folder, note]
        return model
    }

    var folders: [URL] = []

    override func setUp() {
        super.setUp()
        lifecycleLog = []
        RecordedNote.titleInWillSave = nil
    }

    override func tearDownWithError() throws {
        for folder in folders { try? FileManager.default.removeItem(at: folder) }
        folders = []
    }

    /// A coordinator with one store of `storeType` (SQLite in a temporary folder).
    func makeCoordinator(_ storeType: String, model: NSManagedObjectModel? = nil) throws -> NSPersistentStoreCoordinator {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model ?? Self.makeModel())
        var url: URL?
        if storeType == NSSQLiteStoreType {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            folders.append(folder)
            url = folder.appendingPathComponent("Notes.sqlite")
        }
        try coordinator.addPersistentStore(ofType: storeType, configurationName: nil, at: url, options: nil)
        return coordinator
    }

    func makeContext(_ coordinator: NSPersistentStoreCoordinator) -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// Runs `body` once per store type, with a fresh log.
    func forEachStore(_ body: (String, NSManagedObjectContext) throws -> Void) throws {
        for storeType in Self.storeTypes {
            lifecycleLog = []
            let context = makeContext(try makeCoordinator(storeType))
            try body(storeType, context)
        }
    }

    func testWillSaveAndDidSaveAreCalledOnInsertedUpdatedAndDeletedObjects() throws {
        try forEachStore { storeType, context in
            let first = RecordedNote(context: context)
            first.title = "First"
            let second = RecordedNote(context: context)
            second.title = "Second"
            try context.save()
            // willSave() set `updatedAt` on each new note, so each was asked again (and then was
            // stable), as Apple asks again about objects that willSave() changed.
            XCTAssertEqual(
                lifecycleLog.filter { $0.hasSuffix("Save") }.sorted(),
                ["First:didSave", "First:willSave", "First:willSave", "Second:didSave", "Second:willSave", "Second:willSave"],
                storeType)
            // willSave() before every didSave().
            XCTAssertLessThan(
                try XCTUnwrap(lifecycleLog.lastIndex { $0.hasSuffix("willSave") }),
                try XCTUnwrap(lifecycleLog.firstIndex { $0.hasSuffix("didSave") }), storeType)

            lifecycleLog = []
            first.body = "changed"
            context.delete(second)
            let third = RecordedNote(context: context)
            third.title = "Third"
            try context.save()
            XCTAssertEqual(
                lifecycleLog.filter { $0.hasSuffix("willSave") }.sorted(),
                ["First:willSave", "Second:willSave", "Third:willSave", "Third:willSave"], storeType)
            XCTAssertEqual(lifecycleLog.filter { $0.hasSuffix("didSave") }.count, 3, storeType)
            XCTAssertEqual(first.deletedWhenSaved, false, storeType)
            XCTAssertEqual(second.deletedWhenSaved, true, "didSave() of a deleted object sees isDeleted (\(storeType))")

            // A save with nothing to save calls nothing.
            lifecycleLog = []
            try context.save()
            XCTAssertEqual(lifecycleLog, [], storeType)
        }
    }

    func testChangesMadeInWillSaveAreSavedAndComeBeforeValidation() throws {
        for storeType in Self.storeTypes {
            lifecycleLog = []
            let coordinator = try makeCoordinator(storeType)
            let context = makeContext(coordinator)
            RecordedNote.titleInWillSave = "Filled in willSave"
            // `title` is required: the save validates only after willSave() filled it in.
            let note = RecordedNote(context: context)
            try context.save()
            XCTAssertEqual(note.updatedAt, Date(timeIntervalSinceReferenceDate: 1_000), storeType)

            let other = makeContext(coordinator)
            let request: NSFetchRequest<RecordedNote> = RecordedNote.fetchRequest()
            let fetched = try XCTUnwrap(try other.fetch(request).first)
            XCTAssertEqual(fetched.title, "Filled in willSave", storeType)
            XCTAssertEqual(fetched.updatedAt, Date(timeIntervalSinceReferenceDate: 1_000), storeType)
            // The object willSave() changed is asked again, and then it is stable.
            XCTAssertEqual(lifecycleLog.filter { $0.hasSuffix("willSave") }.count, 2, storeType)
        }
    }

    func testWillSaveThatAlwaysChangesItsObjectFailsTheSave() throws {
        for storeType in Self.storeTypes {
            let model = Self.makeModel()
            model.entitiesByName["Note"]?.managedObjectClassName = NSStringFromClass(RestlessNote.self)
            let context = makeContext(try makeCoordinator(storeType, model: model))
            let restless = RestlessNote(context: context)
            restless.setValue("RestlessNote", forKey: "title")
            XCTAssertThrowsError(try context.save(), storeType) { error in
                XCTAssertEqual((error as NSError).code, NSCoreDataError, storeType)
            }
            XCTAssertTrue(restless.isInserted, "a failed save keeps the changes (\(storeType))")
        }
    }

    func testPrepareForDeletionIsCalledOnceBeforeDeleteRules() throws {
        try forEachStore { storeType, context in
            let folder = RecordedFolder(context: context)
            folder.name = "Inbox"
            for title in ["a", "b"] {
                let note = RecordedNote(context: context)
                note.title = title
                note.folder = folder
            }
            try context.save()
            lifecycleLog = []

            context.delete(folder)
            XCTAssertEqual(lifecycleLog, [], "not yet: Apple calls it when the deletion is processed (\(storeType))")
            context.processPendingChanges()
            XCTAssertEqual(lifecycleLog, ["Inbox:prepareForDeletion"], storeType)
            XCTAssertEqual(folder.notesWhenPreparedForDeletion, 2, "before the cascade (\(storeType))")

            try context.save()
            let prepared = lifecycleLog.filter { $0.hasSuffix("prepareForDeletion") }
            XCTAssertEqual(
                prepared.sorted(), ["Inbox:prepareForDeletion", "a:prepareForDeletion", "b:prepareForDeletion"], storeType)
            XCTAssertEqual(try context.count(for: RecordedNote.fetchRequest()), 0, storeType)
        }
    }

    func testDeletedObjectTurnsIntoAFaultAfterItsSave() throws {
        try forEachStore { storeType, context in
            let note = RecordedNote(context: context)
            note.title = "Gone"
            try context.save()
            lifecycleLog = []
            context.delete(note)
            try context.save()
            XCTAssertEqual(
                lifecycleLog,
                ["Gone:prepareForDeletion", "Gone:willSave", "Gone:didSave", "Gone:willTurnIntoFault", "fault:didTurnIntoFault"],
                storeType)
            XCTAssertTrue(note.isFault, storeType)
            XCTAssertNil(note.managedObjectContext, storeType)
        }
    }

    func testRefreshAndResetTurnObjectsIntoFaults() throws {
        try forEachStore { storeType, context in
            let note = RecordedNote(context: context)
            note.title = "Kept"
            try context.save()
            lifecycleLog = []

            context.refresh(note, mergeChanges: false)
            XCTAssertEqual(lifecycleLog, ["Kept:willTurnIntoFault", "fault:didTurnIntoFault"], storeType)
            XCTAssertTrue(note.isFault, storeType)
            // Refreshing a fault changes nothing.
            context.refresh(note, mergeChanges: false)
            XCTAssertEqual(lifecycleLog.count, 2, storeType)

            lifecycleLog = []
            XCTAssertEqual(note.title, "Kept", storeType)
            XCTAssertEqual(lifecycleLog, ["Kept:awakeFromFetch"], storeType)

            // Keeping changes: the object is not a fault afterwards; it hears `.refresh`.
            lifecycleLog = []
            note.body = "unsaved"
            context.refresh(note, mergeChanges: true)
            XCTAssertFalse(note.isFault, storeType)
            XCTAssertEqual(note.body, "unsaved", storeType)
            XCTAssertEqual(note.snapshotEvents, [.refresh], storeType)
            XCTAssertFalse(lifecycleLog.contains("Kept:willTurnIntoFault"), storeType)

            lifecycleLog = []
            context.reset()
            XCTAssertEqual(lifecycleLog, ["Kept:willTurnIntoFault", "fault:didTurnIntoFault"], storeType)
            XCTAssertTrue(note.isFault, storeType)
            XCTAssertNil(note.managedObjectContext, storeType)
        }
    }

    func testRollbackSendsTheRollbackSnapshotEvent() throws {
        try forEachStore { storeType, context in
            let note = RecordedNote(context: context)
            note.title = "Saved"
            try context.save()
            note.title = "Unsaved"
            context.rollback()
            XCTAssertEqual(note.snapshotEvents, [.rollback], storeType)
            XCTAssertEqual(note.title, "Saved", storeType)
            XCTAssertFalse(note.hasChanges, storeType)

            context.delete(note)
            context.processPendingChanges()
            context.rollback()
            XCTAssertEqual(note.snapshotEvents, [.rollback, .rollback], storeType)
            XCTAssertFalse(note.isDeleted, storeType)
        }
    }

    func testMergePolicySendsTheMergePolicySnapshotEvent() throws {
        for storeType in Self.storeTypes {
            lifecycleLog = []
            let coordinator = try makeCoordinator(storeType)
            let context = makeContext(coordinator)
            let note = RecordedNote(context: context)
            note.title = "Shared"
            try context.save()

            let other = makeContext(coordinator)
            let theirs = try XCTUnwrap(try other.existingObject(with: note.objectID) as? RecordedNote)
            theirs.body = "theirs"
            try other.save()

            note.title = "Mine"
            context.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
            try context.save()
            XCTAssertEqual(note.snapshotEvents, [.mergePolicy], storeType)
            XCTAssertEqual(note.body, "theirs", storeType)
            XCTAssertEqual(note.title, "Mine", storeType)
        }
    }

    func testAwakeFromInsertAndAwakeFromFetch() throws {
        for storeType in Self.storeTypes {
            lifecycleLog = []
            let coordinator = try makeCoordinator(storeType)
            let context = makeContext(coordinator)
            let note = RecordedNote(context: context)
            note.title = "Awake"
            XCTAssertEqual(lifecycleLog, ["new:awakeFromInsert"], storeType)
            try context.save()

            lifecycleLog = []
            let other = makeContext(coordinator)
            let request: NSFetchRequest<RecordedNote> = RecordedNote.fetchRequest()
            let fetched = try XCTUnwrap(try other.fetch(request).first)
            XCTAssertEqual(fetched.title, "Awake", storeType)
            XCTAssertEqual(lifecycleLog, ["Awake:awakeFromFetch"], storeType)
        }
    }

    func testSnapshotEventRawValuesAreApples() {
        XCTAssertEqual(
            [
                NSSnapshotEventType.undoInsertion, .undoDeletion, .undoUpdate, .rollback, .refresh, .mergePolicy,
            ].map(\.rawValue), [2, 4, 8, 16, 32, 64])
    }

    func testEntityClassMethodFindsTheEntityOfALoadedModel() throws {
        let coordinator = try makeCoordinator(NSInMemoryStoreType)
        XCTAssertEqual(RecordedNote.entity().name, "Note")
        XCTAssertEqual(RecordedFolder.entity().name, "Folder")
        XCTAssertTrue(RecordedNote.entity() === coordinator.managedObjectModel.entitiesByName["Note"])

        // The newest coordinator's model wins when several claim the class.
        let newer = try makeCoordinator(NSInMemoryStoreType)
        XCTAssertTrue(RecordedNote.entity() === newer.managedObjectModel.entitiesByName["Note"])
        XCTAssertFalse(RecordedNote.entity() === coordinator.managedObjectModel.entitiesByName["Note"])

        let request = NSFetchRequest<RecordedNote>(entityName: RecordedNote.entity().name ?? "")
        XCTAssertEqual(try makeContext(newer).count(for: request), 0)
    }

    func testDictionaryWithValuesForKeys() throws {
        try forEachStore { storeType, context in
            let note = RecordedNote(context: context)
            note.title = "Values"
            let values = note.dictionaryWithValues(forKeys: ["title", "body"])
            XCTAssertEqual(values.count, 2, storeType)
            XCTAssertEqual(values["title"] as? String, "Values", storeType)
            XCTAssertTrue(values["body"] is NSNull, storeType)
        }
    }
}
