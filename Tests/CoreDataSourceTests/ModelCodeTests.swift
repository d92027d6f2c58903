import Foundation
import CoreData
import Testing

// A model and fetch requests built in code the way Apple's documentation and most apps do it,
// in a file that imports Foundation and CoreData; every type is named in type position.

private func makeModel() -> NSManagedObjectModel {
    let name = NSAttributeDescription()
    name.name = "name"
    name.attributeType = .stringAttributeType
    name.isOptional = false

    let salary = NSAttributeDescription()
    salary.name = "salary"
    salary.attributeType = .decimalAttributeType
    salary.defaultValue = Decimal(0)

    let employee = NSEntityDescription()
    employee.name = "Employee"
    employee.managedObjectClassName = "Employee"

    let department = NSEntityDescription()
    department.name = "Department"

    let employees = NSRelationshipDescription()
    employees.name = "employees"
    employees.destinationEntity = employee
    employees.deleteRule = .cascadeDeleteRule
    let worksIn = NSRelationshipDescription()
    worksIn.name = "department"
    worksIn.destinationEntity = department
    worksIn.maxCount = 1
    employees.inverseRelationship = worksIn
    worksIn.inverseRelationship = employees

    employee.properties = [name, salary, worksIn]
    department.properties = [employees]

    let model = NSManagedObjectModel()
    model.entities = [employee, department]

    let template = NSFetchRequest<NSFetchRequestResult>(entityName: "Employee")
    template.predicate = NSPredicate(format: "salary > $MINIMUM")
    model.setFetchRequestTemplate(template, forName: "EarnsMoreThan")
    return model
}

@Suite struct ModelCodeTests {
    @Test func buildsAModelAsAppleCodeDoes() throws {
        let model: NSManagedObjectModel = makeModel()
        let employee: NSEntityDescription = try #require(model.entitiesByName["Employee"])
        let relationships: [String: NSRelationshipDescription] = employee.relationshipsByName
        let worksIn: NSRelationshipDescription = try #require(relationships["department"])
        #expect(!worksIn.isToMany)
        #expect(worksIn.inverseRelationship?.isToMany == true)
        #expect(worksIn.inverseRelationship?.deleteRule == .cascadeDeleteRule)
        let attributes: [String: NSAttributeDescription] = employee.attributesByName
        #expect(attributes["salary"]?.attributeValueClassName == "NSDecimalNumber")
        #expect(attributes["salary"]?.defaultValue as? Decimal == 0)
    }

    @Test func fetchRequestsAsAppleCodeWritesThem() throws {
        let model = makeModel()
        let request: NSFetchRequest<NSFetchRequestResult> = try #require(
            model.fetchRequestFromTemplate(withName: "EarnsMoreThan", substitutionVariables: ["MINIMUM": 40_000]))
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        request.resultType = .dictionaryResultType
        let predicate: NSPredicate? = request.predicate
        #expect(predicate.map { "\($0)" } == "salary > 40000")
        #expect(request.entityName == "Employee")
        #expect(request.resultType.rawValue == 2)
        #expect(request.includesSubentities && request.fetchLimit == 0)
        #expect(!request.includesPendingChanges)  // dictionary results never include pending changes
        request.resultType = .managedObjectResultType
        #expect(request.includesPendingChanges)

        let typed = NSFetchRequest<NSDictionary>(entityName: "Employee")
        typed.fetchLimit = 3
        #expect(typed.fetchLimit == 3 && typed.entity == nil)
    }
}
