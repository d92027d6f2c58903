import Foundation
import OpenInMemoryStore
import OpenPredicate
import OpenSQLStore
import OpenSQLiteStore
import OpenStoreCore
import TestSupport
import Testing

/// A key-path column of a dictionary fetch.
func column(_ keyPath: String, _ kind: AttributeKind? = nil, name: String? = nil) -> DictionaryShape.Column {
    DictionaryShape.Column(name: name ?? keyPath, expression: NSExpression(forKeyPath: keyPath), resultKind: kind)
}

/// An aggregate column: `function(keyPath)`.
func aggregate(_ name: String, _ function: String, _ keyPath: String, _ kind: AttributeKind?) -> DictionaryShape.Column {
    DictionaryShape.Column(
        name: name, expression: NSExpression(forFunction: function, arguments: [NSExpression(forKeyPath: keyPath)]),
        resultKind: kind)
}

/// The evaluated object as a column (an expression description without an expression).
func selfColumn(_ name: String) -> DictionaryShape.Column {
    DictionaryShape.Column(name: name, expression: NSExpression.expressionForEvaluatedObject(), resultKind: nil)
}

/// The SQL of dictionary fetches: text and bound values as separate facts.
@Suite struct SQLCompilerDictionaryTests {
    static let people: Set<Int> = [Company.person, Company.manager]

    func plan(
        _ shape: DictionaryShape, _ format: String? = nil, sort: [NSSortDescriptor] = [], limit: Int = 0, offset: Int = 0
    ) -> FetchPlan {
        FetchPlan(
            entityID: Company.person, entityIDs: Self.people, predicate: format.map { NSPredicate(format: $0) },
            sortDescriptors: sort, limit: limit, offset: offset, output: .dictionaries(shape))
    }

    func compile(_ plan: FetchPlan) throws -> SQLDictionaryQuery? {
        guard case .dictionaries(let shape) = plan.output else { return nil }
        switch SQLCompiler(layout: try Company.layout()).compile(plan, shape: shape) {
        case .compiled(let query): return query
        case .notCompilable(let reason), .unsupported(let reason):
            Issue.record("not compilable: \(reason)")
            return nil
        }
    }

    /// Apple's SQL-store limits refuse dictionary fetches too, instead of running them in memory.
    @Test func appleLimitsAreUnsupportedForDictionaries() throws {
        let shape = DictionaryShape(columns: [column("name", .string)])
        var sorted = plan(shape, "age > 30")
        sorted.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true) { _, _ in .orderedSame }]
        var blocked = plan(shape, "age > 30")
        blocked.predicate = NSPredicate { _, _ in true }
        for plan in [sorted, blocked] {
            guard case .unsupported(let reason) = SQLCompiler(layout: try Company.layout()).compile(plan, shape: shape) else {
                Issue.record("\(plan.predicate?.description ?? "") was not refused as unsupported")
                continue
            }
            #expect(reason.contains("comparator") || reason.contains("block"), "\(reason)")
        }
    }

    func reason(_ plan: FetchPlan) throws -> String? {
        guard case .dictionaries(let shape) = plan.output,
            case .notCompilable(let reason) = SQLCompiler(layout: try Company.layout()).compile(plan, shape: shape)
        else { return nil }
        return reason
    }

    @Test func rowDictionariesSelectColumnsThroughJoins() throws {
        let shape = DictionaryShape(columns: [
            column("name", .string), column("department.title", .string), column("department"), selfColumn("object"),
        ])
        let query = try #require(try compile(plan(shape, "age > 30", sort: [by("age")], limit: 5, offset: 2)))
        #expect(
            query.query.sql
                == "SELECT t0.ZNAME, t1.ZTITLE, t0.ZDEPARTMENT, t0.Z_PK, t0.Z_ENT FROM ZPERSON t0"
                + " LEFT JOIN ZDEPARTMENT t1 ON t1.Z_PK = t0.ZDEPARTMENT WHERE t0.ZAGE > ? ORDER BY t0.ZAGE, t0.Z_PK"
                + " LIMIT ? OFFSET ?")
        #expect(query.query.arguments == [.integer(30), .integer(5), .integer(2)])
        #expect(
            query.columns.map(\.reader) == [
                .value(0, .string), .value(1, .string), .object(2, entityColumn: nil, entityID: Company.department),
                .object(3, entityColumn: 4, entityID: Company.person),
            ])
        #expect(query.columns.map(\.name) == ["name", "department.title", "department", "object"])
    }

    @Test func groupedAggregatesWithHavingAndSort() throws {
        let shape = DictionaryShape(
            columns: [
                column("department.title", .string), aggregate("total", "sum:", "salary", .decimal),
                aggregate("mean", "average:", "age", .double), aggregate("n", "count:", "name", .integer64),
                aggregate("first", "min:", "born", .date),
            ],
            groupBy: [column("department.title", .string)], having: NSPredicate(format: "n > 2 AND total >= 10.5"))
        let query = try #require(
            try compile(plan(shape, "active == YES", sort: [NSSortDescriptor(key: "total", ascending: false)], limit: 3)))
        #expect(
            query.query.sql
                == "SELECT t1.ZTITLE, ocd_decimal_sum(t0.ZSALARY), AVG(t0.ZAGE), COUNT(t0.ZNAME), MIN(t0.ZBORN)"
                + " FROM ZPERSON t0 LEFT JOIN ZDEPARTMENT t1 ON t1.Z_PK = t0.ZDEPARTMENT WHERE t0.ZACTIVE = ?"
                + " GROUP BY t1.ZTITLE HAVING (COUNT(t0.ZNAME) > ? AND CAST(ocd_decimal_sum(t0.ZSALARY) AS REAL) >= ?)"
                + " ORDER BY CAST(ocd_decimal_sum(t0.ZSALARY) AS REAL) DESC, MIN(t0.Z_PK) LIMIT ? OFFSET ?")
        #expect(query.query.arguments == [.integer(1), .integer(2), .double(10.5), .integer(3), .integer(0)])
        #expect(
            query.columns.map(\.reader) == [
                .value(0, .string), .value(1, .decimal), .value(2, .double), .value(3, .integer64), .value(4, .date),
            ])
    }

    @Test func aggregatesWithoutGroupingFilterTheirOneRowOutside() throws {
        let shape = DictionaryShape(
            columns: [aggregate("n", "count:", "name", .integer64), aggregate("top", "max:", "age", nil)],
            having: NSPredicate(format: "n > 3"))
        let query = try #require(try compile(plan(shape, "age > 10")))
        #expect(
            query.query.sql
                == "SELECT c0, c1 FROM (SELECT COUNT(t0.ZNAME) AS c0, MAX(t0.ZAGE) AS c1 FROM ZPERSON t0 WHERE t0.ZAGE > ?)"
                + " WHERE c0 > ?")
        #expect(query.query.arguments == [.integer(10), .integer(3)])
    }

    @Test func distinctGroupsEveryColumnInFirstSortedOrder() throws {
        let shape = DictionaryShape(columns: [column("department.title"), column("active")], distinct: true)
        let sorted = try #require(try compile(plan(shape, sort: [by("name", false)], limit: 2)))
        #expect(
            sorted.query.sql
                == "SELECT c0, c1 FROM (SELECT t1.ZTITLE AS c0, t0.ZACTIVE AS c1,"
                + " ROW_NUMBER() OVER (ORDER BY t0.ZNAME DESC, t0.Z_PK) AS ocd_position FROM ZPERSON t0"
                + " LEFT JOIN ZDEPARTMENT t1 ON t1.Z_PK = t0.ZDEPARTMENT) GROUP BY c0, c1 ORDER BY MIN(ocd_position)"
                + " LIMIT ? OFFSET ?")
        #expect(sorted.query.arguments == [.integer(2), .integer(0)])
        let unsorted = try #require(try compile(plan(shape)))
        #expect(unsorted.query.sql.contains("t0.Z_PK AS ocd_position"))
        #expect(unsorted.query.arguments.isEmpty)
    }

    @Test func distinctGroupsKeepTheFirstOfEqualGroupsThenSort() throws {
        let shape = DictionaryShape(
            columns: [aggregate("n", "count:", "name", nil)], groupBy: [column("age")], having: NSPredicate(format: "n > 1"),
            distinct: true)
        let query = try #require(try compile(plan(shape, "active == NO", sort: [by("n", false)])))
        #expect(
            query.query.sql
                == "SELECT c0 FROM (SELECT COUNT(t0.ZNAME) AS c0, MIN(t0.Z_PK) AS ocd_position FROM ZPERSON t0"
                + " WHERE t0.ZACTIVE = ? GROUP BY t0.ZAGE HAVING COUNT(t0.ZNAME) > ?) GROUP BY c0"
                + " ORDER BY c0 DESC, MIN(ocd_position)")
        #expect(query.query.arguments == [.integer(0), .integer(1)])
    }

    @Test func rowHavingJoinsTheWhereClause() throws {
        let shape = DictionaryShape(
            columns: [column("name"), column("age", .double, name: "years")], having: NSPredicate(format: "years < 20.5"))
        let query = try #require(try compile(plan(shape, "name != nil")))
        #expect(
            query.query.sql
                == "SELECT t0.ZNAME, t0.ZAGE FROM ZPERSON t0 WHERE t0.ZNAME IS NOT NULL AND t0.ZAGE < ? ORDER BY t0.Z_PK")
        #expect(query.query.arguments == [.double(20.5)])
    }

    /// (shape, a part the reason must name).
    static let refused: [(DictionaryShape, String)] = [
        (
            DictionaryShape(columns: [
                DictionaryShape.Column(name: "x", expression: NSExpression(format: "age * 2"), resultKind: nil)
            ]), "age * 2"
        ),
        (DictionaryShape(columns: [aggregate("m", "median:", "age", nil)]), "median:"),
        (
            DictionaryShape(columns: [column("name"), aggregate("n", "count:", "name", nil)], groupBy: [column("age")]),
            "neither grouped"
        ),
        (DictionaryShape(columns: [column("department.people")]), "to-many"),
        (DictionaryShape(columns: [aggregate("s", "sum:", "name", nil)]), "sum:"),
        (DictionaryShape(columns: [column("ratio", .integer64)], distinct: true), "ratio"),
        (DictionaryShape(columns: [column("age")], groupBy: [column("ratio", .integer16)]), "ratio"),
        (DictionaryShape(columns: [column("age")], having: NSPredicate(format: "name == 'x'")), "name"),
        (DictionaryShape(columns: [column("age")], having: NSPredicate(format: "ANY age > 1")), "ANY"),
        (
            DictionaryShape(
                columns: [aggregate("m", "average:", "ratio", .integer64)], groupBy: [column("age")], distinct: true),
            "distinct results with the column m"
        ),
    ]

    @Test(arguments: refused.indices)
    func refusedPartsAreNamed(_ index: Int) throws {
        let (shape, part) = Self.refused[index]
        let reason = try #require(try reason(plan(shape)))
        #expect(reason.contains(part), "\(reason)")
    }

    @Test func groupSortsMustNameResultColumns() throws {
        let shape = DictionaryShape(columns: [aggregate("n", "count:", "name", nil)], groupBy: [column("age")])
        let reason = try #require(try reason(plan(shape, sort: [by("salary")])))
        #expect(reason.contains("salary"))
    }
}

func by(_ key: String, _ ascending: Bool = true) -> NSSortDescriptor {
    NSSortDescriptor(key: key, ascending: ascending)
}
