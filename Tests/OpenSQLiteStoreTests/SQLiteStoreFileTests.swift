import Foundation
import OpenSQLStore
import OpenSQLiteStore
import OpenStoreCore
import TestSupport
import Testing

@Suite struct SQLiteStoreFileTests {
    static let hashes = ["Author": Data(repeating: 1, count: 32), "Book": Data(repeating: 2, count: 32)]

    func libraryRows() -> [RowSnapshot] {
        let author = ObjectKey(entityID: Library.author, primaryKey: 1)
        let book = ObjectKey(entityID: Library.book, primaryKey: 1)
        let novel = ObjectKey(entityID: Library.graphicNovel, primaryKey: 2)
        let page1 = ObjectKey(entityID: Library.page, primaryKey: 1)
        let page2 = ObjectKey(entityID: Library.page, primaryKey: 2)
        let tag = ObjectKey(entityID: Library.tag, primaryKey: 1)
        let uuid = UUID(uuidString: "753753D3-A961-4901-AB05-8CC48B1D3853") ?? UUID()
        return [
            RowSnapshot(key: author, version: 1, values: [.string("Pratchett"), .objects([novel, book])]),
            RowSnapshot(
                key: book, version: 2,
                values: [
                    .data(Data([1, 2, 3])), .decimal(Decimal(string: "10.11") ?? 0), .date(Date(timeIntervalSinceReferenceDate: -86_400.5)),
                    .string("Crèpes"), .uuid(uuid), .null, .object(author), .objects([page1]), .objects([tag]),
                ]),
            RowSnapshot(
                key: novel, version: 1,
                values: [
                    .data(Data()), .null, .null, .string("Sandman"), .null, .null, .object(author), .objects([page2]), .objects([tag]),
                    .bool(true),
                ]),
            RowSnapshot(key: page1, version: 1, values: [.integer(1), .object(book)]),
            RowSnapshot(key: page2, version: 1, values: [.integer(-7), .object(novel)]),
            RowSnapshot(key: tag, version: 1, values: [.string("fantasy"), .url(URL(string: "https://example.com/a?b=1") ?? URL(fileURLWithPath: "/")), .objects([book, novel])]),
        ]
    }

    @Test func writtenRowsReadBackEqual() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("Library.sqlite")
        let store = try SQLiteStoreFile.create(at: url, schema: Library.schema, versionHashes: Self.hashes)
        #expect(try store.connection.journalMode() == "wal")
        let rows = libraryRows()
        try store.insert(rows)
        for entity in [Library.author, Library.book, Library.graphicNovel, Library.page, Library.tag] {
            let read = try store.rows(entityIDs: [entity])
            let expected = rows.filter { $0.key.entityID == entity }
            #expect(read.map(\.key) == expected.map(\.key))
            #expect(read.map(\.values) == expected.map(\.values))
            #expect(read.map(\.version) == expected.map(\.version))
        }
        // A family read (Book and GraphicNovel share ZBOOK), in Z_PK order.
        #expect(try store.rows(entityIDs: [Library.book, Library.graphicNovel]).map(\.key.primaryKey) == [1, 2])
        // Z_MAX follows the keys used; reserving continues after them.
        #expect(try store.primaryKeys().map(\.max) == [1, 2, 0, 2, 1])
        #expect(try SQLiteRowStore(file: store, isReadOnly: false).newPrimaryKeys(forEntity: Library.graphicNovel, count: 2) == [3, 4])
        #expect(try store.primaryKeys()[1].max == 4)

        // Reopened read-only: same rows, same metadata.
        let reopened = try SQLiteStoreFile.open(at: url, schema: Library.schema, mode: .readOnly, modelVersionHashes: Self.hashes)
        #expect(try reopened.rows(entityIDs: [Library.author]).first?.values == rows[0].values)
        #expect(reopened.metadata.versionHashes == Self.hashes)
        #expect(reopened.metadata.storeUUID == store.metadata.storeUUID)
        let readOnly = try #require(throws: NSError.self) {
            try reopened.insert([RowSnapshot(key: ObjectKey(entityID: Library.page, primaryKey: 3), version: 1, values: [.integer(3), .null])])
        }
        #expect(readOnly.code == 134_180)
        #expect(readOnly.localizedDescription.contains("readonly"))
    }

    @Test func valuesAreStoredAsAppleStoresThem() throws {
        let folder = try TemporaryFolder()
        let store = try SQLiteStoreFile.create(at: folder.file("Library.sqlite"), schema: Library.schema, versionHashes: [:])
        try store.insert(libraryRows())
        let statement = try store.connection.statement(
            "SELECT typeof(ZPRICE), ZPRICE, typeof(ZPUBLISHED), ZPUBLISHED, typeof(ZUNIQUEID), length(ZUNIQUEID), Z_FOK_AUTHOR, Z_ENT FROM ZBOOK ORDER BY Z_PK")
        #expect(try statement.step())
        #expect(statement.string(at: 0) == "real")
        #expect(statement.double(at: 1) == 10.11)
        #expect(statement.string(at: 2) == "real")
        #expect(statement.double(at: 3) == -86_400.5)
        #expect(statement.string(at: 4) == "blob")
        #expect(statement.int64(at: 5) == 16)
        #expect(statement.int64(at: 6) == 2048)  // the second of the author's ordered books
        #expect(try statement.step())
        #expect(statement.int64(at: 6) == 1024)
        #expect(statement.int64(at: 7) == 3)
        let page = try store.connection.statement("SELECT ZBOOK, Z2_BOOK FROM ZPAGE WHERE Z_PK = 2")
        #expect(try page.step())
        #expect(page.int64(at: 0) == 2)
        #expect(page.int64(at: 1) == 3)  // GraphicNovel's Z_ENT
        #expect(try store.connection.rowCount(table: "Z_2TAGS") == 2)
    }

    @Test func metadataRoundTrip() throws {
        let folder = try TemporaryFolder()
        let store = try SQLiteStoreFile.create(
            at: folder.file("M.sqlite"), schema: Library.schema, versionHashes: Self.hashes, versionIdentifiers: ["2"])
        var metadata = try AppleSQLMetadata.read(from: store.connection)
        #expect(metadata.version == 1)
        #expect(metadata.storeTypeName == "SQLite")
        #expect(metadata.versionHashes == Self.hashes)
        #expect(metadata.versionIdentifiers == ["2"])
        #expect(metadata.versionHashesVersion == 3)
        #expect(metadata.persistenceFrameworkVersion == AppleSQLMetadata.frameworkVersion)
        #expect(metadata.dictionary["_NSAutoVacuumLevel"] as? String == "2")
        let uuid = try #require(metadata.storeUUID)
        let row = try store.connection.statement("SELECT Z_UUID FROM Z_METADATA")
        #expect(try row.step())
        #expect(row.string(at: 0) == uuid)
        metadata.dictionary["userKey"] = "userValue"
        try store.setMetadata(metadata)
        #expect(try AppleSQLMetadata.read(from: store.connection).dictionary["userKey"] as? String == "userValue")
    }

    @Test func mismatchedHashesNameTheEntities() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("H.sqlite")
        _ = try SQLiteStoreFile.create(at: url, schema: Library.schema, versionHashes: Self.hashes)
        let model = ["Author": Data(repeating: 1, count: 32), "Book": Data(repeating: 9, count: 32), "Tag": Data(repeating: 3, count: 32)]
        let error = try #require(throws: NSError.self) {
            try SQLiteStoreFile.open(at: url, schema: Library.schema, mode: .readOnly, modelVersionHashes: model)
        }
        #expect(error.domain == NSCocoaErrorDomain)
        #expect(error.code == 134_100)
        #expect(error.userInfo["entities"] as? [String] == ["Book", "Tag"])
        #expect(error.localizedDescription.contains("Book (changed)"))
        #expect(error.localizedDescription.contains("Tag (only in the model)"))
    }

    @Test func sqlErrorsCarryMessageAndSQL() throws {
        let folder = try TemporaryFolder()
        let connection = try SQLiteConnection(url: folder.file("E.sqlite"), mode: .create)
        let error = try #require(throws: NSError.self) { try connection.statement("SELEC 1") }
        #expect(error.domain == NSCocoaErrorDomain)
        #expect(error.code == 134_180)
        #expect(error.userInfo["SQL"] as? String == "SELEC 1")
        #expect(error.localizedDescription.contains("syntax error"))
        // A failed transaction rolls back.
        try connection.execute("CREATE TABLE T (A INTEGER)")
        #expect(throws: NSError.self) {
            try connection.transaction {
                try connection.run("INSERT INTO T (A) VALUES (?)", [.integer(1)])
                try connection.run("INSERT INTO NOPE (A) VALUES (1)")
            }
        }
        #expect(try connection.rowCount(table: "T") == 0)
        #expect(connection.isAutocommit)
        // Statements are cached by SQL text.
        let count = connection.cachedStatementCount
        _ = try connection.statement("SELECT 1")
        _ = try connection.statement("SELECT 1")
        #expect(connection.cachedStatementCount == count + 1)
    }

    @Test func notADatabaseIsAnErrorNamingTheFile() throws {
        let folder = try TemporaryFolder()
        let text = folder.file("Text.sqlite")
        try Data("this is not a database, just some text that is long enough to be a header...".utf8).write(to: text)
        let error = try #require(throws: NSError.self) { try SQLiteStoreFile.open(at: text, schema: Library.schema, mode: .readOnly) }
        #expect(error.code == 134_080)
        #expect(error.localizedDescription.contains(text.path))
        #expect(error.localizedDescription.contains("not a SQLite database"))

        let missing = try #require(throws: NSError.self) {
            try SQLiteStoreFile.open(at: folder.file("Missing.sqlite"), schema: Library.schema, mode: .readOnly)
        }
        #expect(missing.code == 134_080)
    }

    @Test func corruptDatabaseIsAnError() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("Corrupt.sqlite")
        do {
            let store = try SQLiteStoreFile.create(at: url, schema: Library.schema, versionHashes: Self.hashes)
            try store.insert(libraryRows())
            try store.connection.execute("PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode = DELETE")
        }
        var bytes = try Data(contentsOf: url)
        #expect(bytes.count > 4096)
        // Keep the header, scribble over the rest of the first page and all later pages.
        for index in 100..<bytes.count { bytes[index] = UInt8(truncatingIfNeeded: index &* 31) }
        try bytes.write(to: url)
        #expect(throws: NSError.self) {
            let store = try SQLiteStoreFile.open(at: url, schema: Library.schema, mode: .readOnly)
            _ = try store.rows(entityIDs: [Library.book])
        }
    }

    @Test func sqliteWithoutCoreDataTablesIsInvalidType() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("Plain.sqlite")
        do { try SQLiteConnection(url: url, mode: .create).execute("CREATE TABLE person (name TEXT)") }
        let error = try #require(throws: NSError.self) { try SQLiteStoreFile.open(at: url, schema: Library.schema, mode: .readOnly) }
        #expect(error.code == 134_000)
        #expect(error.localizedDescription.contains("Z_METADATA"))
    }
}
