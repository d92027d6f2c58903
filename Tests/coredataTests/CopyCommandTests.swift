import CoreData
import Foundation
import TestSupport
import Testing

/// `coredata copy`: a store moved to another store (SQLite, and PostgreSQL when a test server
/// is named) keeps its rows, keys and UUID; a copy back gives a file with the same answers.
struct CopyCommandTests {
    /// Where copies go: SQLite files, and PostgreSQL schemas under CI or with a server named
    /// (in a build with the PostgreSQL store: the package trait `PostgreSQL`).
    static var destinations: [String] { ["sqlite"] + (PostgresTestServer.isEnabled ? ["postgres"] : []) }

    /// A destination URL or path of `kind`, and how to remove it afterwards.
    static func destination(_ kind: String, in folder: URL) throws -> (place: String, remove: () -> Void) {
        guard kind == "postgres" else { return (folder.appendingPathComponent("Copy.sqlite").path, {}) }
        let store = try PostgresTestServer.freshStoreURL()
        return (store.absoluteString, { PostgresTestServer.destroy(store) })
    }

    /// On a terminal, `copy` draws a progress line on standard error (at once, then as rows
    /// are written) and clears it at the end; into a file or a pipe it writes none.
    @Test func aProgressLineOnATerminalOnly() throws {
        let fixture = try LibraryFixture.make()
        let onTerminal = try ToolRunner.run(
            [
                "copy", "--model", fixture.model, "--store", fixture.store, "--to",
                fixture.folder.appendingPathComponent("A.sqlite").path,
            ],
            terminal: true)
        #expect(onTerminal.status == 0, "\(onTerminal.stderr)")
        #expect(onTerminal.stdout.contains("copied 9 objects"), "\(onTerminal.stdout)")
        #expect(onTerminal.stderr.hasPrefix("\r\u{1B}[Kcopying: 0 of 9 rows (0%), 0 s so far"), "\(onTerminal.stderr)")
        #expect(onTerminal.stderr.hasSuffix("\r\u{1B}[K"), "the line is cleared: \(onTerminal.stderr)")
        let intoFile = try ToolRunner.run(
            [
                "copy", "--model", fixture.model, "--store", fixture.store, "--to",
                fixture.folder.appendingPathComponent("B.sqlite").path,
            ])
        #expect(intoFile.status == 0, "\(intoFile.stderr)")
        #expect(intoFile.stderr.isEmpty, "\(intoFile.stderr)")
    }

    @Test(arguments: destinations)
    func copyThereAndBackGivesTheSameFetchesAndKeys(_ kind: String) throws {
        let fixture = try LibraryFixture.make()
        let (place, remove) = try Self.destination(kind, in: fixture.folder)
        defer { remove() }
        let copied = try ToolRunner.run(["copy", "--model", fixture.model, fixture.store, place])
        #expect(copied.status == 0, "\(copied.stderr)")
        #expect(copied.stdout.contains("copied 9 objects"), "\(copied.stdout)")
        #expect(!copied.stdout.contains("secret"))

        if kind == "postgres" {
            // The tool's other commands on the PostgreSQL store.
            let stores = try ToolRunner.run(["stores", place])
            #expect(stores.status == 0, "\(stores.stderr)")
            #expect(stores.stdout.contains("type: PostgreSQL"), "\(stores.stdout)")
            #expect(stores.stdout.contains("Novel"), "\(stores.stdout)")
            let count = try ToolRunner.run(
                ["count", "--model", fixture.model, "--store", place, "--entity", "Book", "--predicate", "pages > 100"])
            let expected = try ToolRunner.run(
                ["count", "--model", fixture.model, "--store", fixture.store, "--entity", "Book", "--predicate", "pages > 100"])
            #expect(count.status == 0, "\(count.stderr)")
            #expect(count.stdout == expected.stdout)
            let explain = try ToolRunner.run(
                ["explain", "--model", fixture.model, "--store", place, "--entity", "Book", "--predicate", "pages > 100"])
            #expect(explain.status == 0, "\(explain.stderr)")
            #expect(explain.stdout.contains("\"ZPAGES\" > $1"), "\(explain.stdout)")
            #expect(explain.stdout.contains("Query plan (EXPLAIN):"))
            // A string operator PostgreSQL does not compute as Foundation does: in memory, over
            // the rows SQL keeps, with the same answers as the SQLite file's.
            let search = ["--entity", "Book", "--predicate", "title CONTAINS[c] 'R' AND pages > 300", "--sort", "title"]
            let narrowed = try ToolRunner.run(["explain", "--model", fixture.model, "--store", place] + search)
            #expect(narrowed.stdout.contains("Runs in memory, over the rows SQL selects"), "\(narrowed.stdout)")
            #expect(narrowed.stdout.contains("strpos(lower(t0.\"ZTITLE\"), $1) > 0"), "\(narrowed.stdout)")
            let found = try ToolRunner.run(["fetch", "--model", fixture.model, "--store", place, "--format", "json"] + search)
            let reference = try ToolRunner.run(
                ["fetch", "--model", fixture.model, "--store", fixture.store, "--format", "json"] + search)
            #expect(found.status == 0 && found.stdout == reference.stdout && found.stdout.contains("\""), "\(found.stderr)")
        }
        let back = fixture.folder.appendingPathComponent("Back.sqlite").path
        let returned = try ToolRunner.run(["copy", "--model", fixture.model, place, back])
        #expect(returned.status == 0, "\(returned.stderr)")

        let arguments = ["--entity", "Book", "--sort", "title", "--format", "json"]
        let original = try ToolRunner.run(["fetch", "--model", fixture.model, "--store", fixture.store] + arguments)
        #expect(original.status == 0)
        for store in [place, back] {
            let fetched = try ToolRunner.run(["fetch", "--model", fixture.model, "--store", store] + arguments)
            #expect(fetched.status == 0, "\(fetched.stderr)")
            #expect(fetched.stdout == original.stdout, "\(store)")
        }
        // The same keys and UUID: object IDs of the original name the copy's rows.
        let model = try NSManagedObjectModel(validatingContentsOf: URL(fileURLWithPath: fixture.model))
        func ids(_ path: String) throws -> [URL] {
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
            try coordinator.addPersistentStore(
                ofType: NSSQLiteStoreType, configurationName: nil, at: URL(fileURLWithPath: path),
                options: [NSReadOnlyPersistentStoreOption: true])
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            let request = NSFetchRequest<NSManagedObjectID>(entityName: "Book")
            request.resultType = .managedObjectIDResultType
            return try context.fetch(request).map { $0.uriRepresentation() }.sorted { $0.absoluteString < $1.absoluteString }
        }
        #expect(try ids(back) == ids(fixture.store))
    }

    @Test func aCopyOntoAnExistingFileIsRefused() throws {
        let fixture = try LibraryFixture.make()
        let outcome = try ToolRunner.run(["copy", "--model", fixture.model, fixture.store, fixture.store])
        #expect(outcome.status != 0)
        #expect(outcome.stderr.contains("exists already"), "\(outcome.stderr)")
    }

    /// `--store SOURCE --to DESTINATION` names what the positional SOURCE DESTINATION do; the two
    /// spellings do not mix.
    @Test func storeAndToNameTheSourceAndDestination() throws {
        let fixture = try LibraryFixture.make()
        let copy = fixture.folder.appendingPathComponent("Named.sqlite").path
        let copied = try ToolRunner.run(["copy", "--model", fixture.model, "--store", fixture.store, "--to", copy])
        #expect(copied.status == 0 && copied.stdout.contains("copied 9 objects"), "\(copied.stderr)")
        let count = try ToolRunner.run(["count", "--model", fixture.model, "--store", copy, "--entity", "Book"])
        #expect(count.stdout == "6\n")
        for arguments in [["--store", fixture.store, copy], ["--to", copy, fixture.store], [fixture.store]] {
            let refused = try ToolRunner.run(["copy", "--model", fixture.model] + arguments)
            #expect(refused.status == 2 && refused.stderr.contains("--store SOURCE --to DESTINATION"), "\(arguments)")
        }
    }
}
