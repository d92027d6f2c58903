import Foundation
import Logging
import OpenCoreData
import InMemoryTracing
import ServiceLifecycle
import TestSupport
import Testing
import Tracing

/// What a server sees of the stores: the SQL a store's `Logger` traces (values redacted), the
/// spans around fetch, count and save, the metrics, and a graceful shutdown.
@Suite struct StoreObservabilityTests {
    static let sqlStoreTypes = ContextFixture.storeTypes.filter { $0 != NSInMemoryStoreType }

    /// A container on a new store of `storeType` (unique file or schema), loaded.
    private static func container(
        _ storeType: String, in folder: TemporaryFolder, logger: Logger? = nil, showsValues: Bool = false
    ) throws -> NSPersistentContainer {
        Observability.bootstrap()
        let container = NSPersistentContainer(name: "Company", managedObjectModel: CompanyModel.make())
        let description = NSPersistentStoreDescription()
        description.type = storeType
        description.url = try folder.storeURL(for: storeType, name: "Company-\(UUID().uuidString).sqlite")
        description.logger = logger
        if showsValues { description.setOption(true as NSNumber, forKey: NSPersistentStoreLoggerShowsValuesKey) }
        container.persistentStoreDescriptions = [description]
        var loadError: Error?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        return container
    }

    private static func insertEmployees(_ names: [String], in context: NSManagedObjectContext) throws {
        let department = NSManagedObject(entity: context.entity("Department"), insertInto: context)
        department.setValue("Sales", forKey: "title")
        for (index, name) in names.enumerated() {
            let employee = NSManagedObject(entity: context.entity("Employee"), insertInto: context)
            employee.setValue(name, forKey: "name")
            employee.setValue(Decimal(1000 * (index + 1)), forKey: "salary")
            employee.setValue(department, forKey: "department")
        }
        try context.save()
    }

    private static func employees(named name: String) -> NSFetchRequest<NSManagedObject> {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Employee")
        request.predicate = NSPredicate(format: "name == %@", name)
        return request
    }

    // MARK: - Logging

    @Test(arguments: sqlStoreTypes)
    func aStoreLoggerTracesStatementsAtDebugAndRedactedValuesAtTrace(storeType: String) throws {
        let folder = try TemporaryFolder()
        let capture = LogCapture()
        let container = try Self.container(storeType, in: folder, logger: capture.logger(level: .trace))
        let context = container.newBackgroundContext()
        try context.performAndWait {
            try Self.insertEmployees(["Zebulon", "Ann"], in: context)
            capture.clear()
            #expect(try context.fetch(Self.employees(named: "Zebulon")).count == 1)
        }
        let entries = capture.entries
        let selects = entries.filter { $0.message.hasPrefix("sql: SELECT") }
        #expect(!selects.isEmpty)
        #expect(selects.allSatisfy { $0.level == .debug })
        #expect(
            selects.contains { $0.message.contains("ZNAME") && $0.message.contains(storeType == NSSQLiteStoreType ? "?" : "$1") })
        let bindings = entries.filter { $0.message.hasPrefix("bind[") }
        #expect(bindings.contains { $0.message == "bind[3] = <string>" && $0.level == .trace }, "\(entries)")
        #expect(bindings.allSatisfy { $0.message.hasSuffix("<integer>") || $0.message.hasSuffix("<string>") })
        #expect(entries.contains { $0.message.contains(" in ") && $0.level == .trace })  // the statement's time
        #expect(!entries.contains { $0.message.contains("Zebulon") })
    }

    @Test(arguments: sqlStoreTypes)
    func boundValuesShowWhenTheOptionSaysSo(storeType: String) throws {
        let folder = try TemporaryFolder()
        let capture = LogCapture()
        let container = try Self.container(storeType, in: folder, logger: capture.logger(level: .trace), showsValues: true)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            try Self.insertEmployees(["Zebulon"], in: context)
            _ = try context.fetch(Self.employees(named: "Zebulon"))
        }
        #expect(capture.entries.contains { $0.message == "bind[3] = 'Zebulon'" && $0.level == .trace })
    }

    @Test(arguments: sqlStoreTypes)
    func aLoggerAboveDebugGetsNoSQL(storeType: String) throws {
        let folder = try TemporaryFolder()
        let capture = LogCapture()
        let container = try Self.container(storeType, in: folder, logger: capture.logger(level: .info))
        let context = container.newBackgroundContext()
        try context.performAndWait {
            try Self.insertEmployees(["Ann"], in: context)
            _ = try context.fetch(Self.employees(named: "Ann"))
        }
        #expect(!capture.messages.contains { $0.hasPrefix("sql: ") || $0.hasPrefix("bind[") })
    }

    // MARK: - Spans

    @Test(arguments: ContextFixture.storeTypes)
    func fetchCountAndSaveHaveSpansWithTheDatabaseAttributes(storeType: String) throws {
        let folder = try TemporaryFolder()
        let container = try Self.container(storeType, in: folder)
        let context = container.newBackgroundContext()
        let (spans, counts) = try Observability.traced {
            try context.performAndWait {
                try Self.insertEmployees(["Zebulon", "Ann", "Bob"], in: context)
                let rich = NSFetchRequest<NSManagedObject>(entityName: "Employee")
                rich.predicate = NSPredicate(format: "salary >= %@", Decimal(2000) as NSDecimalNumber)
                return (try context.fetch(rich).count, try context.count(for: Self.employees(named: "Zebulon")))
            }
        }
        #expect(counts == (2, 1))
        #expect(spans.map(\.operationName) == ["save", "fetch Employee", "count Employee", "test"])
        let root = try #require(spans.last)
        let system: String =
            switch storeType {
            case NSSQLiteStoreType: "sqlite"
            case NSPostgreSQLStoreType: "postgresql"
            default: "opencoredata.in_memory"
            }
        for span in spans.dropLast() {
            #expect(span.parentSpanID == root.spanID)
            #expect(span.kind == .client)
            #expect(span.attributes["db.system.name"]?.toSpanAttribute() == .string(system))
            #expect(span.status == nil)
        }
        let (save, fetch, count) = (spans[0], spans[1], spans[2])
        #expect(save.attributes["db.operation.name"]?.toSpanAttribute() == "save")
        #expect(fetch.attributes["db.operation.name"]?.toSpanAttribute() == "fetch")
        #expect(fetch.attributes["db.collection.name"]?.toSpanAttribute() == "Employee")
        #expect(fetch.attributes["db.response.returned_rows"]?.toSpanAttribute() == .int64(2))
        #expect(count.attributes["db.operation.name"]?.toSpanAttribute() == "count")
        #expect(count.attributes["db.response.returned_rows"]?.toSpanAttribute() == .int64(1))
        let namespace = fetch.attributes["db.namespace"]?.toSpanAttribute()
        switch storeType {
        case NSSQLiteStoreType:
            #expect(namespace == .string(container.persistentStoreDescriptions[0].url?.lastPathComponent ?? ""))
        case NSPostgreSQLStoreType:
            #expect(namespace == .string(try Self.postgreSQLNamespace(container)))
        default:
            #expect(namespace == "memory")
        }
        guard storeType != NSInMemoryStoreType else {
            #expect(fetch.attributes["db.query.text"] == nil)  // nothing runs as statements
            return
        }
        // Statements with placeholders, never the values bound to them.
        let fetchSQL = try #require(Self.text(fetch, "db.query.text"))
        #expect(fetchSQL.contains("SELECT") && fetchSQL.contains("ZSALARY"))
        let countSQL = try #require(Self.text(count, "db.query.text"))
        #expect(countSQL.contains("COUNT") && !countSQL.contains("Zebulon"))
        let saveSQL = try #require(Self.text(save, "db.query.text"))
        #expect(saveSQL.contains("INSERT INTO") && saveSQL.contains("ZPERSON") && !saveSQL.contains("Zebulon"))
    }

    /// A string attribute of a span.
    private static func text(_ span: FinishedInMemorySpan, _ name: String) -> String? {
        guard case .string(let text) = span.attributes[name]?.toSpanAttribute() else { return nil }
        return text
    }

    /// The async `perform` carries the caller's span onto the context's queue.
    @Test(arguments: ContextFixture.storeTypes)
    func spansFollowTheCallerIntoPerform(storeType: String) async throws {
        let folder = try TemporaryFolder()
        let container = try Self.container(storeType, in: folder)
        let (spans, names) = try await Observability.traced {
            try await container.performBackgroundTask { context in
                try Self.insertEmployees(["Ann", "Bob"], in: context)
                return try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Employee")).count
            }
        }
        #expect(names == 2)
        #expect(spans.map(\.operationName) == ["save", "fetch Employee", "test"])
        #expect(spans.dropLast().allSatisfy { $0.parentSpanID == spans.last?.spanID })
    }

    @Test func aFailedFetchMarksItsSpanAndCountsAnError() throws {
        let folder = try TemporaryFolder()
        let container = try Self.container(NSSQLiteStoreType, in: folder)
        let namespace = try #require(container.persistentStoreDescriptions[0].url?.lastPathComponent)
        let context = container.newBackgroundContext()
        let request = NSFetchRequest<NSManagedObject>(entityName: "Employee")
        request.predicate = NSPredicate { _, _ in true }  // no SQL store runs a block
        let (spans, thrown) = Observability.traced {
            context.performAndWait { () -> NSError? in
                do {
                    _ = try context.fetch(request)
                    return nil
                } catch {
                    return error as NSError
                }
            }
        }
        #expect(thrown?.code == NSPersistentStoreUnsupportedRequestTypeError)
        let fetch = try #require(spans.first)
        #expect(fetch.operationName == "fetch Employee")
        #expect(fetch.status?.code == .error)
        #expect(fetch.errors.count == 1)
        #expect(fetch.attributes["error.type"]?.toSpanAttribute() == .string("NSCocoaErrorDomain 134091"))
        let errors = Observability.metrics.counterTotal(
            label: "opencoredata_errors_total",
            dimensions: [("db_system", "sqlite"), ("db_namespace", namespace), ("operation", "fetch")])
        #expect(errors == 1)
    }

    // MARK: - Metrics

    /// `database|schema` of a container's PostgreSQL store.
    private static func postgreSQLNamespace(_ container: NSPersistentContainer) throws -> String {
        let url = try #require(container.persistentStoreDescriptions[0].url)
        let components = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false))
        let schema = try #require(components.queryItems?.first { $0.name == "schema" }?.value)
        return url.lastPathComponent + "|" + schema
    }

    /// The dimensions of a store's metrics.
    private static func dimensions(of container: NSPersistentContainer, _ storeType: String) throws -> [(String, String)] {
        let url = try #require(container.persistentStoreDescriptions[0].url)
        if storeType == NSSQLiteStoreType { return [("db_system", "sqlite"), ("db_namespace", url.lastPathComponent)] }
        return [("db_system", "postgresql"), ("db_namespace", try postgreSQLNamespace(container))]
    }

    @Test(arguments: sqlStoreTypes)
    func fetchesCountsSavesAndRowsAreCounted(storeType: String) throws {
        let folder = try TemporaryFolder()
        let container = try Self.container(storeType, in: folder)
        let store = try Self.dimensions(of: container, storeType)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            try Self.insertEmployees(["Ann", "Bob", "Cy"], in: context)
            for _ in 0..<2 { #expect(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Employee")).count == 3) }
            #expect(try context.count(for: Self.employees(named: "Ann")) == 1)
            let ann = try context.fetch(Self.employees(named: "Ann"))[0]
            ann.setValue(Decimal(5), forKey: "salary")
            try context.save()
        }
        let metrics = Observability.metrics
        #expect(metrics.counterTotal(label: "opencoredata_fetches_total", dimensions: store + [("operation", "fetch")]) == 3)
        #expect(metrics.counterTotal(label: "opencoredata_fetches_total", dimensions: store + [("operation", "count")]) == 1)
        #expect(metrics.counterTotal(label: "opencoredata_rows_read_total", dimensions: store) == 7)
        #expect(metrics.counterTotal(label: "opencoredata_saves_total", dimensions: store) == 2)
        #expect(metrics.counterTotal(label: "opencoredata_rows_written_total", dimensions: store) == 5)  // 4 inserted, 1 updated
        let saveTimes = try metrics.expectTimer("opencoredata_save_duration_seconds", store)
        #expect(saveTimes.values.count == 2 && saveTimes.values.allSatisfy { $0 > 0 })
        let fetchTimes = try metrics.expectTimer("opencoredata_fetch_duration_seconds", store + [("operation", "fetch")])
        #expect(fetchTimes.values.count == 3)
        if storeType == NSPostgreSQLStoreType {
            let inUse = try metrics.expectMeter("opencoredata_pool_connections_in_use", store)
            #expect(inUse.values.contains(1))
            #expect(inUse.lastValue == 0)
            #expect(try metrics.expectMeter("opencoredata_pool_connections_waiting", store).lastValue == 0)
        }
    }

    @Test(arguments: sqlStoreTypes)
    func conflictsAndRetriesAreCounted(storeType: String) throws {
        let folder = try TemporaryFolder()
        let container = try Self.container(storeType, in: folder)
        let store = try Self.dimensions(of: container, storeType)
        let first = container.newBackgroundContext()
        let second = container.newBackgroundContext()
        second.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
        try first.performAndWait { try Self.insertEmployees(["Ann"], in: first) }
        // Both read Ann; the first saves a change; the second's save conflicts, and its policy
        // resolves it: one conflict, one retry.
        let inSecond = try second.performAndWait { try second.fetch(Self.employees(named: "Ann"))[0] }
        try first.performAndWait {
            try first.fetch(Self.employees(named: "Ann"))[0].setValue(Decimal(1), forKey: "salary")
            try first.save()
        }
        try second.performAndWait {
            inSecond.setValue("Anne", forKey: "name")
            try second.save()
        }
        let metrics = Observability.metrics
        #expect(metrics.counterTotal(label: "opencoredata_save_conflicts_total", dimensions: store) == 1)
        #expect(metrics.counterTotal(label: "opencoredata_save_retries_total", dimensions: store) == 1)
        #expect(metrics.counterTotal(label: "opencoredata_saves_total", dimensions: store) == 3)
    }

    // MARK: - Shutdown

    /// Saves racing a shutdown either finish and are in the store, or are refused saying why;
    /// none is cut off half-way. Afterwards the stores are gone and saves are refused.
    @Test(arguments: ContextFixture.storeTypes.filter { $0 != NSInMemoryStoreType })
    func shutdownLetsSavesInFlightFinish(storeType: String) async throws {
        let folder = try TemporaryFolder()
        let container = try Self.container(storeType, in: folder)
        let url = try #require(container.persistentStoreDescriptions[0].url)
        let outcomes = try await withThrowingTaskGroup(of: Int?.self) { group in
            for index in 0..<40 {
                group.addTask {
                    try await container.performBackgroundTask { context -> Int? in
                        do {
                            try Self.insertEmployees(["E\(index)"], in: context)
                            return index
                        } catch let error as NSError where error.code == NSPersistentStoreSaveError {
                            #expect(error.localizedDescription.contains("shutting down"), "\(error)")
                            return nil
                        }
                    }
                }
                if index == 10 {
                    group.addTask {
                        await container.shutdown(); return nil
                    }
                }
            }
            return try await group.reduce(into: [Int]()) { if let index = $1 { $0.append(index) } }
        }
        #expect(container.persistentStoreCoordinator.persistentStores.isEmpty)
        let late = container.newBackgroundContext()
        await #expect(throws: NSError.self) { try await late.perform { try Self.insertEmployees(["Late"], in: late) } }

        // What finished is all there, and nothing else.
        let reopened = NSPersistentStoreCoordinator(managedObjectModel: container.managedObjectModel)
        try reopened.addPersistentStore(ofType: storeType, configurationName: nil, at: url)
        let check = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        check.persistentStoreCoordinator = reopened
        let saved = try check.performAndWait {
            try check.fetch(NSFetchRequest<NSManagedObject>(entityName: "Employee")).compactMap {
                $0.value(forKey: "name") as? String
            }
        }
        #expect(Set(saved) == Set(outcomes.map { "E\($0)" }))
        #expect(saved.count == outcomes.count)
    }

    /// In a `ServiceGroup`, the container closes its stores on the group's graceful shutdown.
    @Test func theContainerIsAServiceThatClosesOnGracefulShutdown() async throws {
        let folder = try TemporaryFolder()
        let container = try Self.container(NSSQLiteStoreType, in: folder)
        let group = ServiceGroup(
            configuration: .init(services: [container], gracefulShutdownSignals: [], logger: Logger(label: "test")))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            try await container.performBackgroundTask { context in try Self.insertEmployees(["Ann"], in: context) }
            #expect(container.persistentStoreCoordinator.persistentStores.count == 1)
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        #expect(container.persistentStoreCoordinator.persistentStores.isEmpty)
    }
}

extension NSManagedObjectContext {
    fileprivate func entity(_ name: String) -> NSEntityDescription {
        persistentStoreCoordinator?.managedObjectModel.entitiesByName[name] ?? NSEntityDescription()
    }
}
