import Foundation
import OpenSQLiteStore
import OpenStoreCore
import Testing

/// Creating a store is atomic: the store either does not exist or opens.
@Suite struct SQLiteStoreCreationTests {
    static let hashes = ["Author": Data(repeating: 1, count: 32), "Book": Data(repeating: 2, count: 32)]

    /// A schema SQLite refuses (a column name that is not an identifier) creates no file, and
    /// the error names the file and the statement's problem.
    @Test func aSchemaSQLiteRefusesLeavesNoFile() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("Refused.sqlite")
        let schema = makeSchema([(name: "Thing", superID: nil, abstract: false, properties: [attribute("a-b", .string)])])
        var thrown: NSError?
        do {
            _ = try SQLiteRowStore.open(at: url, schema: schema, readOnly: false, modelVersionHashes: [:])
        } catch {
            thrown = error as NSError
        }
        let error = try #require(thrown)
        #expect(error.localizedDescription.contains(url.path))
        #expect(error.localizedDescription.contains("no store was created"))
        for suffix in ["", "-wal", "-shm", "-journal"] {
            #expect(!FileManager.default.fileExists(atPath: url.path + suffix), "\(suffix)")
        }
        // The same path then takes a good schema.
        let store = try SQLiteRowStore.open(at: url, schema: Library.schema, readOnly: false, modelVersionHashes: Self.hashes)
        #expect(try store.file.primaryKeys().count == 5)
    }

    /// A file left empty by an interrupted creation, with the side files SQLite leaves after a
    /// kill: the store is created in it, and a second store opening it at the same time finds
    /// the store the first created instead of creating it twice.
    @Test func twoOpensOfAHalfCreatedFileMakeOneStore() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("Half.sqlite")
        try SQLiteConnection(url: url, mode: .create).execute("PRAGMA journal_mode = WAL")
        let first = try SQLiteRowStore.open(at: url, schema: Library.schema, readOnly: false, modelVersionHashes: Self.hashes)
        let second = try SQLiteRowStore.open(at: url, schema: Library.schema, readOnly: false, modelVersionHashes: Self.hashes)
        #expect(first.storeUUID != nil)
        #expect(first.storeUUID == second.storeUUID)
        #expect(try first.file.connection.rowCount(table: "Z_METADATA") == 1)
        #expect(try first.file.connection.rowCount(table: "Z_PRIMARYKEY") == 5)
    }
}
