import Foundation
import OpenCoreData
import OpenSQLStore
import OpenSQLiteStore
import OpenStoreCore
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Files a user may have at a store's path, and what adding the store does with each: a file
/// left by an interrupted creation is finished, never one that holds anything of its own; a
/// path that is not a regular file, damaged metadata and a damaged `Z_PRIMARYKEY` give errors
/// naming the file instead of a hang, a wrong diagnosis or a trap.
@Suite struct StoreFileSafetyTests {
    typealias Stack = SQLiteStoreTests.Stack

    /// An SQLite database with nothing in it, as a process killed between the file's creation
    /// and the schema's commit leaves it (the journal mode is written with the first page).
    static func emptyDatabase(at url: URL, journalMode: String) throws {
        let connection = try SQLiteConnection(url: url, mode: .create)
        try connection.execute("PRAGMA journal_mode = \(journalMode)")
    }

    static func addError(_ url: URL, readOnly: Bool = false) -> NSError? {
        do {
            _ = try Stack(url: url, readOnly: readOnly)
            return nil
        } catch {
            return error as NSError
        }
    }

    // MARK: - Half-created files

    @Test(arguments: ["wal", "delete", "zero-length"])
    func anEmptyDatabaseFromAnInterruptedCreationIsCreatedAnew(_ kind: String) throws {
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("Half.sqlite")
        if kind == "zero-length" {
            try Data().write(to: url)
        } else {
            try Self.emptyDatabase(at: url, journalMode: kind)
        }
        // Read-only, it cannot be finished: an error that says what the file is and what to do.
        let readOnly = try #require(Self.addError(url, readOnly: true))
        #expect(readOnly.code == NSPersistentStoreOpenError)
        #expect(readOnly.localizedDescription.contains("empty SQLite database"))
        #expect(readOnly.localizedDescription.contains(url.path))

        let stack = try Stack(url: url)
        try stack.fill()
        let reopened = try Stack(url: url)
        #expect(try reopened.names("Employee") == ["Ann", "Bob", "Cy", "Dee"])
        let connection = try SQLiteConnection(url: url, mode: .readOnly)
        #expect(try connection.journalMode() == "wal")
    }

    /// A file with anything of its own is not taken for a half-created store: an empty table, a
    /// user version, an index, or rows.
    @Test(arguments: [
        "CREATE TABLE notes (body TEXT)", "PRAGMA user_version = 7", "PRAGMA application_id = 42",
        "CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)",
        "CREATE TABLE t (x); INSERT INTO t VALUES (1)", "CREATE VIEW v AS SELECT 1",
    ])
    func aDatabaseWithAnythingOfItsOwnIsNeverTouched(_ sql: String) throws {
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("Theirs.sqlite")
        try SQLiteConnection(url: url, mode: .create).execute(sql)
        let before = try Data(contentsOf: url)
        let error = try #require(Self.addError(url))
        #expect(error.code == NSPersistentStoreInvalidTypeError)
        #expect(error.localizedDescription.contains("not a Core Data store") || error.localizedDescription.contains("Z_METADATA"))
        #expect(try Data(contentsOf: url) == before)
    }

    /// `NSSQLitePragmasOption` `journal_mode` chooses a new store's journal mode.
    @Test func journalModePragmaChoosesTheNewStoresMode() throws {
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("Rollback.sqlite")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: CompanyModel.make())
        _ = try coordinator.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil, at: url,
            options: [NSSQLitePragmasOption: ["journal_mode": "DELETE" as NSString, "synchronous": "FULL" as NSString]])
        #expect(try SQLiteConnection(url: url, mode: .readOnly).journalMode() == "delete")
        // A value that is not a name or a number is refused, never spliced into SQL.
        let other = NSPersistentStoreCoordinator(managedObjectModel: CompanyModel.make())
        #expect(throws: (any Error).self) {
            try other.addPersistentStore(
                ofType: NSSQLiteStoreType, configurationName: nil, at: url,
                options: [NSSQLitePragmasOption: ["synchronous": "OFF; DROP TABLE Z_METADATA" as NSString]])
        }
    }

    // MARK: - Paths that are not regular files

    @Test(arguments: ["fifo", "directory", "device", "fifo-wal"])
    func aPathThatIsNotARegularFileIsRefusedAtOnce(_ kind: String) throws {
        let folder = try TemporaryFolder()
        var url = folder.url.appendingPathComponent("Store.sqlite")
        switch kind {
        case "fifo": #expect(mkfifo(url.path, 0o644) == 0)
        case "directory": try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
        case "device": url = URL(fileURLWithPath: "/dev/zero")
        default:
            _ = try Stack(url: url)
            #expect(mkfifo(url.path + "-wal", 0o644) == 0 || FileManager.default.fileExists(atPath: url.path + "-wal"))
            if FileManager.default.fileExists(atPath: url.path + "-wal") {
                try FileManager.default.removeItem(atPath: url.path + "-wal")
                #expect(mkfifo(url.path + "-wal", 0o644) == 0)
            }
        }
        for readOnly in [true, false, nil] {
            // Run on a thread of its own: without the check, opening a FIFO waits for a writer.
            let done = DispatchSemaphore(value: 0)
            nonisolated(unsafe) var error: NSError?
            let path = url
            Thread.detachNewThread {
                if let readOnly {
                    error = Self.addError(path, readOnly: readOnly)
                } else {
                    // What `coredata stores` does: a bare read-only connection.
                    do { _ = try SQLiteConnection(url: path, mode: .readOnly) } catch let thrown { error = thrown as NSError }
                }
                done.signal()
            }
            guard done.wait(timeout: .now() + 60) == .success else {
                Issue.record("adding the store at a \(kind) (readOnly: \(String(describing: readOnly))) hangs")
                // Let the waiting open go: a writer that comes and goes.
                let fd = open(url.path + (kind == "fifo-wal" ? "-wal" : ""), O_WRONLY | O_NONBLOCK)
                if fd >= 0 { close(fd) }
                return
            }
            let thrown = try #require(error)
            #expect(thrown.code == NSPersistentStoreOpenError)
            #expect(thrown.localizedDescription.contains("not a regular file"))
        }
    }

    // MARK: - Damaged contents

    @Test func primaryKeysNearTheLargestIntegerThrowOnSaveAndKeepTheChanges() throws {
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("Keys.sqlite")
        try Stack(url: url).fill()
        try SQLiteConnection(url: url, mode: .readWrite).execute(
            "UPDATE Z_PRIMARYKEY SET Z_MAX = \(Int64.max - 1) WHERE Z_NAME = 'Person'")
        let stack = try Stack(url: url)
        stack.insert("Employee", ["name": "Eve"])
        stack.insert("Employee", ["name": "Fay"])
        var thrown: NSError?
        do { try stack.context.save() } catch { thrown = error as NSError }
        let error = try #require(thrown)
        #expect(error.code == NSPersistentStoreSaveError)
        #expect(error.localizedDescription.contains("Z_MAX"))
        #expect(error.localizedDescription.contains(url.path))
        #expect(stack.context.insertedObjects.count == 2)
        #expect(stack.context.hasChanges)
        #expect(try Stack(url: url).names("Employee") == ["Ann", "Bob", "Cy", "Dee"])
        // One key is left: one new object still saves.
        let last = try Stack(url: url)
        last.insert("Employee", ["name": "Gus"])
        try last.context.save()
        #expect(try Stack(url: url).names("Employee").contains("Gus"))
    }

    @Test(arguments: ["garbage", "truncated", "empty", "no hashes", "not a dictionary", "null"])
    func damagedMetadataIsReportedAsDamagedNotAsAnotherModel(_ damage: String) throws {
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("Meta.sqlite")
        try Stack(url: url).fill()
        let connection = try SQLiteConnection(url: url, mode: .readWrite)
        let statement = try connection.statement("SELECT Z_PLIST FROM Z_METADATA")
        _ = try statement.step()
        let plist = statement.data(at: 0) ?? Data()
        statement.reset()
        let damaged: StoreValue
        switch damage {
        case "garbage": damaged = .data(Data((0..<200).map { UInt8(truncatingIfNeeded: $0 &* 37) }))
        case "truncated": damaged = .data(plist.prefix(plist.count / 2))
        case "empty": damaged = .data(Data())
        case "null": damaged = .null
        case "no hashes":
            damaged = .data(
                try PropertyListSerialization.data(
                    fromPropertyList: ["NSStoreType": "SQLite"] as [String: Any], format: .binary, options: 0))
        default:
            damaged = .data(try PropertyListSerialization.data(fromPropertyList: ["a", "b"], format: .binary, options: 0))
        }
        try connection.run("UPDATE Z_METADATA SET Z_PLIST = ?", [damaged])
        for readOnly in [true, false] {
            let error = try #require(Self.addError(url, readOnly: readOnly))
            #expect(error.code == NSPersistentStoreInvalidTypeError, "\(damage): \(error)")
            #expect(error.localizedDescription.contains("damaged"), "\(damage): \(error.localizedDescription)")
            #expect(error.localizedDescription.contains(url.path))
            #expect(error.userInfo["NSStoreMetadataDamaged"] as? Bool == true)
        }
    }

    // MARK: - Dangling to-one keys

    /// A to-one key naming a row that does not exist: reading the relationship gives a fault
    /// that stops the process when fired (Apple's `NSObjectInaccessibleException`), so a reader
    /// that must not stop asks `existingObject(with:)`, which throws.
    @Test func aDanglingToOneCanBeReadWithoutStopping() throws {
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("Dangling.sqlite")
        try Stack(url: url).fill()
        try SQLiteConnection(url: url, mode: .readWrite).execute("UPDATE ZPERSON SET ZDEPARTMENT = 999 WHERE ZNAME = 'Ann'")
        let stack = try Stack(url: url)
        let ann = try #require(try stack.objects("Employee", "name == 'Ann'").first)
        let department = try #require(ann.value(forKey: "department") as? NSManagedObject)
        #expect(department.isFault)
        #expect(throws: (any Error).self) { try stack.context.existingObject(with: department.objectID) }
        let bob = try #require(try stack.objects("Employee", "name == 'Bob'").first)
        let sales = try #require(bob.value(forKey: "department") as? NSManagedObject)
        #expect(try stack.context.existingObject(with: sales.objectID).value(forKey: "title") as? String == "Sales")
    }

    // MARK: - Names that are not SQL identifiers

    /// A model built in code may name an entity or a property with a space, a quote or a
    /// parenthesis, which the store's unquoted SQL would misread: adding an SQLite store refuses
    /// it with an error naming the entity and the property, and leaves no file; in memory, the
    /// same model works.
    @Test(arguments: [("Entity", "first name"), ("Entity", "a VARCHAR, ZB"), ("Entity", "x'); --"), ("Odd Entity", "name")])
    func namesThatAreNotIdentifiersAreRefusedBeforeAnySQL(entityName: String, propertyName: String) throws {
        let attribute = NSAttributeDescription()
        attribute.name = propertyName
        attribute.attributeType = .stringAttributeType
        let entity = NSEntityDescription()
        entity.name = entityName
        entity.properties = [attribute]
        let model = NSManagedObjectModel()
        model.entities = [entity]
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("Names.sqlite")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let error = try #require(
            require(throwing: { try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url) }))
        let culprit = entityName.contains(" ") ? entityName : propertyName
        #expect(error.localizedDescription.contains("'\(culprit)'"))
        #expect(error.localizedDescription.contains("letters, digits and underscores"))
        #expect(!FileManager.default.fileExists(atPath: url.path))
        let memory = try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
        #expect(memory.type == NSInMemoryStoreType)
    }
}

/// The error `body` throws, as an `NSError`; nil when it throws none.
private func require(throwing body: () throws -> Any) -> NSError? {
    do {
        _ = try body()
        return nil
    } catch {
        return error as NSError
    }
}
