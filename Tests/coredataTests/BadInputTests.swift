import CoreData
import OpenSQLStore
import OpenSQLiteStore
import Testing

/// Bad input of every kind ends the same way: exactly one line on stderr naming the culprit,
/// nothing on stdout, a non-zero status (2 for what the argument parser refuses, 3 for the rest),
/// and the store's bytes untouched.
@Suite struct BadInputTests {
    /// (arguments after the command, with `MODEL`/`STORE`/`FOLDER` placeholders; status; a part of the error line)
    static let cases: [([String], Int32, String)] = [
        (["fetch", "--entity", "Book", "--predicate", "title == AND x"], 3,
            "--predicate: Unable to parse the format string \"title == AND x\" at line 1, column 10: expected an expression"),
        (["count", "--entity", "Book", "--predicate", "title BEGINSWITH"], 3, "at line 1, column 17: unexpected end of format string"),
        (["fetch", "--entity", "Book", "--predicate", "pages > 1", "--having", "x >"], 3, "--having: Unable to parse the format string \"x >\""),
        (["fetch", "--entity", "Bok"], 3, "the model has no entity named 'Bok' (entities: Author, Book, Novel)"),
        (["fetch", "--entity", "Book", "--predicate", "titel == 1"], 3, "can't fetch Book: keypath titel not found in entity Book"),
        (["fetch", "--entity", "Book", "--sort", "nme"], 3, "keypath nme not found in entity Book"),
        (["fetch", "--entity", "Book", "--properties", "title,author.nme"], 3, "--properties: Author has no property named 'nme' (in 'author.nme')"),
        (["fetch", "--entity", "Book", "--prefetch", "titles"], 3, "--prefetch: Book has no relationship named 'titles'"),
        (["fetch", "--entity", "Book", "--properties", "n=count:(title", "--group-by", "title"], 3, "--properties: Unable to parse the format string \"count:(title\" at line 1, column 13"),
        (["fetch", "--template", "Nope"], 3, "the model has no fetch request template named 'Nope' (templates: Cheaper)"),
        (["fetch", "--template", "Cheaper"], 3, "template 'Cheaper': Can't get value for 'MAX'"),
        (["fetch", "--entity", "Book", "--limit", "ten"], 2, "The value 'ten' is invalid for '--limit <limit>'"),
        (["fetch", "--entity", "Book", "--limit", "-3"], 2, "--limit must be 0 or more, not -3"),
        (["fetch", "--entity", "Book", "--result", "rows"], 2, "The value 'rows' is invalid for '--result <result>'"),
        (["fetch", "--entity", "Book", "--format", "xml"], 2, "The value 'xml' is invalid for '--format <format>'"),
        (["fetch", "--entity", "Book", "--var", "A=1"], 2, "--var needs --template"),
        (["fetch"], 2, "give --entity or --template"),
    ]

    @Test(arguments: cases.indices)
    func badFetchOptions(_ index: Int) throws {
        let (arguments, status, message) = Self.cases[index]
        let library = try LibraryFixture.make()
        let before = try library.storeBytes()
        let outcome = try ToolRunner.run([arguments[0]] + library.files + arguments.dropFirst())
        #expect(outcome.status == status, "\(arguments)")
        #expect(outcome.stdout.isEmpty, "\(arguments)")
        #expect(outcome.stderrLines.count == 1, "\(arguments): \(outcome.stderr)")
        #expect(outcome.stderr.hasPrefix("coredata: error: "), "\(arguments)")
        #expect(outcome.stderr.contains(message), "\(arguments): \(outcome.stderr)")
        #expect(try library.storeBytes() == before)
    }

    /// Missing, foreign and corrupt files, for every command that reads them.
    @Test func badFiles() throws {
        let library = try LibraryFixture.make()
        let folder = library.folder
        let text = folder.appendingPathComponent("notes.sqlite").path
        try Data("not a database\n".utf8).write(to: URL(fileURLWithPath: text))
        let truncated = folder.appendingPathComponent("truncated.sqlite").path
        try Data(try Data(contentsOf: URL(fileURLWithPath: library.store)).prefix(3000)).write(to: URL(fileURLWithPath: truncated))
        let plain = folder.appendingPathComponent("plain.sqlite")
        try SQLiteConnection(url: plain, mode: .create).execute("CREATE TABLE notes (body TEXT)")
        let badXML = folder.appendingPathComponent("bad.xml").path
        try Data("<model>\n<entity name=\"A\"\n".utf8).write(to: URL(fileURLWithPath: badXML))
        let otherModel = folder.appendingPathComponent("Other.xcdatamodel")
        try FileManager.default.createDirectory(at: otherModel, withIntermediateDirectories: true)
        try Data(
            """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0"><entity name="Song"><attribute name="title" attributeType="String"/></entity></model>
            """.utf8
        ).write(to: otherModel.appendingPathComponent("contents"))

        let cases: [([String], String)] = [
            (["fetch", "--model", folder.appendingPathComponent("none").path, "--store", library.store, "--entity", "Book"], "no model file or folder at "),
            (["fetch", "--model", library.model, "--store", folder.appendingPathComponent("none.sqlite").path, "--entity", "Book"], "no store file at "),
            (["fetch", "--model", library.model, "--store", text, "--entity", "Book"], "notes.sqlite is not a SQLite database"),
            (["count", "--model", library.model, "--store", truncated, "--entity", "Book"], "database disk image is malformed"),
            (["fetch", "--model", badXML, "--store", library.store, "--entity", "Book"], "bad.xml:3:1: malformed XML"),
            (["fetch", "--model", otherModel.path, "--store", library.store, "--entity", "Song"], "it was written with another model (version hashes differ for Author, Book, Novel, Song)"),
            (["fetch", "--model", library.store, "--store", library.store, "--entity", "Book"], "Library.sqlite:1:1: malformed XML"),
            (["fetch", "--model", library.model, "--store", plain.path, "--entity", "Book"],
                "plain.sqlite is a SQLite database but not a Core Data store (no Z_METADATA table)"),
            (["stores", plain.path], "plain.sqlite is a SQLite database but not a Core Data store (no Z_METADATA table)"),
            (["model", badXML], "bad.xml:3:1: malformed XML"),
            (["model", folder.appendingPathComponent("none").path], "no model file or folder at "),
            (["stores", text], "notes.sqlite is not a SQLite database"),
            (["stores", badXML], "bad.xml is not a SQLite database"),
            (["stores", folder.path], "no store file at "),
        ]
        let before = try library.storeBytes()
        for (arguments, message) in cases {
            let outcome = try ToolRunner.run(arguments)
            #expect(outcome.status == 3, "\(arguments)")
            #expect(outcome.stdout.isEmpty, "\(arguments)")
            #expect(outcome.stderrLines.count == 1, "\(arguments): \(outcome.stderr)")
            #expect(outcome.stderr.contains(message), "\(arguments): \(outcome.stderr)")
        }
        #expect(try library.storeBytes() == before)
    }

    /// Reading never writes: the store file and its `-wal` keep their bytes through every
    /// read-only command; `--write` is the only way to open the file read-write.
    @Test func readOnlyRunsLeaveTheFileUnchanged() throws {
        let library = try LibraryFixture.make()
        let before = try library.storeBytes()
        for arguments in [
            ["fetch"] + library.files + ["--entity", "Book", "--predicate", "pages > 300", "--sort", "title"],
            ["fetch"] + library.files + ["--entity", "Author", "--prefetch", "books", "--format", "json"],
            ["count"] + library.files + ["--entity", "Novel"],
            ["explain"] + library.files + ["--entity", "Book", "--predicate", "pages > 300"],
            ["stores", library.store, "--model", library.model],
        ] {
            _ = try ToolRunner.run(arguments)
            #expect(try library.storeBytes() == before, "\(arguments[0])")
        }
        // With --write the store opens read-write (SQLite may checkpoint the -wal on close).
        let written = try ToolRunner.run(["count"] + library.files + ["--entity", "Book", "--write"])
        #expect(written.stdout == "6\n")
    }
}
