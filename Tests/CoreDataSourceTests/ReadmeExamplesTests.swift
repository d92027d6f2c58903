import CoreData
import Testing

// The code blocks of README.md, pasted unchanged into the methods of `Readme` below. A method's
// `print` records what the README code prints; the tests compare it with the `// output` comments
// of the README, and `everyReadmeBlockIsHere` checks that every block of README.md still appears
// in this file, character for character, so the two cannot drift apart.

private final class Readme {
    var printed: [String] = []

    func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
        printed.append(items.map { String(describing: $0) }.joined(separator: separator))
    }

    // README: `import CoreData`, unchanged
    func tour() {
        let people: [[String: Any]] = [
            ["name": "Ann", "age": 34, "city": "Leeds"],
            ["name": "Bob", "age": 27, "city": "York"],
            ["name": "Cy", "age": 51, "city": "Leeds"],
        ]

        let predicate = NSPredicate(format: "city == %@ AND age > %d", "Leeds", 30)
        print(predicate)                             // city == "Leeds" AND age > 30
        print(predicate.evaluate(with: people[1]))   // false

        let byAge = [NSSortDescriptor(key: "age", ascending: false)]
        let found = people.filtered(using: predicate).sorted(using: byAge)
        print(found.compactMap { $0["name"] as? String })   // ["Cy", "Ann"]
    }

    // README: Your own types: `KeyValueCodable`
    func keyValueCodable() {
        final class Employee: KeyValueCodable {
            let name: String
            let salary: Int
            init(name: String, salary: Int) { self.name = name; self.salary = salary }

            func value(forKey key: String) -> Any? {
                switch key {
                case "name": name
                case "salary": salary
                default: nil
                }
            }
        }

        let staff = [Employee(name: "Jo", salary: 62_000), Employee(name: "Al", salary: 41_000)]
        let wellPaid = NSPredicate(format: "salary > 50000 AND name BEGINSWITH[c] 'j'")
        print(staff.filtered(using: wellPaid).map(\.name))   // ["Jo"]
    }

    // README: Models and fetch requests
    func models(modelURL: URL) throws {
        let model = try NSManagedObjectModel(validatingContentsOf: modelURL)
        if let manager = model.entitiesByName["Manager"] {
            print(manager.superentity?.name ?? "none")              // Employee
            print(manager.properties.map(\.name))                   // ["name", "salary", "reports"]
        }
        let request = model.fetchRequestFromTemplate(withName: "EarnsMoreThan",
                                                     substitutionVariables: ["MINIMUM": 40_000])
        print(request?.predicate ?? "none")                         // salary > 40000
    }

    // README: Model versions and migration
    func modelVersions(postsModelURL: URL, storeURL: URL) throws {
        // Posts.xcdatamodeld holds v1 and v2 (current); the store at storeURL was written with v1.
        let model = try NSManagedObjectModel(validatingContentsOf: postsModelURL)
        let container = NSPersistentContainer(name: "Posts", managedObjectModel: model)
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: storeURL)]
        var loaded = false
        container.loadPersistentStores { _, error in loaded = error == nil }
        print(loaded)   // true
    }

    // README: Contexts, objects and the stores
    func contexts(model: NSManagedObjectModel) throws {
        final class Employee: NSManagedObject {
            @Managed var name: String?
            @Managed var salary: Decimal?
        }

        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator

        for (name, salary) in [("Ann", 52_000), ("Bob", 38_000), ("Cy", 61_000)] {
            let employee = Employee(context: context)
            employee.name = name
            employee.salary = Decimal(salary)
        }
        try context.save()

        let request = NSFetchRequest<Employee>(entityName: "Employee")
        request.predicate = NSPredicate(format: "salary > %@", 40_000 as NSNumber)
        request.sortDescriptors = [NSSortDescriptor(key: "salary", ascending: false)]
        print(try context.fetch(request).map { $0.name ?? "" })     // ["Cy", "Ann"]
        print(try context.count(for: request))                      // 2
    }

    // README: Contexts, objects and the stores — Streaming large fetches (set up as `contexts`)
    func streaming(model: NSManagedObjectModel) throws {
        // A class of its own name: `contexts` declares another `Employee`, and the process
        // finds an entity's class by its name.
        final class StreamedEmployee: NSManagedObject {
            @Managed var name: String?
            @Managed var salary: Decimal?
        }
        typealias Employee = StreamedEmployee
        model.entitiesByName["Employee"]?.managedObjectClassName = "StreamedEmployee"
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        for (name, salary) in [("Ann", 52_000), ("Bob", 38_000), ("Cy", 61_000)] {
            let employee = Employee(context: context)
            employee.name = name
            employee.salary = Decimal(salary)
        }
        try context.save()

        let everyone = NSFetchRequest<Employee>(entityName: "Employee")
        everyone.sortDescriptors = [NSSortDescriptor(key: "salary", ascending: true)]
        let employees = try context.objects(for: everyone, batchSize: 1_000)
        var payroll = Decimal(0)
        for employee in employees { payroll += employee.salary ?? 0 }   // one batch held at a time
        if let error = employees.error { throw error }                  // a store error ends the loop
        print(payroll)                                                  // 151000
    }

    // README: Contexts, objects and the stores — Following a fetch (set up as `contexts`)
    func followingAFetch(model: NSManagedObjectModel) throws {
        // A class of its own name (see `streaming`).
        final class FollowedEmployee: NSManagedObject {
            @Managed var name: String?
            @Managed var salary: Decimal?
        }
        typealias Employee = FollowedEmployee
        model.entitiesByName["Employee"]?.managedObjectClassName = "FollowedEmployee"
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        for (name, salary) in [("Ann", 52_000), ("Bob", 38_000), ("Cy", 61_000)] {
            let employee = Employee(context: context)
            employee.name = name
            employee.salary = Decimal(salary)
        }
        try context.save()

        final class Feed: NSObject, NSFetchedResultsControllerDelegate {
            var changes: [String] = []
            func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any,
                            at indexPath: IndexPath?, for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?) {
                let name = (anObject as? Employee)?.name ?? ""
                changes.append("\(type) \(name) \(indexPath?.row ?? -1) → \(newIndexPath?.row ?? -1)")
            }
        }

        let byPay = NSFetchRequest<Employee>(entityName: "Employee")
        byPay.sortDescriptors = [NSSortDescriptor(key: "salary", ascending: false)]
        let controller = NSFetchedResultsController(fetchRequest: byPay, managedObjectContext: context,
                                                    sectionNameKeyPath: nil, cacheName: nil)
        let feed = Feed()
        controller.delegate = feed
        try controller.performFetch()
        print(controller.fetchedObjects?.map { $0.name ?? "" } ?? [])   // ["Cy", "Ann", "Bob"]
        context.performAndWait {                      // changes are announced as the block ends
            controller.object(at: IndexPath(row: 2, section: 0)).salary = 70_000
        }
        print(feed.changes)                           // ["move Bob 2 → 0"]
    }

    // README: A PostgreSQL store for several servers
    func postgreSQL(container: NSPersistentContainer) {
        let description = NSPersistentStoreDescription(url: URL(string: "postgres://app:secret@db.internal/shop?schema=catalog")!)
        description.type = NSPostgreSQLStoreType
        description.setOption(true as NSNumber, forKey: NSPersistentHistoryTrackingKey)
        description.setOption(true as NSNumber, forKey: NSPersistentStoreRemoteChangeNotificationPostOptionKey)
        description.setOption(16 as NSNumber, forKey: NSPersistentStoreConnectionPoolMaxSizeKey)   // default 8
        container.persistentStoreDescriptions = [description]
    }

    // README: Input from users: the throwing twins
    func throwingTwins() throws {
        do {
            _ = try NSPredicate(validatingFormat: "name == ")
        } catch {
            print(error.localizedDescription.hasPrefix("Unable to parse the format string"))   // true
        }
        let template = NSPredicate(format: "salary > $MIN")
        print(try template.withSubstitutionVariables(validating: ["MIN": 50_000]))   // salary > 50000
    }
}

// MARK: - Reading README.md

private let packageRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

private struct CodeBlock {
    let language: String
    let lines: [String]

    /// The `// output` comments of the block's `print(…)` lines, in order.
    var expectedOutput: [String] {
        lines.compactMap { line in
            guard line.trimmingCharacters(in: .whitespaces).hasPrefix("print("),
                  let comment = line.range(of: "   // ") else { return nil }
            return String(line[comment.upperBound...])
        }
    }
}

private func readmeBlocks() throws -> [CodeBlock] {
    let readme = try String(contentsOf: packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
    var blocks: [CodeBlock] = []
    var current: (language: String, lines: [String])?
    for line in readme.components(separatedBy: "\n") {
        if line.hasPrefix("```") {
            if let open = current {
                blocks.append(CodeBlock(language: open.language, lines: open.lines))
                current = nil
            } else {
                current = (String(line.dropFirst(3)), [])
            }
        } else if current != nil {
            current!.lines.append(line)
        }
    }
    return blocks
}

private func swiftBlock(containing text: String) throws -> CodeBlock {
    try #require(try readmeBlocks().first { $0.language == "swift" && $0.lines.contains { $0.contains(text) } })
}

@Suite("README examples")
struct ReadmeExamplesTests {
    @Test func startsWithTheSetUpCommands() throws {
        let readme = try String(contentsOf: packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let first = try #require(try readmeBlocks().first)
        #expect(readme.hasPrefix("```"))
        #expect(first.lines == [
            "swift run coredata demo          # the main job: a sample SQLite store and a tour of fetch requests",
            "swift test                       # the tests",
        ])
        // The commands name things that exist.
        let manifest = try String(contentsOf: packageRoot.appendingPathComponent("Package.swift"), encoding: .utf8)
        #expect(manifest.contains(#".executable(name: "coredata""#))
        let ci = try String(contentsOf: packageRoot.appendingPathComponent(".ci/run"), encoding: .utf8)
        #expect(ci.contains("swift test"))
    }

    @Test func benchmarkCommandNamesTheBenchmarkPackage() throws {
        let block = try #require(try readmeBlocks().first { $0.lines.contains { $0.contains("PredicateBenchmarks") } })
        #expect(block.lines == ["cd Benchmarks && swift run -c release PredicateBenchmarks"])
        let manifest = try String(contentsOf: packageRoot.appendingPathComponent("Benchmarks/Package.swift"), encoding: .utf8)
        #expect(manifest.contains(#"name: "PredicateBenchmarks""#))
        let fetch = try #require(try readmeBlocks().first { $0.lines.contains { $0.contains("FetchBenchmarks") } })
        #expect(fetch.lines == ["cd Benchmarks && swift run -c release FetchBenchmarks"])
        #expect(manifest.contains(#"name: "FetchBenchmarks""#))
    }

    @Test func everyReadmeBlockIsHere() throws {
        let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
            .components(separatedBy: "\n")
        let imports = Set(source.filter { $0.hasPrefix("import ") })
        let blocks = try readmeBlocks().filter { $0.language == "swift" }
        #expect(blocks.count == 9)
        for block in blocks {
            // Imports are this file's; the rest is pasted into a method, indented.
            for line in block.lines where line.hasPrefix("import ") {
                #expect(imports.contains(line), "README imports \(line), this file does not")
            }
            let body = Array(block.lines.drop { $0.hasPrefix("import ") || $0.isEmpty })
            let start = try #require(body.first)
            let candidates = source.indices.filter { source[$0].hasSuffix(start) }
            let found = candidates.contains { index in
                let indent = String(source[index].dropLast(start.count))
                guard indent.allSatisfy({ $0 == " " }), index + body.count <= source.count else { return false }
                return zip(body, source[index...]).allSatisfy { readme, here in
                    readme.isEmpty ? here.isEmpty : here == indent + readme
                }
            }
            #expect(found, "README block starting \"\(start)\" is not in ReadmeExamplesTests.swift")
        }
    }

    @Test func tour() throws {
        let readme = Readme()
        readme.tour()
        #expect(readme.printed == [#"city == "Leeds" AND age > 30"#, "false", #"["Cy", "Ann"]"#])
        #expect(readme.printed == (try swiftBlock(containing: "NSSortDescriptor(key: \"age\"")).expectedOutput)
    }

    @Test func keyValueCodable() throws {
        let readme = Readme()
        readme.keyValueCodable()
        #expect(readme.printed == [#"["Jo"]"#])
        #expect(readme.printed == (try swiftBlock(containing: "KeyValueCodable {")).expectedOutput)
    }

    @Test func throwingTwins() throws {
        let readme = Readme()
        try readme.throwingTwins()
        #expect(readme.printed == ["true", "salary > 50000"])
        #expect(readme.printed == (try swiftBlock(containing: "validatingFormat")).expectedOutput)
    }

    /// The model file the README's model example loads: the file Xcode would write for it.
    private static let modelFile = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" minimumToolsVersion="Automatic" sourceLanguage="Swift">
            <entity name="Employee" representedClassName="Employee" parentEntity="Person" syncable="YES">
                <attribute name="salary" optional="YES" attributeType="Decimal" defaultValueString="0.0"/>
            </entity>
            <entity name="Manager" representedClassName="Manager" parentEntity="Employee" syncable="YES">
                <relationship name="reports" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Employee"/>
            </entity>
            <entity name="Person" representedClassName="Person" isAbstract="YES" syncable="YES">
                <attribute name="name" attributeType="String"/>
            </entity>
            <fetchRequest name="EarnsMoreThan" entity="Employee" predicateString="salary &gt; $MINIMUM"/>
        </model>
        """

    /// The README's model file, written to a temporary folder; `body` gets the `.xcdatamodeld`.
    private func withModelFile(_ body: (URL) throws -> Void) throws {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("readme-\(UUID().uuidString)/Company.xcdatamodeld/Company.xcdatamodel")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent().deletingLastPathComponent()) }
        try Self.modelFile.write(to: folder.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
        try body(folder.deletingLastPathComponent())
    }

    /// Two versions of a posts model, a store written with the first, and the README's
    /// container migrating it: the posts are there with the new attribute's default.
    @Test func modelVersions() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("readme-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let bundle = folder.appendingPathComponent("Posts.xcdatamodeld")
        let v1 = #"<entity name="Post" representedClassName="Post"><attribute name="title" optional="YES" attributeType="String"/></entity>"#
        let v2 = v1.replacingOccurrences(
            of: "</entity>", with: #"<attribute name="hide" attributeType="Boolean" defaultValueString="NO"/></entity>"#)
        for (name, entities) in [("v1", v1), ("v2", v2)] {
            let version = bundle.appendingPathComponent("\(name).xcdatamodel")
            try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
            try #"<?xml version="1.0" encoding="UTF-8" standalone="yes"?><model type="com.apple.IDECoreDataModeler.DataModel">\#(entities)</model>"#
                .write(to: version.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
        }
        let storeURL = folder.appendingPathComponent("Posts.sqlite")
        let old = try NSManagedObjectModel(validatingContentsOf: bundle.appendingPathComponent("v1.xcdatamodel"))
        let writer = NSPersistentStoreCoordinator(managedObjectModel: old)
        try writer.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: storeURL)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = writer
        try context.performAndWait {
            NSEntityDescription.insertNewObject(forEntityName: "Post", into: context).setValue("Hello", forKey: "title")
            try context.save()
        }
        try writer.remove(try #require(writer.persistentStores.first))

        let readme = Readme()
        try readme.modelVersions(postsModelURL: bundle, storeURL: storeURL)
        #expect(readme.printed == ["true"])
        #expect(readme.printed == (try swiftBlock(containing: "postsModelURL")).expectedOutput)
        let reader = NSPersistentStoreCoordinator(
            managedObjectModel: try NSManagedObjectModel(validatingContentsOf: bundle))
        try reader.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: storeURL)
        let check = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        check.persistentStoreCoordinator = reader
        let posts = try check.performAndWait { try check.fetch(NSFetchRequest<NSManagedObject>(entityName: "Post")) }
        #expect(posts.map { $0.value(forKey: "title") as? String } == ["Hello"])
        #expect(posts.map { $0.value(forKey: "hide") as? Bool } == [false])
    }

    @Test func contexts() throws {
        try withModelFile { url in
            let readme = Readme()
            try readme.contexts(model: try NSManagedObjectModel(validatingContentsOf: url))
            #expect(readme.printed == [#"["Cy", "Ann"]"#, "2"])
            #expect(readme.printed == (try swiftBlock(containing: "NSInMemoryStoreType")).expectedOutput)
        }
    }

    @Test func streaming() throws {
        try withModelFile { url in
            let readme = Readme()
            try readme.streaming(model: try NSManagedObjectModel(validatingContentsOf: url))
            #expect(readme.printed == ["151000"])
            #expect(readme.printed == (try swiftBlock(containing: "objects(for: everyone")).expectedOutput)
        }
    }

    @Test func followingAFetch() throws {
        try withModelFile { url in
            let readme = Readme()
            try readme.followingAFetch(model: try NSManagedObjectModel(validatingContentsOf: url))
            #expect(readme.printed == [#"["Cy", "Ann", "Bob"]"#, #"["move Bob 2 → 0"]"#])
            #expect(readme.printed == (try swiftBlock(containing: "NSFetchedResultsControllerDelegate")).expectedOutput)
        }
    }

    /// The block configures the description it shows (loading it needs the server it names).
    @Test func postgreSQL() throws {
        let container = NSPersistentContainer(name: "Shop", managedObjectModel: NSManagedObjectModel())
        Readme().postgreSQL(container: container)
        let description = try #require(container.persistentStoreDescriptions.first)
        #expect(container.persistentStoreDescriptions.count == 1)
        #expect(description.type == NSPostgreSQLStoreType)
        #expect(description.url?.absoluteString == "postgres://app:secret@db.internal/shop?schema=catalog")
        #expect((description.options[NSPersistentStoreConnectionPoolMaxSizeKey] as? NSNumber)?.intValue == 16)
        #expect((description.options[NSPersistentHistoryTrackingKey] as? NSNumber)?.boolValue == true)
    }

    @Test func models() throws {
        try withModelFile { url in
            let readme = Readme()
            try readme.models(modelURL: url)
            #expect(readme.printed == ["Employee", #"["name", "salary", "reports"]"#, "salary > 40000"])
            #expect(readme.printed == (try swiftBlock(containing: "validatingContentsOf")).expectedOutput)
        }
    }
}
