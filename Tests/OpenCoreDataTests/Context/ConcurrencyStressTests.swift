import Foundation
import OpenCoreData
import TestSupport
import Testing

/// Several contexts, each on its own queue, working at the same time on one model: through one
/// coordinator, and through several coordinators on one SQLite file. Every count is checked at
/// the end, and CI runs this suite again under ThreadSanitizer (`.ci/run`), where any data race
/// (on the model's lazily built lookups, the coordinator, the stores, the ID counter) fails it.
///
/// The model is fresh in each case and no entity is used before the contexts start, so every
/// contexts' first use of an entity happens at the same time.
@Suite struct ConcurrencyStressTests {
    /// Contexts working at once, and rounds of work each.
    static let workers = 4
    static let rounds = 6

    @Test(arguments: ContextFixture.storeTypes)
    func contextsOnTheirOwnQueuesShareOneCoordinator(storeType: String) throws {
        let folder = try TemporaryFolder()
        let model = CompanyModel.make()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let url = try folder.storeURL(for: storeType, name: "Stress.sqlite")
        try coordinator.addPersistentStore(ofType: storeType, configurationName: nil, at: url)
        let contexts = (0..<Self.workers).map { _ in
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            return context
        }
        let failures = Failures()
        runOnThreads(Self.workers) { worker in
            contexts[worker].performAndWait {
                failures.record { try Self.work(worker: worker, in: contexts[worker], model: model) }
            }
        }
        #expect(failures.messages == [])
        try expectEverySaveArrived(through: coordinator)
    }

    @Test func coordinatorsOnOneFileWriteAtOnce() throws {
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("Shared.sqlite")
        let model = CompanyModel.make()
        // The file exists before the writers start; then one coordinator each, two sharing the
        // model instance and the others with their own copies of it.
        try NSPersistentStoreCoordinator(managedObjectModel: CompanyModel.make())
            .addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url)
        let models = (0..<Self.workers).map { $0 < 2 ? model : CompanyModel.make() }
        let failures = Failures()
        runOnThreads(Self.workers) { worker in
            failures.record {
                let coordinator = NSPersistentStoreCoordinator(managedObjectModel: models[worker])
                try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url)
                let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
                context.persistentStoreCoordinator = coordinator
                try context.performAndWait { try Self.work(worker: worker, in: context, model: models[worker]) }
            }
        }
        #expect(failures.messages == [])
        let reader = NSPersistentStoreCoordinator(managedObjectModel: CompanyModel.make())
        try reader.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url)
        try expectEverySaveArrived(through: reader)
    }

    /// Objects of every entity made, written and read on several threads at once, the model
    /// in use but no object made before: the entities' first use happens on every thread.
    @Test func entitiesFirstUsedOnManyThreadsAtOnce() throws {
        let model = CompanyModel.make()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let failures = Failures()
        runOnThreads(Self.workers) { worker in
            failures.record {
                for entity in model.entities where !entity.isAbstract {
                    let object = NSManagedObject(entity: entity, insertInto: nil)
                    let attributes = entity.attributesByName.keys.sorted()
                    guard attributes.contains("name") || attributes.contains("title") else {
                        throw StressError("\(entity.name ?? ""): attributes \(attributes)")
                    }
                    let key = attributes.contains("name") ? "name" : "title"
                    guard object.value(forKey: key) == nil else { throw StressError("\(key) set before a write") }
                    object.setValue("W\(worker)", forKey: key)
                    guard object.value(forKey: key) as? String == "W\(worker)" else { throw StressError("\(key) not kept") }
                    guard entity.relationshipsByName.isEmpty == (entity.name == "Person") else {
                        throw StressError("\(entity.name ?? ""): relationships \(entity.relationshipsByName.keys.sorted())")
                    }
                }
            }
        }
        #expect(failures.messages == [])
        #expect(coordinator.managedObjectModel === model)
    }

    /// One worker's rounds: insert a department with three employees and save, then fetch with a
    /// predicate and a sort, read every attribute and relationship, count, fetch dictionaries,
    /// change and save, and turn everything back into faults. Throws on any wrong answer.
    static func work(worker: Int, in context: NSManagedObjectContext, model: NSManagedObjectModel) throws {
        for round in 0..<rounds {
            let title = "W\(worker)R\(round)"
            let department = NSManagedObject(entity: model[entity: "Department"], insertInto: context)
            department.setValue(title, forKey: "title")
            for index in 0..<3 {
                let entity = model[entity: index == 2 ? "Manager" : "Employee"]
                let employee = NSManagedObject(entity: entity, insertInto: context)
                employee.setValue("\(title)E\(index)", forKey: "name")
                employee.setValue(Decimal(1_000 * (index + 1)), forKey: "salary")
                employee.setValue(department, forKey: "department")
            }
            try context.save()

            let request = NSFetchRequest<NSManagedObject>(entityName: "Employee")
            request.predicate = NSPredicate(format: "department.title == %@ AND salary >= %@", title, NSNumber(value: 2_000))
            request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
            let found = try context.fetch(request)
            let names = found.compactMap { $0.value(forKey: "name") as? String }
            guard names == ["\(title)E1", "\(title)E2"] else { throw StressError("\(title): fetched \(names)") }
            for employee in found {
                let departmentTitle =
                    (employee.value(forKey: "department") as? NSManagedObject)?.value(forKey: "title") as? String
                guard departmentTitle == title else {
                    throw StressError("\(title): department \(String(describing: departmentTitle))")
                }
                employee.setValue(Date(timeIntervalSinceReferenceDate: Double(round)), forKey: "born")
            }

            let managers = NSFetchRequest<NSNumber>(entityName: "Manager")
            managers.predicate = NSPredicate(format: "department.title == %@", title)
            let managerCount = try context.count(for: managers)
            guard managerCount == 1 else { throw StressError("\(title): \(managerCount) managers") }

            let rows = NSFetchRequest<NSDictionary>(entityName: "Department")
            rows.resultType = .dictionaryResultType
            rows.propertiesToFetch = ["title"]
            rows.predicate = NSPredicate(format: "title BEGINSWITH %@", "W\(worker)R")
            let titles = try context.fetch(rows).compactMap { $0["title"] as? String }.sorted()
            guard titles.count == round + 1, titles.contains(title) else { throw StressError("\(title): titles \(titles)") }

            try context.save()
            context.refreshAllObjects()
        }
    }

    /// Every worker's departments and employees are in the store, each employee with its
    /// department and the birth date its worker's last change gave it.
    func expectEverySaveArrived(through coordinator: NSPersistentStoreCoordinator) throws {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let departments = try context.count(for: NSFetchRequest<NSNumber>(entityName: "Department"))
            #expect(departments == Self.workers * Self.rounds)
            let employees = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Employee"))
            #expect(employees.count == Self.workers * Self.rounds * 3)
            let dated = employees.filter { $0.value(forKey: "born") != nil }
            #expect(dated.count == Self.workers * Self.rounds * 2)
            let titled = employees.filter {
                let name = $0.value(forKey: "name") as? String ?? ""
                let title = ($0.value(forKey: "department") as? NSManagedObject)?.value(forKey: "title") as? String ?? "?"
                return name.hasPrefix(title + "E")
            }
            #expect(titled.count == employees.count)
        }
    }
}

/// Runs `body(0)` … `body(count - 1)` on threads of their own, all at once, and returns when
/// every one has returned. The bodies start together, once every thread is running: a thread
/// that started late would otherwise find the others' work done, ordered before its own by the
/// runtime's locks, and ThreadSanitizer would see no race there.
private func runOnThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let ready = DispatchGroup()
    let start = DispatchSemaphore(value: 0)
    let done = DispatchGroup()
    for worker in 0..<count {
        ready.enter()
        done.enter()
        let thread = Thread {
            ready.leave()
            start.wait()
            body(worker)
            done.leave()
        }
        thread.start()
    }
    ready.wait()
    for _ in 0..<count { start.signal() }
    done.wait()
}

/// A wrong answer seen by a worker.
private struct StressError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The workers' errors, collected across threads.
private final class Failures: @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [String] = []

    var messages: [String] {
        lock.lock()
        defer { lock.unlock() }
        return recorded
    }

    func record(_ body: () throws -> Void) {
        do {
            try body()
        } catch {
            lock.lock()
            recorded.append("\(error)")
            lock.unlock()
        }
    }
}
