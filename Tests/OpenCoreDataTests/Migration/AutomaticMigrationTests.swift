import Foundation
import OpenSQLiteStore
@testable import OpenCoreData
import TestSupport
import Testing

/// Lightweight migration as apps get it: `NSPersistentContainer` (both migration options on by
/// default) or `addPersistentStore` with the options, the store's model version found among the
/// versions of the app's `.xcdatamodeld`. The posts example's four versions are put in one
/// `.xcdatamodeld`, as Xcode keeps them.
@Suite(.enabled(if: RealWorld.isAvailable, "../shared/realworld is not beside the package: automatic migration tests skipped"))
struct AutomaticMigrationTests {
    /// `Posts.xcdatamodeld` holding `versions` of the posts example, the last one current.
    static func versionedModel(_ versions: [Int], in folder: TemporaryFolder) throws -> URL {
        let bundle = folder.url.appendingPathComponent("Posts.xcdatamodeld")
        for version in versions {
            let source = try #require(RealWorld.url("stores/wibosco-migration-posts/v\(version).xcdatamodel.contents.xml"))
            let target = bundle.appendingPathComponent("v\(version).xcdatamodel")
            try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: source, to: target.appendingPathComponent("contents"))
        }
        return bundle
    }

    static func store(_ number: Int, in folder: TemporaryFolder) throws -> URL {
        try AppleWrittenStoreTests.Store(
            "wibosco-migration-posts", "CoreDataMigration_Example_\(number).sqlite", xml: "v\(number).xcdatamodel.contents.xml",
            counts: [:]
        ).copy(into: folder)
    }

    @Test func containerMigratesAnOlderStore() throws {
        let folder = try TemporaryFolder()
        let model = try NSManagedObjectModel(validatingContentsOf: try Self.versionedModel([1, 2, 3, 4], in: folder))
        let url = try Self.store(3, in: folder)
        let container = NSPersistentContainer(name: "Posts", managedObjectModel: model)
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: url)]
        var loadError: Error?
        container.loadPersistentStores { _, error in loadError = error }
        #expect(loadError == nil)
        let context = container.viewContext
        let request = NSFetchRequest<NSManagedObject>(entityName: "Post")
        request.predicate = NSPredicate(format: "hide == NO AND color != nil")
        #expect(try context.count(for: request) == 7995)
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
        #expect(model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
    }

    @Test func withoutTheOptionsTheStoreIsRefusedAndKept() throws {
        let folder = try TemporaryFolder()
        let model = try NSManagedObjectModel(validatingContentsOf: try Self.versionedModel([3, 4], in: folder))
        let url = try Self.store(3, in: folder)
        let before = try Data(contentsOf: url)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let refused = try #require(throws: NSError.self) {
            try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url)
        }
        #expect(refused.code == NSPersistentStoreIncompatibleVersionHashError)
        let noInference = try #require(throws: NSError.self) {
            try coordinator.addPersistentStore(
                ofType: NSSQLiteStoreType, configurationName: nil, at: url,
                options: [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: false])
        }
        #expect(noInference.code == NSMigrationMissingMappingModelError)
        #expect(try Data(contentsOf: url) == before)
    }

    @Test func aStoreOfNoKnownVersionSaysSo() throws {
        let folder = try TemporaryFolder()
        let model = try NSManagedObjectModel(validatingContentsOf: try Self.versionedModel([4], in: folder))
        let url = try Self.store(1, in: folder)
        // Without the copy of its model the store keeps (it would be the source otherwise).
        try SQLiteConnection(url: url, mode: .readWrite).execute("DROP TABLE Z_MODELCACHE")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let error = try #require(throws: NSError.self) {
            try coordinator.addPersistentStore(
                ofType: NSSQLiteStoreType, configurationName: nil, at: url,
                options: [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true])
        }
        #expect(error.code == NSMigrationMissingSourceModelError)
        #expect(error.localizedDescription.contains("Post"))
    }

    /// Apple's inference can't make v2 → v3 (a required relationship appears): the container
    /// reports the migration error, naming Post.color, and the store stays a v2 store.
    @Test func aMigrationThatFailsLeavesTheStore() throws {
        let folder = try TemporaryFolder()
        let model = try NSManagedObjectModel(validatingContentsOf: try Self.versionedModel([1, 2, 3], in: folder))
        let url = try Self.store(2, in: folder)
        let container = NSPersistentContainer(name: "Posts", managedObjectModel: model)
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: url)]
        var loadError: NSError?
        container.loadPersistentStores { _, error in loadError = error as NSError? }
        #expect(loadError?.code == NSMigrationError)
        #expect(loadError?.userInfo["property"] as? String == "color")
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
        let v2 = try NSManagedObjectModel(
            validatingContentsOf: try #require(RealWorld.url("stores/wibosco-migration-posts/v2.xcdatamodel.contents.xml")))
        #expect(v2.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
    }

    /// The 2010 Recipes store opened by the 2018 sample, whose `.xcdatamodeld` also holds the
    /// 2010 version as Xcode 3 wrote it (an `elements` file): the store's model is found among
    /// the versions and the store migrates, every row kept.
    @Test func theRecipesStoreOf2010MigratesToThe2018Model() throws {
        let folder = try TemporaryFolder()
        let url = try AppleWrittenStoreTests.Store(
            "apple-recipes-2010", "Recipes.sqlite", code: { RealWorldModels.recipesModel() }, counts: [:]
        ).copy(into: folder)
        let bundle = folder.url.appendingPathComponent("Recipes.xcdatamodeld")
        let old = bundle.appendingPathComponent("Recipes.xcdatamodel")
        let new = bundle.appendingPathComponent("Recipes 2.xcdatamodel")
        try FileManager.default.createDirectory(at: old, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: new, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: try #require(RealWorld.url("stores/apple-recipes-2010/Recipes.xcdatamodel.elements.bplist")),
            to: old.appendingPathComponent("elements"))
        try FileManager.default.copyItem(
            at: try #require(RealWorld.url("stores/apple-recipes-2018/Recipes.xcdatamodel.contents.xml")),
            to: new.appendingPathComponent("contents"))
        let model = try NSManagedObjectModel(validatingContentsOf: bundle)
        let before = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
        #expect(!model.isConfiguration(withName: nil, compatibleWithStoreMetadata: before))

        let container = NSPersistentContainer(name: "Recipes", managedObjectModel: model)
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: url)]
        var loadError: Error?
        container.loadPersistentStores { _, error in loadError = error }
        #expect(loadError == nil)
        let context = container.viewContext
        for (entity, count) in ["Image": 7, "Ingredient": 31, "Recipe": 7, "RecipeType": 5] {
            #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: entity)) == count, "\(entity)")
        }
        let request = NSFetchRequest<NSManagedObject>(entityName: "Recipe")
        request.predicate = NSPredicate(format: "name BEGINSWITH 'Crèpes'")
        let crepes = try #require(try context.fetch(request).first)
        #expect((crepes.value(forKey: "ingredients") as? NSSet)?.count ?? 0 > 0)
        #expect(crepes.value(forKey: "type") != nil)
        let after = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
        #expect(model.isConfiguration(withName: nil, compatibleWithStoreMetadata: after))
    }

    @Test(.enabled(if: PostgresTestServer.isEnabled, "no PostgreSQL test server"))
    func aPostgreSQLStoreMigratesWhenAdded() throws {
        let folder = try TemporaryFolder()
        let bundle = try Self.versionedModel([3, 4], in: folder)
        let v3 = try NSManagedObjectModel(validatingContentsOf: bundle.appendingPathComponent("v3.xcdatamodel"))
        let server = try #require(try folder.storeURL(for: NSPostgreSQLStoreType, name: "posts"))
        // The Apple-written v3 store, moved onto the server as it is.
        let copier = NSPersistentStoreCoordinator(managedObjectModel: v3)
        let file = try copier.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil, at: try Self.store(3, in: folder))
        try copier.remove(try copier.migratePersistentStore(file, to: server, withType: NSPostgreSQLStoreType))

        let model = try NSManagedObjectModel(validatingContentsOf: bundle)
        let container = NSPersistentContainer(name: "Posts", managedObjectModel: model)
        let description = NSPersistentStoreDescription(url: server)
        description.type = NSPostgreSQLStoreType
        container.persistentStoreDescriptions = [description]
        var loadError: Error?
        container.loadPersistentStores { _, error in loadError = error }
        #expect(loadError == nil)
        let request = NSFetchRequest<NSManagedObject>(entityName: "Post")
        request.predicate = NSPredicate(format: "hide == NO")
        #expect(try container.viewContext.count(for: request) == 7995)
    }
}
