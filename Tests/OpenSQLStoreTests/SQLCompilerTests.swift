import Foundation
import OpenInMemoryStore
import OpenPredicate
import OpenSQLStore
import OpenSQLiteStore
import OpenStoreCore
import TestSupport
import Testing

/// A company schema for the compiler:
///
/// - 1 Department: title; people (→ Person, inverse department)
/// - 2 Person: active, age (Int32), born (date), name, ratio (double), salary (decimal), uid
///   (UUID); department (→ Department); projects (many-to-many → Project)
/// - 3 Manager (sub-entity of Person): level (Int16)
/// - 4 Project: name; members (many-to-many → Person, join table `Z_2PROJECTS`)
enum Company {
    static let department = 1, person = 2, manager = 3, project = 4

    static let schema = makeSchema([
        (
            "Department", nil, false,
            [
                attribute("title", .string),
                PropertySchema(name: "people", kind: .toMany(destination: 2, inverse: "department", ordered: false)),
            ]
        ),
        (
            "Person", nil, false,
            [
                attribute("active", .boolean), attribute("age", .integer32), attribute("born", .date), attribute("name", .string),
                attribute("ratio", .double), attribute("salary", .decimal), attribute("uid", .uuid),
                PropertySchema(name: "department", kind: .toOne(destination: 1, inverse: "people")),
                PropertySchema(name: "projects", kind: .toMany(destination: 4, inverse: "members", ordered: false)),
            ]
        ),
        ("Manager", 2, false, [attribute("level", .integer16)]),
        (
            "Project", nil, false,
            [
                attribute("name", .string),
                PropertySchema(name: "members", kind: .toMany(destination: 2, inverse: "projects", ordered: false)),
            ]
        ),
    ])

    static let names: [String?] = [
        "Crèpes Suzette", "Gaufres de Liège", "crepes", "CRÊPES au sucre", "Straße", "alice", "Alice", "bob", nil, "Émile",
        "", "Zoë", "a*b?c", "100%_x", "Bob", "crème brûlée", "Liege", nil, "file10", "File2", "file2", "Åsa", "zoe",
    ]
    /// The last department has no people.
    static let titles = ["Sales", "Research", "séances", "Empty"]
    /// The last project has no members; one has no name.
    static let projectNames: [String?] = ["Apollo", "Gemini", "apollo", nil, "Mercury"]

    /// The projects of person `index`: 0 holds every third person, 1 every fourth from 1, 2
    /// every tenth from 2, 3 every fifth from 4; 4 nobody.
    static func projectIndices(ofPerson index: Int) -> [Int] {
        [index % 3 == 0, index % 4 == 1, index % 10 == 2, index % 5 == 4].enumerated().compactMap { $1 ? $0 : nil }
    }

    static func projectKey(_ index: Int) -> ObjectKey { ObjectKey(entityID: project, primaryKey: Int64(index + 1)) }

    static func departmentKey(_ index: Int) -> ObjectKey { ObjectKey(entityID: department, primaryKey: Int64(index + 1)) }
    static func personKey(_ index: Int, manager isManager: Bool) -> ObjectKey {
        ObjectKey(entityID: isManager ? manager : person, primaryKey: Int64(index + 1))
    }

    /// 4 departments, 60 people (every fourth a manager) and 5 projects, with NULLs in every
    /// column and empty to-manys.
    static func rows() -> [RowSnapshot] {
        var people: [RowSnapshot] = []
        var members: [[ObjectKey]] = [[], [], [], []]
        var projectMembers: [[ObjectKey]] = projectNames.map { _ in [] }
        for index in 0..<60 {
            let isManager = index % 4 == 3
            let key = personKey(index, manager: isManager)
            let departmentIndex: Int? = index % 7 == 6 ? nil : index % 3
            if let departmentIndex { members[departmentIndex].append(key) }
            var values: [StoreValue] = [
                index % 9 == 8 ? .null : .bool(index % 2 == 0),
                index % 5 == 4 ? .null : .integer(Int64((index * 7) % 50)),
                index % 6 == 5 ? .null : .date(Date(timeIntervalSinceReferenceDate: Double(index * 86_400))),
                names[index % names.count].map(StoreValue.string) ?? .null,
                index % 8 == 7 ? .null : .double(Double(index % 10) / 4),
                index % 10 == 9 ? .null : .decimal(Decimal(index * 25) / 10),
                .uuid(UUID(uuidString: String(format: "00000000-0000-0000-0000-%012d", index)) ?? UUID()),
                departmentIndex.map { .object(departmentKey($0)) } ?? .null,
                .objects(projectIndices(ofPerson: index).map(projectKey)),
            ]
            for project in projectIndices(ofPerson: index) { projectMembers[project].append(key) }
            if isManager { values.append(index % 8 == 7 ? .null : .integer(Int64(index % 3))) }
            people.append(RowSnapshot(key: key, version: 1, values: values))
        }
        let departments = titles.enumerated().map { index, title in
            RowSnapshot(key: departmentKey(index), version: 1, values: [.string(title), .objects(members[index])])
        }
        let projects = projectNames.enumerated().map { index, name in
            RowSnapshot(
                key: projectKey(index), version: 1,
                values: [name.map(StoreValue.string) ?? .null, .objects(projectMembers[index])])
        }
        return departments + people + projects
    }

    /// The PostgreSQL store with the same rows as `stores(in:)`'s, when a test server is named.
    static func postgres(in folder: TemporaryFolder) throws -> (any SQLRowStore & PagingRowStore)? {
        guard let store = try PostgresStores.open(schema: schema, in: folder) else { return nil }
        try store.apply(inserted: rows(), updated: [], deleted: [])
        return store
    }

    /// The two stores with the same rows.
    static func stores(in folder: TemporaryFolder) throws -> (sqlite: SQLiteRowStore, memory: InMemoryRowStore) {
        let sqlite = try SQLiteRowStore.open(
            at: folder.file("Company.sqlite"), schema: schema, readOnly: false, modelVersionHashes: [:])
        let memory = InMemoryRowStore(schema: schema)
        let rows = rows()
        try sqlite.apply(inserted: rows, updated: [], deleted: [])
        try memory.apply(inserted: rows, updated: [], deleted: [])
        return (sqlite, memory)
    }

    static func layout() throws -> AppleSQLLayout {
        try AppleSQLLayout(schema: schema, entityNumbers: ["Department": 1, "Person": 2, "Manager": 3, "Project": 4])
    }
}

@Suite struct SQLCompilerTests {
    static let people: Set<Int> = [Company.person, Company.manager]

    func compile(_ plan: FetchPlan) throws -> SQLQuery {
        switch SQLCompiler(layout: try Company.layout()).compile(plan) {
        case .compiled(let query): return query
        case .notCompilable(let reason), .unsupported(let reason):
            Issue.record("not compilable: \(reason)")
            return SQLQuery(sql: "", arguments: [])
        }
    }

    func keysPlan(_ format: String, _ arguments: [Any] = [], entityIDs: Set<Int> = people) -> FetchPlan {
        FetchPlan(
            entityID: Company.person, entityIDs: entityIDs, predicate: NSPredicate(format: format, argumentArray: arguments),
            output: .keys)
    }

    static let select = "SELECT t0.Z_PK, t0.Z_ENT FROM ZPERSON t0"
    static let join = " LEFT JOIN ZDEPARTMENT t1 ON t1.Z_PK = t0.ZDEPARTMENT"

    /// (predicate, arguments, the WHERE clause, the bound values).
    static let whereClauses: [(String, [Any], String, [StoreValue])] = [
        ("age > 30", [], "t0.ZAGE > ?", [.integer(30)]),
        ("30 < age", [], "t0.ZAGE > ?", [.integer(30)]),
        ("age <= %@", [NSNumber(value: 2.5)], "t0.ZAGE <= ?", [.double(2.5)]),
        ("age == 5", [], "t0.ZAGE = ?", [.integer(5)]),
        ("age != 5", [], "t0.ZAGE IS NOT ?", [.integer(5)]),
        ("NOT (age == 5)", [], "NOT (t0.ZAGE IS ?)", [.integer(5)]),
        ("NOT (age < 5)", [], "NOT (COALESCE(t0.ZAGE < ?, 0))", [.integer(5)]),
        ("name == nil", [], "t0.ZNAME IS NULL", []),
        ("nil != name", [], "t0.ZNAME IS NOT NULL", []),
        ("age == '5'", [], "0", []),
        ("age != '5'", [], "1", []),
        ("name < 5", [], "0", []),
        ("age > nil", [], "0", []),
        ("active == YES", [], "t0.ZACTIVE = ?", [.integer(1)]),
        (
            "born < %@", [Date(timeIntervalSinceReferenceDate: 100)], "t0.ZBORN < ?",
            [.date(Date(timeIntervalSinceReferenceDate: 100))]
        ),
        ("age BETWEEN {20, 40}", [], "t0.ZAGE BETWEEN ? AND ?", [.integer(20), .integer(40)]),
        // A function of constants is computed once and bound.
        ("born < CAST(100, 'NSDate')", [], "t0.ZBORN < ?", [.date(Date(timeIntervalSinceReferenceDate: 100))]),
        ("age == abs:(-7)", [], "t0.ZAGE = ?", [.integer(7)]),
        ("age IN {1, 2, 3}", [], "t0.ZAGE IN (SELECT value FROM json_each(?))", [.string("[1,2,3]")]),
        (
            "age IN %@", [[1, "x", NSNull()] as [Any]], "(t0.ZAGE IN (SELECT value FROM json_each(?)) OR t0.ZAGE IS NULL)",
            [.string("[1]")]
        ),
        ("name IN %@", [["a\"b", "c"]], "t0.ZNAME IN (SELECT value FROM json_each(?))", [.string("[\"a\\\"b\",\"c\"]")]),
        ("name IN[cd] %@", [["Crèpes"]], "ocd_fold(t0.ZNAME, 3) IN (SELECT value FROM json_each(?))", [.string("[\"crepes\"]")]),
        // A constant that folds to ASCII: ASCII rows compared natively, the others by the function.
        (
            "name BEGINSWITH[cd] 'Crèpes'", [],
            foldedBeginsWith("t0.ZNAME", ranges: 2, flags: 3),
            foldedBeginsWithValues(["C", "c"], needle: "crepes", constant: "Crèpes")
        ),
        ("name BEGINSWITH[c] 'Crèpes'", [], "ocd_begins_with(t0.ZNAME, ?, 1)", [.string("Crèpes")]),
        ("name ENDSWITH 'é'", [], "ocd_ends_with(t0.ZNAME, ?, 0)", [.string("é")]),
        ("name CONTAINS 'e\u{301}'", [], "ocd_contains(t0.ZNAME, ?, 0)", [.string("e\u{301}")]),
        ("name ENDSWITH '\nx'", [], "ocd_ends_with(t0.ZNAME, ?, 0)", [.string("\nx")]),
        ("name BEGINSWITH ''", [], "0", []),
        ("name CONTAINS ''", [], "0", []),
        ("NOT (name ENDSWITH '')", [], "NOT (0)", []),
        // BEGINSWITH: a range an index can serve; the byte after the prefix must not start a
        // combining scalar (else the function decides).
        (
            "name BEGINSWITH 'Lo'", [],
            "(t0.ZNAME >= ? AND t0.ZNAME < ? AND (t0.ZNAME < ? OR ocd_begins_with(t0.ZNAME, ?, 0)))",
            [.string("Lo"), .string("Lp"), .string("Lo\u{300}"), .string("Lo")]
        ),
        // K is also spelled KELVIN SIGN (U+212A): that spelling's range goes to the function.
        (
            "name BEGINSWITH 'Ka'", [],
            "((t0.ZNAME >= ? AND t0.ZNAME < ? AND (t0.ZNAME < ? OR ocd_begins_with(t0.ZNAME, ?, 0)))"
                + " OR (t0.ZNAME >= ? AND t0.ZNAME < ? AND ocd_begins_with(t0.ZNAME, ?, 0)))",
            [
                .string("Ka"), .string("Kb"), .string("Ka\u{300}"), .string("Ka"), .string("\u{212A}a"),
                .string("\u{212A}b"), .string("Ka"),
            ]
        ),
        // A prefix ending in CR: "x\r\n" does not begin with "x\r" (CR LF is one character).
        (
            "name BEGINSWITH 'x\r'", [], "(t0.ZNAME >= ? AND t0.ZNAME < ? AND ocd_begins_with(t0.ZNAME, ?, 0))",
            [.string("x\r"), .string("x\u{0E}"), .string("x\r")]
        ),
        (
            "NOT (name BEGINSWITH 'Lo')", [],
            "NOT (COALESCE((t0.ZNAME >= ? AND t0.ZNAME < ? AND (t0.ZNAME < ?"
                + " OR ocd_begins_with(t0.ZNAME, ?, 0))), 0))",
            [.string("Lo"), .string("Lp"), .string("Lo\u{300}"), .string("Lo")]
        ),
        // ENDSWITH: the bytes, and a boundary before them unless the byte there is not ASCII.
        (
            "name ENDSWITH 'x'", [],
            "(substr(CAST(t0.ZNAME AS BLOB), ?) = ? AND (substr(CAST(t0.ZNAME AS BLOB), ?, 1) < ? OR ocd_ends_with(t0.ZNAME, ?, 0)))",
            [.integer(-1), .data(Data("x".utf8)), .integer(-2), .data(Data([0x80])), .string("x")]
        ),
        (
            "name ENDSWITH 'K'", [],
            asciiOr("substr(t0.ZNAME, ?) = ?", "t0.ZNAME", "ocd_ends_with(t0.ZNAME, ?, 0)"),
            [.integer(-1), .string("K"), .string("K")]
        ),
        (
            "name ENDSWITH[c] 'OB'", [],
            asciiOr("t0.ZNAME LIKE ? ESCAPE ?", "t0.ZNAME", "ocd_ends_with(t0.ZNAME, ?, 1)"),
            [.string("%ob"), .string("\\"), .string("OB")]
        ),
        // CONTAINS: the bytes anywhere; in a row that is not ASCII the function decides.
        (
            "name CONTAINS 'li'", [],
            "(instr(CAST(t0.ZNAME AS BLOB), ?) > 0 AND (length(t0.ZNAME) = length(CAST(t0.ZNAME AS BLOB))"
                + " OR ocd_contains(t0.ZNAME, ?, 0)))",
            [.data(Data("li".utf8)), .string("li")]
        ),
        (
            "name CONTAINS 'Ki'", [],
            asciiOr("instr(CAST(t0.ZNAME AS BLOB), ?) > 0", "t0.ZNAME", "ocd_contains(t0.ZNAME, ?, 0)"),
            [.data(Data("Ki".utf8)), .string("Ki")]
        ),
        (
            "name CONTAINS[cd] 'LÍ'", [],
            asciiOr("t0.ZNAME LIKE ? ESCAPE ?", "t0.ZNAME", "ocd_contains(t0.ZNAME, ?, 3)"),
            [.string("%li%"), .string("\\"), .string("LÍ")]
        ),
        ("'Alice and Bob' CONTAINS[c] name", [], "ocd_contains(?, t0.ZNAME, 1)", [.string("Alice and Bob")]),
        ("name LIKE 'a*'", [], "ocd_like(t0.ZNAME, ?, 0)", [.string("a*")]),
        ("name MATCHES '[A-Z].*'", [], "ocd_matches(t0.ZNAME, ?, 0)", [.string("[A-Z].*")]),
        ("age BEGINSWITH '1'", [], "0", []),
        (
            "name ==[c] 'ALICE'", [],
            "ocd_fold(t0.ZNAME, 1) = ?",
            [.string("alice")]
        ),
        (
            "name !=[d] 'Zoë'", [],
            "ocd_fold(t0.ZNAME, 2) IS NOT ?",
            [.string("Zoe")]
        ),
        ("name ==[c] 'ÉCOLE'", [], "ocd_fold(t0.ZNAME, 1) = ?", [.string("école")]),
        ("TRUEPREDICATE", [], "1", []),
        (
            "age > 1 AND (name == 'a' OR NOT name == 'b')", [], "(t0.ZAGE > ? AND (t0.ZNAME = ? OR NOT (t0.ZNAME IS ?)))",
            [.integer(1), .string("a"), .string("b")]
        ),
        ("department == nil", [], "t0.ZDEPARTMENT IS NULL", []),
        ("department == %@", [ObjectKey(entityID: 1, primaryKey: 2)], "t0.ZDEPARTMENT IS ?", [.integer(2)]),
        ("department == %@", [ObjectKey(entityID: 2, primaryKey: 2)], "0", []),
        (
            "self IN %@", [[ObjectKey(entityID: 3, primaryKey: 4)]],
            "COALESCE((t0.Z_PK, t0.Z_ENT) IN (SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(?)), 0)",
            [.string("[[4,3]]")]
        ),
    ]

    @Test(arguments: whereClauses.indices)
    func whereClause(_ index: Int) throws {
        let (format, arguments, clause, values) = Self.whereClauses[index]
        let query = try compile(keysPlan(format, arguments))
        #expect(query.sql == Self.select + " WHERE " + clause + " ORDER BY t0.Z_PK", "\(format)")
        #expect(query.arguments == values, "\(format)")
    }

    @Test func joinsToOneKeyPathsOnce() throws {
        let query = try compile(keysPlan("department.title == 'Sales' OR department.title BEGINSWITH[c] 's'"))
        #expect(
            query.sql
                == Self.select + Self.join
                + " WHERE (t1.ZTITLE = ? OR "
                + foldedBeginsWith("t1.ZTITLE", ranges: 2, flags: 1) + ")"
                + " ORDER BY t0.Z_PK")
        #expect(query.arguments == [.string("Sales")] + foldedBeginsWithValues(["S", "s"], needle: "s", constant: "s"))
    }

    @Test func restrictsEntitiesSortsAndWindows() throws {
        var plan = keysPlan("age > 30", entityIDs: [Company.person])
        plan.sortDescriptors = [
            NSSortDescriptor(key: "name", ascending: false, selector: "caseInsensitiveCompare:"),
            NSSortDescriptor(key: "department.title", ascending: true),
        ]
        plan.offset = 3
        let query = try compile(plan)
        #expect(
            query.sql
                == Self.select + Self.join
                + " WHERE t0.Z_ENT IN (?) AND t0.ZAGE > ? ORDER BY ocd_fold(t0.ZNAME, 1) DESC, t1.ZTITLE, t0.Z_PK LIMIT ? OFFSET ?"
        )
        #expect(query.arguments == [.integer(2), .integer(30), .integer(-1), .integer(3)])
        // Without a limit SQLite's sorter is not the one that keeps ties in scan order.
        #expect(query.sqlWithoutTieBreak == nil)
    }

    /// A sorted fetch with a limit comes with its statement without `t0.Z_PK` on SQLite (which the
    /// store runs where SQLite's plan keeps ties in key order); on PostgreSQL, never.
    @Test func limitedSortsOfferTheStatementWithoutTheTieBreak() throws {
        var plan = keysPlan("age > 30", entityIDs: [Company.person])
        plan.sortDescriptors = [NSSortDescriptor(key: "age", ascending: false)]
        plan.limit = 5
        let query = try compile(plan)
        let order = " WHERE t0.Z_ENT IN (?) AND t0.ZAGE > ? ORDER BY t0.ZAGE DESC"
        #expect(query.sql == Self.select + order + ", t0.Z_PK LIMIT ? OFFSET ?")
        #expect(query.sqlWithoutTieBreak == Self.select + order + " LIMIT ? OFFSET ?")
        #expect(query.arguments == [.integer(2), .integer(30), .integer(5), .integer(0)])
        guard case .compiled(let postgreSQL) = SQLCompiler(layout: try Company.layout(), dialect: .postgreSQL).compile(plan)
        else {
            Issue.record("not compiled for PostgreSQL")
            return
        }
        #expect(postgreSQL.sqlWithoutTieBreak == nil)
        // Unsorted, the statement orders by key alone.
        plan.sortDescriptors = []
        #expect(try compile(plan).sqlWithoutTieBreak == nil)
    }

    /// The localized selectors sort through collations that call the in-memory sorter's comparison;
    /// on values that are not strings they are `compare:`.
    @Test func localizedSortsUseCollations() throws {
        var plan = keysPlan("age > 30", entityIDs: [Company.person])
        plan.sortDescriptors = [
            NSSortDescriptor(key: "name", ascending: false, selector: "localizedCompare:"),
            NSSortDescriptor(key: "department.title", ascending: true, selector: "localizedCaseInsensitiveCompare:"),
            NSSortDescriptor(key: "name", ascending: true, selector: "localizedStandardCompare:"),
            NSSortDescriptor(key: "age", ascending: true, selector: "localizedStandardCompare:"),
        ]
        let query = try compile(plan)
        #expect(
            query.sql
                == Self.select + Self.join
                + " WHERE t0.Z_ENT IN (?) AND t0.ZAGE > ? ORDER BY t0.ZNAME COLLATE ocd_localized DESC,"
                + " t1.ZTITLE COLLATE ocd_localized_ci, t0.ZNAME COLLATE ocd_localized_standard, t0.ZAGE, t0.Z_PK")
    }

    @Test func countsTheWindow() throws {
        var plan = keysPlan("age > 30")
        plan.output = .count
        let whole = try compile(plan)
        #expect(whole.sql == "SELECT COUNT(*) FROM ZPERSON t0 WHERE t0.ZAGE > ?")
        #expect(whole.arguments == [.integer(30)])
        plan.limit = 5
        plan.offset = 2
        let window = try compile(plan)
        #expect(window.sql == "SELECT COUNT(*) FROM (SELECT 1 FROM ZPERSON t0 WHERE t0.ZAGE > ? LIMIT ? OFFSET ?)")
        #expect(window.arguments == [.integer(30), .integer(5), .integer(2)])
    }

    /// A large IN list is one bound value, never a parameter per element.
    @Test func largeInListIsOneParameter() throws {
        let query = try compile(keysPlan("age IN %@", [Array(0..<1000)]))
        #expect(query.sql.filter { $0 == "?" }.count == 1)
        #expect(query.arguments.count == 1)
    }

    // MARK: - Not compilable, unsupported

    /// (predicate, sort key and selector, a part the reason must name): not compiled yet, the
    /// store runs them in memory.
    static let notCompilable: [(String, String?, String)] = [
        ("name.uppercaseString == 'BOB'", nil, "name.uppercaseString"),
        ("ANY {1, 2} == age", nil, "constant"),
        // A count compared with a string is false: its sub-select's values would be left unplaced.
        ("SUBQUERY(department.people, $p, $p.age > 10).@count < 'x'", nil, "does not need"),
        // KVC reads the key of every member's name, then counts the people.
        ("department.people.name.@count > 3", nil, "department.people.name.@count"),
    ]

    @Test(arguments: notCompilable.indices)
    func notCompilableSaysWhichPart(_ index: Int) throws {
        let (format, selector, part) = Self.notCompilable[index]
        var plan = keysPlan(format)
        if let selector { plan.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true, selector: selector)] }
        guard case .notCompilable(let reason) = SQLCompiler(layout: try Company.layout()).compile(plan) else {
            Issue.record("\(format) compiled")
            return
        }
        #expect(reason.contains(part), "\(reason)")
    }

    @Test func fallbackAnswersAsInMemory() throws {
        let folder = try TemporaryFolder()
        let (sqlite, memory) = try Company.stores(in: folder)
        for (format, selector, _) in Self.notCompilable {
            var plan = keysPlan(format)
            if let selector { plan.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true, selector: selector)] }
            try expectSameAnswers(sqlite, memory, plan, label: format)
        }
    }

    /// Apple's documented limits of SQL stores: (what, the plan, parts the reason must name).
    static let unsupported: [(String, FetchPlan, [String])] = {
        let people: Set<Int> = [Company.person, Company.manager]
        func plan(_ predicate: NSPredicate, _ sorts: [NSSortDescriptor] = []) -> FetchPlan {
            FetchPlan(entityID: Company.person, entityIDs: people, predicate: predicate, sortDescriptors: sorts, output: .keys)
        }
        return [
            (
                "comparator sort",
                plan(NSPredicate(format: "age > 3"), [NSSortDescriptor(key: "name", ascending: true) { _, _ in .orderedSame }]),
                ["name", "comparator"]
            ),
            ("block predicate", plan(NSPredicate { _, _ in true }), ["block"]),
            (
                "custom selector",
                plan(
                    NSComparisonPredicate(
                        leftExpression: NSExpression(forKeyPath: "name"), rightExpression: NSExpression(forConstantValue: "x"),
                        customSelector: "isSimilarTo:")),
                ["isSimilarTo:"]
            ),
            (
                "FUNCTION()", plan(NSPredicate(format: "FUNCTION(name, 'uppercaseString') == 'BOB'")),
                ["FUNCTION", "uppercaseString"]
            ),
            (
                "two to-many steps", plan(NSPredicate(format: "ANY department.people.projects.name == 'Apollo'")),
                ["department.people.projects.name", "two to-many"]
            ),
            (
                "two to-many steps before @count", plan(NSPredicate(format: "department.people.projects.@count > 1")),
                ["department.people.projects.@count", "two to-many"]
            ),
            (
                "two to-many steps under @sum", plan(NSPredicate(format: "department.people.@sum.projects.name > 1")),
                ["two to-many"]
            ),
        ]
    }()

    /// `now()` and `random()` are not computed at compile time: memory evaluates them row by row,
    /// so they are left to it (and both stores agree).
    @Test func changingFunctionsAreNotFolded() throws {
        for format in ["born < now()", "ratio < random()", "age == abs:(random:(10))"] {
            guard case .notCompilable(let reason) = SQLCompiler(layout: try Company.layout()).compile(keysPlan(format)) else {
                Issue.record("\(format) was compiled")
                continue
            }
            #expect(reason.contains("memory"), "\(reason)")
        }
    }

    /// A transient key is refused as Apple refuses it (the plan builder refuses it first).
    @Test func transientKeysAreUnsupported() throws {
        let layout = try AppleSQLLayout(schema: Library.schema)
        let plan = FetchPlan(
            entityID: Library.book, entityIDs: [Library.book], predicate: NSPredicate(format: "scratch == 'x'"), output: .keys)
        guard case .unsupported(let reason) = SQLCompiler(layout: layout).compile(plan) else {
            Issue.record("a transient key was not refused")
            return
        }
        #expect(reason.contains("scratch") && reason.contains("transient"), "\(reason)")
    }

    /// The compiler names the part and why; the store throws `NSPersistentStoreUnsupportedRequestTypeError`
    /// (134091) with that reason instead of running the plan in memory.
    @Test(arguments: unsupported.indices)
    func unsupportedPartsFailTheFetch(_ index: Int) throws {
        let (label, plan, parts) = Self.unsupported[index]
        guard case .unsupported(let reason) = SQLCompiler(layout: try Company.layout()).compile(plan) else {
            Issue.record("\(label): not refused")
            return
        }
        for part in parts { #expect(reason.contains(part), "\(label): \(reason)") }
        let folder = try TemporaryFolder()
        let (sqlite, _) = try Company.stores(in: folder)
        do {
            _ = try sqlite.execute(plan)
            Issue.record("\(label): the fetch ran")
        } catch let error as NSError {
            #expect(error.domain == NSCocoaErrorDomain)
            #expect(error.code == 134_091)
            for part in parts { #expect(error.localizedDescription.contains(part), "\(label): \(error.localizedDescription)") }
        }
    }
}

/// The SQL of a string test that runs natively on ASCII rows and through `otherwise` on others.
func asciiOr(_ test: String, _ column: String, _ otherwise: String, exact: Bool = false) -> String {
    let ascii = "length(\(column)) = length(CAST(\(column) AS BLOB))"
    let sql = "((\(test) AND \(ascii)) OR (NOT (\(ascii)) AND \(otherwise)))"
    return exact ? "COALESCE(\(sql), 0)" : sql
}

/// `column BEGINSWITH[flags]` an ASCII needle (`SQLCompiler+Strings.swift`): `ranges` ranges of
/// first bytes and rows that are not ASCII, then the needle's bytes folded, the byte after
/// them, and the function for what bytes cannot decide.
func foldedBeginsWith(_ column: String, ranges: Int, flags: Int, function: String = "ocd_begins_with") -> String {
    let range = "(\(column) >= ? AND \(column) < ?)"
    let candidates = "(" + (Array(repeating: range, count: ranges) + ["\(column) >= ?"]).joined(separator: " OR ") + ")"
    let blob = "CAST(\(column) AS BLOB)"
    let match = flags & 1 != 0 ? "lower(substr(\(blob), 1, ?)) = ?" : "substr(\(blob), 1, ?) = ?"
    let call = "\(function)(\(column), ?, \(flags))"
    let ascii = "length(\(column)) = length(\(blob))"
    return "(\(candidates) AND ((\(match) AND (substr(\(blob), ?, 1) < ? OR \(call))) OR (NOT (\(ascii)) AND \(call))))"
}

/// The values `foldedBeginsWith` binds: the first bytes' ranges, the needle, the constant.
func foldedBeginsWithValues(_ starts: [String], needle: String, constant: String) -> [StoreValue] {
    let ranges = starts.flatMap { [StoreValue.string($0), .string(SQLCompiler.successor($0))] }
    return ranges + [
        .string("\u{80}"), .integer(Int64(needle.utf8.count)), .string(needle), .integer(Int64(needle.utf8.count) + 1),
        .data(Data([0xCC])), .string(constant), .string(constant),
    ]
}

/// The same plan through both stores: keys, rows and counts equal.
func expectSameAnswers(
    _ sqlite: any RowStore, _ memory: InMemoryRowStore, _ plan: FetchPlan, label: String,
    outputs: [FetchPlan.Output] = [.keys, .count, .rows]
) throws {
    for output in outputs {
        var plan = plan
        plan.output = output
        let expected = try memory.execute(plan)
        let actual = try sqlite.execute(plan)
        switch (expected, actual) {
        case (.keys(let a), .keys(let b)): #expect(a == b, "\(label) keys")
        case (.count(let a), .count(let b)): #expect(a == b, "\(label) count")
        case (.rows(let a), .rows(let b)): #expect(a.map(\.key) == b.map(\.key), "\(label) rows")
        default: Issue.record("\(label): different outputs")
        }
    }
}

/// Plans compiled to SQL answer as the in-memory store does on the same rows.
@Suite struct SQLCompilerEquivalenceTests {
    static let predicates: [(String, [Any])] = [
        ("TRUEPREDICATE", []), ("FALSEPREDICATE", []),
        ("age > 30", []), ("30 >= age", []), ("age == 7", []), ("age != 7", []), ("NOT (age == 7)", []),
        ("NOT (age < 20)", []), ("NOT (age BETWEEN {10, 30})", []), ("age BETWEEN {10, 30}", []),
        ("age == nil", []), ("age != nil", []), ("NOT (age != nil)", []), ("age > nil", []), ("NOT (age > nil)", []),
        ("age == '7'", []), ("NOT (age == '7')", []), ("name < 5", []), ("NOT (name < 5)", []),
        ("age IN %@", [Array(0..<1000).filter { $0 % 3 == 0 }]), ("NOT (age IN %@)", [Array(0..<1000).filter { $0 % 3 == 0 }]),
        ("age IN %@", [[7, "14", NSNull()] as [Any]]), ("NOT (age IN %@)", [[7, NSNull()] as [Any]]),
        ("name IN %@", [(0..<1000).map { "name \($0)" } + ["bob", "Zoë"]]),
        ("name IN[c] %@", [["BOB", "ALICE"]]), ("NOT (name IN[cd] %@)", [["crepes"]]),
        ("salary >= 50", []), ("salary < 12.5", []), ("ratio <= 1.25", []), ("active == YES", []), ("active == NO", []),
        ("NOT (active == YES)", []), ("born > %@", [Date(timeIntervalSinceReferenceDate: 20 * 86_400)]),
        (
            "born BETWEEN %@",
            [[Date(timeIntervalSinceReferenceDate: 5 * 86_400), Date(timeIntervalSinceReferenceDate: 30 * 86_400)]]
        ),
        ("uid == %@", [UUID(uuidString: "00000000-0000-0000-0000-000000000012") as Any]),
        ("name == 'bob'", []), ("name ==[c] 'BOB'", []), ("name ==[cd] 'crepes'", []), ("NOT (name ==[c] 'bob')", []),
        ("name BEGINSWITH[cd] 'crepes'", []), ("name BEGINSWITH 'Cr'", []), ("name BEGINSWITH[c] 'crê'", []),
        ("name ENDSWITH[d] 'liege'", []), ("name CONTAINS[cd] 'E'", []), ("NOT (name CONTAINS 'e')", []),
        ("name LIKE[c] '*e?e*'", []), ("name LIKE 'a\\\\*b*'", []), ("name MATCHES '[A-Z].*'", []),
        ("name MATCHES[c] 'b.b'", []), ("name BEGINSWITH ''", []), ("name > 'bob'", []), ("name >[c] 'BOB'", []),
        ("name > 'M' OR age < 10", []), ("name > 'M' AND NOT (age < 10 OR salary > 20)", []),
        ("department.title == 'Sales'", []), ("department.title BEGINSWITH[cd] 'SEANCE'", []),
        ("NOT (department.title == 'Sales')", []), ("department == nil", []), ("department != nil", []),
        ("department == %@", [Company.departmentKey(1)]), ("department != %@", [Company.departmentKey(1)]),
        ("department IN %@", [[Company.departmentKey(0), Company.departmentKey(2)]]),
        (
            "self IN %@",
            [[Company.personKey(3, manager: true), Company.personKey(4, manager: false), Company.personKey(5, manager: true)]]
        ),
        ("self == %@", [Company.personKey(3, manager: true)]), ("NOT (self == %@)", [Company.personKey(3, manager: true)]),
        ("level > 0", []),
        ("name.length > 5", []), ("name.length == 0", []), ("length:(name) < 4", []), ("NOT (name.length >= 4)", []),
        ("uppercase:(name) == 'STRASSE'", []), ("lowercase:(name) BEGINSWITH 'cr'", []), ("department.title.length == 5", []),
        ("uppercase:(name) == uppercase:(department.title)", []),
    ]

    static let sorts: [[NSSortDescriptor]] = [
        [],
        [NSSortDescriptor(key: "age", ascending: true)],
        [NSSortDescriptor(key: "name", ascending: false), NSSortDescriptor(key: "age", ascending: true)],
        [
            NSSortDescriptor(key: "department.title", ascending: true),
            NSSortDescriptor(key: "name", ascending: true, selector: "caseInsensitiveCompare:"),
        ],
        [NSSortDescriptor(key: "salary", ascending: false), NSSortDescriptor(key: "born", ascending: false)],
        [NSSortDescriptor(key: "name", ascending: false, selector: "caseInsensitiveCompare:")],
        [NSSortDescriptor(key: "name", ascending: true, selector: "localizedCompare:")],
        [NSSortDescriptor(key: "name", ascending: false, selector: "localizedCaseInsensitiveCompare:")],
        [
            NSSortDescriptor(key: "department.title", ascending: false, selector: "localizedStandardCompare:"),
            NSSortDescriptor(key: "name", ascending: true, selector: "localizedStandardCompare:"),
        ],
        [NSSortDescriptor(key: "age", ascending: true, selector: "localizedCompare:")],
        [NSSortDescriptor(key: "name.length", ascending: false)],
    ]

    static let windows: [(limit: Int, offset: Int)] = [(0, 0), (5, 0), (0, 7), (4, 3), (10, 100)]

    @Test(arguments: predicates.indices)
    func sameAnswers(_ index: Int) throws {
        let (format, arguments) = Self.predicates[index]
        let folder = try TemporaryFolder()
        let (sqlite, memory) = try Company.stores(in: folder)
        let postgres = try Company.postgres(in: folder)
        let layout = try Company.layout()
        let families: [(Int, Set<Int>)] = [
            (Company.person, [Company.person, Company.manager]), (Company.person, [Company.person]),
        ]
        let predicate = NSPredicate(format: format, argumentArray: arguments)
        for (familyIndex, (entityID, family)) in families.enumerated() {
            // `level` is a Manager attribute: fetched on managers only.
            let (entity, entities) = format.hasPrefix("level") ? (Company.manager, [Company.manager]) : (entityID, family)
            for (sortIndex, sort) in Self.sorts.enumerated() {
                for window in Self.windows {
                    let plan = FetchPlan(
                        entityID: entity, entityIDs: Set(entities), predicate: predicate, sortDescriptors: sort,
                        limit: window.limit,
                        offset: window.offset, output: .keys)
                    if case .notCompilable(let reason) = SQLCompiler(layout: layout).compile(plan) {
                        Issue.record("\(format) not compiled: \(reason)")
                        return
                    }
                    try expectSameAnswers(sqlite, memory, plan, label: "\(format) \(sort.map(\.description)) \(window)")
                    // PostgreSQL, on people and managers (the family with a sub-entity): every
                    // sort's keys without a window; the count and the rows (the same query with
                    // other columns) and a window with the first two sorts only. Each query costs
                    // a millisecond of the debug build's SwiftNIO: they were the largest cost of
                    // the test run.
                    if let postgres, familyIndex == 0,
                        window.limit == 0 && window.offset == 0 || window.limit == 4 && sortIndex < 2
                    {
                        try expectSameAnswers(
                            postgres, memory, plan, label: "PostgreSQL \(format) \(sort.map(\.description)) \(window)",
                            outputs: sortIndex < 2 ? [.keys, .count, .rows] : [.keys])
                    }
                }
            }
        }
    }

    @Test func rowsAreReadWhole() throws {
        let folder = try TemporaryFolder()
        let (sqlite, memory) = try Company.stores(in: folder)
        let plan = FetchPlan(
            entityID: Company.person, entityIDs: [Company.person, Company.manager], predicate: NSPredicate(format: "age > 10"),
            sortDescriptors: [NSSortDescriptor(key: "name", ascending: true)], output: .rows)
        guard case .rows(let expected) = try memory.execute(plan), case .rows(let actual) = try sqlite.execute(plan) else {
            Issue.record("no rows")
            return
        }
        #expect(sqlite.leavesToManyUnloaded(actual))
        #expect(try sqlite.withMembers(actual).map(\.values) == expected.map(\.values))
        #expect(!actual.isEmpty)
    }

    @Test func diacriticsMatchInSQL() throws {
        let folder = try TemporaryFolder()
        let (sqlite, _) = try Company.stores(in: folder)
        let plan = FetchPlan(
            entityID: Company.person, entityIDs: [Company.person, Company.manager],
            predicate: NSPredicate(format: "name BEGINSWITH[cd] 'crepes' OR name ENDSWITH[cd] 'LIEGE'"), output: .rows)
        guard case .rows(let rows) = try sqlite.execute(plan) else { return }
        let names = Set(rows.compactMap { row -> String? in if case .string(let name) = row.values[3] { name } else { nil } })
        #expect(names == ["Crèpes Suzette", "crepes", "CRÊPES au sucre", "Gaufres de Liège", "Liege"])
    }
}
