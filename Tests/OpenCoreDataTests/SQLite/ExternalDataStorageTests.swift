import Foundation
import OpenCoreData
import OpenSQLStore
import OpenSQLiteStore
import TestSupport
import Testing

/// Attributes that allow external binary data storage, in Apple's layout: a value of at most
/// 100 KB in its row after `0x01`; a larger one in `.<name>_SUPPORT/_EXTERNAL_DATA/<UUID>` beside
/// the store, the column holding `0x02`, the UUID and `0x00` (see `AppleExternalData`). Written
/// as apps write: a container or coordinator on a model built in code, `Data` values.
@Suite struct ExternalDataStorageTests {
    /// Our threshold: values strictly larger go to a file.
    static let threshold = 100 * 1024

    /// Photo: `name`, `image` (allows external storage unless `imageIsExternal` is false),
    /// `thumbnail` (plain binary), and `caption` when asked (a later model version).
    static func model(imageIsExternal: Bool = true, withCaption: Bool = false) -> NSManagedObjectModel {
        let image = attribute("image", .binaryDataAttributeType)
        image.allowsExternalBinaryDataStorage = imageIsExternal
        let thumbnail = attribute("thumbnail", .binaryDataAttributeType)
        var properties: [NSPropertyDescription] = [attribute("name", .stringAttributeType), image, thumbnail]
        if withCaption { properties.append(attribute("caption", .stringAttributeType)) }
        let model = NSManagedObjectModel()
        model.entities = [entity("Photo", properties: properties)]
        return model
    }

    /// `count` bytes starting with `first`, then a pattern (so that a marker byte kept, or one
    /// dropped, shows).
    static func bytes(_ count: Int, first: UInt8 = 0x7F, seed: Int = 1) -> Data {
        guard count > 0 else { return Data() }
        return Data([first] + (1..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ seed) })
    }

    /// The images the round trip saves, by photo name (nil: no image).
    static let images: [String: Data?] = [
        "empty": Data(), "small": bytes(10, first: 0x01), "atThreshold": bytes(threshold, first: 0x02),
        "justAbove": bytes(threshold + 1, seed: 2), "large": bytes(300_000, seed: 3), "none": nil,
    ]

    static func container(at url: URL, model: NSManagedObjectModel, type: String = NSSQLiteStoreType) throws
        -> NSPersistentContainer
    {
        let container = NSPersistentContainer(name: "Photos", managedObjectModel: model)
        let description = NSPersistentStoreDescription(url: url)
        description.type = type
        container.persistentStoreDescriptions = [description]
        var loadError: Error?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        return container
    }

    /// Inserts a photo per entry and saves.
    static func save(_ images: [String: Data?], in context: NSManagedObjectContext) throws {
        for (name, image) in images {
            let photo = NSEntityDescription.insertNewObject(forEntityName: "Photo", into: context)
            photo.setValue(name, forKey: "name")
            if let image { photo.setValue(image, forKey: "image") }
        }
        try context.save()
    }

    /// The image of every photo, by name, as objects give it.
    static func fetchImages(in context: NSManagedObjectContext, batchSize: Int = 0) throws -> [String: Data?] {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Photo")
        request.fetchBatchSize = batchSize
        var result: [String: Data?] = [:]
        for photo in try context.fetch(request) {
            result[photo.value(forKey: "name") as? String ?? "?"] = photo.value(forKey: "image") as? Data
        }
        return result
    }

    /// The image of every photo, by name, as dictionary results give it.
    static func dictionaryImages(in context: NSManagedObjectContext) throws -> [String: Data?] {
        let request = NSFetchRequest<NSDictionary>(entityName: "Photo")
        request.resultType = .dictionaryResultType
        request.propertiesToFetch = ["name", "image"]
        var result: [String: Data?] = [:]
        for row in try context.fetch(request) { result[row["name"] as? String ?? "?"] = row["image"] as? Data }
        return result
    }

    /// The names of the files in the store's external data folder, sorted.
    static func files(of url: URL) -> [String] {
        let folder = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.deletingPathExtension().lastPathComponent)_SUPPORT/_EXTERNAL_DATA")
        return ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
    }

    /// The external data folder of the store at `url`, spelled out (not through the code tested).
    static func folder(of url: URL) -> URL {
        url.deletingLastPathComponent().appendingPathComponent(
            ".\(url.deletingPathExtension().lastPathComponent)_SUPPORT/_EXTERNAL_DATA", isDirectory: true)
    }

    /// A column of the photo named `name`, as the file holds it (raw SQLite); `.some(nil)` for NULL.
    static func column(_ column: String, of name: String, at url: URL) throws -> Data?? {
        let connection = try SQLiteConnection(url: url, mode: .readOnly)
        var found: Data??
        try connection.query("SELECT \(column) FROM ZPHOTO WHERE ZNAME = ?", [.string(name)]) { row in
            found = .some(row.data(at: 0))
        }
        return found
    }

    /// The file name a `0x02` column names, checked to be `0x02`, an upper-case UUID and `0x00`.
    static func fileName(in column: Data) -> String? {
        guard column.count == 38, column.first == 0x02, column.last == 0x00,
            let name = String(bytes: column.dropFirst().dropLast(), encoding: .ascii),
            UUID(uuidString: name) != nil, name == name.uppercased()
        else { return nil }
        return name
    }

    // MARK: - Round trip and layout

    @Test func valuesBelowAtAndAboveTheThresholdRoundTrip() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("Photos.sqlite")
        do {
            let container = try Self.container(at: url, model: Self.model())
            try Self.save(Self.images, in: container.viewContext)
        }
        #expect(Self.files(of: url).count == 2, "only the two values over 100 KB go to files")
        let container = try Self.container(at: url, model: Self.model())
        let context = container.viewContext
        #expect(try Self.fetchImages(in: context) == Self.images)
        #expect(try Self.fetchImages(in: context, batchSize: 2) == Self.images)
        #expect(try Self.dictionaryImages(in: context) == Self.images)
        // Comparisons with nil run in SQL on the column; others in memory, on the values.
        let request = NSFetchRequest<NSManagedObject>(entityName: "Photo")
        request.predicate = NSPredicate(format: "image == nil")
        #expect(try context.fetch(request).map { $0.value(forKey: "name") as? String } == ["none"])
        request.predicate = NSPredicate(format: "image != nil")
        #expect(try context.count(for: request) == 5)
        request.predicate = NSPredicate(format: "image == %@", Self.bytes(Self.threshold + 1, seed: 2) as NSData)
        #expect(try context.fetch(request).map { $0.value(forKey: "name") as? String } == ["justAbove"])
        // Refaulted objects read their values again.
        context.refreshAllObjects()
        #expect(try Self.fetchImages(in: context) == Self.images)
    }

    @Test func theFileHoldsAppleLayoutByteForByte() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("Photos.sqlite")
        let large = Self.bytes(Self.threshold + 1, first: 0x02)
        let small = Self.bytes(Self.threshold, first: 0x01)
        do {
            let container = try Self.container(at: url, model: Self.model())
            let context = container.viewContext
            try Self.save(["large": large, "small": small, "empty": Data(), "none": nil], in: context)
            let plain = NSEntityDescription.insertNewObject(forEntityName: "Photo", into: context)
            plain.setValue("plain", forKey: "name")
            plain.setValue(Data([0x01, 0x02, 0x03]), forKey: "thumbnail")
            try context.save()
        }
        #expect(try Self.column("ZIMAGE", of: "small", at: url) == .some(Data([0x01]) + small))
        #expect(try Self.column("ZIMAGE", of: "empty", at: url) == .some(Data([0x01])))
        #expect(try Self.column("ZIMAGE", of: "none", at: url) == .some(nil))
        // Other binary attributes stay plain BLOBs.
        #expect(try Self.column("ZTHUMBNAIL", of: "plain", at: url) == .some(Data([0x01, 0x02, 0x03])))
        let column = try #require(try Self.column("ZIMAGE", of: "large", at: url) ?? nil)
        let name = try #require(Self.fileName(in: column), "0x02, an upper-case UUID, 0x00")
        #expect(Self.files(of: url) == [name])
        let file = Self.folder(of: url).appendingPathComponent(name)
        #expect(try Data(contentsOf: file) == large)
        // Hidden, beside the store, named after the store file without its extension.
        #expect(FileManager.default.fileExists(atPath: folder.url.appendingPathComponent(".Photos_SUPPORT").path))
    }

    @Test func aStoreWrittenInApplesLayoutReadsBack() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("Apple.sqlite")
        _ = try Self.container(at: url, model: Self.model())  // the tables, Z_PRIMARYKEY, metadata
        let inFile = Self.bytes(200_000, seed: 7)
        let smallInFile = Data([0x02, 0x00, 0x41])  // in a file whatever its size
        let big = UUID().uuidString.uppercased()
        let little = UUID().uuidString.uppercased()
        let external = Self.folder(of: url)
        try FileManager.default.createDirectory(at: external, withIntermediateDirectories: true)
        try inFile.write(to: external.appendingPathComponent(big))
        try smallInFile.write(to: external.appendingPathComponent(little))
        let raw = try SQLiteConnection(url: url, mode: .readWrite)
        let rows: [(String, Data)] = [
            ("inline", Data([0x01, 0xCA, 0xFE])), ("file", Data([0x02]) + Data(big.utf8) + Data([0x00])),
            ("smallFile", Data([0x02]) + Data(little.utf8) + Data([0x00])),
            ("unmarked", Data([0x7F, 0x01, 0x02])),  // written before the attribute allowed external storage
        ]
        for (key, (name, column)) in rows.enumerated() {
            try raw.run(
                "INSERT INTO ZPHOTO (Z_PK, Z_ENT, Z_OPT, ZNAME, ZIMAGE) VALUES (?, 1, 1, ?, ?)",
                [.integer(Int64(key + 1)), .string(name), .data(column)])
        }
        try raw.run("UPDATE Z_PRIMARYKEY SET Z_MAX = 4 WHERE Z_NAME = 'Photo'")
        let container = try Self.container(at: url, model: Self.model())
        let expected: [String: Data?] = [
            "inline": Data([0xCA, 0xFE]), "file": inFile, "smallFile": smallInFile, "unmarked": Data([0x7F, 0x01, 0x02]),
        ]
        #expect(try Self.fetchImages(in: container.viewContext) == expected)
        #expect(try Self.dictionaryImages(in: container.viewContext) == expected)
        // A save that leaves the value as it was keeps its file and column.
        let request = NSFetchRequest<NSManagedObject>(entityName: "Photo")
        request.predicate = NSPredicate(format: "name == 'file'")
        let photo = try #require(try container.viewContext.fetch(request).first)
        photo.setValue("file, renamed", forKey: "name")
        try container.viewContext.save()
        #expect(try Self.column("ZIMAGE", of: "file, renamed", at: url) == .some(Data([0x02]) + Data(big.utf8) + Data([0x00])))
        #expect(Self.files(of: url) == [big, little].sorted())
    }

    // MARK: - Updates, deletes, failed saves

    @Test func updateAndDeleteRemoveTheOldFileOnlyOnceTheSaveCommitted() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("Photos.sqlite")
        let container = try Self.container(at: url, model: Self.model())
        let context = container.viewContext
        try Self.save(["a": Self.bytes(150_000, seed: 1)], in: context)
        let first = Self.files(of: url)
        #expect(first.count == 1)
        let photo = try #require(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Photo")).first)
        let second = Self.bytes(160_000, seed: 2)
        photo.setValue(second, forKey: "image")
        #expect(Self.files(of: url) == first, "nothing changes on disk before the save")
        try context.save()
        let afterUpdate = Self.files(of: url)
        #expect(afterUpdate.count == 1 && afterUpdate != first, "the old file goes once the new row is committed")
        #expect(try Data(contentsOf: Self.folder(of: url).appendingPathComponent(afterUpdate[0])) == second)

        // A save refused (another coordinator saved the row meanwhile) keeps the file the row
        // points to and leaves none of its own.
        let other = NSPersistentStoreCoordinator(managedObjectModel: container.managedObjectModel)
        _ = try other.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url)
        let otherContext = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        otherContext.persistentStoreCoordinator = other
        try otherContext.performAndWait {
            let same = try #require(try otherContext.fetch(NSFetchRequest<NSManagedObject>(entityName: "Photo")).first)
            same.setValue("renamed elsewhere", forKey: "name")
            try otherContext.save()
        }
        photo.setValue(Self.bytes(170_000, seed: 3), forKey: "image")
        #expect(throws: NSError.self) { try context.save() }
        #expect(Self.files(of: url) == afterUpdate)
        #expect(
            try Self.column("ZIMAGE", of: "renamed elsewhere", at: url).flatMap { $0 }.flatMap(Self.fileName) == afterUpdate[0])
        context.rollback()

        // A value made small again moves into the row; its file goes.
        context.refreshAllObjects()
        photo.setValue(Data([1, 2, 3]), forKey: "image")
        try context.save()
        #expect(Self.files(of: url).isEmpty)
        photo.setValue(Self.bytes(200_000, seed: 4), forKey: "image")
        try context.save()
        #expect(Self.files(of: url).count == 1)
        context.delete(photo)
        #expect(Self.files(of: url).count == 1)
        try context.save()
        #expect(Self.files(of: url).isEmpty, "a deleted row's file goes with it")
    }

    @Test func batchUpdatesAndDeletesLeaveNoFileBehind() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("Photos.sqlite")
        let container = try Self.container(at: url, model: Self.model())
        let context = container.viewContext
        try Self.save(["a": Self.bytes(150_000, seed: 1), "b": Self.bytes(150_000, seed: 2), "c": nil], in: context)
        #expect(Self.files(of: url).count == 2)
        let update = NSBatchUpdateRequest(entityName: "Photo")
        update.predicate = NSPredicate(format: "name == 'a'")
        let replacement = Self.bytes(120_000, first: 0x02)
        update.propertiesToUpdate = ["image": replacement]
        try context.execute(update)
        #expect(Self.files(of: url).count == 1)
        context.reset()
        let images = try Self.fetchImages(in: context)
        #expect(images["a"] == .some(replacement))
        #expect(images["b"] == .some(Self.bytes(150_000, seed: 2)))
        try context.execute(NSBatchDeleteRequest(fetchRequest: NSFetchRequest<NSFetchRequestResult>(entityName: "Photo")))
        #expect(Self.files(of: url).isEmpty)
    }

    // MARK: - Errors

    @Test func aMissingFileIsAClearErrorNotANilValue() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("Photos.sqlite")
        do {
            let container = try Self.container(at: url, model: Self.model())
            try Self.save(["lost": Self.bytes(150_000)], in: container.viewContext)
        }
        let name = try #require(Self.files(of: url).first)
        let path = Self.folder(of: url).appendingPathComponent(name).path
        try FileManager.default.removeItem(atPath: path)
        let container = try Self.container(at: url, model: Self.model())
        func check(_ error: NSError) -> Bool {
            error.domain == NSCocoaErrorDomain && error.code == CocoaError.fileReadNoSuchFile.rawValue
                && error.localizedDescription.contains("Photo.image") && error.localizedDescription.contains(path)
                && error.userInfo[NSFilePathErrorKey] as? String == path
        }
        let objects = NSFetchRequest<NSManagedObject>(entityName: "Photo")
        objects.returnsObjectsAsFaults = false
        let fetchError = try #require(throws: NSError.self) { try container.viewContext.fetch(objects) }
        #expect(check(fetchError), "\(fetchError)")
        let dictionaryError = try #require(throws: NSError.self) { try Self.dictionaryImages(in: container.viewContext) }
        #expect(check(dictionaryError), "\(dictionaryError)")
        // What does not read the value still works.
        let names = NSFetchRequest<NSDictionary>(entityName: "Photo")
        names.resultType = .dictionaryResultType
        names.propertiesToFetch = ["name"]
        #expect(try container.viewContext.fetch(names).map { $0["name"] as? String } == ["lost"])
        // A fault that can't fire reads as nil, as for a store that fails (InaccessibleFaultTests),
        // and the next save reports why.
        let context = container.newBackgroundContext()
        let saveError: NSError? = try context.performAndWait {
            let ids = NSFetchRequest<NSManagedObjectID>(entityName: "Photo")
            ids.resultType = .managedObjectIDResultType
            let photo = context.object(with: try #require(try context.fetch(ids).first))
            #expect(photo.value(forKey: "image") == nil)
            photo.setValue("found", forKey: "name")
            do {
                try context.save()
                return nil
            } catch {
                return error as NSError
            }
        }
        let underlying = try #require(saveError?.userInfo[NSUnderlyingErrorKey] as? NSError, "the save must report the fault")
        #expect(check(underlying), "\(underlying)")
    }

    // MARK: - Copies, migration, other stores

    @Test(arguments: [NSInMemoryStoreType, NSSQLiteStoreType])
    func migratingToAnotherStoreCarriesTheValues(_ type: String) throws {
        let folder = try TemporaryFolder()
        let url = folder.file("Photos.sqlite")
        let copy = folder.file("Copy.sqlite")
        let container = try Self.container(at: url, model: Self.model())
        try Self.save(Self.images, in: container.viewContext)
        let coordinator = container.persistentStoreCoordinator
        let store = try #require(coordinator.persistentStores.first)
        _ = try coordinator.migratePersistentStore(store, to: copy, options: nil, withType: type)
        // The source's files are not what the copy reads.
        try FileManager.default.removeItem(at: Self.folder(of: url))
        container.viewContext.reset()
        #expect(try Self.fetchImages(in: container.viewContext) == Self.images)
        if type == NSSQLiteStoreType {
            #expect(Self.files(of: copy).count == 2)
            let column = try #require(try Self.column("ZIMAGE", of: "large", at: copy) ?? nil)
            #expect(Self.fileName(in: column).map { Self.files(of: copy).contains($0) } == true)
        }
    }

    @Test func anInMemoryStoreKeepsLargeValuesWithoutFiles() throws {
        let folder = try TemporaryFolder()
        let container = try Self.container(at: folder.file("Memory"), model: Self.model(), type: NSInMemoryStoreType)
        try Self.save(Self.images, in: container.viewContext)
        container.viewContext.reset()
        #expect(try Self.fetchImages(in: container.viewContext) == Self.images)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).isEmpty)
    }

    @Test func replacingAndDestroyingAStoreCarryAndRemoveItsFiles() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("Photos.sqlite")
        let backup = folder.file("Backup.sqlite")
        do {
            let container = try Self.container(at: url, model: Self.model())
            try Self.save(Self.images, in: container.viewContext)
        }
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: Self.model())
        try coordinator.replacePersistentStore(
            at: backup, destinationOptions: nil, withPersistentStoreFrom: url, sourceOptions: nil, ofType: NSSQLiteStoreType)
        try coordinator.destroyPersistentStore(at: url, ofType: NSSQLiteStoreType)
        #expect(!FileManager.default.fileExists(atPath: folder.url.appendingPathComponent(".Photos_SUPPORT").path))
        #expect(Self.files(of: backup).count == 2)
        let container = try Self.container(at: backup, model: Self.model())
        #expect(try Self.fetchImages(in: container.viewContext) == Self.images)
    }

    /// Lightweight migration in place, with an inferred mapping, from `from` to `to`.
    static func migrate(_ url: URL, from: NSManagedObjectModel, to: NSManagedObjectModel) throws {
        let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: from, destinationModel: to)
        try NSMigrationManager(sourceModel: from, destinationModel: to).migrateStore(
            from: url, sourceType: NSSQLiteStoreType, with: mapping, toDestinationURL: url, destinationType: NSSQLiteStoreType)
    }

    @Test func lightweightMigrationKeepsTheValuesReadable() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("Photos.sqlite")
        do {
            let container = try Self.container(at: url, model: Self.model())
            try Self.save(Self.images, in: container.viewContext)
        }
        let v2 = Self.model(withCaption: true)
        try Self.migrate(url, from: Self.model(), to: v2)
        let container = try Self.container(at: url, model: v2)
        #expect(try Self.fetchImages(in: container.viewContext) == Self.images)
    }

    @Test func anAttributeGainingExternalStorageReadsItsOldValuesExactly() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("Photos.sqlite")
        let plain = Self.model(imageIsExternal: false)
        do {
            let container = try Self.container(at: url, model: plain)
            try Self.save(Self.images, in: container.viewContext)
        }
        try Self.migrate(url, from: plain, to: Self.model())
        // Values starting with 0x01 and 0x02 were marked as in the row, not taken for markers.
        #expect(try Self.column("ZIMAGE", of: "small", at: url) == .some(Data([0x01]) + Self.bytes(10, first: 0x01)))
        let container = try Self.container(at: url, model: Self.model())
        #expect(try Self.fetchImages(in: container.viewContext) == Self.images)
    }

    @Test func anAttributeLosingExternalStorageKeepsValuesInRowsAndRefusesValuesInFiles() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("Photos.sqlite")
        let inRows: [String: Data?] = ["small": Self.bytes(10, first: 0x01), "empty": Data(), "none": nil]
        do {
            let container = try Self.container(at: url, model: Self.model())
            try Self.save(inRows, in: container.viewContext)
        }
        let plain = Self.model(imageIsExternal: false)
        try Self.migrate(url, from: Self.model(), to: plain)
        do {
            let container = try Self.container(at: url, model: plain)
            #expect(try Self.fetchImages(in: container.viewContext) == inRows)
        }
        #expect(try Self.column("ZIMAGE", of: "small", at: url) == .some(Self.bytes(10, first: 0x01)))

        let other = folder.file("Files.sqlite")
        do {
            let container = try Self.container(at: other, model: Self.model())
            try Self.save(["large": Self.bytes(150_000)], in: container.viewContext)
        }
        let error = try #require(throws: NSError.self) { try Self.migrate(other, from: Self.model(), to: plain) }
        #expect(error.localizedDescription.contains("Photo.image"), "\(error)")
        let container = try Self.container(at: other, model: Self.model())
        #expect(try Self.fetchImages(in: container.viewContext) == ["large": Self.bytes(150_000)])
    }
}
