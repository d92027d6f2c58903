import Foundation
import OpenCoreData
import TestSupport
import Testing

/// `mergedModel(from:)` on this test target's own SwiftPM resource bundle, which Package.swift
/// fills with `.copy("Resources/Tiny.xcdatamodeld")` and `.copy("Resources/Extra.xcdatamodel")`.
@Suite("Model files: mergedModel(from:) and resource bundles")
struct MergedModelTests {
    @Test("A model in Bundle.module loads by URL, with its current version")
    func loadsFromBundleModule() throws {
        let url = try #require(Bundle.module.url(forResource: "Tiny", withExtension: "xcdatamodeld"))
        let model = try #require(NSManagedObjectModel(contentsOf: url))
        // Tiny.xcdatamodeld/.xccurrentversion names "Tiny 2.xcdatamodel": Note and Tag, version "2".
        #expect(model.entities.compactMap(\.name) == ["Note", "Tag"])
        #expect(model.versionIdentifiers == ["2"])
        let tags = try #require(model.entitiesByName["Note"]?.relationshipsByName["tags"])
        #expect(tags.destinationEntity === model.entitiesByName["Tag"])
        #expect(tags.inverseRelationship === model.entitiesByName["Tag"]?.relationshipsByName["notes"])
    }

    @Test("mergedModel(from: [Bundle.module]) merges every model file of the bundle")
    func mergesBundleModule() throws {
        let model = try #require(NSManagedObjectModel.mergedModel(from: [Bundle.module]))
        #expect(model.entities.compactMap(\.name).sorted() == ["Note", "Setting", "Tag"])
        #expect(model.configurations == ["Local"])
        #expect(model.entities(forConfigurationName: "Local")?.compactMap(\.name) == ["Setting"])
        #expect(model.fetchRequestTemplate(forName: "tagNamed")?.entity === model.entitiesByName["Tag"])
        #expect(model.versionIdentifiers == ["2"])
        #expect(model.entitiesByName["Note"]?.attributesByName["created"] != nil, "the current version, not Tiny 1")
    }

    @Test("mergedModel(from: nil) searches the main bundle and does not crash")
    func mainBundle() {
        #expect(NSManagedObjectModel.mergedModel(from: nil) != nil)
    }

    @Test("Two bundles defining one entity give nil; a broken model file gives nil")
    func failures() throws {
        let folder = try TemporaryFolder()
        try folder.write(modelXML(#"<entity name="Note"/>"#), to: "Clash/Clash.xcdatamodel/contents")
        try folder.write(modelXML(#"<entity name="A" parentEntity="Nope"/>"#), to: "Broken/Nested/Broken.xcdatamodel/contents")
        let clash = try #require(Bundle(url: folder.url.appendingPathComponent("Clash")))
        let broken = try #require(Bundle(url: folder.url.appendingPathComponent("Broken")))
        #expect(NSManagedObjectModel.mergedModel(from: [clash])?.entities.count == 1)
        #expect(NSManagedObjectModel.mergedModel(from: [Bundle.module, clash]) == nil)
        #expect(NSManagedObjectModel.mergedModel(from: [broken]) == nil)
    }

    @Test("A bundle without model files gives an empty model")
    func emptyBundle() throws {
        let folder = try TemporaryFolder()
        try folder.write("hello", to: "Empty/readme.txt")
        let bundle = try #require(Bundle(url: folder.url.appendingPathComponent("Empty")))
        #expect(NSManagedObjectModel.mergedModel(from: [bundle])?.entities.isEmpty == true)
    }
}
