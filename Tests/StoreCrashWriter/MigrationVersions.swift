import CoreData
import Foundation
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The two model versions of the kill-during-migration trials (`Tests/StoreCrashTests`), the
/// source store they migrate, and the child-process side of a trial (`mode=migrate`).
///
/// Version 1: `Person(name, age: Integer 16, fullName, nickname, score: Double)`, its
/// sub-entity `Employee(salary: Integer 64, department)` (to-one) and
/// `Department(title, employees)` (to-many, the inverse). Version 2 changes every kind of thing
/// lightweight migration allows: `age` becomes Integer 64, `fullName` is renamed `displayName`
/// (renaming identifier), `nickname` is removed, `active` (Boolean, required, default true) is
/// added, `Employee.department` becomes to-many (so the pair becomes many-to-many, a join
/// table), and a new entity `Project(name)` appears.
enum MigrationVersions {
    /// The model the source store is written with.
    static func version1() -> NSManagedObjectModel { model(version: 1) }
    /// The model the trials migrate the store to.
    static func version2() -> NSManagedObjectModel { model(version: 2) }

    static func model(version: Int) -> NSManagedObjectModel {
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
    static func makeSourceStore(at url: URL, people: Int, departments: Int, journal: String) throws {
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

    /// The child side of a trial: migrates the store at `options["store"]` in place from version
    /// 1 to version 2 with `NSMigrationManager`, saying `migrating` just before and `migrated`
    /// after; `error CODE MESSAGE` when it throws. With `read=1` it instead opens the store with
    /// version 1 and reads all its people over and over, saying `read SEQ count PEOPLE NAMED`
    /// (the people fetched, and how many had a full name) or `read SEQ failed CODE` each time,
    /// until killed.
    static func run(_ options: [String: String]) -> Never {
        let url = URL(fileURLWithPath: options["store"] ?? "")
        if options["read"] == "1" { read(url) }
        let source = version1()
        let destination = version2()
        do {
            let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: source, destinationModel: destination)
            let manager = NSMigrationManager(sourceModel: source, destinationModel: destination)
            StoreCrashWriter.say("migrating")
            try manager.migrateStore(
                from: url, sourceType: NSSQLiteStoreType, options: nil, with: mapping, toDestinationURL: url,
                destinationType: NSSQLiteStoreType, destinationOptions: nil)
            StoreCrashWriter.say("migrated")
        } catch {
            let error = error as NSError
            StoreCrashWriter.say("error \(error.code) \(error.localizedDescription.replacingOccurrences(of: "\n", with: " "))")
            exit(3)
        }
        exit(0)
    }

    private static func read(_ url: URL) -> Never {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: version1())
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        do {
            _ = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        } catch {
            StoreCrashWriter.say("error \((error as NSError).code) \(error.localizedDescription)")
            exit(3)
        }
        StoreCrashWriter.say("opened")
        var sequence = 0
        while true {
            sequence += 1
            do {
                let people = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person"))
                let named = people.filter { ($0.value(forKey: "fullName") as? String) != nil }.count
                StoreCrashWriter.say("read \(sequence) count \(people.count) \(named)")
                context.reset()
            } catch {
                StoreCrashWriter.say("read \(sequence) failed \((error as NSError).code)")
            }
            usleep(2_000)
        }
    }
}
