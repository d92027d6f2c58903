import Foundation
import TestSupport
import Testing

@testable import OpenCoreData

/// Finding the model version a store was written with, on the four versions of
/// wibosco-migration-posts (`v1` … `v4.xcdatamodel.contents.xml`, built into a temporary
/// `Posts.xcdatamodeld`) and the stores Apple's Core Data wrote with v1, v2 and v3.
@Suite(
    "Model files: the model version a store was written with",
    .enabled(if: RealWorld.isAvailable, "../shared/realworld is not beside the package: version lookup tests skipped"))
struct ModelVersionLookupTests {
    static func posts(_ name: String) throws -> URL {
        try #require(RealWorld.url("stores/wibosco-migration-posts/" + name))
    }

    /// `<folder>/Posts.xcdatamodeld` with `v1.xcdatamodel/contents` … `v4…` and a
    /// `.xccurrentversion` naming v4 (versions written out of order, to show the order is by name).
    static func versionedModel(in folder: TemporaryFolder) throws -> URL {
        let versioned = folder.url.appendingPathComponent("Posts.xcdatamodeld")
        for version in ["v3", "v1", "v4", "v2"] {
            let contents = try String(contentsOf: try posts("\(version).xcdatamodel.contents.xml"), encoding: .utf8)
            try folder.write(contents, to: "Posts.xcdatamodeld/\(version).xcdatamodel/contents")
        }
        try folder.write(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0"><dict><key>_XCCurrentVersionName</key><string>v4.xcdatamodel</string></dict></plist>
            """, to: "Posts.xcdatamodeld/.xccurrentversion")
        return versioned
    }

    static func metadata(_ store: String) throws -> [String: Any] {
        try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: try posts(store))
    }

    /// The hashes of one version's XML, loaded on its own.
    static func hashes(ofVersion version: String) throws -> [String: Data] {
        try NSManagedObjectModel(validatingContentsOf: try posts("\(version).xcdatamodel.contents.xml"))
            .entityVersionHashesByName
    }

    static let storesAndVersions = [
        ("CoreDataMigration_Example_1.sqlite", "v1"), ("CoreDataMigration_Example_2.sqlite", "v2"),
        ("CoreDataMigration_Example_3.sqlite", "v3"),
    ]

    @Test("allVersions(besides:) gives every version of the folder, in version order")
    func allVersions() throws {
        let folder = try TemporaryFolder()
        let current = try NSManagedObjectModel(validatingContentsOf: try Self.versionedModel(in: folder))
        #expect(current.sourceFileURL?.lastPathComponent == "Posts.xcdatamodeld")
        let versions = NSManagedObjectModel.allVersions(besides: current)
        #expect(versions.count == 4)
        let expected = try ["v1", "v2", "v3", "v4"].map { try Self.hashes(ofVersion: $0) }
        #expect(versions.map(\.entityVersionHashesByName) == expected)
        #expect(versions.last?.entityVersionHashesByName == current.entityVersionHashesByName)
        #expect(
            versions.compactMap { $0.sourceFileURL?.lastPathComponent }
                == ["v1.xcdatamodel", "v2.xcdatamodel", "v3.xcdatamodel", "v4.xcdatamodel"])
        // A model loaded from one version finds its siblings too; one made in code has none.
        let v2 = try #require(
            NSManagedObjectModel(contentsOf: folder.url.appendingPathComponent("Posts.xcdatamodeld/v2.xcdatamodel")))
        #expect(NSManagedObjectModel.allVersions(besides: v2).count == 4)
        #expect(NSManagedObjectModel.allVersions(besides: NSManagedObjectModel()).isEmpty)
    }

    @Test("storeModel(forMetadata:besides:) picks the version each store was written with", arguments: storesAndVersions)
    func storeModelPicksTheVersion(store: String, version: String) throws {
        let folder = try TemporaryFolder()
        let current = try NSManagedObjectModel(validatingContentsOf: try Self.versionedModel(in: folder))
        let metadata = try Self.metadata(store)
        let found = try #require(NSManagedObjectModel.storeModel(forMetadata: metadata, besides: current))
        #expect(found.sourceFileURL?.lastPathComponent == "\(version).xcdatamodel")
        #expect(found.entityVersionHashesByName == (try Self.hashes(ofVersion: version)))
        #expect(found.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
        #expect(!current.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
    }

    @Test("storeModel(forMetadata:besides:) answers the model itself when it matches, and nil when nothing does")
    func storeModelSelfAndNone() throws {
        let folder = try TemporaryFolder()
        let v3 = try NSManagedObjectModel(
            validatingContentsOf: try Self.versionedModel(in: folder).appendingPathComponent("v3.xcdatamodel"))
        let metadata = try Self.metadata("CoreDataMigration_Example_3.sqlite")
        #expect(NSManagedObjectModel.storeModel(forMetadata: metadata, besides: v3) === v3)
        var foreign = metadata
        foreign[NSStoreModelVersionHashesKey] = ["Post": Data(repeating: 7, count: 32)]
        #expect(NSManagedObjectModel.storeModel(forMetadata: foreign, besides: v3) == nil)
        #expect(NSManagedObjectModel.storeModel(forMetadata: [:], besides: v3) == nil)
    }

    @Test("mergedModel(from:forStoreMetadata:) searches every version in the bundles", arguments: storesAndVersions)
    func mergedModelForStoreMetadata(store: String, version: String) throws {
        let folder = try TemporaryFolder()
        _ = try Self.versionedModel(in: folder)
        let bundle = try #require(Bundle(url: folder.url))
        let metadata = try Self.metadata(store)
        let model = try #require(NSManagedObjectModel.mergedModel(from: [bundle], forStoreMetadata: metadata))
        #expect(model.entityVersionHashesByName == (try Self.hashes(ofVersion: version)))
        // The current version alone (what mergedModel(from:) gives) is v4, which matches none of them.
        #expect(NSManagedObjectModel.mergedModel(from: [bundle])?.entityVersionHashesByName == (try Self.hashes(ofVersion: "v4")))
    }

    @Test("mergedModel(from:forStoreMetadata:) merges a matching version of each model file, and fails on a partial match")
    func mergedModelAcrossFiles() throws {
        let folder = try TemporaryFolder()
        _ = try Self.versionedModel(in: folder)
        try folder.write(
            modelXML(#"<entity name="Tag" representedClassName="Tag"><attribute name="label" attributeType="String"/></entity>"#),
            to: "Tags.xcdatamodel/contents")
        let bundle = try #require(Bundle(url: folder.url))
        let tags = try #require(NSManagedObjectModel(contentsOf: folder.url.appendingPathComponent("Tags.xcdatamodel")))
        var metadata = try Self.metadata("CoreDataMigration_Example_2.sqlite")
        var hashes = try #require(metadata[NSStoreModelVersionHashesKey] as? [String: Any])
        // Only Post: the Tags file has no matching version and is left out.
        #expect(
            NSManagedObjectModel.mergedModel(from: [bundle], forStoreMetadata: metadata)?.entitiesByName.keys.sorted() == ["Post"]
        )
        hashes["Tag"] = tags.entityVersionHashesByName["Tag"]
        metadata[NSStoreModelVersionHashesKey] = hashes
        let merged = try #require(NSManagedObjectModel.mergedModel(from: [bundle], forStoreMetadata: metadata))
        #expect(merged.entitiesByName.keys.sorted() == ["Post", "Tag"])
        // An entity the store has but no model file gives: no model.
        hashes["Ghost"] = Data(repeating: 1, count: 32)
        metadata[NSStoreModelVersionHashesKey] = hashes
        #expect(NSManagedObjectModel.mergedModel(from: [bundle], forStoreMetadata: metadata) == nil)
    }

    @Test("storeModel finds the store's version in a compiled .momd too")
    func storeModelInMomd() throws {
        let folder = try TemporaryFolder()
        let momd = try CompiledModelTests.momd(in: folder, currentVersion: "SampleModel 2")
        let current = try NSManagedObjectModel(validatingContentsOf: momd)
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(
            ofType: NSSQLiteStoreType, at: try CompiledModelTests.stores("coredataplus-samplemodel-v1/SampleModel_V1.sqlite"))
        let found = try #require(NSManagedObjectModel.storeModel(forMetadata: metadata, besides: current))
        #expect(found.versionIdentifiers == ["1"])
        #expect(found.sourceFileURL?.lastPathComponent == "SampleModel.mom")
        #expect(NSManagedObjectModel.allVersions(besides: current).map(\.versionIdentifiers) == [["1"], ["2"]])
    }
}
