import Foundation
import OpenSQLStore
import OpenSQLiteStore
import OpenStoreCore
import TestSupport
import Testing

/// The SQLite store's readers: on a file in WAL mode, fetches read with connections of their own,
/// side by side, never waiting for a save and never seeing one half done.
@Suite struct SQLiteReaderTests {
    static let cars = FetchPlan(entityID: 1, entityIDs: [1, 2], output: .rows)
    static let count = FetchPlan(entityID: 1, entityIDs: [1, 2], output: .count)

    static func open(
        _ folder: TemporaryFolder, readerLimit: Int = SQLiteRowStore.defaultReaderLimit,
        pragmas: [(name: String, value: String)] = []
    ) throws -> SQLiteRowStore {
        try SQLiteRowStore.open(
            at: folder.file("Cars.sqlite"), schema: SQLiteSaveTests.schema, readOnly: false, modelVersionHashes: [:],
            pragmas: pragmas, readerLimit: readerLimit)
    }

    static func plates(_ output: FetchOutput) -> [String] {
        guard case .rows(let rows) = output else { return [] }
        return rows.compactMap { if case .string(let plate)? = $0.values.first { plate } else { nil } }.sorted()
    }

    /// Runs `body` on a thread of its own; nil if it has not returned within 30 s.
    static func onAnotherThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) -> Result<T, Error>? {
        let result = Locked<Result<T, Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let outcome = Result { try body() }
            result.update { $0 = outcome }
            done.signal()
        }
        guard done.wait(timeout: .now() + 30) == .success else { return nil }
        return result.current
    }

    /// Waits (30 s at most) until `condition` holds.
    static func waitUntil(_ condition: () -> Bool) {
        let deadline = Date().addingTimeInterval(30)
        while !condition() && Date() < deadline { Thread.sleep(forTimeInterval: 0.001) }
    }

    /// A prepared save holds the store's connection until it commits: a fetch meanwhile runs on
    /// a reader, at once, and sees the file as it was before the save; after the commit it sees
    /// the save. With no readers (`readerLimit: 0`) the same fetch waits for the save.
    @Test func aFetchDoesNotWaitForASaveNorSeeItBeforeItsCommit() throws {
        let folder = try TemporaryFolder()
        let store = try Self.open(folder)
        try store.apply(SaveChanges(inserted: [SQLiteSaveTests.car(1, "A")]))
        let held = try store.prepare(SaveChanges(inserted: [SQLiteSaveTests.car(2, "B")]))
        let during = Self.onAnotherThread { Self.plates(try store.execute(Self.cars)) }
        try held.commit()
        #expect(try during?.get() == ["A"])
        #expect(Self.plates(try store.execute(Self.cars)) == ["A", "B"])
        #expect(store.testingReaders?.opened == 1)

        let serialFolder = try TemporaryFolder()
        let serial = try Self.open(serialFolder, readerLimit: 0)
        #expect(serial.testingReaders == nil)
        let heldSerial = try serial.prepare(SaveChanges(inserted: [SQLiteSaveTests.car(1, "A")]))
        Thread.detachNewThread {
            Self.waitUntil { serial.testingQueuedCalls == 1 }; try? heldSerial.commit()
        }
        // Waits for the save, then sees it.
        #expect(Self.plates(try serial.execute(Self.cars)) == ["A"])
    }

    /// Up to `limit` readers are open; a fetch finding them all busy waits, and the readers put
    /// back go to the waiting fetches in the order they came.
    @Test func busyReadersAreHandedOnFirstComeFirstServed() throws {
        let folder = try TemporaryFolder()
        let store = try Self.open(folder, readerLimit: 2)
        try store.apply(SaveChanges(inserted: [SQLiteSaveTests.car(1, "A")]))
        #expect(store.testingReaders?.limit == 2)
        let release = [DispatchSemaphore(value: 0), DispatchSemaphore(value: 0)]
        let order = Locked<[Int]>([])
        let done = DispatchGroup()
        // Two fetches hold both readers.
        for holder in 0..<2 {
            done.enter()
            Thread.detachNewThread {
                _ = try? store.withSession { _ in release[holder].wait() }
                done.leave()
            }
            Self.waitUntil { store.testingReaders?.opened == holder + 1 }
        }
        // Three more queue behind them, in turn.
        for number in 0..<3 {
            done.enter()
            Thread.detachNewThread {
                _ = try? store.withSession { connection in
                    let statement = try connection.statement("SELECT count(*) FROM ZCAR")
                    defer { statement.reset() }
                    if try statement.step(), statement.int64(at: 0) == 1 { order.update { $0.append(number) } }
                }
                done.leave()
            }
            Self.waitUntil { store.testingReaders?.waiting == number + 1 }
        }
        #expect(store.testingReaders?.opened == 2)
        #expect(store.testingReaders?.waiting == 3)
        release[0].signal()
        // Counted under the lock: a copy read outside it races with the appends (as ThreadSanitizer
        // sees the runtime's reference counts).
        Self.waitUntil { order.read { $0.count } == 3 }
        release[1].signal()
        #expect(done.wait(timeout: .now() + 30) == .success)
        #expect(order.current == [0, 1, 2])
        #expect(store.testingReaders?.opened == 2)
        #expect(store.testingReaders?.waiting == 0)
    }

    /// Saves of two cars each, one after another, while four threads count the cars over and over:
    /// every count is even (no read sees a save half done), the counts of each thread never go
    /// down, and the last is every car.
    @Test func readsNeverSeeASaveHalfDone() throws {
        let folder = try TemporaryFolder()
        let store = try Self.open(folder, readerLimit: 4)
        let saves = 60
        let counts = Locked<[[Int]]>(Array(repeating: [], count: 4))
        let stop = Locked(false)
        let done = DispatchGroup()
        for thread in 0..<4 {
            done.enter()
            Thread.detachNewThread {
                while !stop.current {
                    if case .count(let count)? = try? store.execute(Self.count) { counts.update { $0[thread].append(count) } }
                }
                done.leave()
            }
        }
        for save in 0..<saves {
            let key = Int64(2 * save + 1)
            try store.apply(
                SaveChanges(inserted: [SQLiteSaveTests.car(key, "P\(key)"), SQLiteSaveTests.car(key + 1, "P\(key + 1)")]))
        }
        stop.update { $0 = true }
        #expect(done.wait(timeout: .now() + 30) == .success)
        let seen = counts.current
        #expect(seen.joined().allSatisfy { $0 % 2 == 0 })
        #expect(seen.allSatisfy { zip($0, $0.dropFirst()).allSatisfy { $0 <= $1 } })
        #expect(seen.joined().count > 4)
        if case .count(let count) = try store.execute(Self.count) { #expect(count == 2 * saves) }
        #expect((store.testingReaders?.opened ?? 0) >= 1)
    }

    /// A file in another journal mode, and an in-memory store, read on the store's connection;
    /// the store's pragmas apply to its readers (here `case_sensitive_like`, which changes what
    /// `LIKE` matches).
    @Test func whoReadsWithWhat() throws {
        let rollbackFolder = try TemporaryFolder(), sensitiveFolder = try TemporaryFolder()
        let rollback = try Self.open(rollbackFolder, pragmas: [("journal_mode", "DELETE")])
        #expect(rollback.testingReaders == nil)
        let memory = try SQLiteRowStore.open(
            at: URL(fileURLWithPath: "/dev/null"), schema: SQLiteSaveTests.schema, readOnly: false, modelVersionHashes: [:])
        #expect(memory.testingReaders == nil)

        let sensitive = try Self.open(sensitiveFolder, pragmas: [("case_sensitive_like", "ON")])
        try sensitive.apply(SaveChanges(inserted: [SQLiteSaveTests.car(1, "abc")]))
        let matches = try sensitive.withSession { connection in
            let statement = try connection.statement("SELECT count(*) FROM ZCAR WHERE ZNUMBERPLATE LIKE 'ABC'")
            defer { statement.reset() }
            return try statement.step() ? statement.int64(at: 0) : -1
        }
        #expect(sensitive.testingReaders?.opened == 1)
        #expect(matches == 0)
    }
}

/// A value read and changed from several threads.
private final class Locked<Value>: @unchecked Sendable {
    // @unchecked Sendable: `value` is read and written only under `lock`.
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func update(_ body: (inout Value) -> Void) { lock.withLock { body(&value) } }
    func read<Result>(_ body: (Value) -> Result) -> Result { lock.withLock { body(value) } }
    var current: Value { lock.withLock { value } }
}

extension SQLiteReaderTests {
    /// A store that read with its readers leaves its file whole when it goes: the connection for
    /// saves closes last, so it checkpoints the WAL into the file and removes it, as a store
    /// without readers does (a copy of the `.sqlite` file alone then has every save).
    @Test func aClosedStoreLeavesNoWAL() throws {
        let folder = try TemporaryFolder()
        do {
            let store = try Self.open(folder)
            try store.apply(SaveChanges(inserted: [SQLiteSaveTests.car(1, "A")]))
            #expect(Self.plates(try store.execute(Self.cars)) == ["A"])
            #expect(store.testingReaders?.opened == 1)
        }
        let wal = folder.file("Cars.sqlite").path + "-wal"
        #expect(!FileManager.default.fileExists(atPath: wal))
    }
}

extension SQLiteReaderTests {
    /// A statement left on a row keeps its reader's read transaction, and so an old snapshot of
    /// the file, open: the reader put back ends it, and the next fetch sees a save made since.
    @Test func aReaderLeftInAReadIsPutBackOnTheFileAsItIsNow() throws {
        let folder = try TemporaryFolder()
        let store = try Self.open(folder, readerLimit: 1)
        try store.apply(SaveChanges(inserted: [SQLiteSaveTests.car(1, "A"), SQLiteSaveTests.car(2, "B")]))
        let open = try store.withSession { connection in
            let statement = try connection.statement("SELECT ZNUMBERPLATE FROM ZCAR")
            _ = try statement.step()  // left on its first row, not reset
            return connection.hasOpenTransaction
        }
        #expect(open)
        try store.apply(SaveChanges(inserted: [SQLiteSaveTests.car(3, "C")]))
        #expect(Self.plates(try store.execute(Self.cars)) == ["A", "B", "C"])
    }
}
