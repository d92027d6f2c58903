import Foundation
@testable import OpenCoreData
import TestSupport
import Testing

/// Reading a store file's metadata without opening the store, and the model's compatibility
/// check on it (what apps do before deciding to migrate).
@Suite struct StoreMetadataTests {
    typealias Stack = SQLiteStoreTests.Stack

    @Test func metadataOfAStoreMadeHere() throws {
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("Company.sqlite")
        let stack = try Stack(url: url)
        try stack.fill()
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
        #expect(metadata[NSStoreTypeKey] as? String == "SQLite")
        #expect(metadata[NSStoreUUIDKey] as? String == stack.store.identifier)
        #expect((metadata[NSStoreModelVersionHashesKey] as? [String: Data]) == stack.model.entityVersionHashesByName)
        #expect(stack.model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))

        let changed = CompanyModel.make()
        let extra = NSAttributeDescription()
        extra.name = "nickname"
        extra.attributeType = .stringAttributeType
        changed[entity: "Department"].properties += [extra]
        #expect(!changed.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
        #expect(!stack.model.isConfiguration(withName: "NoSuchConfiguration", compatibleWithStoreMetadata: metadata))
        #expect(!stack.model.isConfiguration(withName: nil, compatibleWithStoreMetadata: [:]))
    }

    @Test func badFilesAreErrorsNamingThem() throws {
        let folder = try TemporaryFolder()
        let missing = folder.url.appendingPathComponent("Missing.sqlite")
        let noFile = try #require(throws: NSError.self) {
            try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: missing)
        }
        #expect(noFile.code == NSFileReadNoSuchFileError && noFile.localizedDescription.contains("Missing.sqlite"))
        let text = try folder.write("not a database, just text", to: "Text.sqlite")
        let notSQLite = try #require(throws: NSError.self) {
            try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: text)
        }
        #expect(notSQLite.code == NSPersistentStoreOpenError && notSQLite.localizedDescription.contains("Text.sqlite"))
        let memory = try #require(throws: NSError.self) {
            try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSInMemoryStoreType, at: text)
        }
        #expect(memory.code == NSPersistentStoreInvalidTypeError)
    }

    /// An Apple-written WAL store: read without being changed, and its own model is compatible.
    @Test func appleWrittenStoreMetadata() throws {
        guard RealWorld.isAvailable, let store = AppleWrittenStoreTests.stores.first(where: { $0.directory == "kodeco-surfjournal-wal" })
        else { return }
        let folder = try TemporaryFolder()
        let url = try store.copy(into: folder)
        let wal = try Data(contentsOf: URL(fileURLWithPath: url.path + "-wal"))
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
        #expect(metadata[NSStoreUUIDKey] as? String == "D246D1F7-4A2D-462D-AE31-1A41C47E7B6C")
        #expect(metadata["NSPersistenceFrameworkVersion"] as? Int == 519)
        #expect(try store.model().isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
        #expect(!RealWorldModels.twitterModel().isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
        #expect(try Data(contentsOf: URL(fileURLWithPath: url.path + "-wal")) == wal)
    }
}
