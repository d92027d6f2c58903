import CoreData
import Testing

/// `coredata model` and `coredata stores` on the test's own files and on Apple-written ones.
@Suite struct ModelAndStoresCommandTests {
    @Test func modelShowsEntitiesInheritanceTemplatesAndFetchedProperties() throws {
        let library = try LibraryFixture.make()
        let outcome = try ToolRunner.run(["model", library.model])
        #expect(outcome.status == 0)
        let out = outcome.stdout
        #expect(out.hasPrefix("3 entities, 1 fetch request template\n"))
        #expect(out.contains("Book  (sub-entities: Novel)\n"))
        #expect(out.contains("Novel : Book\n  attributes\n    genre  String  optional\n"))
        #expect(out.contains("    pages     Integer 32  optional  default 0\n"))
        #expect(out.contains("    title     String      required\n"))
        #expect(out.contains("    books  → Book  to-many  optional  inverse author  delete rule Cascade\n"))
        #expect(out.contains("    author  → Author  to-one  optional  inverse books  delete rule Nullify\n"))
        #expect(out.contains("  fetched properties\n    longBooks: Book where author == $FETCH_SOURCE AND pages > 500\n"))
        #expect(out.contains("  uniqueness constraints: (title)\n"))
        #expect(out.hasSuffix("Fetch request templates\n  Cheaper: Book where price < $MAX\n"))
    }

    /// Without `--model`, a store that caches no model (as this package's stores do not) is
    /// refused with a line saying so; `model` takes a file or `--store`, one of them.
    @Test func withoutAModelAStoreWithoutACacheIsRefused() throws {
        let library = try LibraryFixture.make()
        let count = try ToolRunner.run(["count", "--store", library.store, "--entity", "Book"])
        #expect(count.status == 3 && count.stdout.isEmpty)
        #expect(count.stderr.contains("keeps no copy of its model") && count.stderr.contains("give --model"))
        let withModel = try ToolRunner.run(["count", "--store", library.store, "--model", library.model, "--entity", "Book"])
        #expect(withModel.status == 0 && withModel.stdout == "6\n")
        let described = try ToolRunner.run(["model", "--store", library.store])
        #expect(described.status == 3 && described.stderr.contains("keeps no copy of its model"))
        #expect(try ToolRunner.run(["model"]).status != 0)
        #expect(try ToolRunner.run(["model", library.model, "--store", library.store]).status != 0)
    }

    /// A model that is no version of the store's opens it read-only when the store's tables hold
    /// every column the model reads (here the model makes `Author.name` optional: its hash
    /// changes, its column does not), with a warning naming the entities; not to write, and not
    /// when a column the model reads is missing.
    @Test func aModelThatReadsTheSameTablesOpensTheStoreReadOnly() throws {
        let library = try LibraryFixture.make()
        let folder = URL(fileURLWithPath: library.model).deletingLastPathComponent()
        func variant(_ name: String, _ replace: (String, String)) throws -> String {
            let model = folder.appendingPathComponent("\(name).xcdatamodel")
            try FileManager.default.createDirectory(at: model, withIntermediateDirectories: true)
            let contents = LibraryFixture.contents.replacingOccurrences(of: replace.0, with: replace.1)
            #expect(contents != LibraryFixture.contents)
            try Data(contents.utf8).write(to: model.appendingPathComponent("contents"))
            return model.path
        }
        let looser = try variant(
            "Looser", ("<attribute name=\"name\" attributeType=\"String\"/>", "<attribute name=\"name\" optional=\"YES\" attributeType=\"String\"/>"))
        let read = try ToolRunner.run(["count", "--store", library.store, "--model", looser, "--entity", "Author"])
        #expect(read.status == 0 && read.stdout == "3\n", "\(read.stderr)")
        #expect(read.stderr.hasPrefix("coredata: warning: ") && read.stderr.contains("version hashes differ for Author)"))
        let write = try ToolRunner.run(["count", "--store", library.store, "--model", looser, "--entity", "Author", "--write"])
        #expect(write.status == 3 && write.stderr.contains("incompatible"))
        let wider = try variant(
            "Wider", ("<attribute name=\"genre\" optional=\"YES\" attributeType=\"String\"/>",
                "<attribute name=\"genre\" optional=\"YES\" attributeType=\"String\"/><attribute name=\"isbn\" optional=\"YES\" attributeType=\"String\"/>"))
        let missing = try ToolRunner.run(["count", "--store", library.store, "--model", wider, "--entity", "Book"])
        #expect(missing.status == 3 && missing.stderr.contains("ZISBN"), "\(missing.stderr)")
    }

    @Test func storesReadsMetadataEntitiesAndRowCounts() throws {
        let library = try LibraryFixture.make()
        let plain = try ToolRunner.run(["stores", library.store])
        #expect(plain.status == 0)
        #expect(plain.stdout.contains("  type: SQLite   UUID: "))
        #expect(plain.stdout.contains("journal mode: wal"))
        #expect(plain.stdout.contains("framework version: 1344"))
        #expect(plain.stdout.contains("    1  Author              3     3  "))
        #expect(plain.stdout.contains("    2  Book                6     3  "))
        #expect(plain.stdout.contains("    3  Novel   Book        0     3  "))
        // `--store` and `--model`, as every command names them, or the paths alone (older).
        #expect(try ToolRunner.run(["stores", "--store", library.store]).stdout == plain.stdout)
        #expect(try ToolRunner.run(["model", "--model", library.model]).stdout == ToolRunner.run(["model", library.model]).stdout)
        #expect(try ToolRunner.run(["stores", "--store", library.store, library.store]).status == 2)
        let compared = try ToolRunner.run(["stores", library.store, "--model", library.model])
        #expect(compared.stdout.contains("    3  Novel   Book        0     3  same   "))
        #expect(compared.stdout.hasSuffix("The model matches the store: every version hash is the same.\n"))
    }

    @Test func modelOfAnAppleXMLModel() throws {
        guard let folder = try ToolRunner.realWorldStore("coredataplus-samplemodel-v1") else { return }
        let outcome = try ToolRunner.run(["model", folder.appendingPathComponent("SampleModel.xcdatamodel.contents.xml").path])
        #expect(outcome.status == 0)
        #expect(outcome.stdout.hasPrefix("4 entities, 0 fetch request templates\n"))
        #expect(outcome.stdout.contains("Car  (sub-entities: SportCar)\n"))
        #expect(outcome.stdout.contains("    color                  Transformable  optional  transformer ColorTransformer\n"))
        #expect(outcome.stdout.contains("  uniqueness constraints: (firstName, lastName)\n"))
        #expect(outcome.stdout.contains("ExpensiveSportCar : SportCar\n"))
    }

    @Test func storesOnAnAppleWALStore() throws {
        guard let folder = try ToolRunner.realWorldStore("kodeco-surfjournal-wal") else { return }
        let store = folder.appendingPathComponent("SurfJournalModel.sqlite").path
        let model = folder.appendingPathComponent("SurfJournalModel.xcdatamodel.contents.xml").path
        let before = try Data(contentsOf: URL(fileURLWithPath: store + "-wal"))
        let outcome = try ToolRunner.run(["stores", store, "--model", model])
        #expect(outcome.status == 0)
        #expect(outcome.stdout.contains("UUID: D246D1F7-4A2D-462D-AE31-1A41C47E7B6C   journal mode: wal"))
        #expect(outcome.stdout.contains("framework version: 519"))
        // All 5,000 rows live in the -wal file, which a read-only open must read and leave alone.
        #expect(
            outcome.stdout.contains(
                "    1  JournalEntry           5000  5000  same   4e3ea95632361f4d56a77e070ac74686a20d64aff5e049eb61"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: store + "-wal")) == before)
    }

    @Test func storesWithADifferentModelSaysWhichEntitiesDiffer() throws {
        guard let folder = try ToolRunner.realWorldStore("coredataplus-samplemodel-v2") else { return }
        let outcome = try ToolRunner.run([
            "stores", folder.appendingPathComponent("SampleModel_V2.sqlite").path, "--model",
            folder.appendingPathComponent("SampleModel3.xcdatamodel.contents.xml").path,
        ])
        #expect(outcome.status == 0)
        #expect(outcome.stdout.contains("The model does not match the store: hashes differ for "))
    }
}
