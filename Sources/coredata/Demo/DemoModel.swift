import CoreData

/// The demo's model, built in code as Apple's documentation does it:
///
/// - `Department`: `name`, `budget` (Decimal), `employees` (to-many, cascade), and the fetched
///   property `highEarners` (its employees earning 180,000 or more, best paid first);
/// - `Employee`: `firstName`, `lastName`, `email`, `salary` (Integer 64), `hireDate`,
///   `isRemote`, `badge` (Binary, for some), `department` (to-one), `manager` (to-one) and
///   `reports` (to-many, its inverse);
/// - `Manager`, a sub-entity of `Employee`, adds `level` (Integer 16);
/// - the fetch request template `EarnsMoreThan`: employees with `salary > $MINIMUM`.
enum DemoModel {
    static func make() -> NSManagedObjectModel {
        let department = NSEntityDescription()
        department.name = "Department"
        let employee = NSEntityDescription()
        employee.name = "Employee"
        let manager = NSEntityDescription()
        manager.name = "Manager"

        let employees = relationship("employees", to: employee, toMany: true, deleteRule: .cascadeDeleteRule)
        let worksIn = relationship("department", to: department, toMany: false)
        pair(employees, worksIn)
        let managedBy = relationship("manager", to: employee, toMany: false)
        let reports = relationship("reports", to: employee, toMany: true)
        pair(managedBy, reports)

        let highEarners = NSFetchedPropertyDescription()
        highEarners.name = "highEarners"
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Employee")
        request.predicate = NSPredicate(format: "department == $FETCH_SOURCE AND salary >= 180000")
        request.sortDescriptors = [NSSortDescriptor(key: "salary", ascending: false)]
        highEarners.fetchRequest = request

        department.properties = [
            attribute("name", .stringAttributeType, optional: false), attribute("budget", .decimalAttributeType),
            employees, highEarners,
        ]
        employee.properties = [
            attribute("firstName", .stringAttributeType, optional: false),
            attribute("lastName", .stringAttributeType, optional: false),
            attribute("email", .stringAttributeType), attribute("salary", .integer64AttributeType, optional: false),
            attribute("hireDate", .dateAttributeType), attribute("isRemote", .booleanAttributeType),
            attribute("badge", .binaryDataAttributeType), worksIn, managedBy, reports,
        ]
        manager.properties = [attribute("level", .integer16AttributeType)]
        employee.subentities = [manager]

        let model = NSManagedObjectModel()
        model.entities = [department, employee, manager]
        let template = NSFetchRequest<NSFetchRequestResult>(entityName: "Employee")
        template.predicate = NSPredicate(format: "salary > $MINIMUM")
        model.setFetchRequestTemplate(template, forName: "EarnsMoreThan")
        return model
    }

    private static func attribute(_ name: String, _ type: NSAttributeType, optional: Bool = true) -> NSAttributeDescription {
        let attribute = NSAttributeDescription()
        attribute.name = name
        attribute.attributeType = type
        attribute.isOptional = optional
        return attribute
    }

    private static func relationship(
        _ name: String, to destination: NSEntityDescription, toMany: Bool, deleteRule: NSDeleteRule = .nullifyDeleteRule
    ) -> NSRelationshipDescription {
        let relationship = NSRelationshipDescription()
        relationship.name = name
        relationship.destinationEntity = destination
        relationship.maxCount = toMany ? 0 : 1
        relationship.deleteRule = deleteRule
        return relationship
    }

    private static func pair(_ first: NSRelationshipDescription, _ second: NSRelationshipDescription) {
        first.inverseRelationship = second
        second.inverseRelationship = first
    }
}
