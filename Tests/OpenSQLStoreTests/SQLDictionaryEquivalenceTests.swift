import Foundation
import OpenInMemoryStore
import OpenPredicate
import OpenSQLStore
import OpenSQLiteStore
import OpenStoreCore
import TestSupport
import Testing

/// The same dictionary plan through both stores: the SQL store's dictionaries (compiled to SQL,
/// `compiled` asserts it) equal the in-memory store's exactly — keys, value cases, order.
func expectSameDictionaries(
    _ sqlite: SQLiteRowStore, _ memory: InMemoryRowStore, _ plan: FetchPlan, compiled: Bool = true, label: String
) throws {
    guard case .dictionaries(let shape) = plan.output else { return }
    if compiled, case .notCompilable(let reason) = SQLCompiler(layout: sqlite.file.layout).compile(plan, shape: shape) {
        Issue.record("\(label) not compiled: \(reason)")
    }
    guard case .dictionaries(let expected) = try memory.execute(plan), case .dictionaries(let actual) = try sqlite.execute(plan)
    else {
        Issue.record("\(label): not dictionaries")
        return
    }
    #expect(actual == expected, "\(label)")
}

/// Dictionary fetches compiled to SQL answer as the in-memory store does, on the company rows
/// (NULLs in every column, a sub-entity, people without a department).
@Suite struct SQLDictionaryEquivalenceTests {
    static let cases: [(String, DictionaryShape, [NSSortDescriptor])] = [
        (
            "every kind, through a to-one",
            DictionaryShape(columns: [
                column("name", .string), column("age", .integer32), column("department"), column("department.title", .string),
                column("salary", .decimal), column("born", .date), column("active", .boolean), column("uid", .uuid),
                column("ratio", .double), selfColumn("me"),
            ]), [by("age"), by("name", false)]
        ),
        (
            "result kinds converted",
            DictionaryShape(columns: [
                column("age", .double, name: "a"), column("ratio", .integer64, name: "r"),
                column("active", .integer16, name: "b"),
                column("salary", .double, name: "s"), column("age", .decimal, name: "d"),
            ]), []
        ),
        ("distinct one column", DictionaryShape(columns: [column("age", .integer32)], distinct: true), []),
        ("distinct sorted", DictionaryShape(columns: [column("age", .integer32)], distinct: true), [by("age", false)]),
        (
            "distinct pairs sorted by another key",
            DictionaryShape(columns: [column("department.title"), column("active")], distinct: true), [by("name", false)]
        ),
        ("distinct objects", DictionaryShape(columns: [column("department")], distinct: true), [by("born")]),
        (
            "row having",
            DictionaryShape(
                columns: [column("name"), column("age", .double, name: "years")],
                having: NSPredicate(format: "years < 20.5 OR NOT (name BEGINSWITH[c] 'a')")), [by("ratio")]
        ),
        (
            "grouped by a to-one path",
            DictionaryShape(
                columns: [
                    column("department.title", .string), aggregate("total", "sum:", "salary", .decimal),
                    aggregate("mean", "average:", "age", .double), aggregate("first", "min:", "born", .date),
                    aggregate("last", "max:", "name", nil), aggregate("n", "count:", "name", .integer64),
                    aggregate("ratios", "sum:", "ratio", nil), aggregate("ages", "sum:", "age", nil),
                    aggregate("meanSalary", "average:", "salary", nil), aggregate("yes", "sum:", "active", nil),
                    aggregate("lowest", "min:", "salary", nil), aggregate("anyActive", "max:", "active", nil),
                ],
                groupBy: [column("department.title", .string)]), []
        ),
        (
            "grouped by a to-one, having on it",
            DictionaryShape(
                columns: [column("department"), aggregate("payroll", "sum:", "salary", .double)],
                groupBy: [column("department")],
                having: NSPredicate(format: "department == %@ OR department == nil", Company.departmentKey(1))),
            [by("payroll", false)]
        ),
        (
            "grouped by what is not a column, sorted",
            DictionaryShape(columns: [aggregate("total", "sum:", "salary", .decimal)], groupBy: [column("age")]),
            [by("total", false)]
        ),
        (
            "grouped by two, having, two sorts",
            DictionaryShape(
                columns: [
                    column("department.title"), column("active"), aggregate("n", "count:", "self", .integer64),
                    aggregate("people", "count:", "department", nil),
                ],
                groupBy: [column("department.title"), column("active")],
                having: NSPredicate(format: "n > 1 AND NOT (active == NO)")),
            [NSSortDescriptor(key: "department.title", ascending: false, selector: "caseInsensitiveCompare:"), by("n")]
        ),
        (
            "aggregates without grouping",
            DictionaryShape(columns: [
                aggregate("total", "sum:", "salary", .decimal), aggregate("n", "count:", "name", .integer64),
                aggregate("latest", "max:", "born", .date), aggregate("mean", "average:", "ratio", .float),
            ]), []
        ),
        (
            "aggregates without grouping, having",
            DictionaryShape(
                columns: [aggregate("n", "count:", "name", .integer64), aggregate("top", "max:", "age", nil)],
                having: NSPredicate(format: "n > 5 AND top != nil")), []
        ),
        (
            "distinct groups",
            DictionaryShape(
                columns: [aggregate("n", "count:", "name", nil), aggregate("on", "max:", "active", nil)],
                groupBy: [column("age")], distinct: true), []
        ),
        (
            "distinct groups, having, sorted",
            DictionaryShape(
                columns: [aggregate("n", "count:", "name", .double), column("department.title", name: "dept")],
                groupBy: [column("age"), column("department.title")], having: NSPredicate(format: "n < 3"), distinct: true),
            [by("dept", false), by("n")]
        ),
        (
            "having over NULL aggregates",
            DictionaryShape(
                columns: [column("born"), aggregate("total", "sum:", "salary", .decimal)], groupBy: [column("born")],
                having: NSPredicate(format: "NOT (total > 50) OR total == nil")),
            [by("born", false)]
        ),
        (
            // `department.title` reads its column, not a key of the `department` column's object.
            "grouped by a to-one and a key path through it",
            DictionaryShape(
                columns: [column("department.title", .string), column("department"), aggregate("n", "count:", "age", nil)],
                groupBy: [column("department.title"), column("department")],
                having: NSPredicate(format: "department != nil AND department.title BEGINSWITH[c] 's'")),
            [by("department.title", false)]
        ),
        (
            "group column named otherwise",
            DictionaryShape(
                columns: [column("department.title", name: "dept"), aggregate("n", "count:", "age", nil)],
                groupBy: [column("department.title")], having: NSPredicate(format: "dept != 'Sales'")),
            [by("dept")]
        ),
    ]

    static let predicates: [String?] = [nil, "age > 10", "age > 1000", "department.title BEGINSWITH[cd] 'se'"]
    static let windows: [(limit: Int, offset: Int)] = [(0, 0), (2, 1), (0, 3), (1, 100)]

    @Test(arguments: cases.indices)
    func sameDictionaries(_ index: Int) throws {
        let (label, shape, sort) = Self.cases[index]
        let folder = try TemporaryFolder()
        let (sqlite, memory) = try Company.stores(in: folder)
        for family: Set<Int> in [[Company.person, Company.manager], [Company.person]] {
            for format in Self.predicates {
                for window in Self.windows {
                    let plan = FetchPlan(
                        entityID: Company.person, entityIDs: family, predicate: format.map { NSPredicate(format: $0) },
                        sortDescriptors: sort, limit: window.limit, offset: window.offset, output: .dictionaries(shape))
                    try expectSameDictionaries(
                        sqlite, memory, plan, label: "\(label) \(family.count) \(format ?? "all") \(window)")
                }
            }
        }
    }

    @Test func managersOnlyGroupedByLevel() throws {
        let folder = try TemporaryFolder()
        let (sqlite, memory) = try Company.stores(in: folder)
        let shape = DictionaryShape(
            columns: [column("level"), aggregate("n", "count:", "self", nil), aggregate("me", "min:", "age", .integer16)],
            groupBy: [column("level")])
        let plan = FetchPlan(
            entityID: Company.manager, entityIDs: [Company.manager], sortDescriptors: [by("level", false)],
            output: .dictionaries(shape))
        try expectSameDictionaries(sqlite, memory, plan, label: "levels")
        guard case .dictionaries(let results) = try sqlite.execute(plan) else { return }
        #expect(results.map { $0["level"] } == [.integer(2), .integer(1), .integer(0), nil])
    }

    /// Refused shapes still answer, in memory, as the in-memory store does.
    @Test func refusedShapesFallBack() throws {
        let folder = try TemporaryFolder()
        let (sqlite, memory) = try Company.stores(in: folder)
        for (shape, part) in SQLCompilerDictionaryTests.refused where !part.contains("to-many") {
            let plan = FetchPlan(
                entityID: Company.person, entityIDs: [Company.person, Company.manager], output: .dictionaries(shape))
            if (try? memory.execute(plan)) == nil { continue }  // a shape memory refuses too
            try expectSameDictionaries(sqlite, memory, plan, compiled: false, label: part)
        }
    }

    /// Decimals are added as decimals: 0.1 + 0.2 is 0.3, where SQL's SUM of doubles gives
    /// 0.30000000000000004.
    @Test func decimalSumsAreExact() throws {
        let folder = try TemporaryFolder()
        let sqlite = try SQLiteRowStore.open(
            at: folder.file("Decimals.sqlite"), schema: Company.schema, readOnly: false, modelVersionHashes: [:])
        let memory = InMemoryRowStore(schema: Company.schema)
        let salaries = ["0.1", "0.2", "0.7", "1e-3"]
        let rows = salaries.enumerated().map { index, salary in
            RowSnapshot(
                key: Company.personKey(index, manager: false), version: 1,
                values: [
                    .null, .null, .null, .null, .null, .decimal(Decimal(string: salary) ?? 0), .null, .null, .objects([]),
                ])
        }
        try sqlite.apply(inserted: rows, updated: [], deleted: [])
        try memory.apply(inserted: rows, updated: [], deleted: [])
        let shape = DictionaryShape(columns: [
            aggregate("total", "sum:", "salary", nil), aggregate("mean", "average:", "salary", nil),
        ])
        for format in ["age == nil", "salary < 0.25", "salary > 5"] {
            let plan = FetchPlan(
                entityID: Company.person, entityIDs: [Company.person], predicate: NSPredicate(format: format),
                output: .dictionaries(shape))
            try expectSameDictionaries(sqlite, memory, plan, label: format)
        }
        let plan = FetchPlan(
            entityID: Company.person, entityIDs: [Company.person], predicate: NSPredicate(format: "salary < 0.25"),
            output: .dictionaries(shape))
        guard case .dictionaries(let results) = try sqlite.execute(plan) else { return }
        #expect(
            results == [
                ["total": .decimal(Decimal(string: "0.301") ?? 0), "mean": .decimal((Decimal(string: "0.301") ?? 0) / 3)]
            ])
    }
}

/// Objects whose entity has sub-entities: a page's book is a Book or a GraphicNovel, read from
/// the `Z<n>_BOOK` column (and `self` from `Z_ENT`), in columns, groups and distinct results.
@Suite struct SQLDictionaryObjectColumnTests {
    /// 2 authors, 3 books and 2 graphic novels (one without an author), 12 pages (two without a book).
    static func rows() -> [RowSnapshot] {
        let authors = (1...2).map { ObjectKey(entityID: Library.author, primaryKey: Int64($0)) }
        let books = (1...5).map { ObjectKey(entityID: $0 > 3 ? Library.graphicNovel : Library.book, primaryKey: Int64($0)) }
        let pages = (1...12).map { ObjectKey(entityID: Library.page, primaryKey: Int64($0)) }
        let authorOf: [Int?] = [0, 1, 0, nil, 1]
        func bookOf(_ page: Int) -> Int? { page >= 10 ? nil : (page * 3) % 5 }
        var rows: [RowSnapshot] = authors.enumerated().map { index, key in
            let written = books.indices.filter { authorOf[$0] == index }.map { books[$0] }
            return RowSnapshot(key: key, version: 1, values: [.string("Author \(index)"), .objects(written)])
        }
        for (index, key) in books.enumerated() {
            var values: [StoreValue] = [
                .null, .decimal(Decimal(10 + index * 5) / 4), .null,
                .string(["Dune", "Emma", "Ulysses", "Maus", "Persepolis"][index]),
                .null, .null, authorOf[index].map { .object(authors[$0]) } ?? .null,
                .objects(pages.indices.filter { bookOf($0) == index }.map { pages[$0] }), .objects([]),
            ]
            if key.entityID == Library.graphicNovel { values.append(.bool(index == 4)) }
            rows.append(RowSnapshot(key: key, version: 1, values: values))
        }
        for (index, key) in pages.enumerated() {
            rows.append(
                RowSnapshot(
                    key: key, version: 1,
                    values: [.integer(Int64(index % 4)), bookOf(index).map { .object(books[$0]) } ?? .null]))
        }
        return rows
    }

    static let cases: [(String, Int, Set<Int>, DictionaryShape, [NSSortDescriptor])] = [
        (
            "pages with their book", Library.page, [Library.page],
            DictionaryShape(columns: [column("number"), column("book"), column("book.title"), column("book.author.name")]),
            [by("number", false)]
        ),
        (
            "pages grouped by book", Library.page, [Library.page],
            DictionaryShape(
                columns: [column("book"), aggregate("n", "count:", "number", nil), aggregate("top", "max:", "number", nil)],
                groupBy: [column("book")], having: NSPredicate(format: "n > 1")),
            [by("n", false)]
        ),
        (
            "distinct books of pages", Library.page, [Library.page],
            DictionaryShape(columns: [column("book")], distinct: true), [by("number")]
        ),
        (
            "books and novels themselves", Library.book, [Library.book, Library.graphicNovel],
            DictionaryShape(columns: [selfColumn("book"), column("title"), column("price", .double), column("author")]),
            [by("price", false)]
        ),
        (
            "prices by author", Library.book, [Library.book, Library.graphicNovel],
            DictionaryShape(
                columns: [
                    column("author.name"), aggregate("total", "sum:", "price", nil), aggregate("n", "count:", "self", nil),
                ],
                groupBy: [column("author.name")]),
            []
        ),
    ]

    @Test(arguments: cases.indices)
    func sameDictionaries(_ index: Int) throws {
        let (label, entity, family, shape, sort) = Self.cases[index]
        let folder = try TemporaryFolder()
        let sqlite = try SQLiteRowStore.open(
            at: folder.file("Library.sqlite"), schema: Library.schema, readOnly: false, modelVersionHashes: [:])
        let memory = InMemoryRowStore(schema: Library.schema)
        let rows = Self.rows()
        try sqlite.apply(inserted: rows, updated: [], deleted: [])
        try memory.apply(inserted: rows, updated: [], deleted: [])
        for window in [(0, 0), (2, 1)] {
            let plan = FetchPlan(
                entityID: entity, entityIDs: family, sortDescriptors: sort, limit: window.0, offset: window.1,
                output: .dictionaries(shape))
            try expectSameDictionaries(sqlite, memory, plan, label: "\(label) \(window)")
        }
        let plan = FetchPlan(entityID: entity, entityIDs: family, sortDescriptors: sort, output: .dictionaries(shape))
        guard case .dictionaries(let results) = try sqlite.execute(plan) else { return }
        // Some results hold graphic novels: their entity came from the Z_ENT columns.
        let entities = Set(
            results.flatMap {
                $0.values.compactMap { value -> Int? in
                    if case .object(let key) = value { key.entityID } else { nil }
                }
            })
        if shape.columns.contains(where: { $0.name == "book" }) { #expect(entities.contains(Library.graphicNovel), "\(label)") }
    }
}
