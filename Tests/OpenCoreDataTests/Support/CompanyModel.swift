import OpenCoreData
import TestSupport

/// A small model built in code, used across the model tests:
///
///     Person (abstract): name String, born Date
///       Employee: salary Decimal, department -> Department (to-one, inverse employees)
///         Manager: reports -> Employee (to-many, ordered, no inverse)
///     Department: title String, employees -> Employee (to-many, inverse department, cascade)
///
/// with a configuration "Work" (Department, Employee), a template "HighEarners"
/// (`salary > $MIN`) and a fetched property `Department.seniors`.
enum CompanyModel {
    static func make() -> NSManagedObjectModel {
        let person = NSEntityDescription()
        person.name = "Person"
        person.isAbstract = true
        person.properties = [attribute("name", .stringAttributeType, optional: false), attribute("born", .dateAttributeType)]

        let employee = NSEntityDescription()
        employee.name = "Employee"
        employee.managedObjectClassName = "Employee"
        let manager = NSEntityDescription()
        manager.name = "Manager"
        let department = NSEntityDescription()
        department.name = "Department"

        let worksIn = relationship("department", to: department, maxCount: 1)
        let employees = relationship("employees", to: employee, maxCount: 0, deleteRule: .cascadeDeleteRule)
        inverses(worksIn, employees)
        employee.properties = [attribute("salary", .decimalAttributeType), worksIn]

        let reports = relationship("reports", to: employee, maxCount: 0, ordered: true)
        manager.properties = [reports]

        let seniors = NSFetchedPropertyDescription()
        seniors.name = "seniors"
        let seniorsRequest = NSFetchRequest<NSFetchRequestResult>(entityName: "Employee")
        seniorsRequest.entity = employee
        seniorsRequest.predicate = NSPredicate(format: "department == $FETCH_SOURCE AND salary > 100000")
        seniors.fetchRequest = seniorsRequest
        department.properties = [attribute("title", .stringAttributeType), employees, seniors]

        person.subentities = [employee]
        employee.subentities = [manager]

        let model = NSManagedObjectModel()
        model.entities = [person, employee, manager, department]
        model.setEntities([department, employee], forConfigurationName: "Work")
        let highEarners = NSFetchRequest<NSFetchRequestResult>(entityName: "Employee")
        highEarners.entity = employee
        highEarners.predicate = NSPredicate(format: "salary > $MIN")
        highEarners.fetchLimit = 5
        model.setFetchRequestTemplate(highEarners, forName: "HighEarners")
        model.versionIdentifiers = ["1.0"]
        return model
    }
}

extension NSManagedObjectModel {
    /// The entity with this name; the tests' models always have it.
    subscript(entity name: String) -> NSEntityDescription {
        entitiesByName[name] ?? NSEntityDescription()
    }
}
