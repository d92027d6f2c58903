import Foundation
import OpenInMemoryStore
import OpenSQLStore
import OpenSQLiteStore
import OpenStoreCore
import TestSupport
import Testing

/// The store-level history contract (`RowStore.history(after:limit:)`, `deleteHistory(before:)`,
/// `lastHistoryTransactionNumber()`, `SaveChanges.history`) on `SQLiteRowStore` and
/// `InMemoryRowStore`, with the same answers; and the `ZCOLUMNS` bitmap.
@Suite struct SQLiteHistoryTests {
    /// Both back ends, fresh, tracking history (`Car.numberPlate` unique, Person's `lastName`
    /// preserved on deletion).
    static func stores(in folder: TemporaryFolder) throws -> [(String, RowStore)] {
        let schema = SQLiteHistoryTests.schema
        return [
            ("in-memory", InMemoryRowStore(schema: schema)),
            (
                "sqlite",
                try SQLiteRowStore.open(
                    at: folder.file("History.sqlite"), schema: schema, readOnly: false, modelVersionHashes: [:],
                    tracksHistory: true)
            ),
        ] + (try PostgresStores.open(schema: schema, in: folder, tracksHistory: true).map { [("postgresql", $0 as RowStore)] } ?? [])
    }

    static let schema: StoreSchema = {
        let plain = SQLiteSaveTests.schema
        return StoreSchema(
            entities: plain.entities.map { entity in
                EntitySchema(
                    id: entity.id, name: entity.name, isAbstract: entity.isAbstract, superID: entity.superID,
                    familyIDs: entity.familyIDs,
                    properties: entity.properties.map { property in
                        PropertySchema(
                            name: property.name, kind: property.kind,
                            preservesValueInHistoryOnDeletion: entity.name == "Person" && property.name == "lastName")
                    }, uniquenessConstraints: entity.uniquenessConstraints)
            })
    }()

    static func draft(_ author: String, _ changes: [HistoryChange]) -> HistoryTransactionDraft {
        HistoryTransactionDraft(
            author: author, contextName: "ctx", bundleID: "bundle", processID: "proc",
            timestamp: Date(timeIntervalSinceReferenceDate: 1_000), changes: changes)
    }

    @Test func savesRecordNumberedTransactionsInBothStores() throws {
        let folder = try TemporaryFolder()
        for (name, store) in try Self.stores(in: folder) {
            #expect(try store.lastHistoryTransactionNumber() == nil, "\(name)")
            let car = SQLiteSaveTests.car(1, "A-1")
            let person = RowSnapshot(key: ObjectKey(entityID: 3, primaryKey: 1), version: 1, values: [.string("Ann"), .string("Lee")])
            try store.apply(
                SaveChanges(
                    inserted: [car, person],
                    history: Self.draft("first", [HistoryChange(key: car.key, kind: .insert), HistoryChange(key: person.key, kind: .insert)])))
            var renamed = car
            renamed.version = 2
            renamed.values[0] = .string("A-2")
            try store.apply(
                SaveChanges(
                    updated: [renamed], deleted: [person.key],
                    history: Self.draft(
                        "second",
                        [
                            HistoryChange(key: car.key, kind: .update, updatedSlots: [0]),
                            HistoryChange(key: person.key, kind: .delete, tombstone: [1: .string("Lee")]),
                        ])))
            // A save without a draft records nothing.
            try store.apply(SaveChanges(inserted: [SQLiteSaveTests.car(2, "B-1")]))

            let all = try store.history(after: nil, limit: nil)
            #expect(all.map(\.number) == [1, 2], "\(name)")
            #expect(all.map(\.author) == ["first", "second"], "\(name)")
            #expect(all.first?.contextName == "ctx" && all.first?.bundleID == "bundle" && all.first?.processID == "proc")
            #expect(all.first?.timestamp == Date(timeIntervalSinceReferenceDate: 1_000), "\(name)")
            #expect(all.flatMap(\.changes).map(\.changeID) == [1, 2, 3, 4], "\(name)")
            let second = try #require(all.last)
            #expect(second.changes.map(\.kind) == [.update, .delete], "\(name)")
            #expect(second.changes[0].updatedSlots == [0], "\(name)")
            #expect(second.changes[1].tombstone == [1: .string("Lee")], "\(name)")
            #expect(second.changes[1].key == person.key, "\(name)")
            #expect(try store.lastHistoryTransactionNumber() == 2, "\(name)")
            #expect(try store.history(after: 1, limit: nil).map(\.number) == [2], "\(name)")
            #expect(try store.history(after: nil, limit: 1).map(\.number) == [1], "\(name)")
            #expect(try store.history(after: 2, limit: nil).isEmpty, "\(name)")

            try store.deleteHistory(before: 2)
            #expect(try store.history(after: nil, limit: nil).map(\.number) == [2], "\(name)")
            try store.deleteHistory(before: 3)
            #expect(try store.history(after: nil, limit: nil).isEmpty, "\(name)")
            // The last number stays: the next transaction is 3, never 1 again.
            #expect(try store.lastHistoryTransactionNumber() == 2, "\(name)")
            try store.apply(
                SaveChanges(
                    inserted: [SQLiteSaveTests.car(3, "C-1")],
                    history: Self.draft("third", [HistoryChange(key: ObjectKey(entityID: 1, primaryKey: 3), kind: .insert)])))
            #expect(try store.history(after: nil, limit: nil).map(\.number) == [3], "\(name)")
        }
    }

    @Test func aRefusedSaveRecordsNoHistory() throws {
        let folder = try TemporaryFolder()
        for (name, store) in try Self.stores(in: folder) {
            try store.apply(SaveChanges(inserted: [SQLiteSaveTests.car(1, "A-1")]))
            // The same plate again breaks the uniqueness constraint: nothing is written.
            let duplicate = SQLiteSaveTests.car(2, "A-1")
            #expect(throws: SaveConflictError.self, "\(name)") {
                try store.apply(
                    SaveChanges(inserted: [duplicate], history: Self.draft("x", [HistoryChange(key: duplicate.key, kind: .insert)])))
            }
            // A stale version is refused too.
            var stale = SQLiteSaveTests.car(1, "A-9", version: 2)
            stale.version = 2
            #expect(throws: SaveConflictError.self, "\(name)") {
                try store.apply(
                    SaveChanges(
                        updated: [stale], expectedVersions: [stale.key: 7],
                        history: Self.draft("y", [HistoryChange(key: stale.key, kind: .update, updatedSlots: [0])])))
            }
            #expect(try store.history(after: nil, limit: nil).isEmpty, "\(name)")
            #expect(try store.lastHistoryTransactionNumber() == nil, "\(name)")
        }
    }

    @Test func aStoreWithoutTrackingRefusesHistory() throws {
        let folder = try TemporaryFolder()
        let store = try SQLiteRowStore.open(
            at: folder.file("Plain.sqlite"), schema: Self.schema, readOnly: false, modelVersionHashes: [:])
        #expect(throws: HistoryUnavailableError.self) { try store.history(after: nil, limit: nil) }
        #expect(throws: HistoryUnavailableError.self) { try store.lastHistoryTransactionNumber() }
        let car = SQLiteSaveTests.car(1, "A-1")
        #expect(throws: (any Error).self) {
            try store.apply(SaveChanges(inserted: [car], history: Self.draft("x", [HistoryChange(key: car.key, kind: .insert)])))
        }
        // The refused save left no row either.
        #expect(try store.row(for: car.key) == nil)
    }

    @Test func columnBitmapsCountFromTheMostSignificantBitInNameOrder() throws {
        // Properties a, c, b, … by slot; by name: a(0) b(2) c(1) d(3) … i(8).
        let names = ["a", "c", "b", "d", "e", "f", "g", "h", "i"]
        let entity = EntitySchema(
            id: 1, name: "E", isAbstract: false, superID: nil, familyIDs: [1],
            properties: names.map { PropertySchema(name: $0, kind: .attribute(.string)) })
        #expect(HistoryColumnBitmap.encode([1], entity: entity) == Data([0x20, 0x00]))  // c is third by name
        #expect(HistoryColumnBitmap.encode([0, 8], entity: entity) == Data([0x80, 0x80]))
        #expect(HistoryColumnBitmap.decode(Data([0x60, 0x80]), entity: entity) == [1, 2, 8])
        // A bit past the entity's properties: unknown.
        #expect(HistoryColumnBitmap.decode(Data([0x00, 0x40]), entity: entity) == nil)
        #expect(HistoryColumnBitmap.encode([], entity: entity) == nil)
    }
}
