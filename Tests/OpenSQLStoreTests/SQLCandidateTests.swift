import Foundation
import OpenInMemoryStore
import OpenPredicate
import OpenSQLStore
import OpenSQLiteStore
import OpenStoreCore
import TestSupport
import Testing

/// Plans PostgreSQL does not compile exactly run in memory over the rows SQL narrows them to
/// (`SQLCompiler.compileCandidates(_:)`), not over every row: the statement each plan gets, and,
/// against a server, answers equal to the in-memory engine's over strings that break byte
/// comparisons (`SQLStringOperatorTests.names`).
@Suite struct SQLCandidateTests {
    static let member = SQLStringOperatorTests.member

    func candidates(_ format: String, _ arguments: [Any] = [], sorts: [NSSortDescriptor] = [], output: FetchPlan.Output = .keys)
        throws -> SQLCandidateQuery?
    {
        let layout = try AppleSQLLayout(schema: SQLStringOperatorTests.schema)
        let plan = FetchPlan(
            entityID: Self.member, entityIDs: [Self.member], predicate: NSPredicate(format: format, argumentArray: arguments),
            sortDescriptors: sorts, limit: 3, output: output)
        let compiler = SQLCompiler(layout: layout, dialect: .postgreSQL)
        if case .compiled = compiler.compile(plan) { Issue.record("\(format) compiles exactly") }
        guard case .compiled(let candidates) = compiler.compileCandidates(plan) else { return nil }
        #expect(candidates.plan.limit == 3 && candidates.plan.sortDescriptors == sorts, "\(format): the rest keeps the window")
        return candidates
    }

    func whereClause(_ query: SQLQuery) -> String {
        let clause = query.sql.components(separatedBy: " WHERE ").dropFirst().joined(separator: " WHERE ")
        return clause.hasSuffix(" ORDER BY t0.Z_PK") ? String(clause.dropLast(" ORDER BY t0.Z_PK".count)) : clause
    }

    @Test func plainBeginsWithIsARangeAnIndexServes() throws {
        let found = try #require(try candidates("name BEGINSWITH %@", ["Lo"]))
        #expect(whereClause(found.query) == "(t0.ZNAME >= ? AND t0.ZNAME < ?)")
        #expect(found.query.arguments == [.string("Lo"), .string("Lp")])
        #expect(found.plan.predicate == NSPredicate(format: "name BEGINSWITH %@", "Lo"))
        // Every column of the rows, Z_ENT itself on PostgreSQL (where SQLite selects the number):
        // a select list of the table's columns in order lets the server's scan return rows as is.
        #expect(found.query.sql.hasPrefix("SELECT t0.Z_PK, t0.Z_ENT, t0.Z_OPT"), "every column of the rows")
        #expect(found.query.sql.hasSuffix(" ORDER BY t0.Z_PK") && !found.query.sql.contains("LIMIT"), "in key order, whole")
    }

    @Test func foldedOperatorsKeepTheRowsThatAreNotASCII() throws {
        let ascii = "octet_length(t0.ZNAME) <> char_length(t0.ZNAME)"
        let contains = try #require(try candidates("name CONTAINS[c] %@ AND age > 10", ["Ka"]))
        #expect(whereClause(contains.query) == "(\(ascii) OR strpos(lower(t0.ZNAME), ?) > 0) AND t0.ZAGE > ?")
        #expect(contains.query.arguments == [.string("ka"), .integer(10)])
        #expect(contains.plan.predicate == NSPredicate(format: "name CONTAINS[c] %@", "Ka"), "only the string test is left")

        let ends = try #require(try candidates("name ENDSWITH[cd] %@", ["ÉX"]))
        #expect(whereClause(ends.query) == "(\(ascii) OR right(lower(t0.ZNAME), ?::integer) = ?)")
        #expect(ends.query.arguments == [.integer(2), .string("ex")], "the needle folded: ASCII once É loses its accent")

        let begins = try #require(try candidates("name BEGINSWITH[d] %@", ["Lo"]))
        #expect(whereClause(begins.query) == "(\(ascii) OR left(t0.ZNAME, ?::integer) = ?)")

        let equal = try #require(try candidates("name ==[c] %@", ["KA"]))
        #expect(whereClause(equal.query) == "(\(ascii) OR lower(t0.ZNAME) = ?)")

        // A constant with a character the Kelvin sign spells otherwise: its bytes do not decide.
        let kelvin = try #require(try candidates("name CONTAINS %@", ["Ka"]))
        #expect(whereClause(kelvin.query) == "(\(ascii) OR strpos(t0.ZNAME, ?) > 0)")
        let plain = try #require(try candidates("name CONTAINS %@", ["lo"]))
        #expect(whereClause(plain.query) == "strpos(t0.ZNAME, ?) > 0")
    }

    @Test func whatCannotNarrowIsLeftToMemory() throws {
        // Not ASCII once folded, under NOT, MATCHES: every row of the entity is a candidate.
        for format in ["name CONTAINS %@", "NOT (name BEGINSWITH %@)", "name MATCHES %@", "name LIKE[c] %@"] {
            let found = try #require(try candidates(format, ["ö"]), "\(format)")
            #expect(!found.query.sql.contains(" WHERE "), "\(format): \(found.query.sql)")
            #expect(found.plan.predicate == NSPredicate(format: format, "ö"))
        }
        // An OR narrows when each branch does, and a relationship in a compiling term is joined.
        let either = try #require(try candidates("team.title == 'Ka' AND (name BEGINSWITH 'lo' OR nick ==[c] 'x')"))
        #expect(either.query.sql.contains("LEFT JOIN ZTEAM t1 ON t1.Z_PK = t0.ZTEAM"), "\(either.query.sql)")
        #expect(
            whereClause(either.query)
                == "t1.ZTITLE = ? AND ((t0.ZNAME >= ? AND t0.ZNAME < ?) OR (octet_length(t0.ZNICK) <> char_length(t0.ZNICK) OR lower(t0.ZNICK) = ?))"
        )
        #expect(either.plan.predicate == NSPredicate(format: "name BEGINSWITH 'lo' OR nick ==[c] 'x'"))
        let partly = try #require(try candidates("name BEGINSWITH 'lo' OR name MATCHES 'x.*'"))
        #expect(!partly.query.sql.contains(" WHERE "), "one branch does not narrow: nor does the OR")
        // A sort PostgreSQL cannot order by runs in memory after an exact filter.
        let sorted = try #require(
            try candidates(
                "age > 3", sorts: [NSSortDescriptor(key: "name", ascending: true, selector: "localizedCompare:")]))
        #expect(whereClause(sorted.query) == "t0.ZAGE > ?")
        #expect(sorted.plan.predicate == nil, "SQL decided the whole predicate")
    }

    @Test func plansThatReadMoreThanTheEntityRunOverEveryRow() throws {
        let layout = try AppleSQLLayout(schema: SQLStringOperatorTests.schema)
        let compiler = SQLCompiler(layout: layout, dialect: .postgreSQL)
        func result(_ format: String, sorts: [NSSortDescriptor] = [], output: FetchPlan.Output = .keys)
            -> SQLCompiler.CandidateResult
        {
            compiler.compileCandidates(
                FetchPlan(
                    entityID: Self.member, entityIDs: [Self.member], predicate: NSPredicate(format: format),
                    sortDescriptors: sorts, output: output))
        }
        for format in [
            "name CONTAINS[c] 'x' OR team.title == 'Ka'", "team.title BEGINSWITH[c] 'k'", "ANY team.members.name CONTAINS[c] 'x'",
        ] {
            guard case .notCompilable = result(format) else {
                Issue.record("\(format) narrowed, but memory would need the team's rows")
                continue
            }
        }
        let byTeam = [NSSortDescriptor(key: "team.title", ascending: true, selector: "localizedCompare:")]
        guard case .notCompilable = result("age > 3", sorts: byTeam) else {
            Issue.record("a sort on a relationship's attribute narrowed")
            return
        }
        let shape = DictionaryShape(columns: [.init(name: "name", expression: NSExpression(forKeyPath: "name"), resultKind: nil)])
        guard case .notCompilable = result("name CONTAINS[c] 'x'", output: .dictionaries(shape)) else {
            Issue.record("dictionary results narrowed")
            return
        }
        let block = [NSSortDescriptor(key: "name", ascending: true) { _, _ in .orderedSame }]
        guard case .unsupported = result("name CONTAINS[c] 'x'", sorts: block) else {
            Issue.record("a comparator sort is refused by every SQL store")
            return
        }
    }

    /// The SQLite store narrows the same way what it does not compile (here a division by a
    /// constant 0, which SQLite has no infinity for): the compiling terms run in SQL.
    @Test func sqliteNarrowsWhatItDoesNotCompile() throws {
        let folder = try TemporaryFolder()
        let (sqlite, memory) = try SQLStringOperatorTests.stores(in: folder)
        for (format, narrowed) in [
            ("age > 20 AND age / 0 > 1", true), ("age / 0 > 1 AND (name BEGINSWITH 'K' OR age < 5)", true),
            ("age / 0 > 1 OR age < 5", false), ("team.title == 'lo' AND age / 0 > 1", true),
        ] {
            var plan = FetchPlan(
                entityID: Self.member, entityIDs: [Self.member], predicate: NSPredicate(format: format),
                sortDescriptors: [NSSortDescriptor(key: "name", ascending: false)], output: .keys)
            try expectSameAnswers(sqlite, memory, plan, label: format)
            plan.limit = 3
            plan.offset = 1
            try expectSameAnswers(sqlite, memory, plan, label: format + " (window)")
            guard case .narrowed(let query, _, let reason) = try sqlite.explain(plan) else {
                Issue.record("\(format): not narrowed: \(try sqlite.explain(plan))")
                continue
            }
            #expect(reason.contains("division by 0"), "\(reason)")
            #expect(query.sql.contains(" WHERE ") == narrowed, "\(format): \(query.sql)")
        }
    }

    /// Against a server: random needles, every operator and option, alone, under NOT, beside a
    /// compiled condition, in an OR and with a relationship, with a window; the answers must be
    /// the in-memory engine's. PostgreSQL's text holds no NUL, so the names here have none.
    @Test func postgreSQLAnswersAsTheEngine() throws {
        let folder = try TemporaryFolder()
        guard let postgres = try PostgresStores.open(schema: SQLStringOperatorTests.schema, in: folder) else {
            print("SQLCandidateTests: OPENCOREDATA_POSTGRES_URL is not set; skipping the PostgreSQL cases")
            return
        }
        var random = SplitMix64(seed: 0x5EED_0018)
        let pieces = SQLStringRandomTests.pieces.filter { $0 != "\u{0}" }
        let generated = (0..<60).map { _ in
            (0..<Int.random(in: 0...5, using: &random)).map { _ in pieces[Int.random(in: 0..<pieces.count, using: &random)] }
                .joined()
        }
        let names = (SQLStringOperatorTests.names + generated).filter { !($0?.contains("\u{0}") ?? false) }
        let rows = SQLStringOperatorTests.rows(names)
        let memory = InMemoryRowStore(schema: SQLStringOperatorTests.schema)
        try memory.apply(inserted: rows, updated: [], deleted: [])
        try postgres.apply(inserted: rows, updated: [], deleted: [])

        let shapes = [
            "name %@ %%@", "NOT (name %@ %%@)", "age > 20 AND name %@ %%@", "name %@ %%@ OR nick %@ %%@",
            "team.title != nil AND name %@ %%@", "name %@ %%@ OR team.title == 'lo'",
        ]
        var matched = 0
        var narrowed = 0
        for round in 0..<24 {
            let needle = SQLStringRandomTests.needle(&random, rows: names.compactMap { $0 }).replacingOccurrences(
                of: "\u{0}", with: "")
            let constant = round % 3 == 0 ? ["Ka", "lo", "x\r", "e", "ss", "K"][round / 3 % 6] : needle
            let operatorName = ["BEGINSWITH", "ENDSWITH", "CONTAINS", "=="][round % 4]
            for option in SQLStringOperatorTests.options {
                // `==` without options compiles to `=` of bytes, on SQLite too
                // (`SQLStringOperatorTests.bytesAreExact`).
                if operatorName == "==" && option.isEmpty && !SQLStringOperatorTests.bytesAreExact(constant) { continue }
                for shape in shapes {
                    let format = String(format: shape, operatorName + option, operatorName + option)
                    var plan = FetchPlan(
                        entityID: Self.member, entityIDs: [Self.member],
                        predicate: NSPredicate(format: format, argumentArray: [constant, constant]),
                        sortDescriptors: [NSSortDescriptor(key: "age", ascending: round % 2 == 0)], output: .keys)
                    if round % 5 == 1 { (plan.limit, plan.offset) = (4, 2) }
                    try expectSameAnswers(postgres, memory, plan, label: "\(format) \(constant.debugDescription)")
                    if case .keys(let keys) = try memory.execute(plan), !keys.isEmpty { matched += 1 }
                    if case .narrowed = try postgres.explain(plan) { narrowed += 1 }
                }
            }
        }
        #expect(matched > 150)
        #expect(narrowed > 300, "most plans run over the candidates, not over every row")

        // Paged (`fetchBatchSize`) the same way: every page in memory over the candidates.
        let plan = FetchPlan(
            entityID: Self.member, entityIDs: [Self.member], predicate: NSPredicate(format: "name CONTAINS[c] 'a'"),
            sortDescriptors: [NSSortDescriptor(key: "name", ascending: true, selector: "caseInsensitiveCompare:")],
            limit: 5, output: .rows)
        var pages: [[ObjectKey]] = []
        var position: FetchPosition?
        repeat {
            let page = try postgres.page(of: plan, after: position)
            pages.append(page.rows.map { $0.key })
            position = page.end
        } while position != nil && pages.count < 100
        var all = plan
        all.limit = 0
        guard
            case .keys(let expected) = try memory.execute(
                {
                    var p = all; p.output = .keys; return p
                }())
        else { return }
        #expect(pages.flatMap { $0 } == expected && expected.count > 10)
    }
}
