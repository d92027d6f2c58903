import CoreData
import Testing

/// `--migrate`, and stores written with another version of the model, on the posts example's
/// files (`../shared/realworld/stores/wibosco-migration-posts`, copied first) put in an
/// `.xcdatamodeld` the way Xcode keeps versions.
@Suite struct MigrateOptionTests {
    /// The posts example's folder copied, with `Posts.xcdatamodeld` holding `versions`.
    static func posts(_ versions: [Int]) throws -> URL? {
        guard let folder = try ToolRunner.realWorldStore("wibosco-migration-posts") else { return nil }
        for version in versions {
            let contents = try String(
                contentsOf: folder.appendingPathComponent("v\(version).xcdatamodel.contents.xml"), encoding: .utf8)
            let target = folder.appendingPathComponent("Posts.xcdatamodeld/v\(version).xcdatamodel")
            try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
            try contents.write(to: target.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
        }
        return folder
    }

    static func files(_ folder: URL, store: Int) -> [String] {
        [
            "--model", folder.appendingPathComponent("Posts.xcdatamodeld").path,
            "--store", folder.appendingPathComponent("CoreDataMigration_Example_\(store).sqlite").path,
        ]
    }

    @Test func withoutMigrateSaysWhatDiffersAndThatMigrateExists() throws {
        guard let folder = try Self.posts([3, 4]) else { return }
        let outcome = try ToolRunner.run(["count"] + Self.files(folder, store: 3) + ["--entity", "Post"])
        #expect(outcome.status == 3)
        #expect(outcome.stderr.contains("Post: added attribute hide"))
        #expect(outcome.stderr.contains("--migrate"))
    }

    @Test func migrateOpensAMigratedCopyAndLeavesTheStore() throws {
        guard let folder = try Self.posts([3, 4]) else { return }
        let store = folder.appendingPathComponent("CoreDataMigration_Example_3.sqlite")
        let before = try Data(contentsOf: store)
        let outcome = try ToolRunner.run(
            ["count"] + Self.files(folder, store: 3) + ["--entity", "Post", "--predicate", "hide == NO", "--migrate"])
        #expect(outcome.status == 0)
        #expect(outcome.stdout == "7995\n")
        #expect(outcome.stderr.contains("migrating Post: added attribute hide"))
        #expect(outcome.stderr.contains("the store is unchanged"))
        #expect(!outcome.stderr.contains("migrating:"), "no progress line into a file")
        Self.removeMigratedCopy(named: outcome.stderr)
        #expect(try Data(contentsOf: store) == before)
        // With --write the store itself is migrated: it then opens without --migrate.
        #expect(
            try ToolRunner.run(["count"] + Self.files(folder, store: 3) + ["--entity", "Post", "--migrate", "--write"]).status
                == 0)
        #expect(try ToolRunner.run(["count"] + Self.files(folder, store: 3) + ["--entity", "Color"]).stdout == "7995\n")
    }

    /// On a terminal, `--migrate` draws a progress line counting the store's objects; not in a
    /// file (the test above).
    @Test func migrateDrawsAProgressLineOnATerminal() throws {
        guard let folder = try Self.posts([3, 4]) else { return }
        let outcome = try ToolRunner.run(
            ["count"] + Self.files(folder, store: 3) + ["--entity", "Post", "--migrate"], terminal: true)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stdout == "7995\n")
        #expect(outcome.stderr.contains("\r\u{1B}[Kmigrating: 0 of 15,990 rows (0%), 0 s so far"), "\(outcome.stderr)")
        #expect(outcome.stderr.contains("\r\u{1B}[Kcoredata: migrated a copy of"), "\(outcome.stderr)")
        Self.removeMigratedCopy(named: outcome.stderr)
    }

    /// A later version that only makes `postID` required and gives it a default: the store's
    /// tables are the same, so a read-only open works, with a warning naming the differences.
    @Test func readOnlyOpenAcrossDifferencesTheTablesDoNotShow() throws {
        guard let folder = try Self.posts([3]) else { return }
        let v3 = folder.appendingPathComponent("Posts.xcdatamodeld/v3.xcdatamodel/contents")
        let later = folder.appendingPathComponent("Posts.xcdatamodeld/v3 2.xcdatamodel")
        try FileManager.default.createDirectory(at: later, withIntermediateDirectories: true)
        try String(contentsOf: v3, encoding: .utf8).replacingOccurrences(
            of: "<attribute name=\"postID\" optional=\"YES\" attributeType=\"String\" syncable=\"YES\"/>",
            with: "<attribute name=\"postID\" attributeType=\"String\" defaultValueString=\"unknown\" syncable=\"YES\"/>"
        ).write(to: later.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
        let outcome = try ToolRunner.run(["count"] + Self.files(folder, store: 3) + ["--entity", "Post"])
        #expect(outcome.status == 0)
        #expect(outcome.stdout == "7995\n")
        #expect(outcome.stderr.contains("coredata: warning:"))
        #expect(outcome.stderr.contains("postID now required"))
        #expect(outcome.stderr.contains("postID default none → unknown"))
        // Writing needs a migration.
        let write = try ToolRunner.run(["count"] + Self.files(folder, store: 3) + ["--entity", "Post", "--write"])
        #expect(write.status == 3)
        #expect(write.stderr.contains("--migrate"))
    }

    /// Versions named as Xcode names them sort by number, as the library chooses the current
    /// version ("v10" after "v2"): of two versions with the store's hashes, the first in that
    /// order is the store's model, so the report of what migrating changes starts from v2.
    @Test func storeModelIsTheFirstVersionInNumericOrder() throws {
        guard let folder = try ToolRunner.realWorldStore("wibosco-migration-posts") else { return }
        let plain = "<attribute name=\"postID\" optional=\"YES\" attributeType=\"String\" syncable=\"YES\"/>"
        let withDefault =
            "<attribute name=\"postID\" optional=\"YES\" attributeType=\"String\" defaultValueString=\"ten\" syncable=\"YES\"/>"
        let v3 = try String(contentsOf: folder.appendingPathComponent("v3.xcdatamodel.contents.xml"), encoding: .utf8)
        let v4 = try String(contentsOf: folder.appendingPathComponent("v4.xcdatamodel.contents.xml"), encoding: .utf8)
        // v2 and v10 have the store's hashes (a default is not in a hash); v11, the current one, adds `hide`.
        for (name, contents) in [
            ("v2", v3), ("v10", v3.replacingOccurrences(of: plain, with: withDefault)),
            ("v11", v4.replacingOccurrences(of: plain, with: withDefault)),
        ] {
            let target = folder.appendingPathComponent("Posts.xcdatamodeld/\(name).xcdatamodel")
            try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
            try contents.write(to: target.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
        }
        let outcome = try ToolRunner.run(["count"] + Self.files(folder, store: 3) + ["--entity", "Post", "--migrate"])
        #expect(outcome.status == 0)
        #expect(outcome.stdout == "7995\n")
        #expect(outcome.stderr.contains("migrating Post: added attribute hide; postID default none → ten"))
        Self.removeMigratedCopy(named: outcome.stderr)
    }

    /// Removes the folder of the migrated copy the tool names in its notes ("migrated a copy of
    /// … at <path>; the store is unchanged"), which it leaves for its user.
    static func removeMigratedCopy(named notes: String) {
        guard let start = notes.range(of: "migrated a copy of "),
            let at = notes.range(of: " at ", range: start.upperBound..<notes.endIndex),
            let end = notes.range(of: "; the store is unchanged", range: at.upperBound..<notes.endIndex)
        else { return }
        let folder = URL(fileURLWithPath: String(notes[at.upperBound..<end.lowerBound])).deletingLastPathComponent()
        guard folder.lastPathComponent.hasPrefix("coredata-migrate-") else { return }
        try? FileManager.default.removeItem(at: folder)
    }
}
