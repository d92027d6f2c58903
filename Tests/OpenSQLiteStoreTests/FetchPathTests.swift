import Foundation
import OpenInMemoryStore
import OpenSQLiteStore
import OpenStoreCore
import TestSupport
import Testing

/// A library with every kind of relationship: ordered to-many (authors' books, in an order that
/// is not `Z_PK` order), to-many by inverse (books' pages), many-to-many (books and tags), a
/// sub-entity (graphic novels) and a transient slot.
enum Shelf {
    static func author(_ n: Int64) -> ObjectKey { ObjectKey(entityID: Library.author, primaryKey: n) }
    static func book(_ n: Int64) -> ObjectKey { ObjectKey(entityID: n % 3 == 0 ? Library.graphicNovel : Library.book, primaryKey: n) }
    static func page(_ n: Int64) -> ObjectKey { ObjectKey(entityID: Library.page, primaryKey: n) }
    static func tag(_ n: Int64) -> ObjectKey { ObjectKey(entityID: Library.tag, primaryKey: n) }

    /// Books 1…8 (every third a graphic novel); author 1 wrote 5, 2, 7 in that order, author 2
    /// wrote 8, 1, author 3 none; book n has pages 2n-1 and 2n, except book 4 has none; tag 1 is
    /// on every odd book, tag 2 on books 2 and 3, tag 3 on none.
    static let authorBooks: [[Int64]] = [[5, 2, 7], [8, 1], []]

    static func rows() -> [RowSnapshot] {
        var rows: [RowSnapshot] = []
        for (index, books) in authorBooks.enumerated() {
            rows.append(RowSnapshot(key: author(Int64(index + 1)), version: 1, values: [.string("Author \(index + 1)"), .objects(books.map(book))]))
        }
        let tags: [Int64: [Int64]] = [1: [1, 3, 5, 7], 2: [2, 3], 3: []]
        for n in Int64(1)...8 {
            let writer = authorBooks.firstIndex { $0.contains(n) }.map { StoreValue.object(author(Int64($0 + 1))) } ?? .null
            let pages: [ObjectKey] = n == 4 ? [] : [page(2 * n - 1), page(2 * n)]
            let tagged = tags.keys.sorted().filter { tags[$0]?.contains(n) ?? false }.map(tag)
            var values: [StoreValue] = [
                .data(Data([UInt8(n)])), .decimal(Decimal(n) + Decimal(string: "0.25")!), .date(Date(timeIntervalSinceReferenceDate: Double(n) * 1000)),
                .string("Book \(n)"), .uuid(UUID(uuidString: "00000000-0000-0000-0000-00000000000\(n)")!), .null, writer, .objects(pages),
                .objects(tagged),
            ]
            if n % 3 == 0 { values.append(.bool(n == 3)) }
            rows.append(RowSnapshot(key: book(n), version: 1, values: values))
        }
        for n in Int64(1)...16 where !(7...8).contains(n) {
            rows.append(RowSnapshot(key: page(n), version: 1, values: [.integer(n), .object(book((n + 1) / 2))]))
        }
        for n in Int64(1)...3 {
            rows.append(
                RowSnapshot(
                    key: tag(n), version: 1,
                    values: [.string("tag \(n)"), .null, .objects(tags[n, default: []].map(book))]))
        }
        return rows
    }

    static func store(in folder: TemporaryFolder) throws -> SQLiteRowStore {
        let store = try SQLiteRowStore.open(at: folder.file("Shelf.sqlite"), schema: Library.schema, readOnly: false, modelVersionHashes: [:])
        try store.apply(inserted: rows(), updated: [], deleted: [])
        return store
    }
}

@Suite struct FetchPathTests {
    func expected(_ keys: [ObjectKey]) -> [[StoreValue]] {
        let rows = Dictionary(uniqueKeysWithValues: Shelf.rows().map { ($0.key, $0.values) })
        return keys.map { rows[$0] ?? [] }
    }

    /// Rows come from the compiled statement with every value right, to-many ones included
    /// (ordered ones in their order, others by `Z_PK`), for a window of owners.
    @Test func compiledRowsCarryEveryValue() throws {
        let folder = try TemporaryFolder()
        let store = try Shelf.store(in: folder)
        let books: Set<Int> = [Library.book, Library.graphicNovel]
        let plans: [(FetchPlan, [ObjectKey])] = [
            (FetchPlan(entityID: Library.author, entityIDs: [Library.author]), (1...3).map(Shelf.author)),
            (
                FetchPlan(
                    entityID: Library.book, entityIDs: books, predicate: NSPredicate(format: "title != 'Book 4'"),
                    sortDescriptors: [NSSortDescriptor(key: "title", ascending: false)], limit: 3, offset: 1),
                [7, 6, 5].map(Shelf.book)
            ),
            (FetchPlan(entityID: Library.graphicNovel, entityIDs: [Library.graphicNovel]), [3, 6].map(Shelf.book)),
            (FetchPlan(entityID: Library.tag, entityIDs: [Library.tag], predicate: NSPredicate(format: "name == 'tag 2'")), [Shelf.tag(2)]),
            (FetchPlan(entityID: Library.page, entityIDs: [Library.page], limit: 2), [1, 2].map(Shelf.page)),
        ]
        for (plan, keys) in plans {
            guard case .compiled = SQLCompiler(layout: store.file.layout).compile(plan) else {
                Issue.record("\(plan.entityID) did not compile")
                continue
            }
            guard case .rows(let rows) = try store.execute(plan) else {
                Issue.record("not rows")
                continue
            }
            #expect(rows.map(\.key) == keys)
            #expect(store.leavesToManyUnloaded(rows))
            #expect(try store.withMembers(rows).map(\.values) == expected(keys))
        }
    }

    /// Rows by key (batches, prefetching, faults) read only the owners asked for, with the same
    /// values.
    @Test func rowsByKeyCarryEveryValue() throws {
        let folder = try TemporaryFolder()
        let store = try Shelf.store(in: folder)
        let keys = [Shelf.book(8), Shelf.author(1), Shelf.book(3), Shelf.tag(3), Shelf.page(9), Shelf.book(4)]
        let rows = try store.rows(for: keys)
        #expect(rows.map(\.key) == keys)
        #expect(store.leavesToManyUnloaded(rows))
        #expect(try store.withMembers(rows).map(\.values) == expected(keys))
        #expect(try store.rows(for: [ObjectKey(entityID: Library.book, primaryKey: 99)]).isEmpty)
    }

    /// Keys of one table in `Z_PK` order (a batch window) read in one pass: same rows, same
    /// order, a key naming the wrong entity of the table left out.
    @Test func rowsByAscendingKeysOfOneTable() throws {
        let folder = try TemporaryFolder()
        let store = try Shelf.store(in: folder)
        let keys = [Shelf.book(1), Shelf.book(2), Shelf.book(3), Shelf.book(5), Shelf.book(8)]
        let rows = try store.rows(for: keys)
        #expect(rows.map(\.key) == keys)
        #expect(try store.withMembers(rows).map(\.values) == expected(keys))
        let wrongEntity = ObjectKey(entityID: Library.book, primaryKey: 3)  // book 3 is a graphic novel
        #expect(try store.rows(for: [Shelf.book(2), wrongEntity, Shelf.book(4)]).map(\.key) == [Shelf.book(2), Shelf.book(4)])
    }

    /// Keys select object IDs only; rows select the key, `Z_ENT`, `Z_OPT` and every column.
    @Test func selectListFollowsTheOutput() throws {
        let layout = try SQLiteLayout(
            schema: Library.schema, entityNumbers: ["Author": 1, "Book": 2, "GraphicNovel": 3, "Page": 4, "Tag": 5])
        var plan = FetchPlan(entityID: Library.page, entityIDs: [Library.page], predicate: NSPredicate(format: "number > 3"), output: .keys)
        guard case .compiled(let keys) = SQLCompiler(layout: layout).compile(plan) else {
            Issue.record("not compiled")
            return
        }
        #expect(keys.sql == "SELECT t0.Z_PK, t0.Z_ENT FROM ZPAGE t0 WHERE t0.ZNUMBER > ? ORDER BY t0.Z_PK")
        #expect(keys.arguments == [.integer(3)])
        plan.output = .rows
        guard case .compiled(let rows) = SQLCompiler(layout: layout).compile(plan) else {
            Issue.record("not compiled")
            return
        }
        #expect(rows.sql == "SELECT t0.Z_PK, t0.Z_ENT, t0.Z_OPT, t0.ZNUMBER, t0.ZBOOK, t0.Z2_BOOK FROM ZPAGE t0 WHERE t0.ZNUMBER > ? ORDER BY t0.Z_PK")
        #expect(rows.arguments == [.integer(3)])
    }

    /// Running a plan again reuses its prepared statements.
    @Test func statementsAreCached() throws {
        let folder = try TemporaryFolder()
        let store = try Shelf.store(in: folder)
        let plan = FetchPlan(entityID: Library.author, entityIDs: [Library.author], predicate: NSPredicate(format: "name != 'x'"))
        _ = try store.execute(plan)
        let count = store.file.connection.cachedStatementCount
        for _ in 0..<3 { _ = try store.execute(plan) }
        _ = try store.rows(for: [Shelf.author(2)])
        let afterRowsByKey = store.file.connection.cachedStatementCount
        _ = try store.rows(for: [Shelf.author(1), Shelf.author(3)])
        #expect(store.file.connection.cachedStatementCount == afterRowsByKey)
        #expect(afterRowsByKey <= count + 2)
    }

    /// The cache keeps the statements prepared last, and a statement dropped from it still runs.
    @Test func statementCacheIsBounded() throws {
        let folder = try TemporaryFolder()
        let connection = try SQLiteConnection(url: folder.file("Cache.sqlite"), mode: .create)
        let first = try connection.statement("SELECT 0")
        for index in 1...SQLiteConnection.statementCacheLimit + 10 {
            _ = try connection.statement("SELECT \(index)")
        }
        #expect(connection.cachedStatementCount == SQLiteConnection.statementCacheLimit)
        #expect(try first.step() && first.int64(at: 0) == 0)
        first.reset()
        let again = try connection.statement("SELECT 0")
        #expect(again !== first)
        #expect(try again.step() && again.int64(at: 0) == 0)
        again.reset()
    }

    /// The company rows compiled and in memory agree value for value.
    @Test func rowsAgreeWithTheInMemoryStore() throws {
        let folder = try TemporaryFolder()
        let (sqlite, memory) = try Company.stores(in: folder)
        let plans = [
            FetchPlan(entityID: Company.department, entityIDs: [Company.department]),
            FetchPlan(
                entityID: Company.person, entityIDs: [Company.person, Company.manager], predicate: NSPredicate(format: "age > 20"),
                sortDescriptors: [NSSortDescriptor(key: "name", ascending: true)], limit: 10),
            FetchPlan(entityID: Company.manager, entityIDs: [Company.manager]),
        ]
        for plan in plans {
            guard case .rows(let expected) = try memory.execute(plan), case .rows(let actual) = try sqlite.execute(plan) else {
                Issue.record("not rows")
                continue
            }
            #expect(actual.map(\.key) == expected.map(\.key))
            #expect(sqlite.leavesToManyUnloaded(actual))
            #expect(try sqlite.withMembers(actual).map(\.values) == expected.map(\.values))
        }
    }
}
