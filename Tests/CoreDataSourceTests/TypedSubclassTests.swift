import Foundation
import CoreData
import TestSupport
import Testing

// Typed NSManagedObject subclasses as Apple code writes them, with `@Managed` where Apple writes
// `@NSManaged`.

final class Dept: NSManagedObject {
    @Managed var title: String?
    @Managed var employees: Set<Worker>
}

final class Worker: NSManagedObject {
    @Managed var name: String?
    @Managed var salary: Decimal?
    @Managed var age: Int
    @Managed var department: Dept?
    @Managed("name") var displayName: String?

    @nonobjc class func fetchRequest() -> NSFetchRequest<Worker> {
        NSFetchRequest<Worker>(entityName: "Employee")
    }
}

private func makeContainer() throws -> NSManagedObjectContext {
    let department = NSEntityDescription()
    department.name = "Department"
    department.managedObjectClassName = "Dept"
    let employee = NSEntityDescription()
    employee.name = "Employee"
    employee.managedObjectClassName = "Worker"
    let employees = relationship("employees", to: employee, maxCount: 0)
    let worksIn = relationship("department", to: department, maxCount: 1)
    inverses(employees, worksIn)
    department.properties = [attribute("title", .stringAttributeType), employees]
    employee.properties = [
        attribute("name", .stringAttributeType), attribute("salary", .decimalAttributeType),
        attribute("age", .integer16AttributeType), worksIn,
    ]
    let model = NSManagedObjectModel()
    model.entities = [department, employee]

    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
    try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = coordinator
    return context
}

@Suite struct TypedSubclassTests {
    @Test func typedPropertiesReadAndWriteManagedValues() throws {
        let context = try makeContainer()
        let sales = Dept(context: context)
        sales.title = "Sales"
        let ann = Worker(context: context)
        ann.name = "Ann"
        ann.salary = 50_000
        ann.age = 34
        ann.department = sales
        #expect(ann.value(forKey: "name") as? String == "Ann")
        #expect(ann.value(forKey: "age") as? Int16 == 34)
        #expect(ann.displayName == "Ann")
        #expect(sales.employees == [ann])
        #expect(ann.department === sales)
        ann.salary = nil
        #expect(ann.salary == nil)
        try context.save()

        let other = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        other.persistentStoreCoordinator = context.persistentStoreCoordinator
        let request: NSFetchRequest<Worker> = Worker.fetchRequest()
        request.predicate = NSPredicate(format: "department.title == %@", "Sales")
        let fetched = try other.fetch(request)
        #expect(fetched.count == 1)
        let first = try #require(fetched.first)
        #expect(first.isFault)
        #expect(first.name == "Ann" && first.age == 34)
        #expect(first.department?.title == "Sales")
        #expect(first.department?.employees.first === first)
    }

    /// A non-optional scalar whose value is nil reads 0, as Apple's scalar accessors read it
    /// (an optional attribute never set, or an object whose row is gone).
    @Test func aNilNonOptionalScalarReadsZero() throws {
        let context = try makeContainer()
        let employee = Worker(context: context)
        employee.age = 41
        employee.setValue(nil, forKey: "age")
        #expect(employee.age == 0)
        #expect(employee.value(forKey: "age") == nil)
    }
}
