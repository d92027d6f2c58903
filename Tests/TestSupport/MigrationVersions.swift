import CoreData
import Foundation

/// The two model versions of the kill-during-migration trials (`Tests/StoreCrashTests`), the
/// source store they migrate (the child-process side of a trial, `mode=migrate`, is
/// `StoreCrashWriter`'s). Here, not in the writer, so the tests need not import an executable
/// (which an optimized build cannot import).
///
/// Version 1: `Person(name, age: Integer 16, fullName, nickname, score: Double)`, its
/// sub-entity `Employee(salary: Integer 64, department)` (to-one) and
/// `Department(title, employees)` (to-many, the inverse). Version 2 changes every kind of thing
/// lightweight migration allows: `age` becomes Integer 64, `fullName` is renamed `displayName`
/// (renaming identifier), `nickname` is removed, `active` (Boolean, required, default true) is
/// added, `Employee.department` becomes to-many (so the pair becomes many-to-many, a join
/// table), and a new entity `Project(name)` appears.
public enum MigrationVersions {
    /// The model the source store is written with.
    public static func version1() -> NSManagedObjectModel { model(version: 1) }
    /// The model the trials migrate the store to.
    public static func version2() -> NSManagedObjectModel { model(version: 2) }

    /// Version `version` (1 or 2) of the model.
    public static func model(version: Int) -> NSManagedObjectModel {
        let person = NSEntityDescription()
        person.name = "Person"
        let employee = NSEntityDescription()
        employee.name = "Employee"
        let department = NSEntityDescription()
        department.name = "Department"
        var personProperties = [attribute("name", .stringAttributeType), attribute("score", .doubleAttributeType)]
        if version == 1 {
            personProperties += [
                attribute("age", .integer16AttributeType), attribute("fullName", .stringAttributeType),
                attribute("nickname", .stringAttributeType),
            ]
        } else {
            personProperties += [
                attribute("age", .integer64AttributeType),
                attribute("displayName", .stringAttributeType, renamedFrom: "fullName"),
                attribute("active", .booleanAttributeType, optional: false, default: true),
            ]
        }
        person.properties = personProperties

        let toDepartment = relationship("department", to: department, maxCount: version == 1 ? 1 : 0)
        let toEmployees = relationship("employees", to: employee, maxCount: 0)
        inverses(toDepartment, toEmployees)
        employee.properties = [attribute("salary", .integer64AttributeType), toDepartment]
        department.properties = [attribute("title", .stringAttributeType), toEmployees]
        person.subentities = [employee]

        let model = NSManagedObjectModel()
        var entities = [person, employee, department]
        if version == 2 {
            let project = NSEntityDescription()
            project.name = "Project"
            project.properties = [attribute("name", .stringAttributeType)]
            entities.append(project)
        }
        model.entities = entities
        return model
    }

    /// Writes the source store at `url` with version 1: `departments` departments and `people`
    /// people, two in three of them employees spread over the departments (every tenth without
    /// one), with values derived from their number.
    public static func makeSourceStore(at url: URL, people: Int, departments: Int, journal: String) throws {
        let model = version1()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil, at: url,
            options: [NSSQLitePragmasOption: ["journal_mode": journal.uppercased() as NSString]])
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        var made: [NSManagedObject] = []
        for number in 0..<departments {
            let department = NSManagedObject(
                entity: model.entitiesByName["Department"] ?? NSEntityDescription(), insertInto: context)
            department.setValue("Department \(number)", forKey: "title")
            made.append(department)
        }
        let padding = String(repeating: "·", count: 60)
        for number in 0..<people {
            let isEmployee = number % 3 != 0
            let entity = model.entitiesByName[isEmployee ? "Employee" : "Person"] ?? NSEntityDescription()
            let person = NSManagedObject(entity: entity, insertInto: context)
            person.setValue("Person \(number)", forKey: "name")
            person.setValue(Int16(truncatingIfNeeded: number * 7 - 9_000), forKey: "age")
            person.setValue("Full Name \(number) \(padding)", forKey: "fullName")
            person.setValue(number % 5 == 0 ? nil : "nick\(number)", forKey: "nickname")
            person.setValue(Double(number) / 8, forKey: "score")
            if isEmployee {
                person.setValue(Int64(number) * 1_000_003, forKey: "salary")
                if number % 10 != 1 { person.setValue(made[number % departments], forKey: "department") }
            }
            if number % 1_000 == 999 { try context.save() }
        }
        try context.save()
        try coordinator.remove(store)
    }
}

/// The model of `StoreCrashWriter`'s store, which the tests open the store with too:
/// `Item(batch, index, payload)`.
public func crashWriterModel() -> NSManagedObjectModel {
    let item = NSEntityDescription()
    item.name = "Item"
    item.properties = [
        attribute("batch", .integer64AttributeType), attribute("index", .integer64AttributeType),
        attribute("payload", .stringAttributeType),
    ]
    let model = NSManagedObjectModel()
    model.entities = [item]
    return model
}
