import CoreData
import Logging
import ServiceLifecycle
import Testing
import Tracing

// The Swift code blocks of the documentation — README.md and every article of the DocC catalogs
// under Sources (OpenCoreData.docc, OpenPredicate.docc) — pasted unchanged into the methods of
// `Examples` below (or, for a block that belongs in a class body, into a class). A method's `print`
// records what the block prints; the tests compare it with the block's `// output` comments.
// `everySwiftBlockIsHere` checks that every block marked `swift` in those files still appears in
// this file, character for character, so documentation and tests cannot drift apart: edit a block
// in an article and this test fails until the same edit is made here. A block marked `swift` that is
// not code for this target (an excerpt of a client's Package.swift) must be listed, whole, in
// `exemptBlocks`; anything else (shell, output, diffs) is marked with another language or none.

private final class Examples {
    var printed: [String] = []

    func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
        printed.append(items.map { String(describing: $0) }.joined(separator: separator))
    }

    // README.md and PredicateLanguage.md (OpenPredicate.docc): the first example
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

    // PredicateLanguage.md (OpenPredicate.docc): Your own types: KeyValueCodable
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

    // GettingStarted.md: Models and fetch requests
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

    // Migration.md: Overview
    func modelVersions(postsModelURL: URL, storeURL: URL) throws {
        // Posts.xcdatamodeld holds v1 and v2 (current); the store at storeURL was written with v1.
        let model = try NSManagedObjectModel(validatingContentsOf: postsModelURL)
        let container = NSPersistentContainer(name: "Posts", managedObjectModel: model)
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: storeURL)]
        var loaded = false
        container.loadPersistentStores { _, error in loaded = error == nil }
        print(loaded)   // true
    }

    // GettingStarted.md: Contexts, objects and stores
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

    // Stores.md: Streaming large fetches (set up as `contexts`)
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

    // FollowingFetches.md: Following a fetch (set up as `contexts`)
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

    // Stores.md: A PostgreSQL store for several servers
    func postgreSQL(container: NSPersistentContainer) {
        let description = NSPersistentStoreDescription(url: URL(string: "postgres://app:secret@db.internal/shop?schema=catalog")!)
        description.type = NSPostgreSQLStoreType
        description.setOption(true as NSNumber, forKey: NSPersistentHistoryTrackingKey)
        description.setOption(true as NSNumber, forKey: NSPersistentStoreRemoteChangeNotificationPostOptionKey)
        description.setOption(16 as NSNumber, forKey: NSPersistentStoreConnectionPoolMaxSizeKey)   // default 8
        container.persistentStoreDescriptions = [description]
    }

    // PredicateLanguage.md (OpenPredicate.docc): Input from users: the throwing twins
    func throwingTwins() throws {
        do {
            _ = try NSPredicate(validatingFormat: "name == ")
        } catch {
            print(error.localizedDescription.hasPrefix("Unable to parse the format string"))   // true
        }
        let template = NSPredicate(format: "salary > $MIN")
        print(try template.withSubstitutionVariables(validating: ["MIN": 50_000]))   // salary > 50000
    }

    // Observability.md: Logging the SQL
    func storeLogger(storeURL: URL) -> NSPersistentStoreDescription {
        var logger = Logger(label: "app.store")
        logger.logLevel = .debug                         // statements; .trace adds the details
        let description = NSPersistentStoreDescription(url: storeURL)
        description.logger = logger                      // or options[NSPersistentStoreLoggerKey]
        return description
    }

    // Observability.md: Traces
    func handler(container: NSPersistentContainer) async throws -> Int {
        try await withSpan("GET /employees") { _ in
            try await container.performBackgroundTask { context in
                try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Employee"))
            }
        }
    }

    // Stores.md: Batch requests
    func bulkWork(container: NSPersistentContainer, cutoff: Date, rows: [[String: Any]]) async throws {
        try await container.performBackgroundTask { context in
            let old = NSFetchRequest<NSFetchRequestResult>(entityName: "Event")
            old.predicate = NSPredicate(format: "date < %@", cutoff as NSDate)
            try context.execute(NSBatchDeleteRequest(fetchRequest: old))

            let unread = NSBatchUpdateRequest(entityName: "Message")
            unread.predicate = NSPredicate(format: "read == NO AND sent < %@", cutoff as NSDate)
            unread.propertiesToUpdate = ["read": true, "views": NSExpression(format: "views + 1")]
            try context.execute(unread)

            try context.execute(NSBatchInsertRequest(entityName: "Quake", objects: rows))
        }
    }

    // Observability.md: Shutting down
    func serve(container: NSPersistentContainer, server: some Service, logger: Logger) async throws {
        let group = ServiceGroup(
            configuration: .init(services: [container, server], gracefulShutdownSignals: [.sigterm], logger: logger))
        try await group.run()
    }
}

// ValidationAndFaults.md: Per-key validation methods. A person's name may be missing, not empty.
private final class DocumentedPerson: NSManagedObject {
    @Managed var name: String?

    func validateName(_ value: AutoreleasingUnsafeMutablePointer<AnyObject?>) throws {
        guard let name = value.pointee as? String, name.isEmpty else { return }
        throw NSError(domain: "PersonErrors", code: 1, userInfo: [NSLocalizedDescriptionKey: "A name can't be empty."])
    }

    override func validateValue(_ value: AutoreleasingUnsafeMutablePointer<AnyObject?>, forKey key: String) throws {
        try super.validateValue(value, forKey: key)
        if key == "name" { try validateName(value) }
    }
}

// MARK: - Reading the documentation

private let packageRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// The catalogs whose articles must be there; `documentationFiles()` also reads any other
/// catalog under `Sources`.
private let requiredCatalogs = [
    "Sources/OpenCoreData/OpenCoreData.docc", "Sources/OpenPredicate/OpenPredicate.docc", "Sources/SwiftData/SwiftData.docc",
]

/// README.md, then every `.md` file of every `.docc` catalog under `Sources`, as paths relative
/// to the package's root, sorted.
private func documentationFiles() throws -> [String] {
    let sources = packageRoot.appendingPathComponent("Sources")
    var articles: [String] = []
    for module in try FileManager.default.contentsOfDirectory(atPath: sources.path) {
        let folder = sources.appendingPathComponent(module)
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        for catalog in entries where catalog.hasSuffix(".docc") {
            guard let walker = FileManager.default.enumerator(atPath: folder.appendingPathComponent(catalog).path) else { continue }
            for case let file as String in walker where file.hasSuffix(".md") {
                articles.append("Sources/\(module)/\(catalog)/\(file)")
            }
        }
    }
    return ["README.md"] + articles.sorted()
}

private struct CodeBlock {
    /// The file, relative to the package's root.
    let document: String
    let language: String
    let lines: [String]

    /// The block's text, its lines joined.
    var text: String { lines.joined(separator: "\n") }

    /// The `// output` comments of the block's `print(…)` lines, in order.
    var expectedOutput: [String] {
        lines.compactMap { line in
            guard line.trimmingCharacters(in: .whitespaces).hasPrefix("print("),
                  let comment = line.range(of: "   // ") else { return nil }
            return String(line[comment.upperBound...])
        }
    }
}

/// The fenced code blocks of one file, in order.
private func blocks(in document: String) throws -> [CodeBlock] {
    let text = try String(contentsOf: packageRoot.appendingPathComponent(document), encoding: .utf8)
    var blocks: [CodeBlock] = []
    var current: (language: String, lines: [String])?
    for line in text.components(separatedBy: "\n") {
        if line.hasPrefix("```") {
            if let open = current {
                blocks.append(CodeBlock(document: document, language: open.language, lines: open.lines))
                current = nil
            } else {
                current = (String(line.dropFirst(3)), [])
            }
        } else if current != nil {
            current?.lines.append(line)
        }
    }
    return blocks
}

/// Every `swift` block of the README and of the articles.
private func swiftBlocks() throws -> [CodeBlock] {
    try documentationFiles().flatMap { try blocks(in: $0) }.filter { $0.language == "swift" }
}

/// The blocks whose output the tests below compare, each known by a text only it holds.
private enum Example: String, CaseIterable {
    case tour = #"NSSortDescriptor(key: "age""#
    case keyValueCodable = "KeyValueCodable {"
    case throwingTwins = "validatingFormat"
    case models = "validatingContentsOf: modelURL"
    case modelVersions = "postsModelURL"
    case contexts = "NSInMemoryStoreType"
    case streaming = "objects(for: everyone"
    case followingAFetch = "NSFetchedResultsControllerDelegate"
}

/// Every block of `example` (the same block may be shown in more than one file), at least one.
private func swiftBlocks(_ example: Example) throws -> [CodeBlock] {
    let found = try swiftBlocks().filter { $0.text.contains(example.rawValue) }
    try #require(!found.isEmpty, "no swift block holds \(example.rawValue)")
    return found
}

/// What `body` printed equals the `// output` comments of every block of `example`.
private func expectOutput(_ printed: [String], of example: Example, sourceLocation: SourceLocation = #_sourceLocation) throws {
    for block in try swiftBlocks(example) {
        #expect(printed == block.expectedOutput, "\(block.document)", sourceLocation: sourceLocation)
    }
}

/// Where the SwiftData catalog's blocks are pasted, relative to the package's root.
private let swiftDataExamples = "Tests/SwiftDataTests/DocumentationExamples.swift"

/// A client's target taking the `SwiftData` product (PortingSwiftDataApps.md): PackageDescription code.
private let swiftDataPackageExcerpt = """
    .target(name: "MyApp", dependencies: [
        .product(name: "SwiftData", package: "opencoredata", condition: .when(platforms: [.linux])),
    ]),
    """

/// A client's `Package.swift` excerpt (README.md, GettingStarted.md): PackageDescription code,
/// not code of this target. Checked against the manifest by `packageExcerptNamesWhatExists`.
private let packageExcerpt = """
    dependencies: [
        .package(url: "https://github.com/opencoredata/opencoredata", from: "1.0.0"),
    ],
    targets: [
        .target(name: "MyApp", dependencies: [
            .product(name: "CoreData", package: "opencoredata", condition: .when(platforms: [.linux])),
        ]),
    ]
    """

/// ServerApps.md: code of the server example (`Examples/BookServer`, a package of its own on
/// Hummingbird), which this target cannot build; that package's `DocumentationTests` checks that
/// the block is its code, line for line.
private let serverExampleExcerpt = """
    func create(_ new: NewBook) async throws -> BookDTO {
        try await container.performBackgroundTask { context in
            let book = Book(context: context)
            book.title = new.title
            book.author = new.author
            book.year = Int32(clamping: new.year)
            book.rating = new.rating.map { NSNumber(value: $0) }
            try context.save()
            return BookDTO(book)
        }
    }
    """

/// ServerApps.md: the same in Vapor, which is not a dependency of this package (nor of the
/// example); its Core Data calls are the example's.
private let vaporExcerpt = """
    import CoreData
    import Vapor

    struct PersistentContainerKey: StorageKey {
        typealias Value = NSPersistentContainer
    }

    extension Application {
        /// The app's Core Data stack, set once by `configure(_:)`.
        var persistentContainer: NSPersistentContainer? {
            get { storage[PersistentContainerKey.self] }
            set { storage[PersistentContainerKey.self] = newValue }
        }
    }

    func configure(_ app: Application) async throws {
        let container = NSPersistentContainer(name: "Books")   // Books.xcdatamodeld, a resource of the target
        if let url = Environment.get("DATABASE_URL").flatMap(URL.init(string:)) {
            let description = NSPersistentStoreDescription(url: url)
            description.type = NSPostgreSQLStoreType
            container.persistentStoreDescriptions = [description]
        }
        container.persistentStoreDescriptions.forEach { $0.shouldAddStoreAsynchronously = true }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            container.loadPersistentStores { _, error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume() }
            }
        }
        app.persistentContainer = container

        app.get("books", ":id") { request async throws -> BookDTO in
            guard let id = request.parameters.get("id", as: UUID.self),
                  let container = request.application.persistentContainer else { throw Abort(.notFound) }
            let book = try await container.performBackgroundTask { context in
                let fetch: NSFetchRequest<Book> = Book.fetchRequest()
                fetch.predicate = NSPredicate(format: "id == %@", id as NSUUID)
                return try context.fetch(fetch).first.map(BookDTO.init)
            }
            guard let book else { throw Abort(.notFound) }
            return book
        }
    }
    """

/// The `swift` blocks that are not pasted into this file, each whole, with the files that may
/// show it. Editing such a block fails `everySwiftBlockIsHere` until it is edited here too.
private let exemptBlocks: [String: Set<String>] = [
    packageExcerpt: ["README.md", "Sources/OpenCoreData/OpenCoreData.docc/GettingStarted.md"],
    swiftDataPackageExcerpt: ["Sources/SwiftData/SwiftData.docc/PortingSwiftDataApps.md"],
    serverExampleExcerpt: ["Sources/OpenCoreData/OpenCoreData.docc/ServerApps.md"],
    vaporExcerpt: ["Sources/OpenCoreData/OpenCoreData.docc/ServerApps.md"],
]

@Suite("Documentation examples")
struct ReadmeExamplesTests {
    @Test func startsWithTheSetUpCommands() throws {
        let readme = try String(contentsOf: packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let first = try #require(try blocks(in: "README.md").first)
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

    /// The README is a map, not the manual: at most 10 KB (10,240 bytes).
    @Test func readmeIsAtMostTenKilobytes() throws {
        let size = try Data(contentsOf: packageRoot.appendingPathComponent("README.md")).count
        #expect(size <= 10_240, "README.md is \(size) bytes; move detail into an article")
    }

    /// The README's links to files (articles, Benchmarks/README.md) lead somewhere.
    @Test func readmeLinksExist() throws {
        let readme = try String(contentsOf: packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let links = readme.matches(of: #/\]\(([^)#:]+)\)/#).map { String($0.output.1) }
        #expect(links.count >= 10)
        for link in links {
            #expect(FileManager.default.fileExists(atPath: packageRoot.appendingPathComponent(link).path), "README links to \(link)")
        }
    }

    @Test func benchmarkCommandsNameTheBenchmarkPackage() throws {
        let benchmarks = try blocks(in: "Benchmarks/README.md")
        let manifest = try String(contentsOf: packageRoot.appendingPathComponent("Benchmarks/Package.swift"), encoding: .utf8)
        for name in ["PredicateBenchmarks", "FetchBenchmarks"] {
            let block = try #require(benchmarks.first { $0.lines.contains { $0.contains(name) } })
            #expect(block.lines == ["cd Benchmarks && swift run -c release \(name)"])
            #expect(manifest.contains("name: \"\(name)\""))
        }
    }

    /// Both catalogs are there and read, with the articles the landing pages list.
    @Test func catalogsAreRead() throws {
        let files = try documentationFiles()
        for catalog in requiredCatalogs {
            #expect(files.contains { $0.hasPrefix(catalog + "/") }, "\(catalog) has no article")
        }
        #expect(files.count >= 12, "README.md, two landing pages and at least nine articles: \(files)")
    }

    @Test func everySwiftBlockIsHere() throws {
        let blocks = try swiftBlocks()
        #expect(blocks.count >= 13)
        var exemptionsUsed: Set<String> = []
        for block in blocks {
            if let documents = exemptBlocks[block.text] {
                #expect(documents.contains(block.document), "\(block.document) shows an exempt block it is not listed for")
                exemptionsUsed.insert(block.text)
                continue
            }
            // The SwiftData catalog's blocks are pasted into SwiftDataTests, which imports SwiftData.
            let file =
                block.document.hasPrefix("Sources/SwiftData/")
                ? packageRoot.appendingPathComponent(swiftDataExamples) : URL(fileURLWithPath: #filePath)
            let source = try String(contentsOf: file, encoding: .utf8).components(separatedBy: "\n")
            let imports = Set(source.filter { $0.hasPrefix("import ") })
            // Imports are this file's; the rest is pasted into a method or a class, indented.
            for line in block.lines where line.hasPrefix("import ") {
                #expect(imports.contains(line), "\(block.document) imports \(line), this file does not")
            }
            let body = Array(block.lines.drop { $0.hasPrefix("import ") || $0.isEmpty })
            let start = try #require(body.first, "\(block.document) has an empty swift block")
            let candidates = source.indices.filter { source[$0].hasSuffix(start) }
            let found = candidates.contains { index in
                let indent = String(source[index].dropLast(start.count))
                guard indent.allSatisfy({ $0 == " " }), index + body.count <= source.count else { return false }
                return zip(body, source[index...]).allSatisfy { shown, here in
                    shown.isEmpty ? here.isEmpty : here == indent + shown
                }
            }
            #expect(found, "\(block.document): block starting \"\(start)\" is not in \(file.lastPathComponent)")
        }
        #expect(exemptionsUsed == Set(exemptBlocks.keys), "an exemption no file uses any more")
    }

    /// Every block that shows output is one the tests below run and compare.
    @Test func everyPrintingBlockIsCompared() throws {
        for block in try swiftBlocks() where !block.expectedOutput.isEmpty {
            #expect(
                Example.allCases.contains { block.text.contains($0.rawValue) },
                "\(block.document): a block with `// output` comments that no test compares")
        }
    }

    /// The package excerpt names this package's product and a package name matching its URL.
    @Test func packageExcerptNamesWhatExists() throws {
        let manifest = try String(contentsOf: packageRoot.appendingPathComponent("Package.swift"), encoding: .utf8)
        #expect(manifest.contains(#".library(name: "CoreData", targets: ["CoreData"])"#))
        let url = try #require(packageExcerpt.firstMatch(of: #/\.package\(url: "([^"]+)"/#)?.output.1)
        #expect(packageExcerpt.contains(#"package: "\#(url.split(separator: "/").last ?? "")""#))
    }

    @Test func tour() throws {
        let examples = Examples()
        examples.tour()
        #expect(examples.printed == [#"city == "Leeds" AND age > 30"#, "false", #"["Cy", "Ann"]"#])
        try expectOutput(examples.printed, of: .tour)
    }

    @Test func keyValueCodable() throws {
        let examples = Examples()
        examples.keyValueCodable()
        #expect(examples.printed == [#"["Jo"]"#])
        try expectOutput(examples.printed, of: .keyValueCodable)
    }

    @Test func throwingTwins() throws {
        let examples = Examples()
        try examples.throwingTwins()
        #expect(examples.printed == ["true", "salary > 50000"])
        try expectOutput(examples.printed, of: .throwingTwins)
    }

    /// The model file the models example (GettingStarted.md) loads: the file Xcode would write for it.
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

    /// The example's model file, written to a temporary folder; `body` gets the `.xcdatamodeld`.
    private func withModelFile(_ body: (URL) throws -> Void) throws {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("readme-\(UUID().uuidString)/Company.xcdatamodeld/Company.xcdatamodel")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent().deletingLastPathComponent()) }
        try Self.modelFile.write(to: folder.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
        try body(folder.deletingLastPathComponent())
    }

    /// Two versions of a posts model, a store written with the first, and the
    /// article's container migrating it: the posts are there with the new attribute's default.
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

        let examples = Examples()
        try examples.modelVersions(postsModelURL: bundle, storeURL: storeURL)
        #expect(examples.printed == ["true"])
        try expectOutput(examples.printed, of: .modelVersions)
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
            let examples = Examples()
            try examples.contexts(model: try NSManagedObjectModel(validatingContentsOf: url))
            #expect(examples.printed == [#"["Cy", "Ann"]"#, "2"])
            try expectOutput(examples.printed, of: .contexts)
        }
    }

    @Test func streaming() throws {
        try withModelFile { url in
            let examples = Examples()
            try examples.streaming(model: try NSManagedObjectModel(validatingContentsOf: url))
            #expect(examples.printed == ["151000"])
            try expectOutput(examples.printed, of: .streaming)
        }
    }

    @Test func followingAFetch() throws {
        try withModelFile { url in
            let examples = Examples()
            try examples.followingAFetch(model: try NSManagedObjectModel(validatingContentsOf: url))
            #expect(examples.printed == [#"["Cy", "Ann", "Bob"]"#, #"["move Bob 2 → 0"]"#])
            try expectOutput(examples.printed, of: .followingAFetch)
        }
    }

    /// The block configures the description it shows (loading it needs the server it names).
    @Test func postgreSQL() throws {
        let container = NSPersistentContainer(name: "Shop", managedObjectModel: NSManagedObjectModel())
        Examples().postgreSQL(container: container)
        let description = try #require(container.persistentStoreDescriptions.first)
        #expect(container.persistentStoreDescriptions.count == 1)
        #expect(description.type == NSPostgreSQLStoreType)
        #expect(description.url?.absoluteString == "postgres://app:secret@db.internal/shop?schema=catalog")
        #expect((description.options[NSPersistentStoreConnectionPoolMaxSizeKey] as? NSNumber)?.intValue == 16)
        #expect((description.options[NSPersistentHistoryTrackingKey] as? NSNumber)?.boolValue == true)
    }

    @Test func models() throws {
        try withModelFile { url in
            let examples = Examples()
            try examples.models(modelURL: url)
            #expect(examples.printed == ["Employee", #"["name", "salary", "reports"]"#, "salary > 40000"])
            try expectOutput(examples.printed, of: .models)
        }
    }

    /// ValidationAndFaults.md's override calls the per-key method: an empty name fails the save
    /// with the method's error and nothing is written; a missing one and a real one save.
    @Test func perKeyValidation() throws {
        let person = NSEntityDescription()
        person.name = "Person"
        person.managedObjectClassName = "DocumentedPerson"
        let name = NSAttributeDescription()
        name.name = "name"
        name.attributeType = .stringAttributeType
        name.isOptional = true
        person.properties = [name]
        let model = NSManagedObjectModel()
        model.entities = [person]
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let empty = DocumentedPerson(entity: person, insertInto: context)
            empty.name = ""
            #expect(throws: (any Error).self) { try context.save() }
            let stored = NSFetchRequest<NSManagedObject>(entityName: "Person")
            stored.includesPendingChanges = false
            #expect(try context.count(for: stored) == 0, "the failed save wrote nothing")
            empty.name = nil
            try context.save()
            DocumentedPerson(entity: person, insertInto: context).name = "Ann"
            try context.save()
        }
        let saved = try context.performAndWait {
            try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person")).compactMap { $0.value(forKey: "name") as? String }
        }
        #expect(saved == ["Ann"])
    }
}
