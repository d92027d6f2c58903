import Foundation
import OpenCoreData
import TestSupport
import Testing

/// Random fetch requests over random data with random unsaved changes, through a context on each
/// store type, against an answer worked out here without any store: every current object of the
/// entity (saved ones as changed, inserted ones, deleted ones left out) filtered with the
/// predicate's `evaluate(with:)`, sorted by comparing the sort keys' values, then windowed.
///
/// This is what a fetch promises with `includesPendingChanges` (the default): the store's rows
/// merged with the context's changes as if they were saved. The requests mix predicates on
/// attributes, a to-one path and a to-many relationship, sub-entities, sorts on attributes and
/// through the to-one, limits and offsets; the changes insert, delete, and change names,
/// salaries, dates and departments (which moves objects in and out of predicates and sorts).
/// Results are compared as lists of names (unique), counts as numbers, IDs against the objects'
/// IDs, and each fetch again with a small `fetchBatchSize`, with the department prefetched,
/// without property values, as loaded objects, with `propertiesToFetch`, as a count result and
/// without sub-entities.
/// The last round makes more changes in a child context and fetches there. Seeded: a failure
/// names its round, request and store.
@Suite struct RandomFetchTests {
    static let titles: [String?] = ["Sales", "Labs", "séances", "sales", nil, "Zoo"]
    static let syllables = ["an", "bo", "Cy", "dé", "el", "fa", "Gu", "hi", "ÎO", "ju"]

    /// One world: a context on a store of the company model, filled with the same data as the
    /// others of the same seed.
    struct World {
        let coordinator: NSPersistentStoreCoordinator
        /// Where changes are made and requests run: the context on the coordinator, then a child.
        var context: NSManagedObjectContext
        let folder: TemporaryFolder?
        /// The departments, saved; one may be deleted later.
        var departments: [NSManagedObject] = []
        var random: SplitMix64
        var serial = 0
        /// Every employee and manager ever inserted (deleted ones too).
        var people: [NSManagedObject] = []

        /// The employees and managers that exist now, saved or not.
        var current: [NSManagedObject] { people.filter { !$0.isDeleted && $0.managedObjectContext != nil } }

        init(storeType: String, seed: UInt64) throws {
            let model = CompanyModel.make()
            coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
            let folder = try TemporaryFolder()
            self.folder = folder
            try coordinator.addPersistentStore(
                ofType: storeType, configurationName: nil, at: try folder.storeURL(for: storeType, name: "Random.sqlite"))
            context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            random = SplitMix64(seed: seed)
            departments = RandomFetchTests.titles.map { title -> NSManagedObject in
                let department = NSManagedObject(entity: model[entity: "Department"], insertInto: context)
                department.setValue(title, forKey: "title")
                return department
            }
            for _ in 0..<40 { insertEmployee(departments: departments) }
            try context.save()
        }

        /// Goes on in a new child context of the current one: the objects are the child's from
        /// now on, and its fetches see the parent's unsaved changes under its own.
        mutating func beginChild() {
            let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            child.parent = context
            people = current.map { child.object(with: $0.objectID) }
            departments = departments.filter { !$0.isDeleted }.map { child.object(with: $0.objectID) }
            context = child
        }

        mutating func int(_ bound: Int) -> Int { Int.random(in: 0..<bound, using: &random) }

        mutating func name() -> String {
            serial += 1
            let syllables = RandomFetchTests.syllables
            return syllables[int(syllables.count)] + syllables[int(syllables.count)].lowercased() + " \(serial)"
        }

        mutating func salary() -> Decimal? { int(8) == 0 ? nil : Decimal(int(20)) * 5_000 + Decimal(int(4)) / 4 }

        mutating func born() -> Date? { int(6) == 0 ? nil : Date(timeIntervalSinceReferenceDate: Double(int(30)) * 86_400) }

        @discardableResult
        mutating func insertEmployee(departments: [NSManagedObject]) -> NSManagedObject {
            let model = coordinator.managedObjectModel
            let entity = int(4) == 0 ? model[entity: "Manager"] : model[entity: "Employee"]
            let employee = NSManagedObject(entity: entity, insertInto: context)
            employee.setValue(name(), forKey: "name")
            employee.setValue(salary(), forKey: "salary")
            employee.setValue(born(), forKey: "born")
            let department = int(departments.count + 1)
            employee.setValue(department < departments.count ? departments[department] : nil, forKey: "department")
            people.append(employee)
            return employee
        }

        /// Unsaved changes: inserts, deletes, and changed attributes and departments. Department
        /// titles stay as saved: a fetch answers from the store for objects that are not changed
        /// themselves (as Apple's does), so a changed title would not move their employees.
        mutating func change(departments: [NSManagedObject]) throws {
            for employee in current {
                switch int(10) {
                case 0: context.delete(employee)
                case 1: employee.setValue(name(), forKey: "name")
                case 2: employee.setValue(salary(), forKey: "salary")
                case 3: employee.setValue(born(), forKey: "born")
                case 4:
                    let department = int(departments.count + 1)
                    employee.setValue(department < departments.count ? departments[department] : nil, forKey: "department")
                default: break
                }
            }
            for _ in 0..<5 { insertEmployee(departments: departments) }
            // Its employees stay until a save runs the cascade: in the fetches and in `current`.
            if int(3) == 0, let department = departments.last { context.delete(department) }
        }
    }

    /// A person's name (unique).
    static func label(_ object: NSManagedObject) -> String { object.value(forKey: "name") as? String ?? "?" }

    /// The title of a person's department ("-" for none, "?" for a department without one).
    static func title(of object: NSManagedObject) -> String {
        guard object.entity.propertiesByName["department"] != nil else { return "-" }
        guard let department = object.value(forKey: "department") as? NSManagedObject else { return "-" }
        return department.value(forKey: "title") as? String ?? "?"
    }

    struct Request {
        let entity: String
        let format: String
        let sort: [(key: String, ascending: Bool)]
        let limit: Int
        let offset: Int

        /// The same request without its sort and window.
        var unwindowed: Request { Request(entity: entity, format: format, sort: [], limit: 0, offset: 0) }
    }

    static func request(_ random: inout SplitMix64) -> Request {
        func pick<T>(_ choices: [T]) -> T { choices[Int.random(in: 0..<choices.count, using: &random)] }
        // Person (abstract) has a name and a birth date; its sub-entities the rest.
        let entity = pick(["Employee", "Employee", "Manager", "Person"])
        let atoms = entity == "Person" ? [1, 2, 5] : Array(0..<6)
        func atom() -> String {
            switch pick(atoms) {
            case 0: return "salary \(pick(["<", ">=", "==", "!="])) \(pick(["25000", "50000.25", "nil", "0"]))"
            case 1:
                return
                    "name \(pick(["BEGINSWITH", "CONTAINS", "ENDSWITH", "=="]))\(pick(["", "[c]", "[cd]"])) '\(pick(["an", "de", "io", "1", "Gu"]))'"
            case 2:
                return
                    "born \(pick(["<", ">", "==", "!="])) \(pick(["nil", "CAST(864000, 'NSDate')", "CAST(1728000, 'NSDate')"]))"
            case 3:
                return
                    "department.title \(pick(["==", "==[cd]", "BEGINSWITH[c]", "!="])) \(pick(["'Sales'", "'seances'", "nil", "'Z'"]))"
            case 4: return "department \(pick(["==", "!="])) nil"
            default: return pick(["TRUEPREDICATE", "name != nil"])
            }
        }
        func predicate(_ depth: Int) -> String {
            guard depth < 2, Int.random(in: 0..<2, using: &random) == 0 else { return atom() }
            switch Int.random(in: 0..<3, using: &random) {
            case 0: return "NOT (\(predicate(depth + 1)))"
            case 1: return "(\(predicate(depth + 1)) AND \(predicate(depth + 1)))"
            default: return "(\(predicate(depth + 1)) OR \(predicate(depth + 1)))"
            }
        }
        var sort: [(key: String, ascending: Bool)] = []
        for _ in 0..<Int.random(in: 0..<3, using: &random) {
            sort.append((pick(entity == "Person" ? ["born"] : ["salary", "born", "department.title"]), pick([true, false])))
        }
        // The name ends every sort, so that the order is one (ties have no order to compare).
        if !sort.isEmpty || Bool.random(using: &random) { sort.append(("name", pick([true, false]))) }
        let window = pick([(0, 0), (0, 0), (5, 0), (4, 3), (0, 10)])
        return Request(
            entity: entity, format: predicate(0), sort: sort, limit: sort.isEmpty ? 0 : window.0,
            offset: sort.isEmpty ? 0 : window.1)
    }

    /// What a fetch must return: computed from the current objects, with no store.
    static func expected(_ request: Request, objects: [NSManagedObject]) -> [String] {
        let predicate = NSPredicate(format: request.format)
        let entity = objects.first?.entity.managedObjectModel.entitiesByName[request.entity]
        var matching = objects.filter { object in
            var kind: NSEntityDescription? = object.entity
            while let current = kind, current != entity { kind = current.superentity }
            return kind != nil && predicate.evaluate(with: object)
        }
        matching.sort { left, right in
            for (key, ascending) in request.sort {
                let order = compare(left.value(forKeyPath: key), right.value(forKeyPath: key))
                if order != .orderedSame { return (order == .orderedAscending) == ascending }
            }
            return false
        }
        let names = matching.map(label)
        let start = min(request.offset, names.count)
        let end = request.limit > 0 ? min(names.count, start + request.limit) : names.count
        return Array(names[start..<end])
    }

    /// `compare:` on the values the sort keys have here (nil first).
    static func compare(_ left: Any?, _ right: Any?) -> ComparisonResult {
        switch (left, right) {
        case (nil, nil): return .orderedSame
        case (nil, _): return .orderedAscending
        case (_, nil): return .orderedDescending
        case (let a as String, let b as String): return a == b ? .orderedSame : a < b ? .orderedAscending : .orderedDescending
        case (let a as Decimal, let b as Decimal): return a == b ? .orderedSame : a < b ? .orderedAscending : .orderedDescending
        case (let a as Date, let b as Date): return a == b ? .orderedSame : a < b ? .orderedAscending : .orderedDescending
        default: return .orderedSame
        }
    }

    /// Three seeds on every store but PostgreSQL, which runs the first: its case costs ten
    /// times another's (each batch and each fault a query, each query a millisecond of the debug
    /// build's SwiftNIO), and the three took most of the test run's time.
    static let cases: [(String, UInt64)] = ContextFixture.storeTypes.flatMap { storeType in
        (storeType == NSPostgreSQLStoreType ? [1] : [1, 2, 3]).map { (storeType, $0) }
    }

    @Test(arguments: cases)
    func randomFetchesSeeTheChanges(_ storeType: String, _ seed: UInt64) throws {
        var world = try World(storeType: storeType, seed: seed)
        var requests = SplitMix64(seed: seed &* 7_919)
        var sizes = Set<Int>()
        for round in 0..<4 {
            // The last round changes more in a child context, on top of the parent's changes.
            if round == 3 { world.beginChild() }
            if round > 0 { try world.change(departments: world.departments.filter { !$0.isDeleted }) }
            let current = world.current
            for index in 0..<60 {
                let spec = Self.request(&requests)
                let request = NSFetchRequest<NSManagedObject>(entityName: spec.entity)
                request.predicate = NSPredicate(format: spec.format)
                request.sortDescriptors = spec.sort.map { NSSortDescriptor(key: $0.key, ascending: $0.ascending) }
                request.fetchLimit = spec.limit
                request.fetchOffset = spec.offset
                let label = "round \(round) #\(index) \(spec.entity) \(spec.format) \(spec.sort) \(spec.limit)/\(spec.offset)"
                let expected = Self.expected(spec, objects: current)
                let fetched = try world.context.fetch(request)
                if spec.sort.isEmpty {
                    #expect(fetched.map(Self.label).sorted() == expected.sorted(), "\(label)")
                } else {
                    #expect(fetched.map(Self.label) == expected, "\(label)")
                }
                #expect(try world.context.count(for: request) == expected.count, "\(label) count")
                // In batches: the same objects, whose values load a window at a time (unchanged
                // objects are faults again first; changed ones keep their changes).
                world.context.refreshAllObjects()
                request.fetchBatchSize = index % 4 + 1
                let batched = try world.context.fetch(request)
                #expect(batched.map(\.objectID) == fetched.map(\.objectID), "\(label) batch \(request.fetchBatchSize)")
                #expect(batched.map(Self.label) == fetched.map(Self.label), "\(label) batch \(request.fetchBatchSize) values")
                // With the department prefetched: the same objects and departments.
                world.context.refreshAllObjects()
                request.fetchBatchSize = 0
                // (Person, the abstract root, has no department to prefetch.)
                request.relationshipKeyPathsForPrefetching = spec.entity == "Person" ? nil : ["department"]
                let prefetched = try world.context.fetch(request)
                #expect(prefetched.map(\.objectID) == fetched.map(\.objectID), "\(label) prefetched")
                #expect(
                    prefetched.map { Self.title(of: $0) }
                        == expected.compactMap { name in current.first { Self.label($0) == name } }
                        .map { Self.title(of: $0) } || spec.sort.isEmpty,
                    "\(label) prefetched departments")
                let ids = NSFetchRequest<NSManagedObjectID>(entityName: spec.entity)
                ids.resultType = .managedObjectIDResultType
                ids.predicate = request.predicate
                ids.sortDescriptors = request.sortDescriptors
                ids.fetchLimit = spec.limit
                ids.fetchOffset = spec.offset
                #expect(try world.context.fetch(ids) == fetched.map(\.objectID) || spec.sort.isEmpty, "\(label) IDs")
                // Without property values, or as objects already loaded, or loading only the
                // name: the same objects, reading the same values.
                for variant in 0..<3 {
                    world.context.refreshAllObjects()
                    let other = NSFetchRequest<NSManagedObject>(entityName: spec.entity)
                    other.predicate = request.predicate
                    other.sortDescriptors = request.sortDescriptors
                    other.fetchLimit = spec.limit
                    other.fetchOffset = spec.offset
                    switch variant {
                    case 0: other.includesPropertyValues = false
                    case 1: other.returnsObjectsAsFaults = false
                    default: other.propertiesToFetch = ["name"]
                    }
                    let results = try world.context.fetch(other)
                    #expect(
                        results.map(\.objectID) == fetched.map(\.objectID) || spec.sort.isEmpty, "\(label) variant \(variant)")
                    #expect(results.map(Self.label).sorted() == expected.sorted(), "\(label) variant \(variant) values")
                }
                // The count result type, and the entity alone without its sub-entities.
                let counting = NSFetchRequest<NSNumber>(entityName: spec.entity)
                counting.resultType = .countResultType
                counting.predicate = request.predicate
                #expect(
                    try world.context.fetch(counting).first?.intValue == Self.expected(spec.unwindowed, objects: current).count,
                    "\(label) count result")
                let own = NSFetchRequest<NSManagedObject>(entityName: spec.entity)
                own.predicate = request.predicate
                own.includesSubentities = false
                let ownExpected = Self.expected(spec.unwindowed, objects: current.filter { $0.entity.name == spec.entity })
                #expect(
                    try world.context.fetch(own).map(Self.label).sorted() == ownExpected.sorted(), "\(label) without sub-entities"
                )
                sizes.insert(expected.count)
            }
        }
        // The requests are not all empty or all full: their answers vary.
        #expect(sizes.count > 10, "\(sizes.sorted())")
    }
}
