import Foundation
import OpenInMemoryStore
import OpenSQLStore
import OpenSQLiteStore
import OpenStoreCore
import TestSupport
import Testing

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
            (
                FetchPlan(entityID: Library.tag, entityIDs: [Library.tag], predicate: NSPredicate(format: "name == 'tag 2'")),
                [Shelf.tag(2)]
            ),
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
        let layout = try AppleSQLLayout(
            schema: Library.schema, entityNumbers: ["Author": 1, "Book": 2, "GraphicNovel": 3, "Page": 4, "Tag": 5])
        var plan = FetchPlan(
            entityID: Library.page, entityIDs: [Library.page], predicate: NSPredicate(format: "number > 3"), output: .keys)
        guard case .compiled(let keys) = SQLCompiler(layout: layout).compile(plan) else {
            Issue.record("not compiled")
            return
        }
        // Pages have no sub-entities: their number (4) stands for Z_ENT, and SQLite reads the key alone.
        #expect(keys.sql == "SELECT t0.Z_PK FROM ZPAGE t0 WHERE t0.ZNUMBER > ? ORDER BY t0.Z_PK")
        #expect(keys.arguments == [.integer(3)])
        plan.output = .rows
        guard case .compiled(let rows) = SQLCompiler(layout: layout).compile(plan) else {
            Issue.record("not compiled")
            return
        }
        #expect(
            rows.sql
                == "SELECT t0.Z_PK, 4, t0.Z_OPT, t0.Z2_BOOK, t0.ZBOOK, t0.ZNUMBER FROM ZPAGE t0 WHERE t0.ZNUMBER > ? ORDER BY t0.Z_PK"
        )
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
                entityID: Company.person, entityIDs: [Company.person, Company.manager],
                predicate: NSPredicate(format: "age > 20"),
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
