import Foundation
import OpenCoreData
import TestSupport
import Testing

/// Random changes saved in rounds, on each store type, then read back by a context that has never
/// seen them (for SQLite, through a new coordinator on the file), against a plain Swift record of
/// what the changes should leave: every employee's attributes, entity, department and ordered
/// reports, every department's employees.
///
/// The changes insert employees and managers, change names, salaries and dates, set and clear
/// values to nil, move employees between departments (the inverse follows), reorder and
/// replace managers' reports, delete employees, and delete departments (which cascades to their
/// employees). Every other round makes its changes in a child context, saved into the root and
/// then to the store. Seeded: a failure names its store, seed and round.
@Suite struct RandomSaveTests {
    /// What one employee should be.
    struct Person: Equatable, CustomStringConvertible {
        var manager: Bool
        var salary: Decimal?
        var born: Date?
        var department: String?
        var reports: [String] = []

        var description: String {
            "\(manager ? "M" : "E") \(salary.map { "\($0)" } ?? "-") \(born.map { "\($0.timeIntervalSinceReferenceDate)" } ?? "-") "
                + "\(department ?? "-") \(reports)"
        }
    }

    /// The record: people by name, departments by title (their employees follow from `people`).
    struct Record: Equatable {
        var people: [String: Person] = [:]
        var departments: Set<String> = []
    }

    struct World {
        let model = CompanyModel.make()
        let storeType: String
        let folder: TemporaryFolder?
        let url: URL?
        /// The context on the coordinator.
        let root: NSManagedObjectContext
        /// Where changes are made: the root, or a child of it for a round.
        var context: NSManagedObjectContext
        var objects: [String: NSManagedObject] = [:]
        var departments: [String: NSManagedObject] = [:]

        init(storeType: String) throws {
            self.storeType = storeType
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
            let folder = try TemporaryFolder()
            self.folder = folder
            url = try folder.storeURL(for: storeType, name: "Saves.sqlite")
            try coordinator.addPersistentStore(ofType: storeType, configurationName: nil, at: url)
            root = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            root.persistentStoreCoordinator = coordinator
            context = root
        }

        /// What the store holds, read by a new context (through a new coordinator for a file).
        func readBack() throws -> Record {
            let reader = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            if let url {
                let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
                try coordinator.addPersistentStore(ofType: storeType, configurationName: nil, at: url)
                reader.persistentStoreCoordinator = coordinator
            } else {
                reader.persistentStoreCoordinator = root.persistentStoreCoordinator
            }
            var record = Record()
            for department in try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "Department")) {
                record.departments.insert(department.value(forKey: "title") as? String ?? "?")
            }
            for employee in try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "Employee")) {
                let reports = (employee.entity.name == "Manager" ? employee.value(forKey: "reports") as? NSOrderedSet : nil)
                record.people[employee.value(forKey: "name") as? String ?? "?"] = Person(
                    manager: employee.entity.name == "Manager", salary: employee.value(forKey: "salary") as? Decimal,
                    born: employee.value(forKey: "born") as? Date,
                    department: (employee.value(forKey: "department") as? NSManagedObject)?.value(forKey: "title") as? String,
                    reports: (reports?.array as? [NSManagedObject] ?? []).map { $0.value(forKey: "name") as? String ?? "?" })
            }
            // Each department's employees, read from its side, agree with their departments.
            for department in try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "Department")) {
                let title = department.value(forKey: "title") as? String
                let members = (department.value(forKey: "employees") as? Set<NSManagedObject> ?? []).map {
                    $0.value(forKey: "name") as? String ?? "?"
                }
                let expected = record.people.filter { $0.value.department == title }.map(\.key)
                #expect(Set(members) == Set(expected), "\(storeType): \(title ?? "-") has \(members.sorted())")
            }
            return record
        }

        /// Makes the round's changes in a new child context of the root.
        mutating func beginChild() {
            let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            child.parent = root
            objects = objects.mapValues { child.object(with: $0.objectID) }
            departments = departments.mapValues { child.object(with: $0.objectID) }
            context = child
        }

        /// Saves the round's changes: the child's into the root first, if there is one, then the
        /// root's into the store.
        mutating func save() throws {
            if context !== root {
                try context.save()
                objects = objects.mapValues { root.object(with: $0.objectID) }
                departments = departments.mapValues { root.object(with: $0.objectID) }
                context = root
            }
            try root.save()
        }
    }

    /// One random change, made to the record and to every world alike.
    static func change(_ random: inout SplitMix64, record: inout Record, worlds: inout [World], serial: inout Int) {
        func pick<T>(_ choices: [T]) -> T { choices[Int.random(in: 0..<choices.count, using: &random)] }
        func salary() -> Decimal? { Bool.random(using: &random) ? Decimal(Int.random(in: 1...40, using: &random)) * 2_500 : nil }
        func born() -> Date? {
            Bool.random(using: &random)
                ? Date(timeIntervalSinceReferenceDate: Double(Int.random(in: 0...9_999, using: &random))) : nil
        }
        let names = record.people.keys.sorted()
        let titles = record.departments.sorted()
        switch Int.random(in: 0..<10, using: &random) {
        case 0, 1, 2:
            serial += 1
            let name = "P\(serial)"
            let person = Person(
                manager: Int.random(in: 0..<3, using: &random) == 0, salary: salary(), born: born(),
                department: titles.isEmpty || Int.random(in: 0..<5, using: &random) == 0 ? nil : pick(titles))
            record.people[name] = person
            for index in worlds.indices {
                let object = NSManagedObject(
                    entity: worlds[index].model[entity: person.manager ? "Manager" : "Employee"],
                    insertInto: worlds[index].context)
                object.setValue(name, forKey: "name")
                object.setValue(person.salary, forKey: "salary")
                object.setValue(person.born, forKey: "born")
                object.setValue(person.department.flatMap { worlds[index].departments[$0] }, forKey: "department")
                worlds[index].objects[name] = object
            }
        case 3:
            serial += 1
            let title = "D\(serial)"
            record.departments.insert(title)
            for index in worlds.indices {
                let department = NSManagedObject(
                    entity: worlds[index].model[entity: "Department"], insertInto: worlds[index].context)
                department.setValue(title, forKey: "title")
                worlds[index].departments[title] = department
            }
        case 4 where !names.isEmpty:
            let name = pick(names)
            let (newSalary, newBorn) = (salary(), born())
            record.people[name]?.salary = newSalary
            record.people[name]?.born = newBorn
            for world in worlds {
                world.objects[name]?.setValue(newSalary, forKey: "salary")
                world.objects[name]?.setValue(newBorn, forKey: "born")
            }
        case 5 where !names.isEmpty:
            let name = pick(names)
            let title: String? = titles.isEmpty || Int.random(in: 0..<4, using: &random) == 0 ? nil : pick(titles)
            record.people[name]?.department = title
            for world in worlds {
                world.objects[name]?.setValue(title.flatMap { world.departments[$0] }, forKey: "department")
            }
        case 6:
            let managers = names.filter { record.people[$0]?.manager == true }
            guard !managers.isEmpty else { return }
            let manager = pick(managers)
            let reports = names.filter { $0 != manager }.shuffled(using: &random).prefix(Int.random(in: 0...4, using: &random))
            record.people[manager]?.reports = Array(reports)
            for world in worlds {
                let set = NSOrderedSet(array: reports.compactMap { world.objects[$0] })
                world.objects[manager]?.setValue(set, forKey: "reports")
            }
        case 7 where !names.isEmpty:
            remove([pick(names)], record: &record, worlds: &worlds)
        case 8 where !titles.isEmpty && Int.random(in: 0..<3, using: &random) == 0:
            // The department and, by its cascade rule, its employees.
            let title = pick(titles)
            record.departments.remove(title)
            remove(names.filter { record.people[$0]?.department == title }, record: &record, worlds: &worlds)
            for world in worlds {
                if let department = world.departments[title] { world.context.delete(department) }
            }
        default:
            guard !names.isEmpty else { return }
            serial += 1
            let (old, new) = (pick(names), "P\(serial)")
            record.people[new] = record.people.removeValue(forKey: old)
            for key in record.people.keys { record.people[key]?.reports.replace([old], with: [new]) }
            for index in worlds.indices {
                worlds[index].objects[old]?.setValue(new, forKey: "name")
                worlds[index].objects[new] = worlds[index].objects.removeValue(forKey: old)
            }
        }
    }

    /// Deletes people: first out of every manager's reports (which have no inverse to do it).
    static func remove(_ names: [String], record: inout Record, worlds: inout [World]) {
        let gone = Set(names)
        for manager in record.people.keys where record.people[manager]?.reports.contains(where: gone.contains) == true {
            let kept = record.people[manager]?.reports.filter { !gone.contains($0) } ?? []
            record.people[manager]?.reports = kept
            for world in worlds {
                world.objects[manager]?.setValue(NSOrderedSet(array: kept.compactMap { world.objects[$0] }), forKey: "reports")
            }
        }
        for name in names {
            record.people[name] = nil
            for index in worlds.indices {
                if let object = worlds[index].objects.removeValue(forKey: name) { worlds[index].context.delete(object) }
            }
        }
    }

    @Test(arguments: [UInt64(1), 2, 3, 4])
    func randomChangesSaveAndReadBack(_ seed: UInt64) throws {
        var worlds = try ContextFixture.storeTypes.map { try World(storeType: $0) }
        var random = SplitMix64(seed: seed)
        var record = Record()
        var serial = 0
        var largest = 0
        for round in 0..<8 {
            // Every other round's changes are made in a child context and saved through the root.
            if round % 2 == 1 { for index in worlds.indices { worlds[index].beginChild() } }
            for _ in 0..<25 { Self.change(&random, record: &record, worlds: &worlds, serial: &serial) }
            for index in worlds.indices { try worlds[index].save() }
            for world in worlds {
                let read = try world.readBack()
                #expect(read.departments == record.departments, "\(world.storeType) seed \(seed) round \(round)")
                for name in Set(read.people.keys).union(record.people.keys).sorted()
                where read.people[name] != record.people[name] {
                    let found = read.people[name].map(String.init(describing:)) ?? "nothing"
                    let expected = record.people[name].map(String.init(describing:)) ?? "nothing"
                    Issue.record("\(world.storeType) seed \(seed) round \(round) \(name): read \(found), expected \(expected)")
                }
            }
            largest = max(largest, record.people.count)
        }
        // The rounds built something to check.
        #expect(largest >= 10)
    }
}
