import CoreData
import Foundation
import Testing

/// How `fetch` writes its rows as they come (table, JSON, NDJSON, CSV), and the `--json` of
/// `model`, `stores` and `explain`.
@Suite struct OutputTests {
    /// The library with 450 books in all: the 444 added are `Book 007` … `Book 450` with 1000 +
    /// their number of pages, and book 300 has a title longer than any before it.
    static func manyBooks() throws -> LibraryFixture {
        let library = try LibraryFixture.make()
        let context = try library.context()
        try context.performAndWait {
            for number in 7...450 {
                let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: context)
                let title = String(format: "Book %03d", number)
                book.setValue(number == 300 ? title + String(repeating: " and more", count: 8) : title, forKey: "title")
                book.setValue(1000 + number, forKey: "pages")
            }
            try context.save()
        }
        return library
    }

    static let request = ["--entity", "Book", "--predicate", "pages > 1000", "--sort", "pages", "--properties", "title,pages"]

    /// The columns are sized from the first 200 rows; a later, wider cell is cut to them, and
    /// the table stays as wide as its header.
    @Test func aTableSizesItsColumnsFromItsFirstRowsThenStreams() throws {
        let library = try Self.manyBooks()
        let outcome = try ToolRunner.run(["fetch"] + library.files + Self.request)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let lines = outcome.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 2 + 444 + 1)
        #expect(lines.first == "objectID   entity  title     pages")
        #expect(lines[2] == "Book/p7    Book    Book 007   1007")
        let long = try #require(lines.first { $0.hasPrefix("Book/p300 ") })
        #expect(long == "Book/p300  Book    Book 30…   1300")
        #expect(lines.last == "(444 rows)")
        // CSV keeps the whole title.
        let csv = try ToolRunner.run(["fetch"] + library.files + Self.request + ["--format", "csv"])
        #expect(
            csv.stdout.contains(",Book,Book 300 and more and more and more and more and more and more and more and more,1300\n"))
    }

    /// NDJSON: one object a line, nothing else; the same objects as the JSON array, in order.
    @Test func ndjsonIsAnObjectALineAndJSONTheSameArray() throws {
        let library = try Self.manyBooks()
        let ndjson = try ToolRunner.run(["fetch"] + library.files + Self.request + ["--format", "ndjson"])
        #expect(ndjson.status == 0, "\(ndjson.stderr)")
        let lines = ndjson.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 445 && lines.last == "")
        let objects = try lines.dropLast().map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        #expect(objects.map { ($0["pages"] as? NSNumber)?.intValue } == (7...450).map { 1000 + $0 })
        let json = try ToolRunner.run(["fetch"] + library.files + Self.request + ["--format", "json"])
        let array = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(array.count == objects.count)
        #expect(array.map { $0["title"] as? String } == objects.map { $0["title"] as? String })
        #expect(json.stdout.hasPrefix("[\n  {\"objectID\": ") && json.stdout.hasSuffix("}\n]\n"))
        let none = try ToolRunner.run(
            ["fetch"] + library.files + ["--entity", "Book", "--predicate", "pages < 0", "--format", "json"])
        #expect(none.stdout == "[]\n")
        let noLines = try ToolRunner.run(
            ["fetch"] + library.files + ["--entity", "Book", "--predicate", "pages < 0", "--format", "ndjson"])
        #expect(noLines.status == 0 && noLines.stdout.isEmpty)
    }

    /// Object IDs stream too, in the order the fetch gives.
    @Test func objectIDsStreamInFetchOrder() throws {
        let library = try Self.manyBooks()
        let outcome = try ToolRunner.run(
            ["fetch"] + library.files + [
                "--entity", "Book", "--sort", "-pages", "--result", "ids", "--format", "csv", "--limit", "3",
            ])
        #expect(
            outcome.stdout.split(separator: "\n").map { $0.split(separator: "/").last ?? "" } == [
                "objectID", "p450", "p449", "p448",
            ])
    }

    /// However narrow the terminal, no line of a table is wider: too many columns for it, and
    /// each line is cut at its width.
    @Test func aTableNeverWraps() throws {
        let library = try LibraryFixture.make()
        for columns in [20, 33, 60] {
            let outcome = try ToolRunner.run(["fetch"] + library.files + ["--entity", "Book"], columns: columns)
            #expect(outcome.status == 0)
            let lines = outcome.stdout.split(separator: "\n")
            #expect(lines.count == 2 + 6 + 1)
            #expect(lines.allSatisfy { $0.count <= columns }, "\(columns): \(lines)")
        }
    }

    @Test func modelStoresAndExplainPrintJSON() throws {
        let library = try LibraryFixture.make()
        let model = try ToolRunner.run(["model", "--model", library.model, "--json"])
        #expect(model.status == 0, "\(model.stderr)")
        let described = try #require(try JSONSerialization.jsonObject(with: Data(model.stdout.utf8)) as? [String: Any])
        let entities = try #require(described["entities"] as? [[String: Any]])
        #expect(entities.compactMap { $0["name"] as? String } == ["Author", "Book", "Novel"])
        let book = entities[1]
        #expect(book["subentities"] as? [String] == ["Novel"])
        #expect(book["uniquenessConstraints"] as? [[String]] == [["title"]])
        let pages = try #require((book["attributes"] as? [[String: Any]])?.first { $0["name"] as? String == "pages" })
        #expect(
            pages["type"] as? String == "Integer 32" && pages["default"] as? String == "0" && pages["optional"] as? Bool == true)
        let author = try #require((book["relationships"] as? [[String: Any]])?.first)
        #expect(author["destination"] as? String == "Author" && author["inverse"] as? String == "books")
        #expect(author["toMany"] as? Bool == false && author["deleteRule"] as? String == "Nullify")
        #expect(entities[2]["parent"] as? String == "Book" && entities[0]["parent"] is NSNull)
        let templates = try #require(described["fetchRequestTemplates"] as? [[String: Any]])
        #expect(templates.first?["predicate"] as? String == "price < $MAX")

        let stores = try ToolRunner.run(["stores", "--store", library.store, "--model", library.model, "--json"])
        #expect(stores.status == 0, "\(stores.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(stores.stdout.utf8)) as? [String: Any])
        #expect(report["type"] as? String == "SQLite" && report["matchesModel"] as? Bool == true)
        let rows = try #require(report["entities"] as? [[String: Any]])
        #expect(rows.map { $0["name"] as? String } == ["Author", "Book", "Novel"])
        #expect(rows.map { ($0["rows"] as? NSNumber)?.intValue } == [3, 3, 3])
        #expect(rows.allSatisfy { $0["model"] as? String == "same" })

        let explain = try ToolRunner.run(
            ["explain"] + library.files + ["--entity", "Book", "--predicate", "pages > 300 AND title == 'Mort'", "--json"])
        #expect(explain.status == 0, "\(explain.stderr)")
        let plan = try #require(try JSONSerialization.jsonObject(with: Data(explain.stdout.utf8)) as? [String: Any])
        #expect(plan["runs"] as? String == "sql" && plan["result"] as? String == "objects")
        #expect((plan["sql"] as? String)?.contains("FROM ZBOOK t0 WHERE") == true)
        let arguments = try #require(plan["arguments"] as? [[String: String]])
        #expect(arguments.contains { $0 == ["value": "300", "kind": "integer"] })
        #expect(arguments.contains { $0 == ["value": "Mort", "kind": "text"] })
        #expect((plan["queryPlan"] as? [String])?.isEmpty == false)

        // A date: seconds since 2001 as Apple's SQLite store keeps it, and the date in ISO 8601.
        let dated = try ToolRunner.run(
            ["explain"] + library.files + ["--entity", "Author", "--predicate", "born > CAST(86400, 'NSDate')", "--json"])
        let datePlan = try #require(try JSONSerialization.jsonObject(with: Data(dated.stdout.utf8)) as? [String: Any])
        #expect(
            datePlan["arguments"] as? [[String: String]] == [
                ["value": "86400.0", "kind": "date", "iso8601": "2001-01-02T00:00:00Z"]
            ], "\(dated.stdout)")
    }

    /// `model --export` writes an `.xcdatamodel` whose hashes are the store's.
    @Test func anExportedModelMatchesTheStore() throws {
        let library = try LibraryFixture.make()
        let folder = try ToolRunner.temporaryFolder("export")
        let written = try ToolRunner.run(["model", "--model", library.model, "--export", folder.path])
        #expect(written.status == 0, "\(written.stderr)")
        let exported = folder.appendingPathComponent("Library.xcdatamodel")
        #expect(written.stdout == "wrote \(exported.path) (3 entities)\n")
        let stores = try ToolRunner.run(["stores", "--store", library.store, "--model", exported.path])
        #expect(stores.stdout.contains("The model matches the store: every version hash is the same."), "\(stores.stdout)")
        let count = try ToolRunner.run([
            "count", "--store", library.store, "--model", exported.path, "--template", "Cheaper", "--var", "MAX=9",
        ])
        #expect(count.stdout == "3\n", "\(count.stderr)")
    }
}
