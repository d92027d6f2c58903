import Foundation
import OpenCoreData

/// Two contexts that save to the same store, for optimistic-locking and constraint tests, on
/// either back end: for `NSInMemoryStoreType` two contexts of one coordinator; for
/// `NSSQLiteStoreType` one context on each of two coordinators opened on one file (or, with
/// `sharedCoordinator`, two contexts of one coordinator). `CompanyModel`, optionally with
/// `Department.title` and `Person (name, born)` unique.
struct SaveConflictFixture {
    enum Backend: String, CaseIterable, CustomStringConvertible, Sendable {
        case inMemory, sqlite
        var description: String { rawValue }
    }

    let model: NSManagedObjectModel
    let first: NSManagedObjectContext
    let second: NSManagedObjectContext
    /// A third context of the first coordinator that reads what the store holds.
    let observer: NSManagedObjectContext
    let coordinators: [NSPersistentStoreCoordinator]
    let folder: URL?

    init(_ backend: Backend, sharedCoordinator: Bool = false, constraints: Bool = false) throws {
        model = CompanyModel.make()
        if constraints {
            model[entity: "Department"].uniquenessConstraints = [["title"]]
            model[entity: "Person"].uniquenessConstraints = [["name", "born"]]
        }
        func context(_ coordinator: NSPersistentStoreCoordinator) -> NSManagedObjectContext {
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            return context
        }
        switch backend {
        case .inMemory:
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
            try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
            coordinators = [coordinator]
            folder = nil
        case .sqlite:
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("saves-\(UUID().uuidString)")
            let url = folder.appendingPathComponent("Company.sqlite")
            var made: [NSPersistentStoreCoordinator] = []
            for _ in 0..<(sharedCoordinator ? 1 : 2) {
                let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
                try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url)
                made.append(coordinator)
            }
            coordinators = made
            self.folder = folder
        }
        first = context(coordinators[0])
        second = context(coordinators[coordinators.count - 1])
        observer = context(coordinators[0])
    }

    /// Inserts an object into a context.
    @discardableResult
    func insert(_ entity: String, _ values: [String: Any], into context: NSManagedObjectContext) -> NSManagedObject {
        let object = NSManagedObject(entity: model[entity: entity], insertInto: context)
        for (key, value) in values { object.setValue(value, forKey: key) }
        return object
    }

    /// The objects of an entity in a context, sorted by a key.
    func fetch(
        _ entity: String, in context: NSManagedObjectContext, _ format: String? = nil, sort: String = "name",
        refresh: Bool = false
    ) throws -> [NSManagedObject] {
        let request = NSFetchRequest<NSManagedObject>(entityName: entity)
        request.predicate = format.map { NSPredicate(format: $0) }
        request.sortDescriptors = [NSSortDescriptor(key: sort, ascending: true)]
        request.shouldRefreshRefetchedObjects = refresh
        return try context.fetch(request)
    }

    /// The objects of an entity matching a predicate as the store has them (read by `observer`
    /// after a reset).
    func stored(_ entity: String, _ format: String, sort: String = "name") throws -> [NSManagedObject] {
        observer.reset()
        return try fetch(entity, in: observer, format, sort: sort)
    }

    /// Removes the SQLite folder.
    func cleanUp() {
        if let folder { try? FileManager.default.removeItem(at: folder) }
    }
}
