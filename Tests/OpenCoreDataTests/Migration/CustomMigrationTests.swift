import Foundation
@testable import OpenCoreData
import TestSupport
import Testing

/// What the posts example ships custom mapping models for, built in code as an app would: an
/// expression that renames an attribute (v1 → v2), and an entity migration policy that turns a
/// string into a required related object (v2 → v3), which lightweight migration can't infer.
/// Makes a Color for each post from its `hexColor` (top level: `NSStringFromClass` names only
/// top-level classes on Linux).
final class PostColorPolicy: NSEntityMigrationPolicy {
    override func createDestinationInstances(
        forSource source: NSManagedObject, in mapping: NSEntityMapping, manager: NSMigrationManager
    ) throws {
        try super.createDestinationInstances(forSource: source, in: mapping, manager: manager)
        let post = try #require(manager.destinationInstances(forEntityMappingName: mapping.name, sourceInstances: [source]).first)
        let color = NSEntityDescription.insertNewObject(forEntityName: "Color", into: manager.destinationContext)
        color.setValue(source.value(forKey: "hexColor"), forKey: "hex")
        color.setValue("color-\(source.value(forKey: "postID") ?? "")", forKey: "colorID")
        post.setValue(color, forKey: "color")
    }
}

@Suite(.enabled(if: RealWorld.isAvailable, "../shared/realworld is not beside the package: custom migration tests skipped"))
struct CustomMigrationTests {
    typealias Store = AppleWrittenStoreTests.Store

    static func posts(_ version: Int) throws -> NSManagedObjectModel {
        let url = try #require(RealWorld.url("stores/wibosco-migration-posts/v\(version).xcdatamodel.contents.xml"))
        return try NSManagedObjectModel(validatingContentsOf: url)
    }

    @Test func expressionRenamesAnAttribute() throws {
        let folder = try TemporaryFolder()
        let store = Store(
            "wibosco-migration-posts", "CoreDataMigration_Example_1.sqlite", xml: "v1.xcdatamodel.contents.xml", counts: [:])
        let url = try store.copy(into: folder)
        let v1 = try Self.posts(1), v2 = try Self.posts(2)
        let before = try RealStoreMigrationTests.contents(of: url, model: v1)["Post"] ?? [:]
        let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: v1, destinationModel: v2)
        let hexColor = try #require(
            mapping.entityMappingsByName["PostToPost"]?.attributeMappings?.first { $0.name == "hexColor" })
        hexColor.valueExpression = NSExpression(format: "FUNCTION($source, \"valueForKey:\", \"color\")")
        #expect(!mapping.isInferred)

        let manager = NSMigrationManager(sourceModel: v1, destinationModel: v2)
        try manager.migrateStore(
            from: url, sourceType: NSSQLiteStoreType, with: mapping, toDestinationURL: url, destinationType: NSSQLiteStoreType)
        #expect(manager.migrationProgress == 1)
        let after = try RealStoreMigrationTests.contents(of: url, model: v2)["Post"] ?? [:]
        #expect(after.count == 1001)
        #expect(
            Set(after.values.map { "\($0["postID"] ?? "")|\($0["hexColor"] ?? "")" })
                == Set(before.values.map { "\($0["postID"] ?? "")|\($0["color"] ?? "")" }))
        #expect(after.values.contains { $0["hexColor"] != "nil" })
    }

    @Test func policyMakesTheRequiredObjectsInference_cannot() throws {
        let folder = try TemporaryFolder()
        let store = Store(
            "wibosco-migration-posts", "CoreDataMigration_Example_2.sqlite", xml: "v2.xcdatamodel.contents.xml", counts: [:])
        let url = try store.copy(into: folder)
        let v2 = try Self.posts(2), v3 = try Self.posts(3)
        let before = try RealStoreMigrationTests.contents(of: url, model: v2)["Post"] ?? [:]
        let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: v2, destinationModel: v3)
        let postMapping = try #require(mapping.entityMappingsByName["PostToPost"])
        postMapping.entityMigrationPolicyClassName = NSStringFromClass(PostColorPolicy.self)

        let destination = folder.url.appendingPathComponent("v3.sqlite")
        try NSMigrationManager(sourceModel: v2, destinationModel: v3).migrateStore(
            from: url, sourceType: NSSQLiteStoreType, with: mapping, toDestinationURL: destination,
            destinationType: NSSQLiteStoreType)
        // The source is left as it was; the destination has a Color for every post.
        #expect(try RealStoreMigrationTests.contents(of: url, model: v2)["Post"] == before)
        let context = try AppleWrittenStoreTests.open(destination, model: v3, readOnly: true)
        try context.performAndWait {
            let posts = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Post"))
            #expect(posts.count == 5979)
            let byID = Dictionary(before.values.map { ($0["postID"] ?? "", $0["hexColor"] ?? "") }) { a, _ in a }
            var checked = 0
            for post in posts {
                let color = try #require(post.value(forKey: "color") as? NSManagedObject)
                let postID = post.value(forKey: "postID").map { "\($0)" } ?? "nil"
                #expect(color.value(forKey: "hex").map { "\($0)" } ?? "nil" == byID[postID])
                checked += 1
            }
            #expect(checked == 5979)
            #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Color")) == 5979)
        }
    }

    @Test func unknownPolicyClassFailsAndLeavesNothing() throws {
        let folder = try TemporaryFolder()
        let store = Store(
            "wibosco-migration-posts", "CoreDataMigration_Example_2.sqlite", xml: "v2.xcdatamodel.contents.xml", counts: [:])
        let url = try store.copy(into: folder)
        let v2 = try Self.posts(2), v3 = try Self.posts(3)
        let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: v2, destinationModel: v3)
        try #require(mapping.entityMappingsByName["PostToPost"]).entityMigrationPolicyClassName = "NoSuchModule.NoSuchPolicy"
        let destination = folder.url.appendingPathComponent("v3.sqlite")
        let error = try #require(throws: NSError.self) {
            try NSMigrationManager(sourceModel: v2, destinationModel: v3).migrateStore(
                from: url, sourceType: NSSQLiteStoreType, with: mapping, toDestinationURL: destination,
                destinationType: NSSQLiteStoreType)
        }
        #expect(error.code == NSEntityMigrationPolicyError)
        #expect(error.localizedDescription.contains("NoSuchModule.NoSuchPolicy"))
        #expect(!FileManager.default.fileExists(atPath: destination.path))
    }
}
