import Foundation
import OpenInMemoryStore
import OpenSQLStore
import OpenSQLiteStore
import OpenStoreCore
import TestSupport
import Testing

/// Saves at the store level, through `SQLiteRowStore` and `InMemoryRowStore` with the same
/// answers: optimistic locking on `Z_OPT`, uniqueness constraints and Apple's unique indexes.
@Suite struct SQLiteSaveTests {
    /// Car (numberPlate unique) > SportCar, and Person (firstName, lastName unique), as in
    /// CoreDataPlus's SampleModel.
    static let schema: StoreSchema = {
        let plain = makeSchema([
            (name: "Car", superID: nil, abstract: false, properties: [attribute("numberPlate", .string), attribute("maker", .string)]),
            (name: "SportCar", superID: 1, abstract: false, properties: []),
            (name: "Person", superID: nil, abstract: false, properties: [attribute("firstName", .string), attribute("lastName", .string)]),
        ])
        let constraints: [Int: [[Int]]] = [1: [[0]], 3: [[0, 1]]]
        return StoreSchema(
            entities: plain.entities.map { entity in
                EntitySchema(
                    id: entity.id, name: entity.name, isAbstract: entity.isAbstract, superID: entity.superID,
                    familyIDs: entity.familyIDs, properties: entity.properties,
                    uniquenessConstraints: constraints[entity.id] ?? [])
            })
    }()

    /// Both back ends, fresh.
    static func stores(in folder: TemporaryFolder) throws -> [(String, RowStore)] {
        [
            ("in-memory", InMemoryRowStore(schema: schema)),
            ("sqlite", try SQLiteRowStore.open(at: folder.file("Cars.sqlite"), schema: schema, readOnly: false, modelVersionHashes: [:])),
        ] + (try PostgresStores.open(schema: schema, in: folder).map { [("postgresql", $0 as RowStore)] } ?? [])
    }

    static func car(_ key: Int64, _ plate: String?, entity: Int = 1, version: Int64 = 1) -> RowSnapshot {
        RowSnapshot(key: ObjectKey(entityID: entity, primaryKey: key), version: version, values: [plate.map { .string($0) } ?? .null, .null])
    }

    @Test func uniqueIndexesAreSpelledAsApplesAre() throws {
        let layout = try AppleSQLLayout(schema: Self.schema)
        let expected = [
            "CREATE UNIQUE INDEX Z_Car_UNIQUE_numberPlate ON ZCAR (ZNUMBERPLATE COLLATE BINARY ASC)",
            "CREATE UNIQUE INDEX Z_Person_UNIQUE_firstName_lastName ON ZPERSON (ZFIRSTNAME COLLATE BINARY ASC, ZLASTNAME COLLATE BINARY ASC)",
        ]
        #expect(layout.uniqueIndexStatements == expected)
        #expect(Array(layout.createStatements.suffix(4).prefix(2)) == expected)
        // The real store Apple wrote for this model has the same statements.
        if RealWorld.hasStores {
            let folder = try TemporaryFolder()
            let url = try RealWorld.copyStore("coredataplus-samplemodel-v2", into: folder.url)
                .appendingPathComponent("SampleModel_V2.sqlite")
            let connection = try SQLiteConnection(url: url, mode: .readOnly)
            let statement = try connection.statement("SELECT sql FROM sqlite_master WHERE type = 'index' AND name LIKE ? ORDER BY name")
            try statement.bind([.string("%UNIQUE%")])
            var real: [String] = []
            while try statement.step() { real.append(statement.string(at: 0) ?? "") }
            statement.reset()
            #expect(real.filter { $0.contains("UNIQUE") } == expected)
        }
    }

    @Test func staleRowsAreRefusedAsAWhole() throws {
        let folder = try TemporaryFolder()
        var answers: [String] = []
        let stores = try Self.stores(in: folder)
        for (name, store) in stores {
            try store.apply(SaveChanges(inserted: [Self.car(1, "A"), Self.car(2, "B"), Self.car(3, "C", entity: 2)]))
            // Car 1 at version 1 rewritten to 2; a later writer that saw version 1 is refused.
            try store.apply(SaveChanges(updated: [Self.car(1, "A1", version: 2)], expectedVersions: [ObjectKey(entityID: 1, primaryKey: 1): 1]))
            let stale = SaveChanges(
                inserted: [Self.car(4, "D")], updated: [Self.car(1, "A2", version: 2), Self.car(2, "B2", version: 2)],
                deleted: [ObjectKey(entityID: 2, primaryKey: 3), ObjectKey(entityID: 1, primaryKey: 9)],
                expectedVersions: [
                    ObjectKey(entityID: 1, primaryKey: 1): 1, ObjectKey(entityID: 1, primaryKey: 2): 1,
                    ObjectKey(entityID: 2, primaryKey: 3): 1, ObjectKey(entityID: 1, primaryKey: 9): 1,
                ])
            do {
                try store.apply(stale)
                Issue.record("\(name): a stale save went through")
            } catch let error as SaveConflictError {
                let described = error.versionConflicts.map { "\($0.key) expected \($0.expectedVersion) now \($0.current.map { "\($0.version)" } ?? "gone")" }
                answers.append(described.sorted().joined(separator: "; "))
                #expect(error.constraintConflicts.isEmpty)
            }
            // Nothing of the refused save was written.
            let rows = try store.rows(for: (1...4).map { ObjectKey(entityID: $0 == 3 ? 2 : 1, primaryKey: $0) })
            #expect(rows.map(\.values.first) == [.string("A1"), .string("B"), .string("C")], "\(name)")
            #expect(rows.map(\.version) == [2, 1, 1], "\(name)")
        }
        #expect(answers.count == stores.count)
        #expect(Set(answers).count == 1)
        #expect(answers.first == "1/p1 expected 1 now 2; 1/p9 expected 1 now gone")
    }

    /// An attribute the SQLite store has no column for (of the undefined type) refuses a row
    /// with a value there, rather than drop it, as the store binds that row: after 300 rows
    /// were bound, nothing of the save is written; rows with nil there save.
    @Test func aValueWithoutAColumnRefusesTheWholeInsert() throws {
        let folder = try TemporaryFolder()
        let schema = makeSchema([
            (name: "Note", superID: nil, abstract: false, properties: [attribute("title", .string), attribute("scratch", .undefined)])
        ])
        let store = try SQLiteRowStore.open(at: folder.file("Notes.sqlite"), schema: schema, readOnly: false, modelVersionHashes: [:])
        func note(_ key: Int64, scratch: StoreValue = .null) -> RowSnapshot {
            RowSnapshot(key: ObjectKey(entityID: 1, primaryKey: key), version: 1, values: [.string("N\(key)"), scratch])
        }
        let rows = (1...300).map { note($0) } + [note(301, scratch: .string("kept?"))]
        #expect {
            try store.apply(SaveChanges(inserted: rows))
        } throws: { error in
            "\(error)".contains("Note.scratch") && "\(error)".contains("no column")
        }
        #expect(try store.rows(for: [ObjectKey(entityID: 1, primaryKey: 1)]).isEmpty, "nothing of the refused save")
        try store.apply(SaveChanges(inserted: Array(rows.dropLast())))
        #expect(try store.rows(for: (1...301).map { ObjectKey(entityID: 1, primaryKey: $0) }).count == 300)
    }

    /// 1,201 rows deleted in one save (several statements of many keys on the SQL stores), and a
    /// save naming a row that is not there refused as a whole, on every store.
    @Test func manyRowsDeleteInOneSaveAndAMissingOneRefusesIt() throws {
        let folder = try TemporaryFolder()
        for (name, store) in try Self.stores(in: folder) {
            let cars = (1...1_300).map { Self.car(Int64($0), "P\($0)", entity: $0 % 3 == 0 ? 2 : 1) }
            try store.apply(SaveChanges(inserted: cars))
            let gone = cars.prefix(1_201).map(\.key)
            try store.apply(SaveChanges(deleted: gone))
            let left = try store.rows(for: cars.map(\.key))
            #expect(left.map(\.key.primaryKey) == Array(1_202...1_300), "\(name)")
            // A key whose row is gone: nothing of the save is written.
            let missing = SaveChanges(deleted: [cars[1_250].key, ObjectKey(entityID: 1, primaryKey: 5), cars[1_260].key])
            #expect(throws: (any Error).self, "\(name)") { try store.apply(missing) }
            #expect(try store.rows(for: cars.map(\.key)).count == 99, "\(name)")
        }
    }

    @Test func constraintsSpanSubEntitiesAndIgnoreNulls() throws {
        let folder = try TemporaryFolder()
        var answers: [String] = []
        let stores = try Self.stores(in: folder)
        for (name, store) in stores {
            try store.apply(SaveChanges(inserted: [Self.car(1, "A"), Self.car(2, nil), Self.car(3, nil, entity: 2)]))
            do {
                // A sport car with a stored car's plate, and two new cars sharing one.
                try store.apply(SaveChanges(inserted: [Self.car(4, "A", entity: 2), Self.car(5, "E"), Self.car(6, "E")]))
                Issue.record("\(name): a duplicate went through")
            } catch let error as SaveConflictError {
                answers.append(
                    error.constraintConflicts.map { "\($0.values) \($0.keys) existing \($0.existing.map { "\($0.key)" } ?? "none")" }
                        .joined(separator: "; "))
            }
            // Freeing a value and taking it in the same save is allowed.
            try store.apply(
                SaveChanges(inserted: [Self.car(7, "A")], deleted: [ObjectKey(entityID: 1, primaryKey: 1)]))
            #expect(try store.rows(for: [ObjectKey(entityID: 1, primaryKey: 7)]).count == 1, "\(name)")
        }
        #expect(answers.count == stores.count)
        #expect(Set(answers).count == 1)
        #expect(answers.first == #"[OpenStoreCore.StoreValue.string("A")] [2/p4] existing 1/p1; [OpenStoreCore.StoreValue.string("E")] [1/p5, 1/p6] existing none"#)
    }
}

/// Saves queued behind a busy SQLite store commit together: one transaction and one `COMMIT` for
/// the group, each save in a savepoint of its own, so a refused save leaves the others saved.
@Suite struct SQLiteGroupCommitTests {
    @Test func queuedSavesShareOneCommitAndARefusalUndoesOnlyItsOwn() throws {
        let folder = try TemporaryFolder()
        let capture = LogCapture()
        let store = try SQLiteRowStore.open(
            at: folder.file("Cars.sqlite"), schema: SQLiteSaveTests.schema, readOnly: false, modelVersionHashes: [:],
            trace: SQLTrace(level: 1, logger: capture.logger))
        try store.apply(SaveChanges(inserted: [SQLiteSaveTests.car(1, "A")]))
        // A prepared save holds the store's lock; four saves queue behind it, the third taking
        // a plate the first one takes too.
        let held = try store.prepare(SaveChanges(inserted: [SQLiteSaveTests.car(2, "B")]))
        capture.clear()
        let plates = ["C", "D", "C", "E"]
        let outcomes = Outcomes(count: plates.count)
        let done = DispatchGroup()
        for (index, plate) in plates.enumerated() {
            done.enter()
            Thread.detachNewThread {
                outcomes.set(
                    index, Result { try store.apply(SaveChanges(inserted: [SQLiteSaveTests.car(Int64(10 + index), plate)])) })
                done.leave()
            }
            let deadline = Date().addingTimeInterval(30)
            while store.testingQueuedCalls < index + 1 && Date() < deadline { Thread.sleep(forTimeInterval: 0.001) }
            #expect(store.testingQueuedCalls == index + 1)
        }
        try held.commit()
        #expect(done.wait(timeout: .now() + 30) == .success)

        // The prepared save's COMMIT, then one transaction for the four.
        #expect(capture.statements.filter { $0 == "COMMIT" }.count == 2)
        #expect(capture.statements.filter { $0 == "BEGIN IMMEDIATE" }.count == 1)
        #expect(capture.statements.filter { $0 == "SAVEPOINT save" }.count == 4)
        #expect(capture.statements.filter { $0 == "ROLLBACK TO save" }.count == 1)
        let results = outcomes.values
        #expect(results.map { (try? $0?.get()) != nil } == [true, true, false, true])
        if case .failure(let error as SaveConflictError)? = results[2] {
            #expect(error.constraintConflicts.map(\.existing?.key) == [ObjectKey(entityID: 1, primaryKey: 10)])
        } else {
            Issue.record("the third save was not refused for its plate: \(String(describing: results[2]))")
        }
        let keys = [1, 2, 10, 11, 12, 13].map { ObjectKey(entityID: 1, primaryKey: Int64($0)) }
        #expect(try store.rows(for: keys).map(\.key.primaryKey) == [1, 2, 10, 11, 13])
        // And a new connection sees them: they were committed.
        let reopened = try SQLiteRowStore.open(
            at: folder.file("Cars.sqlite"), schema: SQLiteSaveTests.schema, readOnly: true, modelVersionHashes: [:])
        #expect(try reopened.rows(for: keys).map(\.values.first) == ["A", "B", "C", "D", "E"].map { .string($0) })
    }

    /// A `COMMIT` that fails reaches every save of its group that had written.
    @Test func aFailedGroupCommitFailsEverySaveInIt() throws {
        let folder = try TemporaryFolder()
        let store = try SQLiteRowStore.open(
            at: folder.file("Cars.sqlite"), schema: SQLiteSaveTests.schema, readOnly: false, modelVersionHashes: [:])
        let held = try store.prepare(SaveChanges(inserted: [SQLiteSaveTests.car(1, "A")]))
        let outcomes = Outcomes(count: 3)
        let done = DispatchGroup()
        for index in 0..<3 {
            done.enter()
            Thread.detachNewThread {
                outcomes.set(
                    index,
                    Result { try store.apply(SaveChanges(inserted: [SQLiteSaveTests.car(Int64(10 + index), "P\(index)")])) })
                done.leave()
            }
            let deadline = Date().addingTimeInterval(30)
            while store.testingQueuedCalls < index + 1 && Date() < deadline { Thread.sleep(forTimeInterval: 0.001) }
        }
        // SQLITE_FULL reported by every COMMIT (after it ran): the prepared save's, then the
        // group's, which all three saves get.
        store.testingCommitResult = 13
        #expect(throws: (any Error).self) { try held.commit() }
        #expect(done.wait(timeout: .now() + 30) == .success)
        store.testingCommitResult = nil
        let codes = outcomes.values.map { outcome -> Int? in
            guard case .failure(let error as NSError)? = outcome else { return nil }
            return error.userInfo["NSSQLiteErrorDomain"] as? Int
        }
        #expect(codes == [13, 13, 13])
    }
}

/// Results set from several threads, read after they finished.
private final class Outcomes: @unchecked Sendable {
    // @unchecked Sendable: `stored` is used only with `lock` held.
    private let lock = NSLock()
    private var stored: [Result<Void, any Error>?]

    init(count: Int) { stored = Array(repeating: nil, count: count) }

    func set(_ index: Int, _ result: Result<Void, any Error>) { lock.withLock { stored[index] = result } }
    var values: [Result<Void, any Error>?] { lock.withLock { stored } }
}
