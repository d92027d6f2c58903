import OpenInMemoryStore
import OpenPredicate
import OpenStoreCore
import TestSupport
import Testing

@Suite("In-memory store: sorting")
struct SortTests {
    static let employeeSorts: [([NSSortDescriptor], [String])] = [
        ([by("lastName")], ["Grace", "Carol", "Ada", "Bob", "Dave", "Alan"]),
        // Ties keep insertion order, in both directions.
        ([by("lastName", false)], ["Alan", "Bob", "Dave", "Ada", "Carol", "Grace"]),
        ([by("salary", false)], ["Grace", "Ada", "Alan", "Carol", "Bob", "Dave"]),
        ([by("level"), by("hireDate", false)], ["Dave", "Bob", "Carol", "Alan", "Ada", "Grace"]),
        // nil first ascending, last descending.
        ([by("nickname")], ["Alan", "Bob", "Carol", "Grace", "Ada", "Dave"]),
        ([by("nickname", false)], ["Dave", "Ada", "Grace", "Alan", "Bob", "Carol"]),
        // Through a to-one relationship; an employee without a department sorts as nil.
        ([by("department.name"), by("firstName", false)], ["Dave", "Grace", "Alan", "Ada", "Carol", "Bob"]),
        ([by("department.budget", false), by("salary")], ["Alan", "Ada", "Grace", "Bob", "Carol", "Dave"]),
        ([by("firstName", true, "caseInsensitiveCompare:")], ["Ada", "Alan", "Bob", "Carol", "Dave", "Grace"]),
        // A comparator: by length, ties in insertion order.
        ([NSSortDescriptor(key: "firstName", ascending: true) { a, b in
            let (x, y) = ((a as? String)?.count ?? 0, (b as? String)?.count ?? 0)
            return x < y ? .orderedAscending : (x > y ? .orderedDescending : .orderedSame)
        }], ["Ada", "Bob", "Alan", "Dave", "Grace", "Carol"]),
    ]

    @Test("employees, natively and through sorted(using:)", arguments: employeeSorts.indices, [true, false])
    func employees(_ index: Int, native: Bool) throws {
        let (sort, expected) = Self.employeeSorts[index]
        let fixture = try StoreFixture()
        fixture.store.sortsNatively = native
        #expect(try fixture.names(StoreFixture.plan(Schema.employee, sort: sort)) == expected)
    }

    static let graphicSorts: [([NSSortDescriptor], [String])] = [
        ([by("title")], ["File3", "file1", "file10", "file2"]),
        ([by("title", true, "caseInsensitiveCompare:")], ["file1", "file10", "file2", "File3"]),
        ([by("title", true, "localizedStandardCompare:")], ["file1", "file2", "File3", "file10"]),
        ([by("title", false, "localizedStandardCompare:")], ["file10", "File3", "file2", "file1"]),
        ([by("z")], ["file2", "File3", "file10", "file1"]),
    ]

    @Test("graphics: Apple's string selectors", arguments: graphicSorts.indices, [true, false])
    func graphics(_ index: Int, native: Bool) throws {
        let (sort, expected) = Self.graphicSorts[index]
        let fixture = try StoreFixture()
        fixture.store.sortsNatively = native
        #expect(try fixture.names(StoreFixture.plan(Schema.graphic, sort: sort)) == expected)
    }

    @Test func sortThenOffsetThenLimit() throws {
        let fixture = try StoreFixture()
        let plan = StoreFixture.plan(Schema.employee, "salary > 50", sort: [by("salary", false)], limit: 2, offset: 1)
        #expect(try fixture.names(plan) == ["Ada", "Alan"])
        #expect(try fixture.count(plan) == 2)
    }

    /// Many rows with nils, ties, mixed case, canonically equivalent strings and every sortable
    /// kind: the native path must give exactly the order of OpenPredicate's `sorted(using:)`.
    @Test func nativeSortMatchesSortedUsing() throws {
        let store = InMemoryRowStore(schema: Schema.schema)
        var generator = SplitMix64(seed: 42)
        let departments = try store.newPrimaryKeys(forEntity: Schema.department, count: 4)
        let names = ["b", "B", "a", "é", "e\u{301}", "Zed", "", "a10", "a9"]
        try store.apply(
            inserted: departments.map { pk in
                RowSnapshot(
                    key: StoreFixture.department(pk), version: 1,
                    values: [
                        pk == 4 ? .null : .string(names[Int(pk)]), .decimal(Decimal(Int(pk) % 2) * dec("0.5")), .objects([]),
                    ])
            }, updated: [], deleted: [])
        // Decimals far apart, and some closer than a Double can tell apart.
        let salaries = (0..<20).map { Decimal($0) / 4 } + [
            dec("1.00000000000000000001"), dec("1.00000000000000000002"), dec("0.99999999999999999999"), dec("-3.5"),
        ]
        let keys = try store.newPrimaryKeys(forEntity: Schema.employee, count: 300)
        let rows = keys.map { pk -> RowSnapshot in
            func maybe(_ value: StoreValue) -> StoreValue { generator.next(below: 5) == 0 ? .null : value }
            return RowSnapshot(
                key: StoreFixture.employee(pk), version: 1,
                values: [
                    maybe(.string(names[generator.next(below: names.count)])),
                    .string(names[generator.next(below: names.count)]),
                    maybe(.decimal(salaries[generator.next(below: salaries.count)])),
                    maybe(.date(day(generator.next(below: 10)))),
                    maybe(.integer(Int64(generator.next(below: 7)) - 3)),
                    maybe(.string(names[generator.next(below: names.count)])),
                    maybe(.object(StoreFixture.department(Int64(generator.next(below: 4) + 1)))),
                ])
        }
        try store.apply(inserted: rows, updated: [], deleted: [])
        let sorts: [[NSSortDescriptor]] = [
            [by("firstName")], [by("salary", false)], [by("hireDate"), by("level", false)],
            [by("department.name"), by("nickname", false), by("salary")], [by("department.budget", false), by("lastName")],
            [by("level"), by("firstName", false), by("hireDate")],
        ]
        for sort in sorts {
            let plan = StoreFixture.plan(Schema.employee, "salary != 2 OR level != 0", sort: sort, offset: 3)
            store.sortsNatively = true
            guard case .keys(let native) = try store.execute(plan) else { return }
            store.sortsNatively = false
            guard case .keys(let reference) = try store.execute(plan) else { return }
            #expect(native.count > 200)
            #expect(native == reference, "\(sort)")
        }
    }
}
