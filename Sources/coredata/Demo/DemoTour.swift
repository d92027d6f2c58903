import CoreData
import OpenSQLStore
import OpenSQLiteStore

/// The demo's tour: one fetch request per feature, each printed with its result as a small table.
struct DemoTour {
    let context: NSManagedObjectContext
    let model: NSManagedObjectModel
    private(set) var step = 0

    init(context: NSManagedObjectContext) {
        self.context = context
        model = context.persistentStoreCoordinator?.managedObjectModel ?? NSManagedObjectModel()
    }

    mutating func run() throws {
        try predicateSortLimitOffset()
        try diacriticInsensitive()
        try toOneKeyPaths()
        try toMany()
        try subentities()
        try objectIDs()
        try dictionaries()
        try counting()
        try template()
        try fetchedProperty()
        try batchingAndPrefetching()
        try sqlOfAFetch()
    }

    // MARK: - Steps

    private mutating func predicateSortLimitOffset() throws {
        let request = employees("salary > 150000 AND isRemote == YES")
        request.sortDescriptors = [
            NSSortDescriptor(key: "salary", ascending: false), NSSortDescriptor(key: "lastName", ascending: true),
        ]
        request.fetchOffset = 5
        request.fetchLimit = 5
        heading("Predicate, sort, offset and limit", request)
        show(try fetch(request), ["firstName", "lastName", "salary", "department.name"])
    }

    private mutating func diacriticInsensitive() throws {
        let request = employees("firstName ==[cd] 'zoe' AND lastName BEGINSWITH[cd] 'mull'")
        request.sortDescriptors = [NSSortDescriptor(key: "email", ascending: true)]
        heading("Case- and diacritic-insensitive matching ([cd]): 'zoe' finds Zoë, 'mull' finds Müller", request)
        let plain = employees("firstName == 'zoe' OR lastName BEGINSWITH 'mull'")
        Console.print("   (without [cd], \(plain.predicate.map { "\($0)" } ?? "") matches \(try context.count(for: plain)))")
        show(try fetch(request), ["firstName", "lastName", "email", "hireDate"])
    }

    private mutating func toOneKeyPaths() throws {
        let request = employees("department.name ==[c] 'légal' AND manager.lastName BEGINSWITH 'N'")
        request.sortDescriptors = [
            NSSortDescriptor(key: "manager.lastName", ascending: true), NSSortDescriptor(key: "email", ascending: true),
        ]
        request.fetchLimit = 4
        heading("To-one key paths: the department's name, the manager's last name", request)
        show(try fetch(request), ["firstName", "lastName", "department.name", "manager.lastName", "manager"])
    }

    private mutating func toMany() throws {
        let any = request("Department", "ANY employees.salary >= 199000")
        any.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        heading("To-many: ANY", any)
        show(try fetch(any), ["name"])

        let counted = request("Manager", "reports.@count >= 30")
        counted.sortDescriptors = [NSSortDescriptor(key: "email", ascending: true)]
        heading("To-many: @count", counted)
        show(try fetch(counted), ["firstName", "lastName", "level", "department.name", "reports"])

        let subquery = request("Department", "SUBQUERY(employees, $e, $e.isRemote == YES AND $e.salary >= 170000).@count >= 10")
        subquery.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        heading("To-many: SUBQUERY (departments with at least 10 remote employees earning 170,000 or more)", subquery)
        show(try fetch(subquery), ["name", "budget"])
    }

    private mutating func subentities() throws {
        let all = request("Employee", nil)
        let own = request("Employee", nil)
        own.includesSubentities = false
        let managers = request("Manager", "level == 3")
        step += 1
        Console.print("\n\(step). Entity inheritance: Manager is a sub-entity of Employee")
        let rows: [[Cell]] = [
            [.string("Employee"), .string("true"), .string(""), .integer(Int64(try context.count(for: all)))],
            [.string("Employee"), .string("false"), .string(""), .integer(Int64(try context.count(for: own)))],
            [.string("Manager"), .string("true"), .string("level == 3"), .integer(Int64(try context.count(for: managers)))],
        ]
        print(ResultTable(columns: ["entity", "includesSubentities", "predicate", "count"], rows: rows))
    }

    private mutating func objectIDs() throws {
        let request = NSFetchRequest<NSManagedObjectID>(entityName: "Employee")
        request.resultType = .managedObjectIDResultType
        // count(for:) honours fetchLimit, as Apple's does: count before setting it.
        let total = try context.count(for: request)
        request.sortDescriptors = [
            NSSortDescriptor(key: "salary", ascending: false), NSSortDescriptor(key: "email", ascending: true),
        ]
        request.fetchLimit = 3
        step += 1
        Console.print(
            "\n\(step). Object IDs (resultType .managedObjectIDResultType): the three best paid of \(total) employees, "
                + "no row data loaded")
        let ids = try context.fetch(request)
        print(
            ResultTable(
                columns: ["objectID", "uriRepresentation()"], rows: ids.map { [.object($0), .url($0.uriRepresentation())] }))
    }

    private mutating func dictionaries() throws {
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Employee")
        request.resultType = .dictionaryResultType
        request.propertiesToFetch = [
            "department.name", aggregate("people", "count:", "salary", .integer64AttributeType),
            aggregate("average", "average:", "salary", .doubleAttributeType),
            aggregate("top", "max:", "salary", .integer64AttributeType),
            aggregate("firstHire", "min:", "hireDate", .dateAttributeType),
        ]
        request.propertiesToGroupBy = ["department.name"]
        request.havingPredicate = NSPredicate(format: "average > 90000")
        request.sortDescriptors = [NSSortDescriptor(key: "department.name", ascending: true)]
        step += 1
        Console.print("\n\(step). Dictionaries: group by department.name, count/average/max/min, having average > 90000")
        let results = try context.fetch(request).compactMap { $0 as? NSDictionary }
        print(ResultTable.dictionaries(results, request: request))
    }

    private mutating func counting() throws {
        let since = Date(timeIntervalSinceReferenceDate: 599_616_000)  // 2020-01-01T00:00:00Z
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Employee")
        request.predicate = NSPredicate(format: "hireDate >= %@ AND badge != nil", since as NSDate)
        heading("count(for:) with a date (hired since 2020) and a binary attribute", request)
        Console.print("   → \(try context.count(for: request))")
    }

    private mutating func template() throws {
        guard
            let request = try model.fetchRequestFromTemplate(
                withName: "EarnsMoreThan", validatingSubstitutionVariables: ["MINIMUM": 198_000])
        else { return }
        // count(for:) honours fetchLimit, as Apple's does: count before setting it.
        let total = try context.count(for: request)
        request.sortDescriptors = [
            NSSortDescriptor(key: "salary", ascending: false), NSSortDescriptor(key: "email", ascending: true),
        ]
        request.fetchLimit = 3
        step += 1
        let templatePredicate = model.fetchRequestTemplate(forName: "EarnsMoreThan")?.predicate.map { "\($0)" } ?? ""
        Console.print("\n\(step). Fetch request template EarnsMoreThan (\(templatePredicate)) with MINIMUM = 198000")
        Console.print(
            "   → \(request.predicate.map { "\($0)" } ?? ""): \(total) employees, the first 3:")
        show(try context.fetch(request).compactMap { $0 as? NSManagedObject }, ["firstName", "lastName", "salary"])
    }

    private mutating func fetchedProperty() throws {
        let request = self.request("Department", "name == 'Research'")
        guard let research = try fetch(request).first else { return }
        let earners = research.value(forKey: "highEarners") as? [NSManagedObject] ?? []
        step += 1
        Console.print("\n\(step). Fetched property Department.highEarners (department == $FETCH_SOURCE AND salary >= 180000)")
        Console.print("   Research has \(earners.count) high earners; the first 3:")
        show(Array(earners.prefix(3)), ["firstName", "lastName", "salary"])
    }

    private mutating func batchingAndPrefetching() throws {
        context.reset()
        let batched = request("Employee", nil)
        batched.fetchBatchSize = 200
        batched.sortDescriptors = [NSSortDescriptor(key: "email", ascending: true)]
        step += 1
        Console.print("\n\(step). Batching (fetchBatchSize = 200) and prefetching")
        let objects = try fetch(batched)
        let faults = objects.filter(\.isFault).count
        let payroll = objects.prefix(200).reduce(Int64(0)) { $0 + (($1.value(forKey: "salary") as? Int64) ?? 0) }
        Console.print(
            "   \(objects.count) employees returned, \(faults) of them faults; the first fault to fire loads the rows of its")
        Console.print("   window of 200 in one store call. Payroll of the first window: \(payroll)")

        context.reset()
        let prefetched = request("Employee", "salary >= 195000")
        prefetched.relationshipKeyPathsForPrefetching = ["department", "manager"]
        prefetched.sortDescriptors = [NSSortDescriptor(key: "email", ascending: true)]
        prefetched.fetchLimit = 3
        let results = try fetch(prefetched)
        Console.print("   relationshipKeyPathsForPrefetching = [department, manager]: their rows load with the employees")
        Console.print("   \(prefetched.predicate.map { "Employee where \($0)" } ?? ""), sorted by email, limit 3")
        show(results, ["firstName", "lastName", "department.name", "manager.lastName"])
    }

    /// What the SQLite store runs for a request: the statement, its bound values (no constant is
    /// ever spliced into SQL) and SQLite's query plan, as `coredata explain` prints them.
    private mutating func sqlOfAFetch() throws {
        let request = employees("lastName BEGINSWITH[cd] %@ AND ANY department.employees.salary > %@", "mull", 230_000)
        request.sortDescriptors = [NSSortDescriptor(key: "salary", ascending: false)]
        request.fetchLimit = 3
        heading("The SQL of a fetch (as `coredata explain` and -com.apple.CoreData.SQLDebug show it)", request)
        guard let coordinator = context.persistentStoreCoordinator else { return }
        switch try coordinator.explain(request) {
        case .sql(let query, let queryPlan):
            Console.print("   \(query.sql)")
            Console.print("   bound: " + query.arguments.map(ExplainCommand.describe).joined(separator: ", "))
            Console.print("   plan: " + queryPlan.map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: "; "))
        case .inMemory(let reason):
            Console.print("   runs in memory: \(reason)")
        case .narrowed(let query, _, let reason):
            Console.print("   runs in memory over the rows of: \(query.sql)")
            Console.print("   because: \(reason)")
        }
        show(try fetch(request), ["firstName", "lastName", "salary", "department.name"])
    }

    // MARK: - Helpers

    private func employees(_ format: String, _ arguments: Any...) -> NSFetchRequest<NSManagedObject> {
        let request = request("Employee", nil)
        request.predicate = NSPredicate(format: format, argumentArray: arguments)
        return request
    }

    private func request(_ entity: String, _ format: String?) -> NSFetchRequest<NSManagedObject> {
        let request = NSFetchRequest<NSManagedObject>(entityName: entity)
        request.predicate = format.map { NSPredicate(format: $0) }
        return request
    }

    private func fetch(_ request: NSFetchRequest<NSManagedObject>) throws -> [NSManagedObject] {
        try context.fetch(request)
    }

    private func aggregate(_ name: String, _ function: String, _ keyPath: String, _ type: NSAttributeType)
        -> NSExpressionDescription
    {
        let description = NSExpressionDescription()
        description.name = name
        description.expression = NSExpression(forFunction: function, arguments: [NSExpression(forKeyPath: keyPath)])
        description.expressionResultType = type
        return description
    }

    /// `3. Title` and the request in one line: entity, predicate, sorts, offset, limit.
    private mutating func heading<T>(_ title: String, _ request: NSFetchRequest<T>) {
        step += 1
        var text = "\(request.entityName ?? "?")"
        if let predicate = request.predicate { text += " where \(predicate)" }
        if let sorts = request.sortDescriptors, !sorts.isEmpty {
            text += ", sorted by " + sorts.map { ($0.ascending ? "" : "-") + ($0.key ?? "?") }.joined(separator: ", ")
        }
        if request.fetchOffset > 0 { text += ", offset \(request.fetchOffset)" }
        if request.fetchLimit > 0 { text += ", limit \(request.fetchLimit)" }
        Console.print("\n\(step). \(title)")
        Console.print("   \(text)")
    }

    private func show(_ objects: [NSManagedObject], _ keyPaths: [String]) {
        guard let entity = objects.first?.entity ?? model.entitiesByName["Employee"] else { return }
        var table: ResultTable
        do {
            table = try ResultTable.objects(objects, entity: entity, properties: keyPaths)
        } catch {
            Console.print("   \(error)")
            return
        }
        // The tour's objects are named by their properties; drop the object ID and entity columns.
        let skip = table.columns.count - keyPaths.count
        table = ResultTable(columns: Array(table.columns.dropFirst(skip)), rows: table.rows.map { Array($0.dropFirst(skip)) })
        print(table)
    }

    private func print(_ table: ResultTable) {
        let indented = table.rendered(as: .table, width: Console.width - 3).split(
            separator: "\n", omittingEmptySubsequences: false)
        Console.print(indented.map { "   " + $0 }.joined(separator: "\n"))
    }
}
