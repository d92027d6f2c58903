import Dispatch
import OpenInMemoryStore
import OpenPredicate
import OpenStoreCore
import TestSupport
import Testing

@Suite("In-memory store: saves, primary keys, rows by key")
struct SavingTests {
    let fixture: StoreFixture

    init() throws { fixture = try StoreFixture() }

    private static func employee(_ pk: Int64, _ name: String, values count: Int = 7) -> RowSnapshot {
        let values: [StoreValue] = [.string(name), .string("New"), .decimal(1), .date(day(1)), .integer(1), .null, .null]
        return RowSnapshot(key: StoreFixture.employee(pk), version: 1, values: Array(values.prefix(count)))
    }

    private static let circle7 = RowSnapshot(
        key: ObjectKey(entityID: Schema.circle, primaryKey: 7), version: 1, values: [.string("c7"), .integer(0), .double(1)])

    /// Each batch holds something valid and one culprit: the save must fail naming the culprit
    /// and change nothing.
    static let failingBatches: [(String, [RowSnapshot], [RowSnapshot], [ObjectKey], String)] = [
        ("duplicate insert", [employee(7, "Eve"), employee(3, "Again")], [], [],
            "Can't insert 2/p3 (Employee): primary key 3 is already used by 2/p3"),
        ("same key twice", [employee(7, "Eve"), employee(7, "Eve")], [], [],
            "Primary key 7 of 2/p7 (Employee) appears more than once in one save"),
        ("same primary key, two entities of one hierarchy", [circle7,
            RowSnapshot(key: ObjectKey(entityID: Schema.line, primaryKey: 7), version: 1, values: [.null, .null, .null])], [], [],
            "Primary key 7 of 5/p7 (Line) appears more than once in one save"),
        ("insert over another entity's key in the hierarchy", [
            RowSnapshot(key: ObjectKey(entityID: Schema.line, primaryKey: 1), version: 1, values: [.null, .null, .null])], [], [],
            "Can't insert 5/p1 (Line): primary key 1 is already used by 4/p1"),
        ("unknown update", [employee(7, "Eve")], [employee(1, "Ada2"), employee(9, "Ghost")], [],
            "Can't update 2/p9 (Employee): no such row"),
        ("update with another entity's key", [], [
            RowSnapshot(key: ObjectKey(entityID: Schema.line, primaryKey: 1), version: 2, values: [.null, .null, .null])], [],
            "Can't update 5/p1 (Line): no such row"),
        ("unknown delete", [employee(7, "Eve")], [], [StoreFixture.employee(2), StoreFixture.employee(99)],
            "Can't delete 2/p99 (Employee): no such row"),
        ("update and delete of one row", [], [employee(2, "Alan2")], [StoreFixture.employee(2)],
            "Primary key 2 of 2/p2 (Employee) appears more than once in one save"),
        ("wrong value count", [employee(7, "Eve"), employee(8, "Short", values: 6)], [], [],
            "Row 2/p8 (Employee) has 6 values; Employee has 7 properties"),
        ("wrong value type", [employee(7, "Eve")], [
            RowSnapshot(key: StoreFixture.employee(1), version: 2,
                values: [.string("Ada"), .string("L"), .string("lots"), .date(day(1)), .integer(1), .null, .null])], [],
            "Row 2/p1 (Employee) has string(\"lots\") for salary, which can't hold it"),
        ("relationship to the wrong entity", [
            RowSnapshot(key: StoreFixture.employee(7), version: 1,
                values: [.string("Eve"), .null, .null, .null, .null, .null, .object(StoreFixture.employee(1))])], [], [],
            "Row 2/p7 (Employee) has object(2/p1) for department, which can't hold it"),
        ("abstract entity", [RowSnapshot(key: ObjectKey(entityID: Schema.graphic, primaryKey: 9), version: 1, values: [.null, .null])],
            [], [], "Can't insert 3/p9: Graphic is abstract"),
        ("unknown entity", [RowSnapshot(key: ObjectKey(entityID: 42, primaryKey: 1), version: 1, values: [])], [], [],
            "No entity numbered 42 for object 42/p1"),
        ("primary key 0", [employee(0, "Zero")], [], [], "Can't insert 2/p0 (Employee): primary keys start at 1"),
    ]

    @Test("a failing save changes nothing", arguments: failingBatches)
    func atomicity(name: String, inserted: [RowSnapshot], updated: [RowSnapshot], deleted: [ObjectKey], message: String) throws {
        let before = try everything()
        do {
            try fixture.store.apply(inserted: inserted, updated: updated, deleted: deleted)
            Issue.record("expected \(name) to fail")
        } catch let error as NSError {
            #expect(error.domain == NSCocoaErrorDomain)
            #expect(error.code == 134_030)
            #expect(error.localizedDescription == message)
        }
        let after = try everything()
        #expect(after.map(\.key) == before.map(\.key))
        #expect(after.map(\.values) == before.map(\.values))
    }

    /// Every row of the store, in table and insertion order.
    private func everything() throws -> [RowSnapshot] {
        var rows: [RowSnapshot] = []
        for entity in [Schema.department, Schema.employee, Schema.graphic] {
            var plan = StoreFixture.plan(entity)
            plan.output = .rows
            if case .rows(let found) = try fixture.store.execute(plan) { rows += found }
        }
        return rows
    }

    @Test func aSaveInsertsUpdatesAndDeletesInOneGo() throws {
        var ada = try #require(try fixture.store.row(for: StoreFixture.employee(1)))
        ada.values[2] = .decimal(200)
        ada.version = 2
        try fixture.store.apply(
            inserted: [Self.employee(7, "Eve")], updated: [ada], deleted: [StoreFixture.employee(2), StoreFixture.employee(4)])
        // Updated rows keep their place; new rows come last.
        #expect(try fixture.names(StoreFixture.plan(Schema.employee)) == ["Ada", "Grace", "Carol", "Dave", "Eve"])
        #expect(try fixture.names(StoreFixture.plan(Schema.employee, "salary >= 200")) == ["Ada"])
        #expect(try fixture.store.row(for: StoreFixture.employee(1))?.version == 2)
        #expect(try fixture.store.row(for: StoreFixture.employee(2)) == nil)
    }

    @Test func rowsByKey() throws {
        let row = try #require(try fixture.store.row(for: StoreFixture.employee(5)))
        #expect(row.values[0] == .string("Carol") && row.values[6] == .object(StoreFixture.department(2)))
        // Primary key 1 of the graphics table is a Circle: no Line, no TextArea has it.
        #expect(try fixture.store.row(for: ObjectKey(entityID: Schema.circle, primaryKey: 1))?.values[0] == .string("file10"))
        #expect(try fixture.store.row(for: ObjectKey(entityID: Schema.line, primaryKey: 1)) == nil)
        #expect(try fixture.store.row(for: ObjectKey(entityID: Schema.graphic, primaryKey: 1)) == nil)
        #expect(try fixture.store.row(for: ObjectKey(entityID: 77, primaryKey: 1)) == nil)
        #expect(try fixture.store.row(for: StoreFixture.employee(60)) == nil)
    }

    @Test func primaryKeysCountPerHierarchyAndAreNeverReused() throws {
        let store = InMemoryRowStore(schema: Schema.schema)
        #expect(try store.newPrimaryKeys(forEntity: Schema.circle, count: 2) == [1, 2])
        // Line and TextArea share Circle's table (root Graphic), so they share its counter.
        #expect(try store.newPrimaryKeys(forEntity: Schema.line, count: 1) == [3])
        #expect(try store.newPrimaryKeys(forEntity: Schema.graphic, count: 2) == [4, 5])
        #expect(try store.newPrimaryKeys(forEntity: Schema.employee, count: 3) == [1, 2, 3])
        #expect(try store.newPrimaryKeys(forEntity: Schema.department, count: 0) == [])
        #expect(try store.newPrimaryKeys(forEntity: Schema.department, count: 1) == [1])
        // A row saved with a higher key than handed out moves the counter past it.
        try store.apply(inserted: [Self.employee(10, "Ten")], updated: [], deleted: [])
        #expect(try store.newPrimaryKeys(forEntity: Schema.employee, count: 1) == [11])
        // Deleting the highest row does not give its key out again.
        try store.apply(inserted: [], updated: [], deleted: [StoreFixture.employee(10)])
        #expect(try store.newPrimaryKeys(forEntity: Schema.employee, count: 1) == [12])
        #expect(throws: NSError.self) { try store.newPrimaryKeys(forEntity: 0, count: 1) }
    }

    @Test func manyDeletesKeepOrderAndPositions() throws {
        let store = InMemoryRowStore(schema: Schema.schema)
        let keys = try store.newPrimaryKeys(forEntity: Schema.employee, count: 200)
        try store.apply(inserted: keys.map { Self.employee($0, "e\($0)") }, updated: [], deleted: [])
        // Delete all but every tenth, in two saves (the second squeezes the holes out).
        let doomed = keys.filter { $0 % 10 != 0 }
        try store.apply(inserted: [], updated: [], deleted: doomed.prefix(100).map(StoreFixture.employee))
        try store.apply(inserted: [], updated: [], deleted: doomed.dropFirst(100).map(StoreFixture.employee))
        try store.apply(inserted: [Self.employee(500, "last")], updated: [], deleted: [])
        let plan = FetchPlan(entityID: Schema.employee, entityIDs: [Schema.employee], output: .keys)
        guard case .keys(let left) = try store.execute(plan) else { return }
        #expect(left == (keys.filter { $0 % 10 == 0 } + [500]).map(StoreFixture.employee))
        #expect(try store.row(for: StoreFixture.employee(150))?.values[0] == .string("e150"))
        #expect(try store.row(for: StoreFixture.employee(151)) == nil)
    }

    @Test func concurrentFetchesAndSaves() throws {
        let store = fixture.store
        let keys = try store.newPrimaryKeys(forEntity: Schema.employee, count: 400)
        let failures = Counter()
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for index in 0..<50 {
                let pk = keys[worker * 50 + index]
                do {
                    try store.apply(inserted: [Self.employee(pk, "w\(worker)")], updated: [], deleted: [])
                    let plan = StoreFixture.plan(Schema.employee, "firstName == %@", ["w\(worker)"], output: .count)
                    guard case .count(let count) = try store.execute(plan), count == index + 1 else {
                        failures.add()
                        continue
                    }
                } catch {
                    failures.add()
                }
            }
        }
        #expect(failures.value == 0)
        #expect(try fixture.count(StoreFixture.plan(Schema.employee)) == 406)
    }
}

/// A thread-safe counter for the concurrency test.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func add() { lock.lock(); count += 1; lock.unlock() }
    var value: Int { lock.lock(); defer { lock.unlock() }; return count }
}
