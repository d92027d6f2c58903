import CoreData
import Testing

/// `coredata fetch` and `coredata count` on a store the test writes with the library.
@Suite struct FetchCommandTests {
    @Test func tableWithPredicateSortAndKeyPaths() throws {
        let library = try LibraryFixture.make()
        let outcome = try ToolRunner.run(
            ["fetch"] + library.files + [
                "--entity", "Book", "--predicate", "author.name BEGINSWITH[cd] 'emile' OR price < 8",
                "--sort", "-price,title", "--properties", "title,price,author.name,author",
            ])
        #expect(outcome.status == 0)
        #expect(outcome.stderr.isEmpty)
        #expect(
            outcome.stdout == """
                objectID  entity  title        price  author.name      author
                ────────  ──────  ───────────  ─────  ───────────────  ─────────
                Novel/p2  Novel   Germinal        11  Émile Zola       Author/p2
                Book/p5   Book    L'Assommoir    8.5  Émile Zola       Author/p2
                Novel/p3  Novel   Mort          7.99  Terry Pratchett  Author/p3
                (3 rows)

                """)
    }

    @Test func limitOffsetAndEveryColumnKind() throws {
        let library = try LibraryFixture.make()
        let outcome = try ToolRunner.run(
            ["fetch"] + library.files + ["--entity", "Book", "--sort=-rating,title", "--offset", "1", "--limit", "2"])
        #expect(outcome.status == 0)
        #expect(
            outcome.stdout == """
                objectID  entity  cover  pages  price  rating  subtitle             title         author
                ────────  ──────  ─────  ─────  ─────  ──────  ───────────────────  ────────────  ─────────
                Novel/p1  Novel   nil      532   9.99     4.5  nil                  Jane Eyre     Author/p1
                Book/p6   Book    nil      284   8.99     4.5  Discworld, "book 6"  Wyrd Sisters  Author/p3
                (2 rows)

                """)
        let mort = try ToolRunner.run(["fetch"] + library.files + ["--entity", "Novel", "--predicate", "title == 'Mort'"])
        #expect(mort.stdout.contains("20 bytes 000d1a2734414e5b…"))
        #expect(mort.stdout.contains("Fantasy"))
    }

    @Test func tablesFitTheTerminalWidth() throws {
        let library = try LibraryFixture.make()
        let outcome = try ToolRunner.run(["fetch"] + library.files + ["--entity", "Book", "--sort", "title"], columns: 80)
        #expect(outcome.status == 0)
        let lines = outcome.stdout.split(separator: "\n")
        #expect(lines.allSatisfy { $0.count <= 80 })
        #expect(lines.contains { $0.count == 80 })
        #expect(lines.contains { $0.contains("…") })
    }

    @Test func jsonIsExact() throws {
        let library = try LibraryFixture.make()
        let outcome = try ToolRunner.run(
            ["fetch"] + library.files + ["--entity", "Book", "--predicate", "title IN {'Mort', 'L\\'Assommoir'}", "--sort", "title", "--format", "json"])
        #expect(outcome.status == 0)
        let data = Data(outcome.stdout.utf8)
        let rows = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
        #expect(rows.count == 2)
        #expect(rows[0]["title"] as? String == "L'Assommoir")
        #expect(rows[0]["rating"] is NSNull)
        #expect((rows[0]["price"] as? NSNumber)?.doubleValue == 8.5)
        #expect((rows[1]["objectID"] as? String)?.hasSuffix("/Novel/p3") == true)
        #expect((rows[1]["author"] as? String)?.hasSuffix("/Author/p3") == true)
        #expect(rows[1]["cover"] as? String == Data((0..<20).map { UInt8($0 * 13) }).base64EncodedString())
        #expect((rows[1]["pages"] as? NSNumber)?.intValue == 272)
        // Keys keep the column order.
        #expect(outcome.stdout.contains("{\"objectID\": "))
        #expect(outcome.stdout.contains("\"entity\": \"Novel\", \"cover\": \""))
    }

    @Test func csvQuotesAndDates() throws {
        let library = try LibraryFixture.make()
        let books = try ToolRunner.run(
            ["fetch"] + library.files + ["--entity", "Book", "--predicate", "subtitle != nil", "--properties", "title,subtitle", "--format", "csv"])
        #expect(books.status == 0)
        let lines = books.stdout.split(separator: "\n")
        #expect(lines.first == "objectID,entity,title,subtitle")
        #expect(lines.count == 2)
        #expect(lines.last?.hasSuffix("/Book/p6,Book,Wyrd Sisters,\"Discworld, \"\"book 6\"\"\"") == true)
        let authors = try ToolRunner.run(
            ["fetch"] + library.files + ["--entity", "Author", "--sort", "born", "--properties", "name,born", "--format", "csv"])
        #expect(authors.stdout.contains(",Charlotte Brontë,1816-04-21T00:00:00Z\n"))
        #expect(authors.stdout.hasSuffix(",Terry Pratchett,1948-04-28T00:00:00Z\n"))
    }

    @Test func dictionariesWithGroupByHavingAndAggregates() throws {
        let library = try LibraryFixture.make()
        let outcome = try ToolRunner.run(
            ["fetch"] + library.files + [
                "--entity", "Book", "--properties", "author.name,n=count:(title),total=sum:(price),max:(pages)",
                "--group-by", "author.name", "--having", "total > 17", "--sort", "author.name",
            ])
        #expect(outcome.status == 0)
        #expect(
            outcome.stdout == """
                author.name       n  total  max
                ────────────────  ─  ─────  ───
                Charlotte Brontë  2  22.49  624
                Émile Zola        2   19.5  592
                (2 rows)

                """)
        let distinct = try ToolRunner.run(
            ["fetch"] + library.files + ["--entity", "Book", "--properties", "author.name", "--distinct", "--format", "csv", "--sort", "author.name"])
        #expect(distinct.stdout == "author.name\nCharlotte Brontë\nTerry Pratchett\nÉmile Zola\n")
    }

    @Test func objectIDsCountsAndSubentities() throws {
        let library = try LibraryFixture.make()
        let ids = try ToolRunner.run(["fetch"] + library.files + ["--entity", "Novel", "--result", "ids", "--sort", "title"])
        #expect(ids.stdout == "objectID\n────────\nNovel/p2\nNovel/p1\nNovel/p3\n(3 rows)\n")
        let count = try ToolRunner.run(["count"] + library.files + ["--entity", "Book", "--predicate", "pages > 400"])
        #expect(count.status == 0)
        #expect(count.stdout == "4\n")
        let resultCount = try ToolRunner.run(["fetch"] + library.files + ["--entity", "Novel", "--result", "count", "--format", "csv"])
        #expect(resultCount.stdout == "count\n3\n")
    }

    @Test func templatesWithVariables() throws {
        let library = try LibraryFixture.make()
        let outcome = try ToolRunner.run(
            ["fetch"] + library.files + ["--template", "Cheaper", "--var", "MAX=9", "--sort", "price", "--properties", "title,price", "--format", "csv"])
        #expect(outcome.status == 0)
        #expect(outcome.stdout.split(separator: "\n").map { $0.split(separator: ",").last ?? "" } == ["price", "7.99", "8.5", "8.99"])
        let combined = try ToolRunner.run(
            ["count"] + library.files + ["--template", "Cheaper", "--var", "MAX=9", "--predicate", "pages > 280"])
        #expect(combined.stdout == "2\n")
    }

    @Test func relationshipsFetchedPropertiesAndPrefetching() throws {
        let library = try LibraryFixture.make()
        let outcome = try ToolRunner.run(
            ["fetch"] + library.files + ["--entity", "Author", "--prefetch", "books", "--properties", "name,born,books,longBooks", "--sort", "born"])
        #expect(outcome.status == 0)
        #expect(
            outcome.stdout == """
                objectID   name              born                  books      longBooks
                ─────────  ────────────────  ────────────────────  ─────────  ─────────
                Author/p1  Charlotte Brontë  1816-04-21T00:00:00Z  2 objects  2 objects
                Author/p2  Émile Zola        1840-04-02T00:00:00Z  2 objects  1 object
                Author/p3  Terry Pratchett   1948-04-28T00:00:00Z  2 objects  0 objects
                (3 rows)

                """)
        let json = try ToolRunner.run(
            ["fetch"] + library.files + ["--entity", "Author", "--predicate", "name BEGINSWITH 'T'", "--properties", "books", "--format", "json"])
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        let books = try #require(rows.first?["books"] as? [String])
        #expect(books.map { URL(string: $0)?.lastPathComponent } == ["p6", "p3"])
    }
}
