import Foundation
import OpenCoreData
import OpenSQLStore
import OpenSQLiteStore
import TestSupport
import Testing

/// `NSSQLiteStoreType` through the coordinator: files written by one coordinator and read by
/// another give the in-memory store's answers; updates, deletes, read-only and model checks.
@Suite struct SQLiteStoreTests {
    /// A coordinator on a store file and a context on it.
    struct Stack {
        let model: NSManagedObjectModel
        let coordinator: NSPersistentStoreCoordinator
        let store: NSPersistentStore
        let context: NSManagedObjectContext

        init(
            model: NSManagedObjectModel = CompanyModel.make(), type: String = NSSQLiteStoreType, url: URL?,
            readOnly: Bool = false
        ) throws {
            self.model = model
            coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
            store = try coordinator.addPersistentStore(
                ofType: type, configurationName: nil, at: url, options: readOnly ? [NSReadOnlyPersistentStoreOption: true] : nil)
            context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
        }

        @discardableResult
        func insert(_ entity: String, _ values: [String: Any]) -> NSManagedObject {
            let object = NSManagedObject(entity: model[entity: entity], insertInto: context)
            for (key, value) in values { object.setValue(value, forKey: key) }
            return object
        }

        /// Sales (Ann 50k, Bob 70k), Labs (Cy 90k, manager Dee 120k), Empty (nobody).
        func fill() throws {
            let sales = insert("Department", ["title": "Sales"])
            let labs = insert("Department", ["title": "Labs"])
            insert("Department", ["title": "Empty"])
            let born = Date(timeIntervalSinceReferenceDate: 0)
            insert("Employee", ["name": "Ann", "salary": Decimal(50_000), "department": sales, "born": born])
            insert("Employee", ["name": "Bob", "salary": Decimal(70_000), "department": sales])
            insert(
                "Employee",
                ["name": "Cy", "salary": Decimal(90_000), "department": labs, "born": born.addingTimeInterval(-86_400)])
            insert("Manager", ["name": "Dee", "salary": Decimal(120_000), "department": labs])
            try context.save()
        }

        func objects(_ entity: String, _ format: String? = nil, sort: [(String, Bool)] = []) throws -> [NSManagedObject] {
            let request = NSFetchRequest<NSManagedObject>(entityName: entity)
            request.predicate = format.map { NSPredicate(format: $0) }
            request.sortDescriptors = sort.map { NSSortDescriptor(key: $0.0, ascending: $0.1) }
            return try context.fetch(request)
        }

        func names(_ entity: String, _ format: String? = nil) throws -> [String] {
            let key = entity == "Department" ? "title" : "name"
            return try objects(entity, format, sort: [(key, true)]).map { $0.value(forKey: key) as? String ?? "?" }
        }
    }

    /// One request of the comparison table and how to print its answer.
    struct Case {
        let label: String
        let request: NSFetchRequest<NSFetchRequestResult>
    }

    static func cases() -> [Case] {
        func request(
            _ entity: String, _ format: String? = nil, sort: [(String, Bool)] = [],
            configure: (NSFetchRequest<NSFetchRequestResult>) -> Void = { _ in }
        ) -> NSFetchRequest<NSFetchRequestResult> {
            let request = NSFetchRequest<NSFetchRequestResult>(entityName: entity)
            request.predicate = format.map { NSPredicate(format: $0) }
            request.sortDescriptors = sort.map { NSSortDescriptor(key: $0.0, ascending: $0.1) }
            configure(request)
            return request
        }
        return [
            Case(label: "every employee", request: request("Employee", sort: [("name", true)])),
            Case(label: "salary filter", request: request("Employee", "salary > 60000", sort: [("salary", false)])),
            Case(
                label: "no subentities", request: request("Employee", sort: [("name", true)]) { $0.includesSubentities = false }),
            Case(
                label: "abstract, limit, offset",
                request: request("Person", sort: [("name", false)]) {
                    $0.fetchLimit = 2
                    $0.fetchOffset = 1
                }),
            Case(label: "to-one key path", request: request("Employee", "department.title == 'Labs'", sort: [("name", true)])),
            Case(
                label: "sort through to-one", request: request("Employee", sort: [("department.title", true), ("name", false)])),
            Case(label: "ANY to-many", request: request("Department", "ANY employees.salary > 100000", sort: [("title", true)])),
            Case(label: "@count", request: request("Department", "employees.@count == 2", sort: [("title", true)])),
            Case(label: "nil dates", request: request("Employee", "born == nil", sort: [("name", true)])),
            Case(label: "date sort", request: request("Employee", "born != nil", sort: [("born", true)])),
            Case(
                label: "BEGINSWITH[c]",
                request: request("Person", "name BEGINSWITH[c] 'd' OR name ENDSWITH 'n'", sort: [("name", true)])),
            Case(label: "count", request: request("Employee", "salary >= 70000") { $0.resultType = .countResultType }),
            Case(
                label: "dictionaries",
                request: request("Employee", sort: [("name", true)]) {
                    $0.resultType = .dictionaryResultType
                    $0.propertiesToFetch = ["name", "salary", "department.title"]
                }),
        ]
    }

    /// The answer to a request as text: names for objects, the number, or the dictionaries.
    static func answer(_ request: NSFetchRequest<NSFetchRequestResult>, in context: NSManagedObjectContext) throws -> String {
        if request.resultType == .countResultType { return "\(try context.count(for: request))" }
        return try context.fetch(request).map { result -> String in
            if let object = result as? NSManagedObject {
                return (object.value(forKey: object.entity.name == "Department" ? "title" : "name") as? String ?? "?")
            }
            if let dictionary = result as? NSDictionary {
                return dictionary.allKeys.map { "\($0)" }.sorted().map { "\($0)=\(dictionary[$0] ?? "nil")" }.joined(
                    separator: ",")
            }
            return "\(result)"
        }
        .joined(separator: " ")
    }

    /// `MATCHES` with a pattern that is not a regular expression: `fetch` and `count(for:)`
    /// throw in both stores, over saved rows (SQL's `ocd_matches` reports an error) and over
    /// pending inserts (the in-memory engine), naming the pattern, where they used to answer
    /// "nothing matches" (issue 17); with the same `NSPersistentStoreOperationError` from both.
    @Test func invalidRegularExpressionThrowsFromEveryStore() throws {
        let folder = try TemporaryFolder()
        for (type, url) in [(NSSQLiteStoreType, folder.url.appendingPathComponent("Regex.sqlite")), (NSInMemoryStoreType, nil)] {
            let stack = try Stack(type: type, url: url)
            try stack.fill()
            for pending in [false, true] {
                if pending { stack.insert("Department", ["title": "Unsaved"]) }
                let request = NSFetchRequest<NSManagedObject>(entityName: "Department")
                request.predicate = NSPredicate(format: "title MATCHES %@", "(")
                request.includesPendingChanges = pending
                #expect(throws: (any Error).self, "\(type) pending \(pending)") { try stack.context.fetch(request) }
                #expect(throws: (any Error).self, "\(type) pending \(pending)") { try stack.context.count(for: request) }
                do {
                    _ = try stack.context.fetch(request)
                } catch {
                    #expect("\(error)".contains("Can't do regex matching"), "\(type): \(error)")
                    #expect("\(error)".contains("\"(\""), "\(type): \(error)")
                    // The same error from both stores: the request could not be run, with the
                    // predicate's error underneath.
                    let nsError = error as NSError
                    #expect(nsError.domain == NSCocoaErrorDomain && nsError.code == NSPersistentStoreOperationError, "\(type)")
                    let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError
                    #expect(underlying?.localizedDescription.hasPrefix("Can't do regex matching") == true, "\(type)")
                }
                request.predicate = NSPredicate(format: "title MATCHES %@", "(S|L).*")
                #expect(try stack.context.fetch(request).count == 2)
            }
        }
    }

    /// An unsaved object compared with a value that is not an object (`self == 0`) is unequal;
    /// the comparison used to follow the object's ID as its identity without end and overflow
    /// the stack (found by Fuzz/run.sh).
    @Test func unsavedObjectComparedWithANumber() throws {
        let folder = try TemporaryFolder()
        for (type, url) in [(NSSQLiteStoreType, folder.url.appendingPathComponent("Self.sqlite")), (NSInMemoryStoreType, nil)] {
            let stack = try Stack(type: type, url: url)
            try stack.fill()
            let unsaved = stack.insert("Department", ["title": "Unsaved"])
            #expect(!NSPredicate(format: "self == 0").evaluate(with: unsaved))
            #expect(NSPredicate(format: "self != 0").evaluate(with: unsaved))
            #expect(NSPredicate(format: "self == %@", unsaved.objectID).evaluate(with: unsaved))
            let request = NSFetchRequest<NSManagedObject>(entityName: "Department")
            request.predicate = NSPredicate(format: "self == 0")
            // SQL may refuse the comparison (an error), never crash; no object equals 0.
            #expect(((try? stack.context.fetch(request)) ?? []).isEmpty, "\(type)")
        }
    }

    @Test func aSavedFileAnswersLikeTheInMemoryStore() throws {
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("Company.sqlite")
        let memory = try Stack(type: NSInMemoryStoreType, url: nil)
        try memory.fill()
        let writer = try Stack(url: url)
        try writer.fill()
        #expect(writer.store.type == NSSQLiteStoreType)
        let reader = try Stack(url: url)
        #expect(reader.store.identifier == writer.store.identifier)
        #expect(!(reader.store.identifier ?? "").isEmpty)
        for testCase in SQLiteStoreTests.cases() {
            let expected = try SQLiteStoreTests.answer(testCase.request, in: memory.context)
            let written = try SQLiteStoreTests.answer(testCase.request, in: writer.context)
            let read = try SQLiteStoreTests.answer(testCase.request, in: reader.context)
            #expect(read == expected, "\(testCase.label)")
            #expect(written == expected, "\(testCase.label)")
        }
        // Relationships read back from the file.
        let labs = try #require(try reader.objects("Department", "title == 'Labs'").first)
        let staff = (labs.value(forKey: "employees") as? Set<NSManagedObject>)?.compactMap { $0.value(forKey: "name") as? String }
        #expect(staff?.sorted() == ["Cy", "Dee"])
        // Object IDs survive the reopening.
        let uri = try #require(try writer.objects("Employee", "name == 'Bob'").first).objectID.uriRepresentation()
        let id = try #require(reader.coordinator.managedObjectID(forURIRepresentation: uri))
        #expect(reader.context.object(with: id).value(forKey: "name") as? String == "Bob")
    }

    /// A to-many relationship without an inverse (`Manager.reports`, ordered) is kept as Apple
    /// keeps it: a join table whose second side is `REPORTSINVERSE`, with the order in `Z_FOK_`.
    @Test func aToManyWithoutAnInverseIsAJoinTable() throws {
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("Company.sqlite")
        let stack = try Stack(url: url)
        try stack.fill()
        let ann = try #require(try stack.objects("Employee", "name == 'Ann'").first)
        let cy = try #require(try stack.objects("Employee", "name == 'Cy'").first)
        let dee = try #require(try stack.objects("Manager").first)
        dee.setValue(NSOrderedSet(array: [cy, ann]), forKey: "reports")
        try stack.context.save()

        let other = try Stack(url: url)
        let reports = try #require(try other.objects("Manager").first?.value(forKey: "reports") as? NSOrderedSet)
        #expect(reports.array.compactMap { ($0 as? NSManagedObject)?.value(forKey: "name") as? String } == ["Cy", "Ann"])
        #expect(try other.objects("Manager", "ANY reports.name == 'Ann'").count == 1)
        #expect(try other.objects("Manager", "reports.@count == 2").count == 1)

        let connection = try SQLiteConnection(url: url, mode: .readOnly)
        let joinTables = try connection.schemaObjectNames(type: "table").filter { $0.hasSuffix("REPORTSINVERSE") }
        #expect(joinTables.count == 1)
        let table = try #require(joinTables.first)
        let columns = try connection.columnNames(of: table)
        #expect(columns.count == 3)
        #expect(columns.contains { $0.hasSuffix("REPORTSINVERSE") } && columns.contains { $0.hasPrefix("Z_FOK_") })
        #expect(try connection.rowCount(table: table) == 2)
    }

    @Test func theFileHasAppleLayoutAndMetadata() throws {
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("Company.sqlite")
        let stack = try Stack(url: url)
        try stack.fill()
        let connection = try SQLiteConnection(url: url, mode: .readOnly)
        #expect(try connection.journalMode() == "wal")
        let metadata = try AppleSQLMetadata.read(from: connection)
        #expect(metadata.storeUUID == stack.store.identifier)
        #expect(metadata.versionHashes == stack.model.entityVersionHashesByName)
        #expect(metadata.versionIdentifiers == ["1.0"])
        #expect(try connection.rowCount(table: "ZPERSON") == 4 && connection.rowCount(table: "ZDEPARTMENT") == 3)
        let maxima = Dictionary(uniqueKeysWithValues: try AppleSQLPrimaryKeys.read(from: connection).map { ($0.name, $0.max) })
        #expect(maxima["Person"] == 4 && maxima["Department"] == 3)
    }

    @Test func updatesAndDeletesRoundTrip() throws {
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("Company.sqlite")
        let writer = try Stack(url: url)
        try writer.fill()
        let ann = try #require(try writer.objects("Employee", "name == 'Ann'").first)
        let labs = try #require(try writer.objects("Department", "title == 'Labs'").first)
        let sales = try #require(try writer.objects("Department", "title == 'Sales'").first)
        ann.setValue(Decimal(55_000), forKey: "salary")
        ann.setValue(labs, forKey: "department")
        ann.setValue(nil, forKey: "born")
        writer.context.delete(sales)  // cascades to Bob
        try writer.context.save()

        let reader = try Stack(url: url)
        #expect(try reader.names("Department") == ["Empty", "Labs"])
        #expect(try reader.names("Employee") == ["Ann", "Cy", "Dee"])
        #expect(try reader.names("Employee", "department.title == 'Labs'") == ["Ann", "Cy", "Dee"])
        let readAnn = try #require(try reader.objects("Employee", "name == 'Ann'").first)
        #expect(readAnn.value(forKey: "salary") as? Decimal == Decimal(55_000))
        #expect(readAnn.value(forKey: "born") == nil)

        let connection = try SQLiteConnection(url: url, mode: .readOnly)
        let statement = try connection.statement("SELECT Z_OPT FROM ZPERSON WHERE ZNAME = ?")
        try statement.bind([.string("Ann")])
        #expect(try statement.step() && statement.int64(at: 0) == 2)
        statement.reset()

        // New rows after the reopening take keys after Z_MAX: deleted keys are never reused.
        reader.insert("Employee", ["name": "Eve", "department": readAnn.value(forKey: "department") as Any])
        try reader.context.save()
        let eve = try #require(try reader.objects("Employee", "name == 'Eve'").first)
        #expect(eve.objectID.uriRepresentation().lastPathComponent == "p5")
        let third = try Stack(url: url)
        #expect(try third.names("Employee", "department.title == 'Labs'") == ["Ann", "Cy", "Dee", "Eve"])
    }

    @Test func aFailedSaveLeavesTheFileAsItWas() throws {
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("Company.sqlite")
        let first = try Stack(url: url)
        try first.fill()
        let second = try Stack(url: url)
        let bobThere = try #require(try second.objects("Employee", "name == 'Bob'").first)
        let annThere = try #require(try second.objects("Employee", "name == 'Ann'").first)
        // The first coordinator deletes Bob; the second then changes Ann and deletes Bob too.
        try first.context.delete(#require(try first.objects("Employee", "name == 'Bob'").first))
        try first.context.save()
        annThere.setValue(Decimal(1), forKey: "salary")
        second.context.delete(bobThere)
        #expect(throws: (any Error).self) { try second.context.save() }
        let check = try Stack(url: url)
        let ann = try #require(try check.objects("Employee", "name == 'Ann'").first)
        #expect(ann.value(forKey: "salary") as? Decimal == Decimal(50_000))
        #expect(try check.names("Employee") == ["Ann", "Cy", "Dee"])
    }

    @Test func aReadOnlyStoreRefusesToSave() throws {
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("Company.sqlite")
        try Stack(url: url).fill()
        let reader = try Stack(url: url, readOnly: true)
        #expect(reader.store.isReadOnly)
        #expect(try reader.names("Employee") == ["Ann", "Bob", "Cy", "Dee"])
        let ann = try #require(try reader.objects("Employee", "name == 'Ann'").first)
        ann.setValue(Decimal(1), forKey: "salary")
        do {
            try reader.context.save()
            Issue.record("a read-only store saved")
        } catch {
            #expect(error.localizedDescription.contains("read-only"))
        }
        reader.context.rollback()
        reader.insert("Department", ["title": "New"])
        #expect(throws: (any Error).self) { try reader.context.save() }
        let check = try Stack(url: url)
        #expect(try check.names("Department") == ["Empty", "Labs", "Sales"])
        let checkAnn = try #require(try check.objects("Employee", "name == 'Ann'").first)
        #expect(checkAnn.value(forKey: "salary") as? Decimal == Decimal(50_000))
        // A read-only store is never created.
        #expect(throws: (any Error).self) { try Stack(url: folder.url.appendingPathComponent("Missing.sqlite"), readOnly: true) }
        #expect(!FileManager.default.fileExists(atPath: folder.url.appendingPathComponent("Missing.sqlite").path))
    }

    @Test func anotherModelIsIncompatible() throws {
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("Company.sqlite")
        try Stack(url: url).fill()
        let changed = CompanyModel.make()
        let department = changed[entity: "Department"]
        department.properties += [attribute("budget", .integer64AttributeType)]
        do {
            _ = try Stack(model: changed, url: url)
            Issue.record("a store of another model opened")
        } catch let error as NSError {
            #expect(error.domain == NSCocoaErrorDomain && error.code == NSPersistentStoreIncompatibleVersionHashError)
            #expect(error.userInfo["entities"] as? [String] == ["Department"])
            #expect(error.localizedDescription.contains("Department"))
        }
    }

    @Test func aCorruptFileIsAnError() throws {
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("Broken.sqlite")
        try Data(repeating: 0x42, count: 4096).write(to: url)
        do {
            _ = try Stack(url: url)
            Issue.record("a corrupt file opened")
        } catch let error as NSError {
            #expect(error.domain == NSCocoaErrorDomain && error.code == NSPersistentStoreOpenError)
            #expect(error.localizedDescription.contains("Broken.sqlite"))
        }
        #expect(try Data(contentsOf: url) == Data(repeating: 0x42, count: 4096))
    }
}
