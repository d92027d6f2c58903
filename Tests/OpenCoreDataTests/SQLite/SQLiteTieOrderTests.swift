import Foundation
import OpenCoreData
import OpenSQLStore
import OpenSQLiteStore
import OpenStoreCore
import TestSupport
import Testing

/// Sorted fetches with a limit give rows of equal sort keys in primary-key order on SQLite, as
/// every store does, whether the statement breaks ties itself (`ORDER BY …, t0.Z_PK`) or SQLite's
/// plan is seen to keep that order without it (`SQLiteConnection.statement(for:)`).
@Suite struct SQLiteTieOrderTests {
    static let count = 240
    typealias Store = (coordinator: NSPersistentStoreCoordinator, context: NSManagedObjectContext)

    /// Item: name ("item 0" …), group (0, 1 or 2: many ties), rank (indexed by `byRank`,
    /// falling as the items are inserted, so that its index reads them against key order).
    static func model() -> NSManagedObjectModel {
        let rank = attribute("rank", .integer32AttributeType)
        let item = entity(
            "Item", properties: [attribute("name", .stringAttributeType), attribute("group", .integer16AttributeType), rank])
        item.indexes = [
            NSFetchIndexDescription(
                name: "byRank", elements: [NSFetchIndexElementDescription(property: rank, collationType: .binary)])
        ]
        let model = NSManagedObjectModel()
        model.entities = [item]
        return model
    }

    /// A store of `count` items saved in one save (primary keys in the order of `i`), and a
    /// fresh context on it.
    func store(in folder: TemporaryFolder, options: [AnyHashable: Any]? = nil) throws -> Store {
        let model = Self.model()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil, at: folder.url.appendingPathComponent("Items.sqlite"),
            options: options)
        let writer = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        writer.persistentStoreCoordinator = coordinator
        for i in 0..<Self.count {
            let item = NSManagedObject(entity: model[entity: "Item"], insertInto: writer)
            item.setValue("item \(i)", forKey: "name")
            item.setValue(Int16(i % 3), forKey: "group")
            item.setValue(Int32(Self.count - i), forKey: "rank")
        }
        try writer.save()
        let reader = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        reader.persistentStoreCoordinator = coordinator
        return (coordinator, reader)
    }

    /// By group, then `i` (key order); 30 from the 20th.
    static let expected = Array((0..<count).sorted { ($0 % 3, $0) < ($1 % 3, $1) }.map { "item \($0)" }[20..<50])

    func request<Result: NSFetchRequestResult>(_ format: String? = nil, of _: Result.Type = NSManagedObject.self)
        -> NSFetchRequest<Result>
    {
        let request = NSFetchRequest<Result>(entityName: "Item")
        request.predicate = format.map { NSPredicate(format: $0) }
        request.sortDescriptors = [NSSortDescriptor(key: "group", ascending: true)]
        request.fetchOffset = 20
        request.fetchLimit = 30
        return request
    }

    func names(_ request: NSFetchRequest<NSManagedObject>, in context: NSManagedObjectContext) throws -> [String] {
        try context.performAndWait { try context.fetch(request).map { $0.value(forKey: "name") as? String ?? "" } }
    }

    /// The SQL a request runs as.
    func sql<Result>(_ request: NSFetchRequest<Result>, _ coordinator: NSPersistentStoreCoordinator) throws -> SQLQuery? {
        guard case .sql(let query, _) = try coordinator.explain(request) else { return nil }
        return query
    }

    /// A read-only connection of its own to the store file.
    func connection(in folder: TemporaryFolder) throws -> SQLiteConnection {
        try SQLiteConnection(url: folder.url.appendingPathComponent("Items.sqlite"), mode: .readOnly)
    }

    /// The names `query.sql` gives when run as it is on `connection`.
    func names(running query: SQLQuery, on connection: SQLiteConnection) throws -> [String] {
        let nameAt = try #require(query.sql.range(of: "t0.ZNAME")).lowerBound
        let column = query.sql[..<nameAt].filter { $0 == "," }.count
        let statement = try connection.statement(query.sql)
        try statement.bind(query.arguments)
        var names: [String] = []
        while try statement.step() { names.append(statement.string(at: Int32(column)) ?? "") }
        return names
    }

    /// A scan of the whole table: SQLite's sorter keeps the rows it reads in key order where
    /// their groups tie, so the statement goes without `t0.Z_PK`.
    @Test func aScanInKeyOrderGoesWithoutTheTieBreak() throws {
        let folder = try TemporaryFolder()
        let (coordinator, context) = try store(in: folder)
        #expect(try names(request(), in: context) == Self.expected)
        let query = try #require(try sql(request(), coordinator))
        #expect(query.sql.hasSuffix(" FROM ZITEM t0 ORDER BY t0.ZGROUP LIMIT ? OFFSET ?"), "\(query.sql)")
        // Keys fetched alone and the same sort on a filter that reads the whole table, too.
        let ids = request("name != nil", of: NSManagedObjectID.self)
        ids.resultType = .managedObjectIDResultType
        let idQuery = try #require(try sql(ids, coordinator))
        #expect(idQuery.sql == "SELECT t0.Z_PK FROM ZITEM t0 WHERE t0.ZNAME IS NOT NULL ORDER BY t0.ZGROUP LIMIT ? OFFSET ?")
        let objects = try context.performAndWait {
            try context.fetch(ids).map {
                try context.existingObject(with: $0).value(forKey: "name") as? String ?? ""
            }
        }
        #expect(objects == Self.expected)
    }

    /// Where SQLite reads the rows through an index (here `byRank`, against key order), the
    /// statement keeps `t0.Z_PK`: without it the ties come in the index's order.
    @Test func anIndexedScanKeepsTheTieBreak() throws {
        let folder = try TemporaryFolder()
        let (coordinator, context) = try store(in: folder)
        let indexed = request("rank > 0")
        #expect(try names(indexed, in: context) == Self.expected)
        guard case .sql(let query, let plan) = try coordinator.explain(indexed) else {
            Issue.record("not compiled")
            return
        }
        #expect(plan.contains { $0.contains("byRank") }, "\(plan)")
        #expect(query.sql.hasSuffix(" ORDER BY t0.ZGROUP, t0.Z_PK LIMIT ? OFFSET ?"), "\(query.sql)")
        // The statement without it gives other rows: ties in the index's order, falling keys.
        let untied = SQLQuery(
            sql: query.sql.replacingOccurrences(of: ", t0.Z_PK LIMIT", with: " LIMIT"), arguments: query.arguments)
        let unordered = try names(running: untied, on: try connection(in: folder))
        #expect(unordered.count == Self.expected.count)
        #expect(unordered != Self.expected)
    }

    /// `PRAGMA reverse_unordered_selects` reverses SQLite's scans for statements without
    /// `ORDER BY` alone: a sorted one still goes without `t0.Z_PK`, and its ties stay in key
    /// order.
    @Test func theReversingPragmaLeavesSortedScansInKeyOrder() throws {
        let folder = try TemporaryFolder()
        let (coordinator, context) = try store(
            in: folder, options: [NSSQLitePragmasOption: ["reverse_unordered_selects": "1" as NSString]])
        #expect(try names(request(), in: context) == Self.expected)
        let query = try #require(try sql(request(), coordinator))
        #expect(query.sql.hasSuffix(" ORDER BY t0.ZGROUP LIMIT ? OFFSET ?"), "\(query.sql)")
        // On a connection of its own with the pragma: unsorted, the table is read backwards;
        // the statement as compiled and the one without the tie-break give the same rows.
        let reversing = try connection(in: folder)
        try reversing.execute("PRAGMA reverse_unordered_selects = 1")
        let keys = try reversing.statement("SELECT Z_PK, ZNAME FROM ZITEM")
        #expect(try keys.step() && keys.int64(at: 0) == Int64(Self.count))
        keys.reset()
        let tied = SQLQuery(
            sql: query.sql.replacingOccurrences(of: " LIMIT", with: ", t0.Z_PK LIMIT"), arguments: query.arguments,
            sqlWithoutTieBreak: query.sql)
        #expect(try reversing.statement(for: tied).sql == query.sql)
        #expect(try names(running: tied, on: reversing) == Self.expected)
        #expect(try names(running: query, on: reversing) == Self.expected)
    }

    /// Without a limit (SQLite's other sorter) or a sort, the statement is as compiled.
    @Test func unlimitedSortsAreAsCompiled() throws {
        let folder = try TemporaryFolder()
        let (coordinator, context) = try store(in: folder)
        let unlimited = request()
        unlimited.fetchLimit = 0
        unlimited.fetchOffset = 0
        let all = (0..<Self.count).sorted { ($0 % 3, $0) < ($1 % 3, $1) }.map { "item \($0)" }
        #expect(try names(unlimited, in: context) == all)
        #expect(try sql(unlimited, coordinator)?.sql.hasSuffix(" ORDER BY t0.ZGROUP, t0.Z_PK") == true)
        let unsorted = request()
        unsorted.sortDescriptors = nil
        #expect(try names(unsorted, in: context) == (20..<50).map { "item \($0)" })
        #expect(try sql(unsorted, coordinator)?.sql.hasSuffix(" ORDER BY t0.Z_PK LIMIT ? OFFSET ?") == true)
    }
}
