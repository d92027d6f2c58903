import CoreData
import Foundation
import OpenSQLStore
import OpenSQLiteStore
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Crash safety of the SQLite store, checked from outside: `StoreCrashWriter` runs in a child
/// process, creates a store and saves batches of rows, and is killed with `SIGKILL` at random
/// points (a fixed seed), during the store's creation and during saves, in WAL and in rollback
/// (`DELETE`) journal mode; or it runs under a file-size limit so that writes fail as on a full
/// disk. After each run the test checks the file: every acknowledged save is there, no save is
/// there in part, `PRAGMA integrity_check` says `ok`, and the store opens.
///
/// Figures are printed (`crash-safety: …`) for the Reliability article (OpenCoreData.docc).
/// `STORE_CRASH_CYCLES` scales the number of kill cycles (default 100 per series; 4 series).
@Suite(.serialized) struct StoreCrashTests {
    static let items = 10
    static var cycles: Int { ProcessInfo.processInfo.environment["STORE_CRASH_CYCLES"].flatMap(Int.init) ?? 100 }

    static func folder(_ name: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("crash-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Adds the store in this process, as the next launch of an app would.
    static func opens(_ url: URL, journal: String) throws -> Int {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: crashWriterModel())
        _ = try coordinator.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil, at: url,
            options: [NSSQLitePragmasOption: ["journal_mode": journal.uppercased() as NSString]])
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Item"))
    }

    /// Every acknowledged batch complete, no batch in part, integrity ok.
    static func check(_ url: URL, acknowledged: Set<Int>, label: String) throws {
        let state = try StoreState(url)
        #expect(state.integrity == "ok", "\(label): integrity_check says \(state.integrity)")
        let partial = state.batches.filter { $0.value != items }
        #expect(partial.isEmpty, "\(label): batches saved in part: \(partial)")
        let missing = acknowledged.filter { state.batches[$0] == nil }
        #expect(missing.isEmpty, "\(label): acknowledged batches missing: \(missing.sorted())")
    }

    @Test(arguments: ["wal", "delete"])
    func killsDuringCreationLeaveAStoreThatOpens(_ journal: String) throws {
        var random = SplitMix64(seed: journal == "wal" ? 17 : 71)
        let folder = try Self.folder("create")
        defer { try? FileManager.default.removeItem(at: folder) }
        var beforeOpened = 0, halfCreated = 0, absent = 0, complete = 0, readOnlyOpened = 0, readOnlyRefused = 0
        for cycle in 0..<Self.cycles {
            let url = folder.appendingPathComponent("Store\(cycle).sqlite")
            let writer = try WriterProcess(["store=\(url.path)", "journal=\(journal)", "saves=3", "items=\(Self.items)"])
            guard writer.wait(for: "start") else {
                Issue.record("the writer did not start: \(writer.lines)")
                writer.kill()
                return
            }
            usleep(UInt32.random(in: 0..<30_000, using: &random))
            writer.kill()
            if !writer.opened { beforeOpened += 1 }
            // Read-only, an unfinished file is an error naming it (its journal can't be rolled back).
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: crashWriterModel())
            do {
                _ = try coordinator.addPersistentStore(
                    ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: [NSReadOnlyPersistentStoreOption: true])
                readOnlyOpened += 1
            } catch {
                let error = error as NSError
                #expect(error.code == NSPersistentStoreOpenError, "\(error)")
                #expect(error.localizedDescription.contains(url.path), "\(error)")
                readOnlyRefused += 1
            }
            if !FileManager.default.fileExists(atPath: url.path) {
                absent += 1
            } else if try SQLiteStoreFile.isEmptyDatabase(SQLiteConnection(url: url, mode: .readWrite)) {
                halfCreated += 1
            } else {
                complete += 1
            }
            let label = "\(journal) creation cycle \(cycle)"
            #expect(throws: Never.self, "\(label): the store does not open") { _ = try Self.opens(url, journal: journal) }
            try Self.check(url, acknowledged: Set(writer.acknowledged), label: label)
        }
        print(
            "crash-safety: \(journal) creation: \(Self.cycles) kills, \(beforeOpened) before the store was added "
                + "(\(absent) with no file yet, \(halfCreated) leaving a half-created file, \(complete) after the schema's commit); "
                + "read-only adds before recovery: \(readOnlyOpened) opened, \(readOnlyRefused) refused with an open error; "
                + "every store opened read-write afterwards")
        #expect(halfCreated > 0, "no kill landed inside a creation: the delays need tuning")
    }

    @Test(arguments: ["wal", "delete"])
    func killsDuringSavesLoseNoAcknowledgedSave(_ journal: String) throws {
        var random = SplitMix64(seed: journal == "wal" ? 23 : 32)
        let folder = try Self.folder("save")
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("Store.sqlite")
        var acknowledged: Set<Int> = []
        var unacknowledgedButSaved = 0, afterOpening = 0
        for cycle in 0..<Self.cycles {
            let writer = try WriterProcess(["store=\(url.path)", "journal=\(journal)", "saves=100000", "items=\(Self.items)"])
            guard writer.wait(for: "opened") else {
                Issue.record("\(journal) save cycle \(cycle): the writer did not open the store: \(writer.lines)")
                writer.kill()
                return
            }
            usleep(UInt32.random(in: 0..<(journal == "wal" ? 25_000 : 100_000), using: &random))
            writer.kill()
            if !writer.lines.contains("done") { afterOpening += 1 }
            let acks = writer.acknowledged
            acknowledged.formUnion(acks)
            // The batches this run saved: from the first it was to save (`opened N`) on.
            let first = writer.lines.first { $0.hasPrefix("opened ") }.flatMap { Int($0.dropFirst(7)) } ?? Int.max
            let saved = try StoreState(url).batches.keys.filter { $0 >= first }.count
            #expect(saved == acks.count || saved == acks.count + 1, "\(journal) save cycle \(cycle): \(saved) saved, \(acks.count) acknowledged")
            if saved > acks.count { unacknowledgedButSaved += 1 }
            try Self.check(url, acknowledged: acknowledged, label: "\(journal) save cycle \(cycle)")
        }
        let count = try Self.opens(url, journal: journal)
        #expect(count >= acknowledged.count * Self.items)
        print(
            "crash-safety: \(journal) saves: \(Self.cycles) kills (\(afterOpening) while saving), \(acknowledged.count) "
                + "acknowledged saves all present, "
                + "\(unacknowledgedButSaved) kills after a save's commit before save() returned, no partial save, integrity ok")
    }

    /// Writes that fail (a file-size limit: `EFBIG`, as a full disk fails them) while the store
    /// is created leave a file the next open finishes; during saves, the save throws, the
    /// context keeps its changes, and the file keeps every earlier save.
    @Test(arguments: ["wal", "delete"])
    func writesThatFailLeaveThePreviousState(_ journal: String) throws {
        let folder = try Self.folder("fsize")
        defer { try? FileManager.default.removeItem(at: folder) }
        var messages: [String] = []
        for (index, limit) in [0, 1024, 4096, 12_000].enumerated() {
            let url = folder.appendingPathComponent("Create\(index).sqlite")
            let writer = try WriterProcess(["store=\(url.path)", "journal=\(journal)", "saves=1", "fsize=\(limit)"])
            writer.finish()
            let error = try #require(writer.errorLine, "\(journal) creation under a \(limit)-byte limit did not fail: \(writer.lines)")
            messages.append(error)
            #expect(error.contains(url.path), "\(error)")
            #expect(try Self.opens(url, journal: journal) == 0)
            try Self.check(url, acknowledged: [], label: "\(journal) creation under \(limit) bytes")
        }
        let url = folder.appendingPathComponent("Save.sqlite")
        let first = try WriterProcess(["store=\(url.path)", "journal=\(journal)", "saves=5", "items=\(Self.items)"])
        first.finish()
        #expect(first.acknowledged == [1, 2, 3, 4, 5])
        let size = try [url.path, url.path + "-wal"].compactMap { path in
            FileManager.default.fileExists(atPath: path) ? try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int : nil
        }.max() ?? 0
        let writer = try WriterProcess(
            ["store=\(url.path)", "journal=\(journal)", "saves=100000", "items=\(Self.items)", "fsize=\(max(size, 32_768) + 40_000)"])
        writer.finish()
        let error = try #require(writer.errorLine, "\(journal) saves under a file-size limit never failed")
        messages.append(error)
        #expect(error.contains("File too large") || error.contains("full"), "\(error)")
        #expect(writer.lines.contains("kept \(Self.items) true"), "\(writer.lines.suffix(2))")
        try Self.check(url, acknowledged: Set(1...5).union(writer.acknowledged), label: "\(journal) saves under a limit")
        let state = try StoreState(url)
        #expect(state.batches.count == 5 + writer.acknowledged.count)
        print("crash-safety: \(journal) file-size limit: 4 creations and 1 save series failed as expected: \(messages)")
    }

    /// A file the user cannot write, added for writing, fails at once; read-only it opens.
    @Test func aReadOnlyFileFailsWhenAddedForWriting() throws {
        let folder = try Self.folder("readonly")
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("Store.sqlite")
        _ = try Self.opens(url, journal: "delete")
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: url.path)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.path)
        let writer = try WriterProcess(["store=\(url.path)", "journal=delete", "saves=1", "user=nobody"])
        writer.finish()
        let error = try #require(writer.errorLine, "adding a read-only file for writing did not fail: \(writer.lines)")
        #expect(error.hasPrefix("error 134080 "), "\(error)")
        #expect(error.contains("for writing") && error.contains(url.path), "\(error)")
        #expect(!writer.opened)
        let reader = try WriterProcess(["store=\(url.path)", "journal=delete", "saves=0", "user=nobody", "readonly=1"])
        reader.finish()
        #expect(reader.opened, "\(reader.lines)")
    }
}
