import CoreData
import Testing

/// `coredata explain`: the SQL with `?` placeholders, the bound values as separate facts, and
/// SQLite's query plan; or why a request would not run in SQL.
@Suite struct ExplainCommandTests {
    @Test func sqlBoundValuesAndQueryPlan() throws {
        let library = try LibraryFixture.make()
        let outcome = try ToolRunner.run(
            ["explain"] + library.files + [
                "--entity", "Book", "--predicate", "title BEGINSWITH[cd] 'j' AND pages > 300", "--sort", "-price", "--limit", "3",
            ])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let lines = outcome.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "Book where title BEGINSWITH[cd] \"j\" AND pages > 300 sorted by -price (objects)")
        let sql = try #require(lines.firstIndex(of: "SQL:").map { lines[$0 + 1] })
        // An object fetch selects whole rows, read by column index.
        #expect(sql.hasPrefix("  SELECT t0.Z_PK, t0.Z_ENT, t0.Z_OPT, "))
        #expect(sql.contains(" FROM ZBOOK t0 WHERE "))
        #expect(sql.contains("t0.ZPAGES > ?"))
        #expect(sql.contains("ORDER BY t0.ZPRICE DESC"))
        // No constant of the request appears in the SQL: every value is bound.
        #expect(!sql.contains("300") && !sql.contains("'j'"))
        // BEGINSWITH[cd] 'j': the ranges of a first byte J, j or not ASCII, then the folded head.
        #expect(
            outcome.stdout.contains(
                "Bound values:\n  1. \"J\" (text)\n  2. \"K\" (text)\n  3. \"j\" (text)\n  4. \"k\" (text)\n  5. \"\u{80}\" (text)\n"
                    + "  6. 1 (integer)\n  7. \"j\" (text)\n  8. 2 (integer)\n  9. 1 bytes cc (blob)\n  10. \"j\" (text)\n"
                    + "  11. \"j\" (text)\n  12. 300 (integer)\n  13. 3 (integer)\n"))
        // The ranges let the title's index find the candidates.
        #expect(
            outcome.stdout.contains(
                "Query plan (EXPLAIN QUERY PLAN):\n  MULTI-INDEX OR\n    INDEX 1\n"
                    + "      SEARCH t0 USING INDEX Z_Book_UNIQUE_title (ZTITLE>? AND ZTITLE<?)\n"))
    }

    @Test func toManySubqueryUsesTheForeignKeyIndex() throws {
        let library = try LibraryFixture.make()
        let outcome = try ToolRunner.run(
            ["explain"] + library.files + ["--entity", "Author", "--predicate", "SUBQUERY(books, $b, $b.pages > 500).@count > 1"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stdout.contains("Bound values:\n  1. 500 (integer)\n  2. 1 (integer)\n"))
        #expect(outcome.stdout.contains("SEARCH m1 USING INDEX ZBOOK_ZAUTHOR_INDEX (ZAUTHOR=?)"))
    }

    @Test func dictionariesAndCounts() throws {
        let library = try LibraryFixture.make()
        let grouped = try ToolRunner.run(
            ["explain"] + library.files + [
                "--entity", "Book", "--properties", "author.name,n=count:(title)", "--group-by", "author.name", "--having", "n > 1",
            ])
        #expect(grouped.status == 0, "\(grouped.stderr)")
        #expect(grouped.stdout.contains("GROUP BY t1.ZNAME HAVING COUNT(t0.ZTITLE) > ?"))
        #expect(grouped.stdout.contains("LEFT JOIN ZAUTHOR t1"))
        let counted = try ToolRunner.run(["explain"] + library.files + ["--entity", "Novel", "--result", "count"])
        // A sub-entity shares its root's table and is selected by its entity number (Z_ENT 3).
        #expect(
            counted.stdout == """
                Novel (count)
                SQL:
                  SELECT COUNT(*) FROM ZBOOK t0 WHERE t0.Z_ENT IN (?)
                Bound values:
                  1. 3 (integer)
                Query plan (EXPLAIN QUERY PLAN):
                  SEARCH t0 USING COVERING INDEX ZBOOK_Z_ENT_INDEX (Z_ENT=?)

                """)
    }

    @Test func requestsSQLCannotRunAreExplainedOrRefused() throws {
        let library = try LibraryFixture.make()
        let refused = try ToolRunner.run(
            ["explain"] + library.files + ["--entity", "Book", "--predicate", "FUNCTION(title, 'length') > 3"])
        #expect(refused.status == 3)
        #expect(refused.stderrLines.count == 1)
        #expect(refused.stderr.contains("can't plan the fetch of Book: The SQLite store can't run this fetch"))
        let unknown = try ToolRunner.run(["explain"] + library.files + ["--entity", "Book", "--predicate", "titel == 1"])
        #expect(unknown.status == 3)
        #expect(unknown.stderr.contains("keypath titel not found in entity Book"))
    }
}
