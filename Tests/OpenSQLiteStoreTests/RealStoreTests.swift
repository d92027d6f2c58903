import Foundation
import OpenSQLStore
import OpenSQLiteStore
import OpenStoreCore
import TestSupport
import Testing

/// The stores Apple's Core Data wrote, in `shared/realworld/stores` (expectations are literals
/// from its README's inventory). Each test copies the store's folder to a temporary folder first
/// (WAL files included) and opens the copy read-only; the shared folder is never written.
@Suite(.enabled(if: RealWorld.hasStores, "../shared/realworld/stores is not beside the package: real-store tests skipped"))
struct RealStoreTests {
    struct Expectation: CustomTestStringConvertible, Sendable {
        let directory: String
        let file: String
        /// (Z_ENT, Z_NAME, Z_SUPER, Z_MAX).
        let primaryKeys: [(Int, String, Int, Int64)]
        /// Rows per entity number, counted by Z_ENT in each root's table.
        let rowCounts: [Int: Int]
        let uuid: String
        let frameworkVersion: Int
        let identifiers: [String]
        /// One entity's hash, first 8 hex digits.
        let hash: (String, String)
        var testDescription: String { "\(directory)/\(file)" }
    }

    static let stores: [Expectation] = [
        Expectation(
            directory: "apple-coredatabooks-modified", file: "CoreDataBooks.sqlite", primaryKeys: [(1, "Book", 0, 24)],
            rowCounts: [1: 12], uuid: "7586DF36-6B0E-45D3-9862-19C40A480696", frameworkVersion: 320, identifiers: [],
            hash: ("Book", "4b2c05cd")),
        Expectation(
            directory: "apple-recipes-2010", file: "Recipes.sqlite",
            primaryKeys: [(1, "Image", 0, 9), (2, "Ingredient", 0, 33), (3, "Recipe", 0, 10), (4, "RecipeType", 0, 5)],
            rowCounts: [1: 7, 2: 31, 3: 7, 4: 5], uuid: "124B4E21-BB5D-4A2F-9882-EC2E73F3A0F4", frameworkVersion: 241,
            identifiers: [], hash: ("Recipe", "3dc49d79")),
        Expectation(
            directory: "apple-recipes-2018", file: "Recipes.sqlite",
            primaryKeys: [(1, "Image", 0, 3), (2, "Ingredient", 0, 19), (3, "Recipe", 0, 3), (4, "RecipeType", 0, 4)],
            rowCounts: [1: 3, 2: 19, 3: 3, 4: 4], uuid: "3A0D0DB2-CDB6-4AB3-91E1-1C5CD8FFBD53", frameworkVersion: 754,
            identifiers: [""], hash: ("Recipe", "3dc49d79")),
        Expectation(
            directory: "coredataplus-samplemodel-v1", file: "SampleModel_V1.sqlite",
            primaryKeys: [(1, "Car", 0, 125), (2, "SportCar", 1, 0), (3, "ExpensiveSportCar", 2, 0), (4, "Person", 0, 20)],
            rowCounts: [1: 115, 2: 5, 3: 5, 4: 20], uuid: "753753D3-A961-4901-AB05-8CC48B1D3853", frameworkVersion: 1044,
            identifiers: ["1"], hash: ("Car", "9e555529")),
        Expectation(
            directory: "coredataplus-samplemodel2-history", file: "SampleModel2_V1.sqlite",
            primaryKeys: [
                (1, "Book", 0, 52), (2, "GraphicNovel", 1, 0), (3, "Feedback", 0, 444), (4, "Page", 0, 4970), (5, "Writer", 0, 2),
                (6, "Author", 5, 0), (16001, "CHANGE", 0, 5468), (16002, "TRANSACTION", 0, 1), (16003, "TRANSACTIONSTRING", 0, 2),
            ],
            rowCounts: [3: 444, 4: 4970], uuid: "C9CB0B35-ED6A-4042-BE5C-1B911AC00B2A", frameworkVersion: 1344, identifiers: [],
            hash: ("GraphicNovel", "a6863b3e")),
        Expectation(
            directory: "easylife-todo", file: "EasyLife_1.5.0.sqlite", primaryKeys: [(1, "Project", 0, 0), (2, "TodoItem", 0, 6)],
            rowCounts: [1: 0, 2: 6], uuid: "F76F1F4C-F2BC-41B5-A4BF-799AB57815F1", frameworkVersion: 849, identifiers: [""],
            hash: ("TodoItem", "685f8e32")),
        Expectation(
            directory: "kodeco-surfjournal-wal", file: "SurfJournalModel.sqlite", primaryKeys: [(1, "JournalEntry", 0, 5000)],
            rowCounts: [1: 5000], uuid: "D246D1F7-4A2D-462D-AE31-1A41C47E7B6C", frameworkVersion: 519, identifiers: [""],
            hash: ("JournalEntry", "4e3ea956")),
        Expectation(
            directory: "restkit-twitter-seed", file: "RKSeedDatabase.sqlite", primaryKeys: [(1, "Tweet", 0, 80), (2, "User", 0, 8)],
            rowCounts: [1: 20, 2: 2], uuid: "97542328-D0AC-4654-B712-8D800DFAD127", frameworkVersion: 419, identifiers: [""],
            hash: ("User", "d25f5c2c")),
        Expectation(
            directory: "wibosco-migration-posts", file: "CoreDataMigration_Example_WAL.sqlite",
            primaryKeys: [(1, "Color", 0, 84), (2, "Post", 0, 84)], rowCounts: [1: 84, 2: 84],
            uuid: "95E4B0A1-CBFB-4257-B10B-EE64F7558656", frameworkVersion: 847, identifiers: [""], hash: ("Post", "d8190164")),
        Expectation(
            directory: "jeffreybergier-elementid-migration", file: "Example_v2.0.0.sqlite", primaryKeys: [(1, "BasicEntity", 0, 1)],
            rowCounts: [1: 1], uuid: "DE0B592C-D61F-4C99-BB1E-4E7310361C36", frameworkVersion: 1048, identifiers: [""],
            hash: ("BasicEntity", "478f06a8")),
    ]

    @Test(arguments: stores)
    func primaryKeysMetadataAndCounts(_ expected: Expectation) throws {
        let folder = try TemporaryFolder()
        let url = try RealWorld.copyStore(expected.directory, into: folder.url).appendingPathComponent(expected.file)
        let connection = try SQLiteConnection(url: url, mode: .readOnly)
        let rows = try AppleSQLPrimaryKeys.read(from: connection)
        #expect(rows == expected.primaryKeys.map { AppleSQLPrimaryKeyRow(entityNumber: $0.0, name: $0.1, superNumber: $0.2, max: $0.3) })

        let metadata = try AppleSQLMetadata.read(from: connection)
        #expect(metadata.version == 1)
        #expect(metadata.storeUUID == expected.uuid)
        #expect(metadata.storeTypeName == "SQLite")
        #expect(metadata.persistenceFrameworkVersion == expected.frameworkVersion)
        #expect(metadata.versionHashesVersion == 3)
        #expect(metadata.versionIdentifiers == expected.identifiers)
        let hash = try #require(metadata.versionHashes[expected.hash.0])
        #expect(hash.count == 32)
        #expect(hash.prefix(4).map { String(format: "%02x", $0) }.joined() == expected.hash.1)

        // Rows per entity: Z_ENT counts in the root's table.
        let names = Dictionary(uniqueKeysWithValues: rows.map { ($0.entityNumber, $0) })
        for (number, count) in expected.rowCounts {
            var root = try #require(names[number])
            while root.superNumber != 0, let parent = names[root.superNumber] { root = parent }
            let statement = try connection.statement("SELECT count(*) FROM Z\(root.name.uppercased()) WHERE Z_ENT = ?")
            try statement.bind([.integer(Int64(number))])
            #expect(try statement.step())
            #expect(Int(statement.int64(at: 0)) == count, "entity \(number)")
        }
    }

    /// SurfJournal's 5000 rows live only in the -wal file.
    @Test func surfJournalRowsComeFromTheWAL() throws {
        let folder = try TemporaryFolder()
        let url = try RealWorld.copyStore("kodeco-surfjournal-wal", into: folder.url)
            .appendingPathComponent("SurfJournalModel.sqlite")
        let schema = makeSchema([
            (
                "JournalEntry", nil, false,
                [
                    attribute("date", .date), attribute("height", .string), attribute("location", .string),
                    attribute("period", .string), attribute("rating", .integer16), attribute("wind", .string),
                ]
            )
        ])
        let store = try SQLiteStoreFile.open(
            at: url, schema: schema, mode: .readOnly,
            modelVersionHashes: ["JournalEntry": Self.hex("4e3ea95632361f4d56a77e070ac74686a20d64aff5e049eb61a3412152eedf07")])
        #expect(try store.connection.journalMode() == "wal")
        #expect(store.layout.tables[0].columns.map(\.name) == ["ZRATING", "ZDATE", "ZHEIGHT", "ZLOCATION", "ZPERIOD", "ZWIND"])
        let rows = try store.rows(entityIDs: [1])
        #expect(rows.count == 5000)
        #expect(rows.map(\.key.primaryKey) == Array(1...5000))
        #expect(rows.allSatisfy { if case .date = $0.values[0] { true } else { false } })
        // The WAL is still there: a read-only connection neither checkpoints nor removes it.
        #expect(FileManager.default.fileExists(atPath: url.path + "-wal"))

        let wrong = try #require(throws: NSError.self) {
            try SQLiteStoreFile.open(at: url, schema: schema, mode: .readOnly, modelVersionHashes: ["JournalEntry": Data(count: 32)])
        }
        #expect(wrong.code == 134_100)
        #expect(wrong.userInfo["entities"] as? [String] == ["JournalEntry"])
    }

    /// SampleModel2: Book > GraphicNovel and Writer > Author in shared tables, `ZPAGE.Z1_BOOK`,
    /// `ZPRICE DECIMAL` stored as REAL; the layout of a hand-lowered schema must name exactly the
    /// real columns, in Apple's order.
    @Test func sampleModel2LayoutMatchesTheRealTables() throws {
        let folder = try TemporaryFolder()
        let url = try RealWorld.copyStore("coredataplus-samplemodel2-history", into: folder.url)
            .appendingPathComponent("SampleModel2_V1.sqlite")
        let schema = makeSchema([
            (
                "Book", nil, false,
                [
                    PropertySchema(name: "author", kind: .toOne(destination: 6, inverse: "books")),
                    attribute("cover", .transformable),
                    PropertySchema(name: "pages", kind: .toMany(destination: 4, inverse: "book", ordered: false)),
                    attribute("pagesCount", .integer64), attribute("price", .decimal), attribute("publishedAt", .date),
                    attribute("title", .string), attribute("uniqueID", .uuid),
                ]
            ),
            ("GraphicNovel", 1, false, [attribute("isBlackAndWhite", .boolean)]),
            (
                "Feedback", nil, false,
                [attribute("authorAlias", .string), attribute("bookID", .uuid), attribute("comment", .string), attribute("rating", .float)]
            ),
            (
                "Page", nil, false,
                [
                    PropertySchema(name: "book", kind: .toOne(destination: 1, inverse: "pages")), attribute("content", .transformable),
                    attribute("isBookmarked", .boolean), attribute("number", .integer32),
                ]
            ),
            ("Writer", nil, true, [attribute("age", .integer16), attribute("alias", .string), attribute("siteURL", .uri)]),
            ("Author", 5, false, [PropertySchema(name: "books", kind: .toMany(destination: 1, inverse: "author", ordered: false))]),
        ])
        let store = try SQLiteStoreFile.open(at: url, schema: schema, mode: .readOnly)
        for table in store.layout.tables {
            let real = try store.connection.columnNames(of: table.name)
            #expect(real == ["Z_PK", "Z_ENT", "Z_OPT"] + table.columns.map(\.name), "\(table.name)")
        }
        let books = try store.rows(entityIDs: [1, 2])
        #expect(books.count == 52)
        #expect(books.first?.values[4] == .decimal(Decimal(string: "10.11") ?? 0))
        let pages = try store.rows(entityIDs: [4])
        #expect(pages.count == 4970)
        // Every page's book key names Book (1) or GraphicNovel (2) from Z1_BOOK.
        let bookEntities = Set(pages.compactMap { if case .object(let key) = $0.values[0] { key.entityID } else { nil } })
        #expect(bookEntities.isSubset(of: [1, 2]) && !bookEntities.isEmpty)
        // To-many from the inverse column: the pages of all books add up.
        let pageCount = books.reduce(0) { total, book in if case .objects(let keys) = book.values[2] { total + keys.count } else { total } }
        #expect(pageCount == pages.filter { $0.values[0] != .null }.count)
        let authors = try store.rows(entityIDs: [6])
        let writerCount = try store.connection.rowCount(table: "ZWRITER")
        #expect(authors.count == writerCount)
    }

    static func hex(_ string: String) -> Data {
        var data = Data()
        var index = string.startIndex
        while index < string.endIndex, let next = string.index(index, offsetBy: 2, limitedBy: string.endIndex) {
            if let byte = UInt8(string[index..<next], radix: 16) { data.append(byte) }
            index = next
        }
        return data
    }
}
