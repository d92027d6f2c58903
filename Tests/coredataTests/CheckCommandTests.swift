import CoreData
import OpenSQLStore
import OpenSQLiteStore
import Testing

/// `coredata check`, and the tool on a store with a dangling to-one key: it lists the key, and
/// no command stops on it.
@Suite struct CheckCommandTests {
    @Test func aSoundStoreIsOk() throws {
        let library = try LibraryFixture.make()
        let outcome = try ToolRunner.run(["check", "--model", library.model, "--store", library.store])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stdout == "ok\n")
        let json = try ToolRunner.run(["check", "--model", library.model, "--store", library.store, "--json"])
        #expect(json.status == 0 && json.stdout == "{\"danglingToOneKeys\":[],\"integrity\":[],\"problems\":0}\n")
    }

    @Test func danglingKeysAreListedAndNoCommandStops() throws {
        let library = try LibraryFixture.make()
        let url = URL(fileURLWithPath: library.store)
        do {
            let connection = try SQLiteConnection(url: url, mode: .readWrite)
            try connection.execute("UPDATE ZBOOK SET ZAUTHOR = 999 WHERE ZTITLE = 'Mort'")
        }
        let outcome = try ToolRunner.run(["check", "--model", library.model, "--store", library.store])
        #expect(outcome.status == 1)
        let lines = outcome.stdout.split(separator: "\n")
        #expect(lines.count == 1, "\(outcome.stdout)")
        #expect(lines.first?.hasPrefix("dangling to-one key: Novel ") == true, "\(outcome.stdout)")
        #expect(lines.first?.hasSuffix(".author → Author 999: no such row in ZAUTHOR") == true, "\(outcome.stdout)")
        #expect(outcome.stderr == "coredata: error: 1 problem(s) in the store \(library.store)\n")
        // The same findings as JSON, with the same status.
        let json = try ToolRunner.run(["check", "--model", library.model, "--store", library.store, "--json"])
        #expect(json.status == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["problems"] as? Int == 1 && (object["integrity"] as? [Any])?.isEmpty == true)
        let key = try #require((object["danglingToOneKeys"] as? [[String: Any]])?.first)
        #expect(key["entity"] as? String == "Novel" && key["relationship"] as? String == "author")
        #expect(key["destination"] as? String == "Author" && key["key"] as? Int == 999)

        // Reading the store with the key never stops the tool.
        for arguments in [
            ["fetch"] + library.files + ["--entity", "Book", "--sort", "title"],
            ["fetch"] + library.files + ["--entity", "Book", "--properties", "title,author.name", "--sort", "title"],
            ["fetch"] + library.files + ["--entity", "Book", "--predicate", "author.name == 'x' OR pages > 0", "--sort", "author.name"],
            ["fetch"] + library.files + ["--entity", "Author", "--properties", "name,books"],
            ["fetch"] + library.files + ["--entity", "Book", "--prefetch", "author"],
            ["count"] + library.files + ["--entity", "Book", "--predicate", "author == nil"],
        ] {
            let run = try ToolRunner.run(arguments)
            #expect(run.status == 0 || run.stderr.hasPrefix("coredata: error: "), "\(arguments): \(run.status) \(run.stderr)")
            #expect(run.status == 0 || run.status == 3, "\(arguments): \(run.status) \(run.stderr)")
        }
    }
}
