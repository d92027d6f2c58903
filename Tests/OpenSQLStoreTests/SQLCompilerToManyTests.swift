import Foundation
import OpenInMemoryStore
import OpenPredicate
import OpenSQLStore
import OpenSQLiteStore
import OpenStoreCore
import TestSupport
import Testing

/// To-many key paths and comparisons of two key paths, compiled to SQL: the statement text and
/// bound values, and the same answers as the in-memory store.
@Suite struct SQLCompilerToManyTests {
    func compile(_ entityID: Int, _ format: String, _ arguments: [Any] = []) throws -> SQLQuery {
        let plan = FetchPlan(
            entityID: entityID, entityIDs: [entityID], predicate: NSPredicate(format: format, argumentArray: arguments),
            output: .keys)
        switch SQLCompiler(layout: try Company.layout()).compile(plan) {
        case .compiled(let query): return query
        case .notCompilable(let reason), .unsupported(let reason):
            Issue.record("not compilable: \(reason)")
            return SQLQuery(sql: "", arguments: [])
        }
    }

    static let departments = "SELECT t0.Z_PK FROM ZDEPARTMENT t0 WHERE "
    static let people = "SELECT t0.Z_PK, t0.Z_ENT FROM ZPERSON t0"
    static let restriction = "t0.Z_ENT IN (?) AND "
    static let order = " ORDER BY t0.Z_PK"

    /// (entity, predicate, arguments, the WHERE clause after the entity restriction, bound values after it).
    static let whereClauses: [(Int, String, [Any], String, [StoreValue])] = [
        (
            Company.department, "ANY people.name == 'bob'", [],
            "EXISTS (SELECT 1 FROM ZPERSON m1 WHERE m1.ZDEPARTMENT = t0.Z_PK AND m1.ZNAME = ?)", [.string("bob")]
        ),
        (
            Company.department, "ALL people.age > 3", [],
            "NOT EXISTS (SELECT 1 FROM ZPERSON m1 WHERE m1.ZDEPARTMENT = t0.Z_PK AND NOT (COALESCE(m1.ZAGE > ?, 0)))",
            [.integer(3)]
        ),
        (
            Company.department, "NONE people.name BEGINSWITH[c] 'a'", [],
            "NOT (EXISTS (SELECT 1 FROM ZPERSON m1 WHERE m1.ZDEPARTMENT = t0.Z_PK AND "
                + foldedBeginsWith("m1.ZNAME", ranges: 2, flags: 1) + "))",
            foldedBeginsWithValues(["A", "a"], needle: "a", constant: "a")
        ),
        (
            Company.department, "5 < SUBQUERY(people, $p, $p.age > 10).@count", [],
            "(SELECT COUNT(*) FROM ZPERSON m1 WHERE m1.ZDEPARTMENT = t0.Z_PK AND m1.ZAGE > ?) > ?", [.integer(10), .integer(5)]
        ),
        (
            Company.department, "people.@count > 2", [],
            "(SELECT COUNT(*) FROM ZPERSON m1 WHERE m1.ZDEPARTMENT = t0.Z_PK) > ?", [.integer(2)]
        ),
        (
            Company.department, "people.@avg.age >= 20", [],
            "(SELECT AVG(m1.ZAGE) FROM ZPERSON m1 WHERE m1.ZDEPARTMENT = t0.Z_PK) >= ?", [.integer(20)]
        ),
        (
            Company.department, "people.@sum.salary < 100", [],
            "(SELECT COALESCE(SUM(m1.ZSALARY), 0) FROM ZPERSON m1 WHERE m1.ZDEPARTMENT = t0.Z_PK) < ?", [.integer(100)]
        ),
        (
            Company.department, "SUBQUERY(people, $p, $p.age > 10 AND $p.department.title == title).@count == 0", [],
            "(SELECT COUNT(*) FROM ZPERSON m1 LEFT JOIN ZDEPARTMENT m1t1 ON m1t1.Z_PK = m1.ZDEPARTMENT"
                + " WHERE m1.ZDEPARTMENT = t0.Z_PK AND (m1.ZAGE > ? AND m1t1.ZTITLE IS t0.ZTITLE)) = ?",
            [.integer(10), .integer(0)]
        ),
        (
            Company.department, "%@ IN people", [Company.personKey(3, manager: true)],
            "EXISTS (SELECT 1 FROM ZPERSON m1 WHERE m1.ZDEPARTMENT = t0.Z_PK AND (m1.Z_PK IS ? AND m1.Z_ENT IS ?))",
            [.integer(4), .integer(3)]
        ),
        (
            Company.person, "ANY projects.name ==[c] 'APOLLO'", [],
            "EXISTS (SELECT 1 FROM Z_2PROJECTS m1j JOIN ZPROJECT m1 ON m1.Z_PK = m1j.Z_4PROJECTS"
                + " WHERE m1j.Z_2MEMBERS = t0.Z_PK AND ocd_fold(m1.ZNAME, 1) = ?)",
            [.string("apollo")]
        ),
        (
            Company.person, "department.people.@count > 15", [],
            "CASE WHEN t1.Z_PK IS NULL THEN NULL ELSE (SELECT COUNT(*) FROM ZPERSON m1 WHERE m1.ZDEPARTMENT = t1.Z_PK) END > ?",
            [.integer(15)]
        ),
        (Company.person, "projects == nil", [], "0", []),
        (Company.person, "department.people == nil", [], "t1.Z_PK IS NULL", []),
        (Company.person, "ANY department.title == 'Sales'", [], "(t1.ZTITLE IS NOT NULL AND t1.ZTITLE = ?)", [.string("Sales")]),
        (Company.person, "ALL age > 3", [], "(t0.ZAGE IS NULL OR COALESCE(t0.ZAGE > ?, 0))", [.integer(3)]),
        (Company.person, "age == ratio", [], "t0.ZAGE IS t0.ZRATIO", []),
        (Company.person, "age < ratio", [], "t0.ZAGE < t0.ZRATIO", []),
        (Company.person, "age == name", [], "(t0.ZAGE IS NULL AND t0.ZNAME IS NULL)", []),
        (Company.person, "department.title ==[cd] name", [], "ocd_fold(t1.ZTITLE, 3) IS ocd_fold(t0.ZNAME, 3)", []),
        (Company.person, "name IN department.title", [], "ocd_contains(t1.ZTITLE, t0.ZNAME, 0)", []),
        (Company.person, "salary * 2 > age", [], "(t0.ZSALARY * ?) > t0.ZAGE", [.integer(2)]),
        (Company.person, "modulus:by:(age, 7) == 3", [], "(t0.ZAGE % ?) = ?", [.integer(7), .integer(3)]),
        (Company.person, "name.length > 3", [], "ocd_length(t0.ZNAME) > ?", [.integer(3)]),
        (Company.person, "uppercase:(name) == 'BOB'", [], "ocd_uppercase(t0.ZNAME) = ?", [.string("BOB")]),
        (Company.person, "3 < age / 2", [], "(CAST(t0.ZAGE AS REAL) / ?) > ?", [.integer(2), .integer(3)]),
        // A department is never a person: equal only when both are nil.
        (Company.person, "department == self", [], "(t0.ZDEPARTMENT IS NULL AND t0.Z_PK IS NULL)", []),
        (
            Company.person, "ANY department.people == self", [],
            "EXISTS (SELECT 1 FROM ZPERSON m1 WHERE m1.ZDEPARTMENT = t1.Z_PK"
                + " AND (m1.Z_PK IS t0.Z_PK AND (m1.Z_PK IS NULL OR m1.Z_ENT IS t0.Z_ENT)))",
            []
        ),
    ]

    @Test(arguments: whereClauses.indices)
    func whereClause(_ index: Int) throws {
        let (entity, format, arguments, clause, values) = Self.whereClauses[index]
        let query = try compile(entity, format, arguments)
        let join = query.sql.contains("LEFT JOIN ZDEPARTMENT t1") ? " LEFT JOIN ZDEPARTMENT t1 ON t1.Z_PK = t0.ZDEPARTMENT" : ""
        if entity == Company.department {
            #expect(query.sql == Self.departments + clause + Self.order, "\(format)")
            #expect(query.arguments == values, "\(format)")
        } else {
            #expect(query.sql == Self.people + join + " WHERE " + Self.restriction + clause + Self.order, "\(format)")
            #expect(query.arguments == [.integer(2)] + values, "\(format)")
        }
    }

    /// Predicates over to-many relationships and pairs of key paths, by fetched entity.
    static let predicates: [(Int, String, [Any])] = [
        // Departments: one-to-many by inverse, sub-entities among the members, an empty set.
        (Company.department, "ANY people.name == 'bob'", []), (Company.department, "ANY people.name == nil", []),
        (Company.department, "ANY people.name BEGINSWITH[cd] 'crepes'", []), (Company.department, "ALL people.age > 3", []),
        (Company.department, "ALL people.name != nil", []), (Company.department, "NONE people.age > 40", []),
        (Company.department, "NOT (ALL people.active == YES)", []), (Company.department, "ANY people.age BETWEEN {10, 12}", []),
        (Company.department, "ANY people.department.title == 'Sales'", []),
        (Company.department, "people.@count > 5", []), (Company.department, "people.@count == 0", []),
        (Company.department, "NOT (people.@count < 17)", []), (Company.department, "people.@sum.age > 350", []),
        (Company.department, "people.@sum.salary >= 500", []), (Company.department, "people.@avg.age < 24.5", []),
        (Company.department, "people.@avg.ratio == nil", []), (Company.department, "people.@max.name == 'Zoë'", []),
        (Company.department, "people.@min.born > %@", [Date(timeIntervalSinceReferenceDate: 86_400)]),
        (Company.department, "SUBQUERY(people, $p, $p.age > 30 AND $p.name != nil).@count >= 3", []),
        (Company.department, "SUBQUERY(people, $p, ANY $p.projects.name == 'Apollo').@count > 2", []),
        (Company.department, "SUBQUERY(people, $p, $p.department.title == title).@count == people.@count", []),
        (Company.department, "%@ IN people", [Company.personKey(3, manager: true)]),
        (Company.department, "people CONTAINS %@", [Company.personKey(4, manager: false)]),
        (Company.department, "people.name CONTAINS[c] 'BOB'", []), (Company.department, "people.name CONTAINS nil", []),
        (Company.department, "people == nil", []), (Company.department, "people != nil", []),
        (Company.department, "people.name == 'bob'", []), (Company.department, "people.age > 3", []),
        (Company.department, "people IN {nil}", []), (Company.department, "ANY people.name.length > 12", []),
        (Company.department, "people.@max.name.length > 12", []),
        (
            Company.department, "SUBQUERY(people, $p, $p IN %@).@count == 1",
            [[Company.personKey(3, manager: true), Company.personKey(4, manager: false), Company.personKey(3, manager: false)]]
        ),
        (Company.department, "ANY people IN %@", [[Company.personKey(7, manager: true), Company.personKey(8, manager: false)]]),
        (
            Company.department, "SUBQUERY(people, $p, SUBQUERY($p.projects, $x, $x.name == 'Apollo').@count > 0).@count >= 2",
            []
        ),
        (Company.department, "5 < SUBQUERY(people, $p, $p.age > 10).@count", []),
        (Company.department, "SUBQUERY(people, $p, $p.age > 10).@count == people.@count", []),
        // Projects and people: many-to-many through the join table, an empty and a nameless project.
        (Company.project, "ANY members.name ==[c] 'ALICE'", []), (Company.project, "ALL members.age >= 7", []),
        (Company.project, "members.@count == 0", []), (Company.project, "members.@count > 6 AND name != nil", []),
        (Company.project, "ANY members.department.title == 'Research'", []),
        (Company.project, "members.@max.salary > 100", []),
        (Company.person, "ANY projects.name == 'Apollo'", []), (Company.person, "ALL projects.name BEGINSWITH[c] 'a'", []),
        (Company.person, "NONE projects.name == nil", []), (Company.person, "projects.@count == 0", []),
        (Company.person, "projects.@count >= 2", []), (Company.person, "%@ IN projects", [Company.projectKey(1)]),
        (Company.person, "SUBQUERY(projects, $x, $x.name ENDSWITH 'o').@count == 1", []),
        (Company.person, "projects.@count > department.people.@count / 10", []),
        (Company.person, "SUBQUERY(projects, $x, $x.name == nil OR NOT ($x.name BEGINSWITH 'A')).@count > 0", []),
        // Through a to-one first: a missing department gives nil, not an empty set.
        (Company.person, "ANY department.people.name == 'bob'", []),
        (Company.person, "ALL department.people.age > 3", []), (Company.person, "department.people.@count > 15", []),
        (Company.person, "department.people.@count == nil", []), (Company.person, "department.people == nil", []),
        (Company.person, "SUBQUERY(department.people, $p, $p.age > 40).@count == 0", []),
        (Company.person, "age == department.people.@max.age", []), (Company.person, "department.people.@avg.age < age", []),
        (Company.person, "self IN department.people", []), (Company.person, "ANY department.people == self", []),
        (Company.person, "NOT (ANY department.people != self)", []),
        // Single values under ANY/ALL.
        (Company.person, "ANY department.title == 'Sales'", []), (Company.person, "ALL department.title == 'Sales'", []),
        (Company.person, "ANY name == nil", []), (Company.person, "ALL age > 20", []),
        // Two key paths.
        (Company.person, "age == ratio", []), (Company.person, "age != ratio", []), (Company.person, "age < salary", []),
        (Company.person, "NOT (age < salary)", []), (Company.person, "age >= ratio * 1", []),
        (Company.person, "age == name", []), (Company.person, "age != name", []), (Company.person, "name < age", []),
        (Company.person, "department.title == name", []), (Company.person, "department.title ==[cd] name", []),
        (Company.person, "name <[c] department.title", []), (Company.person, "name IN department.title", []),
        (Company.person, "department.title CONTAINS[cd] name", []), (Company.person, "name BEGINSWITH department.title", []),
        (Company.person, "department == self", []), (Company.person, "self != department", []),
        (Company.person, "born == department", []), (Company.person, "active == age", []),
        // Arithmetic.
        (Company.person, "salary * 2 > 100", []), (Company.person, "age + ratio < 10", []),
        (Company.person, "age - 3 == ratio * 4", []), (Company.person, "modulus:by:(age, 7) == 3", []),
        (Company.manager, "modulus:by:(age, level) == 0", []), (Company.person, "age / 4 >= ratio", []),
        (Company.person, "NOT (age * %@ > 10)", [NSNumber(value: 0.5)]), (Company.person, "age * 9223372036854775807 > 0", []),
        (Company.person, "age + nil == nil", []), (Company.person, "age / %@ < 3", [Decimal(string: "2.5") as Any]),
        (Company.department, "people.@sum.age / 2 > people.@count * 10", []),
    ]

    static let sorts: [(Int) -> [NSSortDescriptor]] = [
        { _ in [] },
        { entity in
            [
                NSSortDescriptor(
                    key: entity == Company.person || entity == Company.manager
                        ? "age" : entity == Company.project ? "name" : "title", ascending: false)
            ]
        },
    ]

    @Test(arguments: predicates.indices)
    func sameAnswers(_ index: Int) throws {
        let (entity, format, arguments) = Self.predicates[index]
        let folder = try TemporaryFolder()
        let (sqlite, memory) = try Company.stores(in: folder)
        let layout = try Company.layout()
        let predicate = NSPredicate(format: format, argumentArray: arguments)
        let families: [Set<Int>] = entity == Company.person ? [[Company.person, Company.manager], [Company.person]] : [[entity]]
        for family in families {
            for sort in Self.sorts {
                for window in [(0, 0), (2, 1)] {
                    let plan = FetchPlan(
                        entityID: entity, entityIDs: family, predicate: predicate, sortDescriptors: sort(entity),
                        limit: window.0, offset: window.1, output: .keys)
                    if case .compiled = SQLCompiler(layout: layout).compile(plan) {
                    } else {
                        Issue.record("\(format) not compiled: \(SQLCompiler(layout: layout).compile(plan))")
                        return
                    }
                    try expectSameAnswers(sqlite, memory, plan, label: "\(format) \(family) \(window)")
                }
            }
        }
    }

    /// The data has what the cases need: an empty department and project, a nameless project,
    /// people without department or projects.
    @Test func dataHasEmptySets() throws {
        let folder = try TemporaryFolder()
        let (sqlite, _) = try Company.stores(in: folder)
        func count(_ entity: Int, _ format: String) throws -> Int {
            let plan = FetchPlan(entityID: entity, entityIDs: [entity], predicate: NSPredicate(format: format), output: .count)
            guard case .count(let count) = try sqlite.execute(plan) else { return -1 }
            return count
        }
        #expect(try count(Company.department, "people.@count == 0") == 1)
        #expect(try count(Company.project, "members.@count == 0") == 1)
        #expect(try count(Company.project, "name == nil") == 1)
        #expect(try count(Company.person, "projects.@count == 0") > 0)
        #expect(try count(Company.person, "department == nil AND projects.@count > 0") > 0)
    }
}
