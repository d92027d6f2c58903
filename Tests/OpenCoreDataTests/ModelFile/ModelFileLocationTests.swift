import Foundation
import OpenCoreData
import TestSupport
import Testing

/// Which file `init(contentsOf:)` reads for a URL: a versioned `.xcdatamodeld`, an
/// `.xcdatamodel` folder, or a `contents` file of any name.
@Suite("Model files: locating the contents")
struct ModelFileLocationTests {
    static func entity(_ name: String) -> String {
        modelXML(#"<entity name="\#(name)"/>"#)
    }

    static let currentVersionPlist = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
            <key>_XCCurrentVersionName</key>
            <string>Model 2.xcdatamodel</string>
        </dict>
        </plist>
        """

    static func entityNames(_ url: URL) throws -> [String] {
        try NSManagedObjectModel(validatingContentsOf: url).entities.compactMap(\.name)
    }

    @Test("A .xcdatamodeld loads the version its .xccurrentversion names")
    func currentVersion() throws {
        let folder = try TemporaryFolder()
        try folder.write(Self.entity("One"), to: "Model.xcdatamodeld/Model.xcdatamodel/contents")
        try folder.write(Self.entity("Two"), to: "Model.xcdatamodeld/Model 2.xcdatamodel/contents")
        try folder.write(Self.entity("Three"), to: "Model.xcdatamodeld/Model 3.xcdatamodel/contents")
        try folder.write(Self.currentVersionPlist, to: "Model.xcdatamodeld/.xccurrentversion")
        let bundle = folder.url.appendingPathComponent("Model.xcdatamodeld")
        #expect(try Self.entityNames(bundle) == ["Two"])
        #expect(NSManagedObjectModel(contentsOf: bundle)?.entitiesByName["Two"] != nil)
    }

    @Test("Without .xccurrentversion, a .xcdatamodeld loads its last version in numeric order")
    func lastVersion() throws {
        let folder = try TemporaryFolder()
        try folder.write(Self.entity("Two"), to: "Model.xcdatamodeld/Model 2.xcdatamodel/contents")
        try folder.write(Self.entity("Ten"), to: "Model.xcdatamodeld/Model 10.xcdatamodel/contents")
        try folder.write(Self.entity("One"), to: "Model.xcdatamodeld/Model.xcdatamodel/contents")
        #expect(try Self.entityNames(folder.url.appendingPathComponent("Model.xcdatamodeld")) == ["Ten"])
        // Every version in that order (the `coredata` tool looks for a store's model so).
        let versions = NSManagedObjectModel.versions(at: folder.url.appendingPathComponent("Model.xcdatamodeld"))
        #expect(versions.map { $0.entities.compactMap(\.name) } == [["One"], ["Two"], ["Ten"]])
        try folder.write(Self.entity("Only"), to: "Single.xcdatamodeld/Single.xcdatamodel/contents")
        #expect(try Self.entityNames(folder.url.appendingPathComponent("Single.xcdatamodeld")) == ["Only"])
    }

    @Test("A .xccurrentversion that names a missing version is NSFileReadNoSuchFileError")
    func missingCurrentVersion() throws {
        let folder = try TemporaryFolder()
        try folder.write(Self.entity("One"), to: "Model.xcdatamodeld/Model.xcdatamodel/contents")
        try folder.write(Self.currentVersionPlist, to: "Model.xcdatamodeld/.xccurrentversion")
        let bundle = folder.url.appendingPathComponent("Model.xcdatamodeld")
        #expect(NSManagedObjectModel(contentsOf: bundle) == nil)
        #expect {
            try NSManagedObjectModel(validatingContentsOf: bundle)
        } throws: { error in
            let error = error as NSError
            return error.code == NSFileReadNoSuchFileError && error.localizedDescription.contains("Model 2.xcdatamodel")
        }
    }

    @Test("A .xcdatamodel folder loads its contents file; a contents file of any name loads too")
    func folderAndFile() throws {
        let folder = try TemporaryFolder()
        try folder.write(Self.entity("A"), to: "Model.xcdatamodel/contents")
        let file = try folder.write(Self.entity("B"), to: "Model.xcdatamodel.contents.xml")
        #expect(try Self.entityNames(folder.url.appendingPathComponent("Model.xcdatamodel")) == ["A"])
        #expect(try Self.entityNames(folder.url.appendingPathComponent("Model.xcdatamodel/contents")) == ["A"])
        #expect(try Self.entityNames(file) == ["B"])
    }

    @Test("A folder without a contents file is NSFileReadNoSuchFileError")
    func emptyFolder() throws {
        let folder = try TemporaryFolder()
        try FileManager.default.createDirectory(
            at: folder.url.appendingPathComponent("Empty.xcdatamodel"), withIntermediateDirectories: true)
        #expect {
            try NSManagedObjectModel(validatingContentsOf: folder.url.appendingPathComponent("Empty.xcdatamodel"))
        } throws: { error in
            (error as NSError).code == NSFileReadNoSuchFileError
        }
    }

    @Test("Errors name the version's contents file and the line")
    func errorInVersion() throws {
        let folder = try TemporaryFolder()
        try folder.write(modelXML(#"<entity name="A" parentEntity="B"/>"#), to: "Model.xcdatamodeld/Model.xcdatamodel/contents")
        #expect {
            try NSManagedObjectModel(validatingContentsOf: folder.url.appendingPathComponent("Model.xcdatamodeld"))
        } throws: { error in
            (error as NSError).localizedDescription.contains("Model.xcdatamodeld/Model.xcdatamodel/contents:3:")
        }
    }
}
