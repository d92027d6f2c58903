import Foundation
import OpenSQLStore
import OpenSQLiteStore
import OpenStoreCore
import TestSupport
import Testing

/// Creating a store is atomic: the store either does not exist or opens.
@Suite struct SQLiteStoreCreationTests {
    static let hashes = ["Author": Data(repeating: 1, count: 32), "Book": Data(repeating: 2, count: 32)]

    /// A schema SQLite refuses (two entities whose tables differ only in case, which a model
    /// built in code can have) creates no file, and the error names the file and the
    /// statement's problem.
    @Test func aSchemaSQLiteRefusesLeavesNoFile() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("Refused.sqlite")
        let schema = makeSchema([
            (name: "Thing", superID: nil, abstract: false, properties: [attribute("name", .string)]),
            (name: "THING", superID: nil, abstract: false, properties: [attribute("name", .string)]),
        ])
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

/// `danglingToOneKeys()`: the keys that name no row, a row of an entity outside the
/// destination's family, or a row of another entity than the key's entity number says.
@Suite struct SQLiteDanglingKeyTests {
    @Test func danglingAndMistypedKeysAreFound() throws {
        let folder = try TemporaryFolder()
        let store = try SQLiteStoreFile.create(at: folder.file("Keys.sqlite"), schema: Library.schema, versionHashes: [:])
        let author = ObjectKey(entityID: Library.author, primaryKey: 1)
        let book = ObjectKey(entityID: Library.book, primaryKey: 1)
        let novel = ObjectKey(entityID: Library.graphicNovel, primaryKey: 2)
        func page(_ key: Int64, _ target: ObjectKey) -> RowSnapshot {
            RowSnapshot(key: ObjectKey(entityID: Library.page, primaryKey: key), version: 1, values: [.integer(key), .object(target)])
        }
        let bookValues: [StoreValue] = [.null, .null, .null, .string("B"), .null, .null, .object(author), .objects([]), .objects([])]
        try store.insert([
            RowSnapshot(key: author, version: 1, values: [.string("A"), .objects([book])]),
            RowSnapshot(key: book, version: 1, values: bookValues),
            RowSnapshot(key: novel, version: 1, values: bookValues + [.bool(true)]),
            page(1, book), page(2, novel), page(3, book), page(4, book),
        ])
        #expect(try store.danglingToOneKeys().isEmpty)
        #expect(try store.integrityCheck() == ["ok"])
        let connection = store.connection
        try connection.execute("UPDATE ZPAGE SET ZBOOK = 999 WHERE Z_PK = 3")
        let entityColumn = try #require(try connection.columnNames(of: "ZPAGE").last)
        try connection.execute("UPDATE ZPAGE SET \(entityColumn) = 3 WHERE Z_PK = 4")
        try connection.execute("UPDATE ZBOOK SET ZAUTHOR = 7 WHERE Z_PK = 2")
        let found = try store.danglingToOneKeys().map(\.description).sorted()
        #expect(
            found == [
                "GraphicNovel 2 .author → Author 7: no such row in ZAUTHOR",
                "Page 3 .book → Book 999: no such row in ZBOOK",
                "Page 4 .book → Book 1: the key's entity number is 3 but the row is a Book",
            ])
    }
}
