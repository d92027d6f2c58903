import Foundation
import OpenSQLStore
import OpenSQLiteStore
import OpenStoreCore
import TestSupport
import Testing

/// Text and blobs bound from a statement's own buffer (`BoundBytes`): each run of a cached
/// statement must see its own values, whether they fit the buffer, overflow it, or make it grow
/// between runs (which moves it while the last run's bindings still point into it).
@Suite struct BoundBytesTests {
    /// Strings of every size the buffer handles differently: empty, small (held inline by
    /// Swift), around the 15-byte inline limit, non-ASCII, and beyond the buffer's largest size.
    static func text(_ index: Int, _ random: inout SplitMix64) -> String {
        switch index % 9 {
        case 0: return ""
        case 1: return "K"
        case 2: return String(repeating: "a", count: 15)
        case 3: return String(repeating: "b", count: 16)
        case 4: return "Crèpes \(index) ☕️"
        case 5: return String(repeating: "x\(index % 10)", count: Int(random.next() % 2_000))
        case 6: return String(repeating: "long\(index)", count: 10_000)  // about 80 KB
        default: return String(repeating: "n", count: Int(random.next() % 200)) + "\(index)"
        }
    }

    @Test func cachedQueryReturnsEachRunsOwnValues() throws {
        let folder = try TemporaryFolder()
        let connection = try SQLiteConnection(url: folder.file("Bytes.sqlite"), mode: .create)
        var random = SplitMix64(seed: 35)
        for index in 0..<400 {
            let string = Self.text(index, &random)
            let bytes = Data((0..<Int(random.next() % 3_000)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index) })
            var read: (String?, Data?, String?) = (nil, nil, nil)
            // One statement text for every run: the connection's cached statement, run again.
            try connection.query("SELECT ?, ?, ?", [.string(string), .data(bytes), .string(string + "!")]) { statement in
                read = (statement.string(at: 0), statement.data(at: 1), statement.string(at: 2))
            }
            #expect(read.0 == string, "run \(index)")
            #expect(read.1 == (bytes.isEmpty ? nil : bytes), "run \(index)")
            #expect(read.2 == string + "!", "run \(index)")
        }
    }

    @Test func batchedInsertsWriteEveryString() throws {
        let folder = try TemporaryFolder()
        let store = try SQLiteStoreFile.create(
            at: folder.file("Library.sqlite"), schema: Library.schema,
            versionHashes: ["Author": Data(repeating: 1, count: 32), "Book": Data(repeating: 2, count: 32)])
        var random = SplitMix64(seed: 36)
        var rows: [RowSnapshot] = []
        // Three saves of the same insert statements (256 rows to one), so that later saves bind
        // from the buffer the first one sized, and the largest strings overflow it.
        for save in 0..<3 {
            let first = rows.count
            for index in first..<(first + 300 + save * 211) {
                rows.append(
                    RowSnapshot(
                        key: ObjectKey(entityID: Library.author, primaryKey: Int64(index + 1)), version: 1,
                        values: [.string(Self.text(index, &random)), .objects([])]))
            }
            try store.insert(Array(rows[first...]))
        }
        let read = try store.rows(entityIDs: [Library.author])
        #expect(read.count == rows.count)
        #expect(read.map(\.key) == rows.map(\.key))
        for (written, stored) in zip(rows, read) where written.values[0] != stored.values[0] {
            Issue.record("\(written.key): wrote \(written.values[0]), read \(stored.values[0])")
        }
    }
}
