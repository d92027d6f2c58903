import Foundation
import OpenCoreData
import TestSupport
import Testing

/// A context on a store of `CompanyModel` (in memory, or an SQLite file in a temporary folder),
/// with a few saved objects: departments Sales and Labs; employees Ann (Sales, 50k), Bob (Sales,
/// 70k), Cy (Labs, 90k) and a manager Dee (Labs, 120k, reports: Cy).
///
/// Context tests run once per store type (`storeTypes`): every store must give the same answers.
struct ContextFixture {
    /// The store types every context test runs against: PostgreSQL's too when a test server is
    /// named (always under CI; see `PostgresTestServer`).
    static let storeTypes =
        [NSInMemoryStoreType, NSSQLiteStoreType] + (PostgresTestServer.isEnabled ? [NSPostgreSQLStoreType] : [])

    let model = CompanyModel.make()
    let coordinator: NSPersistentStoreCoordinator
    let context: NSManagedObjectContext
    let store: NSPersistentStore
    /// The store's folder (or PostgreSQL schema), removed with the fixture.
    let folder: TemporaryFolder

    init(saved: Bool = true, storeType: String = NSInMemoryStoreType) throws {
        coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        folder = try TemporaryFolder()
        store = try coordinator.addPersistentStore(
            ofType: storeType, configurationName: nil, at: try folder.storeURL(for: storeType, name: "Company.sqlite"))
        context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let sales = insert("Department", ["title": "Sales"])
        let labs = insert("Department", ["title": "Labs"])
        insert("Employee", ["name": "Ann", "salary": Decimal(50_000), "department": sales])
        insert("Employee", ["name": "Bob", "salary": Decimal(70_000), "department": sales])
        let cy = insert("Employee", ["name": "Cy", "salary": Decimal(90_000), "department": labs])
        let dee = insert("Manager", ["name": "Dee", "salary": Decimal(120_000), "department": labs])
        dee.setValue(NSOrderedSet(array: [cy]), forKey: "reports")
        if saved { try context.save() }
    }

    /// A new context on the fixture's coordinator: nothing registered yet.
    func freshContext() -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// The saved employee (or manager) with this name, fetched in `context`.
    static func employee(_ name: String, in context: NSManagedObjectContext) throws -> NSManagedObject {
        try first("Employee", "name == %@", name, in: context)
    }

    /// The saved department with this title, fetched in `context`.
    static func department(_ title: String, in context: NSManagedObjectContext) throws -> NSManagedObject {
        try first("Department", "title == %@", title, in: context)
    }

    private static func first(_ entity: String, _ format: String, _ value: String, in context: NSManagedObjectContext) throws
        -> NSManagedObject
    {
        let request = NSFetchRequest<NSManagedObject>(entityName: entity)
        request.predicate = NSPredicate(format: format, value)
        return try #require(try context.fetch(request).first)
    }

    /// The sorted names of the employees in a to-many value (a set or an ordered set).
    static func names(_ objects: Any?) -> [String] {
        ((objects as? Set<NSManagedObject>).map(Array.init) ?? (objects as? NSOrderedSet)?.array as? [NSManagedObject] ?? [])
            .compactMap { $0.value(forKey: "name") as? String }.sorted()
    }

    @discardableResult
    func insert(_ entity: String, _ values: [String: Any]) -> NSManagedObject {
        let object = NSManagedObject(entity: model[entity: entity], insertInto: context)
        for (key, value) in values { object.setValue(value, forKey: key) }
        return object
    }

    func request(_ entity: String, _ format: String? = nil, sort: [(String, Bool)] = []) -> NSFetchRequest<NSManagedObject> {
        let request = NSFetchRequest<NSManagedObject>(entityName: entity)
        request.predicate = format.map { NSPredicate(format: $0) }
        request.sortDescriptors = sort.map { NSSortDescriptor(key: $0.0, ascending: $0.1) }
        return request
    }

    func names(
        _ entity: String, _ format: String? = nil, sort: [(String, Bool)] = [("name", true)],
        configure: (NSFetchRequest<NSManagedObject>) -> Void = { _ in }
    ) throws -> [String] {
        let request = request(entity, format, sort: sort)
        configure(request)
        return try context.fetch(request).map { $0.value(forKey: entity == "Department" ? "title" : "name") as? String ?? "?" }
    }
}
