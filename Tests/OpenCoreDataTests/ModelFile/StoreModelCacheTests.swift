import Foundation
import OpenSQLStore
import OpenSQLiteStore
import TestSupport
import Testing

@testable import OpenCoreData

/// The model a store caches (`Z_MODELCACHE`): read back from stores this package writes, with
/// caches put in by the tests, and from every store Apple's Core Data wrote in
/// `../shared/realworld/stores` that has one.
@Suite("Model files: the model a store caches")
struct StoreModelCacheTests {
    /// A store this package writes (no cache of its own), with two departments.
    private func store(in folder: TemporaryFolder) throws -> URL {
        let url = folder.url.appendingPathComponent("Company.sqlite")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: CompanyModel.make())
        _ = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            for title in ["Sales", "Labs"] {
                NSEntityDescription.insertNewObject(forEntityName: "Department", into: context).setValue(
                    title, forKey: "title")
            }
            try context.save()
        }
        for store in coordinator.persistentStores { try coordinator.remove(store) }
        return url
    }

    /// Puts `content` in the store's `Z_MODELCACHE` (made as Apple makes it).
    private func cache(_ content: Data, in url: URL) throws {
        let connection = try SQLiteConnection(url: url, mode: .readWrite)
        try connection.execute("CREATE TABLE IF NOT EXISTS Z_MODELCACHE (Z_CONTENT BLOB)")
        try connection.run("DELETE FROM Z_MODELCACHE")
        try connection.run("INSERT INTO Z_MODELCACHE (Z_CONTENT) VALUES (?)", [.data(content)])
    }

    private func code(_ error: any Error) -> Int { (error as NSError).code }

    @Test func aStoreWithoutACacheHasNoCachedModel() throws {
        let folder = try TemporaryFolder()
        let url = try store(in: folder)
        #expect(try NSManagedObjectModel.cachedModel(ofStoreAt: url) == nil)
        // An empty table is no cache either.
        let connection = try SQLiteConnection(url: url, mode: .readWrite)
        try connection.execute("CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB)")
        #expect(try NSManagedObjectModel.cachedModel(ofStoreAt: url) == nil)
    }

    @Test func aDamagedCacheIsAClearError() throws {
        let folder = try TemporaryFolder()
        let url = try store(in: folder)
        let archive = Data("bplist00 not really an archive".utf8)
        let compressed = try #require(RawDeflate.compress(archive))
        for (content, words) in [
            (Data("not deflate at all, just text".utf8), "not a DEFLATE stream"),
            (compressed.prefix(compressed.count / 2), "ends early"),
            (compressed + Data([1, 2, 3]), "bytes follow"),
        ] {
            try cache(content, in: url)
            let error = #expect(throws: (any Error).self) { try NSManagedObjectModel.cachedModel(ofStoreAt: url) }
            let nsError = try #require(error as NSError?)
            #expect(nsError.code == NSPersistentStoreInvalidTypeError)
            #expect(nsError.userInfo["NSStoreModelCacheDamaged"] as? Bool == true)
            #expect(nsError.localizedDescription.contains(url.path), "\(nsError.localizedDescription)")
            #expect(nsError.localizedDescription.contains(words), "\(nsError.localizedDescription)")
        }
        // A cache that inflates to something other than a compiled model: the model loader's error.
        try cache(compressed, in: url)
        let error = #expect(throws: (any Error).self) { try NSManagedObjectModel.cachedModel(ofStoreAt: url) }
        #expect((error as NSError?)?.localizedDescription.contains("Z_MODELCACHE") == true)
        // The store itself still opens with its model.
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: CompanyModel.make())
        _ = try coordinator.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: [NSReadOnlyPersistentStoreOption: true])
    }

    /// Inflating gives back what was compressed, across zlib's output chunks, and stops at the
    /// limit rather than filling memory.
    @Test func inflatingRoundTripsAndStopsAtItsLimit() throws {
        var generator = SplitMix64(seed: 33)
        let data = Data((0..<300_000).map { _ in UInt8(truncatingIfNeeded: generator.next() % 7) })
        let compressed = try #require(RawDeflate.compress(data))
        #expect(compressed.count < data.count / 2)
        #expect(try AppleModelCache.inflate(compressed) == data)
        #expect(try AppleModelCache.inflate(compressed, limit: data.count) == data)
        #expect(throws: AppleModelCache.InflateFailure.self) { try AppleModelCache.inflate(compressed, limit: data.count - 1) }
        #expect(throws: AppleModelCache.InflateFailure.self) { try AppleModelCache.inflate(Data()) }
    }

    @Test func filesThatAreNoStoreAreRefused() throws {
        let folder = try TemporaryFolder()
        let missing = folder.url.appendingPathComponent("Missing.sqlite")
        let error = #expect(throws: (any Error).self) { try NSManagedObjectModel.cachedModel(ofStoreAt: missing) }
        #expect(error.map(code) == NSFileReadNoSuchFileError)
        let plain = folder.url.appendingPathComponent("Plain.sqlite")
        try SQLiteConnection(url: plain, mode: .create).execute("CREATE TABLE T (A INTEGER)")
        let notAStore = #expect(throws: (any Error).self) { try NSManagedObjectModel.cachedModel(ofStoreAt: plain) }
        #expect(notAStore.map(code) == NSPersistentStoreInvalidTypeError)
        let text = folder.url.appendingPathComponent("Text.sqlite")
        try Data("hello".utf8).write(to: text)
        #expect(throws: (any Error).self) { try NSManagedObjectModel.cachedModel(ofStoreAt: text) }
    }

    // MARK: - Apple's stores

    /// Every store file of `../shared/realworld/stores` (copied first), by folder.
    private static func realWorldStores(in folder: TemporaryFolder) throws -> [URL] {
        guard let stores = RealWorld.stores else { return [] }
        var files: [URL] = []
        for directory in try FileManager.default.contentsOfDirectory(atPath: stores.path).sorted() {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: stores.appendingPathComponent(directory).path, isDirectory: &isFolder),
                isFolder.boolValue
            else { continue }
            let copy = try RealWorld.copyStore(directory, into: folder.url)
            for name in try FileManager.default.contentsOfDirectory(atPath: copy.path).sorted()
            where name.hasSuffix(".sqlite") {
                files.append(copy.appendingPathComponent(name))
            }
        }
        return files
    }

    /// The rows of each entity (its sub-entities' included), counted in SQL from `Z_PRIMARYKEY`
    /// and the entity's table, without any model.
    private static func rowCounts(of url: URL) throws -> [String: Int] {
        let connection = try SQLiteConnection(url: url, mode: .readOnly)
        let rows = try AppleSQLPrimaryKeys.read(from: connection)
        let byNumber = Dictionary(rows.map { ($0.entityNumber, $0) }, uniquingKeysWith: { first, _ in first })
        func root(_ row: AppleSQLPrimaryKeyRow) -> AppleSQLPrimaryKeyRow {
            var row = row
            while row.superNumber != 0, let parent = byNumber[row.superNumber] { row = parent }
            return row
        }
        func numbers(under number: Int) -> [Int] {
            [number] + rows.filter { $0.superNumber == number }.flatMap { numbers(under: $0.entityNumber) }
        }
        var counts: [String: Int] = [:]
        // Persistent history's own entities (numbers past 16000) have no model entity.
        for row in rows where row.entityNumber < 16_000 {
            let table = "Z" + root(row).name.uppercased()
            let list = numbers(under: row.entityNumber).map(String.init).joined(separator: ", ")
            let statement = try connection.statement("SELECT count(*) FROM \(table) WHERE Z_ENT IN (\(list))")
            defer { statement.reset() }
            counts[row.name] = try statement.step() ? Int(statement.int64(at: 0)) : -1
        }
        return counts
    }

    @Test(
        "Each Apple store with a cache opens with its cached model alone: the store's version hashes, its counts, every value read",
        .enabled(if: RealWorld.hasStores, "../shared/realworld/stores is not beside the package"))
    func appleStoresOpenWithTheirCachedModel() throws {
        let folder = try TemporaryFolder()
        var cached = 0
        for url in try Self.realWorldStores(in: folder) {
            let name = url.deletingLastPathComponent().lastPathComponent + "/" + url.lastPathComponent
            let connection = try SQLiteConnection(url: url, mode: .readOnly)
            let hasCache = try connection.tableExists("Z_MODELCACHE") && connection.rowCount(table: "Z_MODELCACHE") > 0
            guard let model = try NSManagedObjectModel.cachedModel(ofStoreAt: url) else {
                #expect(!hasCache, "\(name) has a cache but gave no model")
                continue
            }
            cached += 1
            let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
            #expect(model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata), "\(name)")
            // Written out for Xcode, the model loads back with the store's version hashes.
            let exportedURL = folder.url.appendingPathComponent("\(cached)-\(url.deletingPathExtension().lastPathComponent).xcdatamodel")
            try model.writeXcodeModel(to: exportedURL)
            let exported = try NSManagedObjectModel(validatingContentsOf: exportedURL)
            #expect(exported.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata), "\(name)")
            #expect(exported.entityVersionHashesByName == model.entityVersionHashesByName, "\(name)")
            for entity in model.entities {
                let twin = exported.entitiesByName[entity.name ?? ""]
                #expect(twin?.renamingIdentifier == entity.renamingIdentifier, "\(name): \(entity.name ?? "")")
                #expect(twin?.propertiesByName.keys.sorted() == entity.propertiesByName.keys.sorted(), "\(name)")
                for (key, attribute) in entity.attributesByName {
                    let other = twin?.attributesByName[key]
                    #expect(other?.valueTransformerName == attribute.valueTransformerName, "\(name): \(key)")
                    #expect(
                        (other?.defaultValue as? NSObject) == (attribute.defaultValue as? NSObject), "\(name): \(key)")
                }
                for (key, relationship) in entity.relationshipsByName {
                    #expect(twin?.relationshipsByName[key]?.deleteRule == relationship.deleteRule, "\(name): \(key)")
                }
            }
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
            _ = try coordinator.addPersistentStore(
                ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: [NSReadOnlyPersistentStoreOption: true])
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            let counts = try Self.rowCounts(of: url)
            try context.performAndWait {
                for entity in model.entities {
                    let entityName = entity.name ?? ""
                    // `Z_PRIMARYKEY` keeps the name an entity had when the store was made.
                    let rows = counts[entityName] ?? entity.renamingIdentifier.flatMap { counts[$0] }
                    let request = NSFetchRequest<NSManagedObject>(entityName: entityName)
                    #expect(try context.count(for: request) == rows, "\(name): \(entityName) \(counts)")
                    let objects = try context.fetch(request)
                    #expect(objects.count == rows, "\(name): \(entityName)")
                    for object in objects {
                        for attribute in entity.attributesByName.keys { _ = object.value(forKey: attribute) }
                        #expect(!object.isFault && !object.isDeleted, "\(name): \(entityName)")
                    }
                }
            }
        }
        // Most of the stores keep their model (the inventory's count), the oldest do not.
        #expect(cached >= 12, "only \(cached) stores gave their cached model")
    }

    @Test(
        "A store migrates from the model it caches when no version of the model is at hand",
        .enabled(if: RealWorld.hasStores, "../shared/realworld/stores is not beside the package"))
    func aStoreMigratesFromItsCachedModel() throws {
        let folder = try TemporaryFolder()
        let directory = try RealWorld.copyStore("wibosco-migration-posts", into: folder.url)
        let url = directory.appendingPathComponent("CoreDataMigration_Example_1.sqlite")
        // The second version's contents file alone: no other version beside it.
        let v2 = try NSManagedObjectModel(validatingContentsOf: directory.appendingPathComponent("v2.xcdatamodel.contents.xml"))
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
        #expect(!v2.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: v2)
        _ = try coordinator.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil, at: url,
            options: [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true])
        let after = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
        #expect(v2.isConfiguration(withName: nil, compatibleWithStoreMetadata: after))
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let rows = try Self.rowCounts(of: url)
        try context.performAndWait {
            for entity in v2.entities where rows[entity.name ?? ""] != nil {
                let count = try context.count(for: NSFetchRequest<NSManagedObject>(entityName: entity.name ?? ""))
                #expect(count == rows[entity.name ?? ""] && count > 0, "\(entity.name ?? "")")
            }
        }
    }

    @Test(
        "A compiled model put in a store's cache comes back with its version hashes",
        .enabled(if: RealWorld.hasStores, "../shared/realworld/stores is not beside the package"))
    func aCachedCompiledModelRoundTrips() throws {
        let folder = try TemporaryFolder()
        let url = try store(in: folder)
        let mom = try #require(RealWorld.url("stores/coredataplus-samplemodel-v1/SampleModel.mom"))
        try cache(try #require(RawDeflate.compress(try Data(contentsOf: mom))), in: url)
        let model = try #require(try NSManagedObjectModel.cachedModel(ofStoreAt: url))
        let original = try NSManagedObjectModel(validatingContentsOf: mom)
        #expect(model.entityVersionHashesByName == original.entityVersionHashesByName)
        #expect(Set(model.entitiesByName.keys) == ["Car", "SportCar", "ExpensiveSportCar", "Person"])
    }
}
