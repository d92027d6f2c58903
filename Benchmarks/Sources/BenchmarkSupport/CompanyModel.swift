import CoreData
import Foundation

/// An attribute of `type`, optional unless `optional` is false (Apple's default is optional).
public func attribute(_ name: String, _ type: NSAttributeType, optional: Bool = true) -> NSAttributeDescription {
    let attribute = NSAttributeDescription()
    attribute.name = name
    attribute.attributeType = type
    if !optional { attribute.isOptional = false }
    return attribute
}

/// A department as an app declares it.
public final class DepartmentObject: NSManagedObject {
    @Managed public var name: String?
    @Managed public var budget: Int64
}

/// An employee as an app declares it: the typed properties the benchmarks read. (`Employee` is
/// the raw side's row in the programs.)
public final class EmployeeObject: NSManagedObject {
    @Managed public var firstName: String?
    @Managed public var lastName: String?
    @Managed public var salary: Int64
    @Managed public var age: Int16
    @Managed public var hired: Date?
    @Managed public var department: DepartmentObject?
}

/// The company model of the fetch benchmarks (FetchBenchmarks, PostgresBenchmarks):
/// `Department(name, budget, employees)` and `Employee(firstName, lastName, salary, age, hired,
/// department)`, whose classes are `DepartmentObject` and `EmployeeObject`.
public func makeCompanyModel() -> NSManagedObjectModel {
    let department = NSEntityDescription()
    department.name = "Department"
    department.managedObjectClassName = String(reflecting: DepartmentObject.self)
    let employee = NSEntityDescription()
    employee.name = "Employee"
    employee.managedObjectClassName = String(reflecting: EmployeeObject.self)
    let employees = NSRelationshipDescription()
    employees.name = "employees"
    employees.destinationEntity = employee
    employees.maxCount = 0
    employees.deleteRule = .nullifyDeleteRule
    let worksIn = NSRelationshipDescription()
    worksIn.name = "department"
    worksIn.destinationEntity = department
    worksIn.maxCount = 1
    employees.inverseRelationship = worksIn
    worksIn.inverseRelationship = employees
    department.properties = [attribute("name", .stringAttributeType), attribute("budget", .integer64AttributeType), employees]
    employee.properties = [
        attribute("firstName", .stringAttributeType), attribute("lastName", .stringAttributeType),
        attribute("salary", .integer64AttributeType), attribute("age", .integer16AttributeType),
        attribute("hired", .dateAttributeType), worksIn,
    ]
    let model = NSManagedObjectModel()
    model.entities = [department, employee]
    return model
}

/// The made-up employees' values: a linear congruential generator from a fixed seed, so that
/// every store the fetch benchmarks fill, through the store or with the raw C API, holds the
/// same rows.
public struct EmployeeValues {
    private var seed: UInt64
    private static let syllables = ["ka", "lo", "mi", "ne", "ru", "sa", "to", "vi", "we", "zo", "an", "el", "or", "us", "ix"]

    /// Values from `seed` (the benchmarks' is 42).
    public init(seed: UInt64 = 42) { self.seed = seed }

    /// The next 31 random bits.
    public mutating func next() -> UInt64 {
        seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return seed >> 33
    }

    /// A capitalized name of `count` random syllables.
    public mutating func name(_ count: Int) -> String {
        (0..<count).map { _ in Self.syllables[Int(next() % UInt64(Self.syllables.count))] }.joined().capitalized
    }
}

/// Inserts `departments` departments and `employees` employees (spread over them in turn) into
/// `context`, unsaved, with the next of `values`.
public func insertCompany(
    into context: NSManagedObjectContext, employees: Int, departments: Int, values: inout EmployeeValues
) {
    guard let model = context.persistentStoreCoordinator?.managedObjectModel,
        let departmentEntity = model.entitiesByName["Department"], let employeeEntity = model.entitiesByName["Employee"]
    else { preconditionFailure("a context on a store of makeCompanyModel()") }
    let departments = (0..<departments).map { index -> NSManagedObject in
        let department = DepartmentObject(entity: departmentEntity, insertInto: context)
        department.setValue("Department \(index)", forKey: "name")
        department.setValue(Int64(index * 1_000), forKey: "budget")
        return department
    }
    for index in 0..<employees {
        let object = EmployeeObject(entity: employeeEntity, insertInto: context)
        object.setValue(values.name(2), forKey: "firstName")
        object.setValue(values.name(3), forKey: "lastName")
        object.setValue(20_000 + Int64(values.next() % 180_000), forKey: "salary")
        object.setValue(Int16(20 + values.next() % 45), forKey: "age")
        object.setValue(Date(timeIntervalSinceReferenceDate: Double(values.next() % 600_000_000)), forKey: "hired")
        object.setValue(departments[index % departments.count], forKey: "department")
    }
}
