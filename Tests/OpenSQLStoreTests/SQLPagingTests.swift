import Foundation
import OpenInMemoryStore
import OpenPredicate
import OpenSQLStore
import OpenSQLiteStore
import OpenStoreCore
import TestSupport
import Testing

/// Paged fetches (`PagingRowStore`, keyset pagination): the SQL of a page, and pages that add up
/// to the plan's rows in its order in both stores.
@Suite struct SQLPagingTests {
    static let people: Set<Int> = [Company.person, Company.manager]

    @Test func aPageAfterAPositionIsOneSelect() throws {
        var plan = FetchPlan(
            entityID: Company.person, entityIDs: [Company.manager], predicate: NSPredicate(format: "age > 30"),
            sortDescriptors: [
                NSSortDescriptor(key: "age", ascending: false),
                NSSortDescriptor(key: "name", ascending: true, selector: "caseInsensitiveCompare:"),
            ])
        plan.limit = 100
        let position = FetchPosition(sortValues: [.integer(40), .null], primaryKey: 7)
        guard case .compiled(let query) = SQLCompiler(layout: try Company.layout()).compilePage(plan, after: position) else {
            Issue.record("not compiled")
            return
        }
        #expect(query.sql.hasPrefix("SELECT t0.Z_PK, t0.Z_ENT, t0.Z_OPT, "))
        #expect(
            query.sql.hasSuffix(
                ", t0.ZAGE, ocd_fold(t0.ZNAME, 1) FROM ZPERSON t0 WHERE t0.Z_ENT IN (?) AND t0.ZAGE > ? AND "
                    + "(t0.ZAGE <= ? OR t0.ZAGE IS NULL) AND "
                    + "((t0.ZAGE < ? OR t0.ZAGE IS NULL) OR (t0.ZAGE = ? AND "
                    + "(ocd_fold(t0.ZNAME, 1) IS NOT NULL OR (ocd_fold(t0.ZNAME, 1) IS NULL AND t0.Z_PK > ?))))"
                    + " ORDER BY t0.ZAGE DESC, ocd_fold(t0.ZNAME, 1), t0.Z_PK LIMIT ? OFFSET ?"), "\(query.sql)")
        #expect(
            query.arguments == [
                .integer(3), .integer(30), .integer(40), .integer(40), .integer(40), .integer(7), .integer(100), .integer(0),
            ])
    }

    /// Sorts over names with NULLs, accents and case, in every selector, and ties: the pages
    /// of each store, at several sizes, are the SQLite store's whole fetch in order.
    @Test(arguments: [
        [NSSortDescriptor(key: "name", ascending: true)],
        [NSSortDescriptor(key: "name", ascending: false, selector: "caseInsensitiveCompare:")],
        [NSSortDescriptor(key: "name", ascending: true, selector: "localizedStandardCompare:")],
        [NSSortDescriptor(key: "name", ascending: false, selector: "localizedCaseInsensitiveCompare:")],
        [NSSortDescriptor(key: "department.title", ascending: true), NSSortDescriptor(key: "age", ascending: false)],
        [NSSortDescriptor(key: "salary", ascending: true), NSSortDescriptor(key: "born", ascending: false)],
        [NSSortDescriptor(key: "active", ascending: false)],
        [],
    ])
    func pagesAddUpToTheFetch(_ sorts: [NSSortDescriptor]) throws {
        let folder = try TemporaryFolder()
        let (sqlite, memory) = try Company.stores(in: folder)
        var plan = FetchPlan(
            entityID: Company.person, entityIDs: Self.people, predicate: NSPredicate(format: "age != 3"),
            sortDescriptors: sorts, output: .keys)
        guard case .keys(let expected) = try sqlite.execute(plan) else {
            Issue.record("no keys")
            return
        }
        #expect(expected.count > 10)
        for store in [sqlite, memory] as [PagingRowStore] {
            for size in [1, 3, expected.count, expected.count + 1] {
                plan.limit = size
                var keys: [ObjectKey] = []
                var position: FetchPosition?
                repeat {
                    let page = try store.page(of: plan, after: position)
                    #expect(page.rows.count <= size)
                    keys += page.rows.map(\.key)
                    position = page.end
                } while position != nil && keys.count <= expected.count
                #expect(keys == expected, "\(type(of: store)), pages of \(size), \(sorts.map(\.description))")
            }
        }
    }
}
