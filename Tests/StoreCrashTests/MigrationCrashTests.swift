import CoreData
import Foundation
import OpenSQLiteStore
@testable import StoreCrashWriter
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Lightweight migration in place is all or nothing, checked from outside: `StoreCrashWriter
/// mode=migrate` migrates a copy of a version-1 store (`MigrationVersions`: a hierarchy, a
/// to-many relationship, 3,000 people) to version 2 in a child process and is killed with
/// `SIGKILL` after a seeded random delay spread over the whole migration (0 to 1.2 times an
/// uninterrupted migration's time, measured first). After each kill the file must be exactly the
/// old store (version 1's hashes, every table row for row and the metadata equal to the
/// original's, and it opens with version 1) or exactly the migrated one (version 2's hashes,
/// equal to what an uninterrupted migration wrote, and it opens with version 2), with
/// `PRAGMA integrity_check` ok. Both outcomes must occur, and some kills must land inside the
/// migration's transaction (a hot journal or uncommitted WAL frames left behind).
///
/// Figures are printed (`migration-crash: …`). `MIGRATION_CRASH_TRIALS` sets the kills per
/// journal mode (default 160, so 320 in all).
@Suite(.serialized) struct MigrationCrashTests {
    static var trials: Int { ProcessInfo.processInfo.environment["MIGRATION_CRASH_TRIALS"].flatMap(Int.init) ?? 160 }
    static let people = 3_000
    static let departments = 20

    /// A store file compared whole: `integrity_check`'s answer, the schema (`sqlite_master`),
    /// every row of every table but `Z_METADATA` in `rowid` order, and the metadata decoded
    /// (its plist's bytes depend on dictionary order, which changes from process to process).
    struct Snapshot: Equatable {
        var integrity = ""
        var schema: [String] = []
        var tables: [String: [String]] = [:]
        var metadata: NSDictionary = [:]
        var versionHashes: [String: Data] = [:]

        /// Opens the file read-write, which rolls back a hot journal or ignores uncommitted
        /// WAL frames, as the next open of an app would.
        init(_ url: URL) throws {
            do {
                let connection = try SQLiteConnection(url: url, mode: .readWrite)
                let check = try connection.statement("PRAGMA integrity_check")
                var messages: [String] = []
                while try check.step() { messages.append(check.string(at: 0) ?? "") }
                integrity = messages.joined(separator: "; ")
                let master = try connection.statement("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name")
                var tableNames: [String] = []
                while try master.step() {
                    let row = (0..<4).map { master.string(at: $0) ?? "NULL" }
                    schema.append(row.joined(separator: " | "))
                    if row[0] == "table" && row[1] != "Z_METADATA" { tableNames.append(row[1]) }
                }
                for table in tableNames {
                    let statement = try connection.statement("SELECT * FROM \"\(table)\" ORDER BY rowid")
                    var rows: [String] = []
                    while try statement.step() {
                        rows.append((0..<statement.columnCount).map { "\(statement.storedValue(at: $0))" }.joined(separator: "|"))
                    }
                    tables[table] = rows
                }
            }
            let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
            self.metadata = NSDictionary(dictionary: metadata)
            versionHashes = (metadata[NSStoreModelVersionHashesKey] as? [String: Any] ?? [:]).compactMapValues { $0 as? Data }
        }

        static func == (lhs: Snapshot, rhs: Snapshot) -> Bool {
            lhs.integrity == rhs.integrity && lhs.schema == rhs.schema && lhs.tables == rhs.tables
                && lhs.metadata.isEqual(rhs.metadata)
        }

        /// The first difference from `other`, for a failure message.
        func difference(from other: Snapshot) -> String {
            if integrity != other.integrity { return "integrity \(integrity) ≠ \(other.integrity)" }
            if schema != other.schema { return "schema \(schema) ≠ \(other.schema)" }
            for name in Set(tables.keys).union(other.tables.keys).sorted() {
                let mine = tables[name] ?? [], theirs = other.tables[name] ?? []
                guard mine != theirs else { continue }
                let index = zip(mine, theirs).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(mine.count, theirs.count)
                return "table \(name): \(mine.count) rows ≠ \(theirs.count); first difference at row \(index): "
                    + "\(index < mine.count ? mine[index] : "none") ≠ \(index < theirs.count ? theirs[index] : "none")"
            }
            return metadata.isEqual(other.metadata) ? "none" : "metadata \(metadata) ≠ \(other.metadata)"
        }
    }

    /// Copies a closed store file (and its `-wal`, if one was left) to `url`, replacing what
    /// is there.
    static func copy(_ source: URL, to url: URL) throws {
        for suffix in ["", "-wal", "-shm", "-journal"] {
            try? FileManager.default.removeItem(atPath: url.path + suffix)
        }
        for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: source.path + suffix) {
            try FileManager.default.copyItem(atPath: source.path + suffix, toPath: url.path + suffix)
        }
    }

    static func size(_ path: String) -> Int {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    }

    /// Adds the store with `model` (read-write, no migration) and counts its people and projects.
    static func open(_ url: URL, model: NSManagedObjectModel) throws -> (people: Int, projects: Int?) {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        defer { try? coordinator.remove(store) }
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let people = try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Person"))
        let projects =
            model.entitiesByName["Project"] == nil ? nil : try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Project"))
        return (people, projects)
    }

    /// The source store of one journal mode, its snapshot, the snapshot an uninterrupted
    /// migration leaves, and how long that migration takes (the median of three runs).
    struct Fixture {
        let folder: URL
        let source: URL
        let original: Snapshot
        let migrated: Snapshot
        let duration: TimeInterval

        init(journal: String) throws {
            folder = try StoreCrashTests.folder("migrate-\(journal)")
            source = folder.appendingPathComponent("Source.sqlite")
            try MigrationVersions.makeSourceStore(
                at: source, people: MigrationCrashTests.people, departments: MigrationCrashTests.departments, journal: journal)
            original = try Snapshot(source)
            var durations: [TimeInterval] = []
            var snapshots: [Snapshot] = []
            for run in 0..<3 {
                let url = folder.appendingPathComponent("Reference\(run).sqlite")
                try MigrationCrashTests.copy(source, to: url)
                let child = try WriterProcess(["mode=migrate", "store=\(url.path)"])
                guard child.wait(for: "migrating") else { throw Failure("the migrating child did not start: \(child.lines)") }
                let start = Date()
                _ = child.wait(for: "migrated")
                durations.append(Date().timeIntervalSince(start))
                child.finish()
                guard child.lines.contains("migrated") else { throw Failure("the uninterrupted migration failed: \(child.lines)") }
                snapshots.append(try Snapshot(url))
            }
            migrated = snapshots[0]
            duration = durations.sorted()[1]
            for snapshot in snapshots.dropFirst() where snapshot != migrated {
                throw Failure("two uninterrupted migrations differ: \(snapshot.difference(from: migrated))")
            }
        }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    @Test(arguments: ["wal", "delete"])
    func killsDuringMigrationLeaveTheOldStoreOrTheNewOne(_ journal: String) throws {
        let fixture = try Fixture(journal: journal)
        defer { try? FileManager.default.removeItem(at: fixture.folder) }
        let v1 = MigrationVersions.version1(), v2 = MigrationVersions.version2()
        #expect(fixture.original.integrity == "ok" && fixture.migrated.integrity == "ok")
        #expect(fixture.original.versionHashes == v1.entityVersionHashesByName)
        #expect(fixture.migrated.versionHashes == v2.entityVersionHashesByName)
        #expect(try Self.size(fixture.source.path + "-wal") == 0, "the source store was not closed cleanly")

        var random = SeededGenerator(state: journal == "wal" ? 0x5EED_0001 : 0x5EED_0002)
        let limit = UInt32(fixture.duration * 1.2 * 1_000_000)
        let url = fixture.folder.appendingPathComponent("Trial.sqlite")
        var old = 0, oldMidTransaction = 0, new = 0, finishedBeforeKill = 0
        for trial in 0..<Self.trials {
            let label = "\(journal) migration trial \(trial)"
            try Self.copy(fixture.source, to: url)
            let child = try WriterProcess(["mode=migrate", "store=\(url.path)"])
            guard child.wait(for: "migrating") else {
                Issue.record("\(label): the child did not start migrating: \(child.lines)")
                child.kill()
                return
            }
            usleep(UInt32.random(in: 0...limit, using: &random))
            child.kill()
            #expect(child.errorLine == nil, "\(label): the migration failed: \(child.lines)")
            if child.lines.contains("migrated") { finishedBeforeKill += 1 }
            let leftover = Self.size(url.path + (journal == "wal" ? "-wal" : "-journal")) > 0
            let snapshot = try Snapshot(url)
            #expect(snapshot.integrity == "ok", "\(label): integrity_check says \(snapshot.integrity)")
            if snapshot.versionHashes == v1.entityVersionHashesByName {
                old += 1
                if leftover { oldMidTransaction += 1 }
                #expect(snapshot == fixture.original, "\(label): an old store that differs: \(snapshot.difference(from: fixture.original))")
                #expect(!child.lines.contains("migrated"), "\(label): the migration said it finished, and the store is the old one")
                let counts = try Self.open(url, model: v1)
                #expect(counts.people == Self.people, "\(label)")
            } else if snapshot.versionHashes == v2.entityVersionHashesByName {
                new += 1
                #expect(snapshot == fixture.migrated, "\(label): a migrated store that differs: \(snapshot.difference(from: fixture.migrated))")
                let counts = try Self.open(url, model: v2)
                #expect(counts.people == Self.people && counts.projects == 0, "\(label): \(counts)")
            } else {
                Issue.record("\(label): the store's version hashes are neither version's: \(snapshot.versionHashes)")
            }
        }
        print(
            "migration-crash: \(journal): \(Self.trials) kills over 0–\(limit / 1000) ms (an uninterrupted migration of "
                + "\(Self.people) people takes \(Int(fixture.duration * 1000)) ms): \(old) left the old store "
                + "(\(oldMidTransaction) of them killed inside the transaction, \(journal == "wal" ? "WAL frames" : "a hot journal") left behind), "
                + "\(new) the migrated one (\(finishedBeforeKill) had said so before the kill); none anything else, integrity ok")
        #expect(old > 0, "no kill left the old store: the delays need tuning")
        #expect(oldMidTransaction > 0, "no kill landed inside the migration's transaction: the delays need tuning")
        #expect(new > 0, "no kill came after the migration: the delays need tuning")
    }
}
