import OpenInMemoryStore
import OpenPredicate
import OpenStoreCore
import TestSupport
import Testing

/// A key-path column.
private func column(_ keyPath: String, _ kind: AttributeKind? = nil) -> DictionaryShape.Column {
    DictionaryShape.Column(name: keyPath, expression: NSExpression(forKeyPath: keyPath), resultKind: kind)
}

/// An aggregate column: `function(keyPath)`.
private func aggregate(_ name: String, _ function: String, _ keyPath: String, _ kind: AttributeKind?) -> DictionaryShape.Column {
    DictionaryShape.Column(
        name: name, expression: NSExpression(forFunction: function, arguments: [NSExpression(forKeyPath: keyPath)]),
        resultKind: kind)
}

@Suite("In-memory store: dictionary results")
struct DictionaryFetchTests {
    let fixture: StoreFixture

    init() throws { fixture = try StoreFixture() }

    private func plan(
        _ shape: DictionaryShape, _ format: String? = nil, _ arguments: [Any] = [], sort: [NSSortDescriptor] = [],
        limit: Int = 0, offset: Int = 0
    ) -> FetchPlan {
        StoreFixture.plan(
            Schema.employee, format, arguments, sort: sort, limit: limit, offset: offset, output: .dictionaries(shape))
    }

    @Test func oneDictionaryPerRowWithKeyPathsThroughToOne() throws {
        let shape = DictionaryShape(columns: [
            column("firstName", .string), column("department"), column("department.name", .string),
            column("salary", .decimal),
        ])
        let results = try fixture.dictionaries(plan(shape, sort: [by("salary")], limit: 3))
        #expect(results == [
            ["firstName": .string("Dave"), "salary": .decimal(40)],  // no department: no entries for it
            ["firstName": .string("Bob"), "department": .object(StoreFixture.department(2)),
                "department.name": .string("Sales"), "salary": .decimal(60)],
            ["firstName": .string("Carol"), "department": .object(StoreFixture.department(2)),
                "department.name": .string("Sales"), "salary": .decimal(dec("75.25"))],
        ])
    }

    @Test func expressionColumnsAreEvaluatedPerRowAndConverted() throws {
        let shape = DictionaryShape(columns: [
            DictionaryShape.Column(name: "double", expression: NSExpression(format: "salary * 2"), resultKind: .double),
            DictionaryShape.Column(name: "upper", expression: NSExpression(format: "uppercase:(firstName)"), resultKind: nil),
            DictionaryShape.Column(name: "level", expression: NSExpression(forKeyPath: "level"), resultKind: .double),
        ])
        let results = try fixture.dictionaries(plan(shape, "firstName == 'Ada'"))
        #expect(results == [["double": .double(241), "upper": .string("ADA"), "level": .double(3)]])
    }

    @Test func groupedWithAggregatesHavingAndSort() throws {
        let shape = DictionaryShape(
            columns: [
                column("department.name", .string),
                aggregate("total", "sum:", "salary", .decimal),
                aggregate("averageLevel", "average:", "level", .double),
                aggregate("firstHire", "min:", "hireDate", .date),
                aggregate("top", "max:", "salary", nil),
                aggregate("headcount", "count:", "firstName", .integer64),
                aggregate("nicknames", "count:", "nickname", .integer64),
            ],
            groupBy: [column("department.name", .string)])
        let all = try fixture.dictionaries(plan(shape))
        // Groups in the order of their first row; the nil group has no entry for its name.
        #expect(all == [
            ["department.name": .string("Engineering"), "total": .decimal(dec("360.5")), "averageLevel": .double(10.0 / 3.0),
                "firstHire": .date(day(100)), "top": .decimal(130), "headcount": .integer(3), "nicknames": .integer(2)],
            ["department.name": .string("Sales"), "total": .decimal(dec("135.25")), "averageLevel": .double(1.5),
                "firstHire": .date(day(400)), "top": .decimal(dec("75.25")), "headcount": .integer(2), "nicknames": .integer(0)],
            ["total": .decimal(40), "averageLevel": .double(1), "firstHire": .date(day(600)), "top": .decimal(40),
                "headcount": .integer(1), "nicknames": .integer(1)],
        ])

        var filtered = shape
        filtered.having = NSPredicate(format: "headcount > 1")
        let sorted = try fixture.dictionaries(plan(filtered, sort: [by("total")]))
        #expect(sorted.map { $0["department.name"] } == [.string("Sales"), .string("Engineering")])

        // A dotted column name reads as a key path in `having` and in sort descriptors.
        filtered.having = NSPredicate(format: "department.name BEGINSWITH 'E' OR department.name == nil")
        let dotted = try fixture.dictionaries(plan(filtered, sort: [by("department.name", false)]))
        #expect(dotted.map { $0["total"] } == [.decimal(dec("360.5")), .decimal(40)])
    }

    @Test func groupedByAToOneRelationship() throws {
        let shape = DictionaryShape(
            columns: [column("department"), aggregate("payroll", "sum:", "salary", .double)],
            groupBy: [column("department")],
            having: NSPredicate(format: "department == %@", StoreFixture.department(2)))
        #expect(try fixture.dictionaries(plan(shape)) == [["department": .object(StoreFixture.department(2)), "payroll": .double(135.25)]])
    }

    @Test func groupsWithoutTheirColumnWindowLast() throws {
        // Grouped by level, which is not a column; groups in first-row order: 3, 4, 1, 2.
        let shape = DictionaryShape(columns: [aggregate("total", "sum:", "salary", .decimal)], groupBy: [column("level")])
        let totals = try fixture.dictionaries(plan(shape)).map { $0["total"] }
        #expect(totals == [.decimal(dec("230.5")), .decimal(130), .decimal(100), .decimal(dec("75.25"))])
        let window = try fixture.dictionaries(plan(shape, sort: [by("total", false)], limit: 2, offset: 1))
        #expect(window.map { $0["total"] } == [.decimal(130), .decimal(100)])
        let past = try fixture.dictionaries(plan(shape, offset: 4))
        #expect(past.isEmpty)
    }

    @Test func aggregatesWithoutGroupingGiveOneDictionary() throws {
        let shape = DictionaryShape(columns: [
            aggregate("total", "sum:", "salary", .decimal), aggregate("n", "count:", "firstName", .integer64),
            aggregate("latest", "max:", "hireDate", .date), aggregate("median", "median:", "level", .double),
        ])
        #expect(try fixture.dictionaries(plan(shape, "salary > 100")) == [
            ["total": .decimal(dec("360.5")), "n": .integer(3), "latest": .date(day(300)), "median": .double(3)],
        ])
        // No matching rows: one dictionary; count is 0 and the other aggregates are nil (absent).
        #expect(try fixture.dictionaries(plan(shape, "salary > 1000")) == [["n": .integer(0)]])
    }

    @Test func distinctKeepsFirstOccurrencesThenWindows() throws {
        let levels = DictionaryShape(columns: [column("level", .integer32)], distinct: true)
        #expect(try fixture.dictionaries(plan(levels)).map { $0["level"] } == [3, 4, 1, 2].map { .integer($0) })
        let sorted = try fixture.dictionaries(plan(levels, sort: [by("level")], limit: 2, offset: 1))
        #expect(sorted.map { $0["level"] } == [.integer(2), .integer(3)])
        // Without `distinct` the duplicates stay.
        var all = levels
        all.distinct = false
        #expect(try fixture.dictionaries(plan(all)).count == 6)
        // Distinct over two columns, one of them nil for Dave.
        let pairs = DictionaryShape(columns: [column("lastName"), column("department.name")], distinct: true)
        let names = try fixture.dictionaries(plan(pairs, "lastName == 'Smith'"))
        #expect(names == [["lastName": .string("Smith"), "department.name": .string("Sales")], ["lastName": .string("Smith")]])
    }

    @Test func havingWithoutGroupingFiltersRowDictionaries() throws {
        let shape = DictionaryShape(columns: [column("firstName")], having: NSPredicate(format: "firstName ENDSWITH 'a'"))
        #expect(try fixture.dictionaries(plan(shape)).map { $0["firstName"] } == [.string("Ada")])
    }

    @Test func unknownKeysInColumnsAreErrors() throws {
        let shape = DictionaryShape(columns: [column("shoeSize")])
        #expect(throws: NSError.self) { try fixture.dictionaries(plan(shape)) }
    }
}
