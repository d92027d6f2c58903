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
