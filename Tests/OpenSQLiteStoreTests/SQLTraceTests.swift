import Foundation
import OpenSQLStore
import OpenSQLiteStore
import OpenStoreCore
import TestSupport
import Testing

@Suite struct SQLTraceTests {
    static let sql = "SELECT t0.Z_PK FROM ZPAGE t0 WHERE t0.ZNUMBER > ? ORDER BY t0.Z_PK"

    /// The shelf's pages with a number above 10 (pages 11…16), fetched as keys with the store's
    /// connection traced at `level`; the messages logged.
    func trace(level: Int) throws -> [String] {
        let folder = try TemporaryFolder()
        let store = try Shelf.store(in: folder)
        let capture = LogCapture()
        store.trace = SQLTrace(level: level, logger: capture.logger)
        let plan = FetchPlan(
            entityID: Library.page, entityIDs: [Library.page], predicate: NSPredicate(format: "number > 10"), output: .keys)
        guard case .keys(let keys) = try store.execute(plan) else {
            Issue.record("not keys")
            return []
        }
        #expect(keys.map(\.primaryKey) == [11, 12, 13, 14, 15, 16])
        return capture.messages
    }

    @Test func levelZeroLogsNothing() throws {
        #expect(try trace(level: 0).isEmpty)
    }

    @Test func levelOneLogsTheStatementOnly() throws {
        #expect(try trace(level: 1) == ["sql: " + Self.sql])
    }

    @Test func levelTwoAddsBoundValuesRowsAndTime() throws {
        let messages = try trace(level: 2)
        #expect(messages.count == 3)
        #expect(messages.prefix(2) == ["sql: " + Self.sql, "bind[1] = 10"])
        #expect(messages.last?.hasPrefix("rows: 6 in ") ?? false)
        #expect(messages.last?.hasSuffix(" s") ?? false)
    }

    @Test func levelThreeAddsRows() throws {
        let rows = try trace(level: 3).filter { $0.hasPrefix("row: ") }
        // Page 11 is the page with Z_PK 11 (a table of one entity: its keys alone are selected).
        #expect(rows == (11...16).map { "row: \($0)" })
    }

    @Test func levelFourAddsTheQueryPlan() throws {
        let messages = try trace(level: 4)
        let plan = messages.filter { $0.hasPrefix("plan: ") }
        #expect(!plan.isEmpty)
        #expect(plan.allSatisfy { $0.contains("t0") })
        // The plan comes right after the statement and its values, before the rows.
        #expect(messages.firstIndex { $0.hasPrefix("plan: ") } == 2)
    }

    /// Saves log their transaction and statements too.
    @Test func savesAreTraced() throws {
        let folder = try TemporaryFolder()
        let store = try Shelf.store(in: folder)
        let capture = LogCapture()
        store.trace = SQLTrace(level: 2, logger: capture.logger)
        try store.apply(inserted: [], updated: [], deleted: [Shelf.page(1)])
        let messages = capture.messages
        #expect(messages.first == "sql: BEGIN IMMEDIATE")
        #expect(messages.contains("sql: COMMIT"))
        #expect(messages.contains { $0.hasPrefix("sql: DELETE FROM ZPAGE") })
        #expect(messages.contains("bind[1] = 1"))
    }

    /// An insert's values, bound straight from its rows, are traced as any statement's are: its
    /// key, entity number and version, then its columns.
    @Test func insertsTraceTheirBoundValues() throws {
        let folder = try TemporaryFolder()
        let store = try Shelf.store(in: folder)
        let capture = LogCapture()
        store.trace = SQLTrace(level: 2, logger: capture.logger)
        let page = RowSnapshot(key: Shelf.page(7), version: 1, values: [.integer(70), .object(Shelf.book(4))])
        try store.apply(inserted: [page], updated: [], deleted: [])
        let messages = capture.messages
        let insert = try #require(messages.firstIndex { $0.hasPrefix("sql: INSERT INTO ZPAGE") })
        // The insert's own values: those logged after it, up to the next statement.
        let bound = messages[(insert + 1)...].prefix { !$0.hasPrefix("sql: ") }.filter { $0.hasPrefix("bind[") }
        #expect(bound.count == messages[insert].count { $0 == "?" })
        #expect(bound.first == "bind[1] = 7")
        #expect(bound.contains("bind[3] = 1"))
        #expect(bound.contains { $0.hasSuffix("] = 70") })
        #expect(bound.contains { $0.hasSuffix("] = 4") })
    }

    /// (launch arguments, environment, level).
    static let launchSettings: [([String], [String: String], Int)] = [
        ([], [:], 0),
        (["app", "-com.apple.CoreData.SQLDebug", "3"], [:], 3),
        (["app", "-com.apple.CoreData.SQLDebug", "9"], [:], 4),
        (["app", "-com.apple.CoreData.SQLDebug"], [:], 0),
        (["app", "-com.apple.CoreData.SQLDebug", "x"], ["OPENCOREDATA_SQLDEBUG": "2"], 2),
        (["app"], ["OPENCOREDATA_SQLDEBUG": " 1 "], 1),
        (["app", "-com.apple.CoreData.SQLDebug", "1"], ["OPENCOREDATA_SQLDEBUG": "4"], 1),
        (["app"], ["OPENCOREDATA_SQLDEBUG": "-2"], 0),
    ]

    @Test(arguments: launchSettings.indices)
    func launchSettingsChooseTheLevel(_ index: Int) {
        let (arguments, environment, level) = Self.launchSettings[index]
        #expect(SQLTrace.level(arguments: arguments, environment: environment) == level)
    }

    /// The process-wide setting reaches connections that have none of their own.
    @Test func processWideTrace() throws {
        let folder = try TemporaryFolder()
        let store = try Shelf.store(in: folder)
        let capture = LogCapture()
        SQLTrace.shared = SQLTrace(level: 1, logger: capture.logger)
        defer { SQLTrace.resetToLaunchSettings() }
        _ = try store.execute(
            FetchPlan(entityID: Library.tag, entityIDs: [Library.tag], predicate: NSPredicate(format: "name == 'q'")))
        // A table of one entity: its number in place of `Z_ENT`; its columns from the last.
        #expect(
            capture.messages.contains {
                $0.range(of: #"^sql: SELECT t0\.Z_PK, [0-9]+, t0\.Z_OPT, .*t0\.ZNAME FROM"#, options: .regularExpression) != nil
            })
    }
}
