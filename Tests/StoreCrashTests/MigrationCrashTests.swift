import CoreData
import Foundation
import OpenSQLStore
import OpenSQLiteStore
import OpenStoreCore
import TestSupport
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
/// journal mode (default 150, so 300 in all; `MIGRATION_CRASH_READER_TRIALS`, default 10, those with a reader).
@Suite(.serialized) struct MigrationCrashTests {
    static var trials: Int { ProcessInfo.processInfo.environment["MIGRATION_CRASH_TRIALS"].flatMap(Int.init) ?? 150 }
    static var readerTrials: Int {
        ProcessInfo.processInfo.environment["MIGRATION_CRASH_READER_TRIALS"].flatMap(Int.init) ?? 10
    }
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
                        rows.append(
                            (0..<statement.columnCount).map { Self.text(statement.storedValue(at: $0)) }.joined(separator: "|"))
                    }
                    tables[table] = rows
                }
            }
            let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
            self.metadata = NSDictionary(dictionary: metadata)
            versionHashes = (metadata[NSStoreModelVersionHashesKey] as? [String: Any] ?? [:]).compactMapValues { $0 as? Data }
        }

        /// A column's value as text, by its storage class. (`"\(value)"` reflects over the enum,
        /// which took about a twentieth of the whole test run's time in this suite alone.)
        static func text(_ value: StoreValue) -> String {
            switch value {
            case .null: "NULL"
            case .integer(let integer): "i\(integer)"
            case .double(let double): "d\(double)"
            case .string(let string): "s" + string
            case .data(let data): "x" + data.base64EncodedString()
            default: "\(value)"
            }
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
                let index =
                    zip(mine, theirs).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(mine.count, theirs.count)
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
            model.entitiesByName["Project"] == nil
            ? nil : try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Project"))
        return (people, projects)
    }

    /// The source store of one journal mode, its snapshot, the snapshot an uninterrupted
    /// migration leaves, and how long that migration takes (the median of three runs).
    struct Fixture {
        let folder: URL
        let source: URL
        /// The first uninterrupted migration's result.
        let reference: URL
        let original: Snapshot
        let migrated: Snapshot
        let duration: TimeInterval
        let v1 = MigrationVersions.version1()
        let v2 = MigrationVersions.version2()

        init(journal: String) throws {
            folder = try StoreCrashTests.folder("migrate-\(journal)")
            source = folder.appendingPathComponent("Source.sqlite")
            reference = folder.appendingPathComponent("Reference0.sqlite")
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
                guard child.lines.contains("migrated") else {
                    throw Failure("the uninterrupted migration failed: \(child.lines)")
                }
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

    /// The uninterrupted migration, object by object through Core Data (the original read with
    /// version 1, the migrated copy with version 2): every person keeps its key, entity, name,
    /// score and age (now Integer 64); its full name is its `displayName`; `active` is true; an
    /// employee keeps its salary and its department becomes a set of that one department (or
    /// stays empty); every department keeps its title and its employees; there are no projects.
    static func expectMigratedValues(_ fixture: Fixture) throws {
        func context(_ url: URL, _ model: NSManagedObjectModel) throws -> NSManagedObjectContext {
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
            _ = try coordinator.addPersistentStore(
                ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: [NSReadOnlyPersistentStoreOption: true])
            let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            return context
        }
        func key(_ object: NSManagedObject?) -> Int64 {
            object.flatMap { Int64($0.objectID.uriRepresentation().lastPathComponent.dropFirst()) } ?? -1
        }
        func keys(_ value: Any?) -> [Int64] {
            switch value {
            case let set as NSSet: (set.allObjects as? [NSManagedObject] ?? []).map(key).sorted()
            case let object as NSManagedObject: [key(object)]
            default: []
            }
        }
        func byKey(_ context: NSManagedObjectContext, _ entity: String) throws -> [Int64: NSManagedObject] {
            Dictionary(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: entity)).map { (key($0), $0) }) { first, _ in
                first
            }
        }
        func text(_ value: Any?) -> String { value.map { "\($0)" } ?? "nil" }
        let old = try context(fixture.source, fixture.v1), new = try context(fixture.reference, fixture.v2)
        let oldPeople = try byKey(old, "Person"), newPeople = try byKey(new, "Person")
        #expect(oldPeople.count == people)
        #expect(Set(oldPeople.keys) == Set(newPeople.keys))
        var differing: [String] = []
        for (pk, before) in oldPeople.sorted(by: { $0.key < $1.key }) {
            guard let after = newPeople[pk] else { continue }
            let isEmployee = before.entity.name == "Employee"
            let expected = [
                before.entity.name ?? "", text(before.value(forKey: "name")), text(before.value(forKey: "score")),
                text((before.value(forKey: "age") as? NSNumber)?.int64Value), text(before.value(forKey: "fullName")), "true",
                isEmployee ? text(before.value(forKey: "salary")) : "-",
                isEmployee ? "\(keys(before.value(forKey: "department")))" : "-",
            ]
            let found = [
                after.entity.name ?? "", text(after.value(forKey: "name")), text(after.value(forKey: "score")),
                text((after.value(forKey: "age") as? NSNumber)?.int64Value), text(after.value(forKey: "displayName")),
                text(after.value(forKey: "active") as? Bool), isEmployee ? text(after.value(forKey: "salary")) : "-",
                isEmployee ? "\(keys(after.value(forKey: "department")))" : "-",
            ]
            if expected != found { differing.append("person \(pk): \(found) ≠ \(expected)") }
        }
        let oldDepartments = try byKey(old, "Department"), newDepartments = try byKey(new, "Department")
        #expect(oldDepartments.count == departments && Set(oldDepartments.keys) == Set(newDepartments.keys))
        for (pk, before) in oldDepartments {
            let expected = [text(before.value(forKey: "title")), "\(keys(before.value(forKey: "employees")))"]
            let found = [
                text(newDepartments[pk]?.value(forKey: "title")), "\(keys(newDepartments[pk]?.value(forKey: "employees")))",
            ]
            if expected != found { differing.append("department \(pk): \(found) ≠ \(expected)") }
        }
        #expect(differing.isEmpty, "the migrated objects differ: \(differing.prefix(5)) (\(differing.count) in all)")
        #expect(try new.count(for: NSFetchRequest<NSManagedObject>(entityName: "Project")) == 0)
    }

    enum Outcome { case old, new, neither }

    /// Checks the file a killed migration left: exactly the old store or exactly the migrated
    /// one, integrity ok, and it opens with its version.
    static func check(_ url: URL, fixture: Fixture, child: WriterProcess, label: String) throws -> Outcome {
        #expect(child.errorLine == nil, "\(label): the migration failed: \(child.lines)")
        let snapshot = try Snapshot(url)
        #expect(snapshot.integrity == "ok", "\(label): integrity_check says \(snapshot.integrity)")
        if snapshot.versionHashes == fixture.v1.entityVersionHashesByName {
            #expect(
                snapshot == fixture.original,
                "\(label): an old store that differs: \(snapshot.difference(from: fixture.original))")
            #expect(!child.lines.contains("migrated"), "\(label): the migration said it finished, and the store is the old one")
            let counts = try open(url, model: fixture.v1)
            #expect(counts.people == people, "\(label)")
            return .old
        } else if snapshot.versionHashes == fixture.v2.entityVersionHashesByName {
            #expect(
                snapshot == fixture.migrated,
                "\(label): a migrated store that differs: \(snapshot.difference(from: fixture.migrated))")
            let counts = try open(url, model: fixture.v2)
            #expect(counts.people == people && counts.projects == 0, "\(label): \(counts)")
            return .new
        }
        Issue.record("\(label): the store's version hashes are neither version's: \(snapshot.versionHashes)")
        return .neither
    }

    @Test(arguments: ["wal", "delete"])
    func killsDuringMigrationLeaveTheOldStoreOrTheNewOne(_ journal: String) throws {
        let fixture = try Fixture(journal: journal)
        defer { try? FileManager.default.removeItem(at: fixture.folder) }
        let v1 = fixture.v1, v2 = fixture.v2
        #expect(fixture.original.integrity == "ok" && fixture.migrated.integrity == "ok")
        #expect(fixture.original.versionHashes == v1.entityVersionHashesByName)
        #expect(fixture.migrated.versionHashes == v2.entityVersionHashesByName)
        #expect(!fixture.original.metadata.isEqual(fixture.migrated.metadata), "metadata compared equal across versions")
        #expect(fixture.original != fixture.migrated)
        #expect(Self.size(fixture.source.path + "-wal") == 0, "the source store was not closed cleanly")
        try Self.expectMigratedValues(fixture)

        var random = SplitMix64(seed: journal == "wal" ? 0x5EED_0001 : 0x5EED_0002)
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
            if child.lines.contains("migrated") { finishedBeforeKill += 1 }
            let leftover = Self.size(url.path + (journal == "wal" ? "-wal" : "-journal")) > 0
            switch try Self.check(url, fixture: fixture, child: child, label: label) {
            case .old:
                old += 1
                if leftover { oldMidTransaction += 1 }
            case .new: new += 1
            case .neither: break
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

    /// The same kills while another process (`mode=migrate read=1`) has the store open with
    /// version 1 and reads every person over and over. Each of its reads before and during the
    /// migration sees the whole old store (all people, each with its full name); after the
    /// killed migration was rolled back, its reads go on seeing that, and after a migration
    /// that committed, they see it or fail (its model no longer matches the file), never
    /// anything in part; the reader keeps running. The file is then checked as above.
    @Test(arguments: ["wal", "delete"])
    func killsDuringMigrationWhileAnotherProcessReads(_ journal: String) throws {
        let fixture = try Fixture(journal: journal)
        defer { try? FileManager.default.removeItem(at: fixture.folder) }
        var random = SplitMix64(seed: journal == "wal" ? 0x5EED_0011 : 0x5EED_0012)
        let limit = UInt32(fixture.duration * 1.2 * 1_000_000)
        let url = fixture.folder.appendingPathComponent("Read.sqlite")
        var old = 0, new = 0, reads = 0, failedReads = 0
        func lastRead(_ reader: WriterProcess) -> Int {
            reader.lines.last { $0.hasPrefix("read ") }.flatMap { Int($0.split(separator: " ")[1]) } ?? 0
        }
        for trial in 0..<Self.readerTrials {
            let label = "\(journal) migration trial \(trial) with a reader"
            try Self.copy(fixture.source, to: url)
            let reader = try WriterProcess(["mode=migrate", "read=1", "store=\(url.path)"])
            guard reader.wait(for: "read 1 ") else {
                Issue.record("\(label): the reader did not read: \(reader.lines)")
                reader.kill()
                return
            }
            let child = try WriterProcess(["mode=migrate", "store=\(url.path)"])
            guard child.wait(for: "migrating") else {
                Issue.record("\(label): the child did not start migrating: \(child.lines)")
                child.kill()
                reader.kill()
                return
            }
            usleep(UInt32.random(in: 0...limit, using: &random))
            child.kill()
            let killedAt = lastRead(reader)
            #expect(reader.wait(for: "read \(killedAt + 2) "), "\(label): the reader stopped: \(reader.lines.suffix(3))")
            #expect(reader.process.isRunning, "\(label): the reader ended: \(reader.lines.suffix(3))")
            reader.kill()
            let outcome = try Self.check(url, fixture: fixture, child: child, label: label)
            if outcome == .old { old += 1 } else if outcome == .new { new += 1 }
            for line in reader.lines where line.hasPrefix("read ") {
                reads += 1
                let fields = line.split(separator: " ").map(String.init)
                if fields.count == 5, fields[2] == "count" {
                    #expect(
                        fields[3] == "\(Self.people)" && fields[4] == "\(Self.people)",
                        "\(label): the reader saw part of a store: \(line)")
                } else {
                    failedReads += 1
                    #expect(outcome == .new, "\(label): a read of the old store failed: \(line)")
                }
            }
        }
        print(
            "migration-crash: \(journal) with a reader: \(Self.readerTrials) kills, \(old) left the old store, \(new) the migrated one; "
                + "the reader's \(reads) reads all saw every person (\(failedReads) failed after a committed migration, none saw a part)"
        )
        #expect(old + new == Self.readerTrials)
    }
}
