import ArgumentParser
import CoreData

/// `coredata fetch`: runs one fetch request on a store and prints the results.
struct FetchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Run a fetch request on a store and print the results.",
        discussion: """
            Example: coredata fetch --model Model.xcdatamodeld --store Model.sqlite --entity Employee \
            --predicate "salary > 50000" --sort -salary,lastName --limit 10
            """)

    @OptionGroup var fetch: FetchOptions

    @Option(name: .long, help: "table (fits the terminal: COLUMNS, else its width, else 100), json or csv (exact).")
    var format: OutputFormat = .table

    func run() throws {
        let session = try FetchSession(fetch)
        let table = try session.resultTable()
        Console.print(table.rendered(as: format))
        if format == .table, fetch.resultKind != .count {
            Console.print("(\(table.rows.count) \(table.rows.count == 1 ? "row" : "rows"))")
        }
    }
}

/// `coredata count`: the number of results a fetch request would return (`count(for:)`).
struct CountCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "count", abstract: "Print the number of results of a fetch request (count(for:)).")

    @OptionGroup var fetch: FetchOptions

    func run() throws {
        let session = try FetchSession(fetch)
        Console.print(String(try session.count()))
    }
}

/// A model, a context on the store and the request the options describe, ready to run.
struct FetchSession {
    let options: FetchOptions
    let model: NSManagedObjectModel
    let builder: FetchRequestBuilder
    let request: NSFetchRequest<NSFetchRequestResult>
    let context: NSManagedObjectContext

    init(_ options: FetchOptions) throws {
        self.options = options
        model = try StoreOpener.model(at: options.model, orCachedIn: options.store)
        builder = FetchRequestBuilder(options: options, model: model)
        request = try builder.request()
        context = try StoreOpener.context(
            model: model, modelPath: options.model, storePath: options.store, write: options.write, migrate: options.migrate)
    }

    /// Runs the request and turns its results into a table.
    func resultTable() throws -> ResultTable {
        let entity = request.entity ?? NSEntityDescription()
        let shown = builder.shownProperties
        if request.resultType == .managedObjectResultType { try checkKeyPaths(shown, in: entity) }
        // The tool's context is a main-queue context and its commands run on the main thread: the
        // context is used directly, as Apple-platform code uses its view context.
        let results: [Any]
        do {
            results = try context.fetch(request)
        } catch {
            throw ToolError.wrapping(error, "can't fetch \(entity.name ?? "")")
        }
        switch request.resultType {
        case .managedObjectIDResultType:
            return .objectIDs(results.compactMap { $0 as? NSManagedObjectID })
        case .dictionaryResultType:
            return .dictionaries(results.compactMap { $0 as? NSDictionary }, request: request)
        case .countResultType:
            return ResultTable(columns: ["count"], rows: results.map { [Cell($0)] })
        default:
            return try .objects(results.compactMap { $0 as? NSManagedObject }, entity: entity, properties: shown)
        }
    }

    /// `count(for:)` of the request.
    func count() throws -> Int {
        do {
            return try context.count(for: request)
        } catch {
            throw ToolError.wrapping(error, "can't count \(request.entityName ?? "")")
        }
    }

    /// Every step of each `--properties` key path names a property, so that an unknown name is an
    /// error rather than a column of nils.
    private func checkKeyPaths(_ keyPaths: [String]?, in entity: NSEntityDescription) throws {
        for keyPath in keyPaths ?? [] {
            var current: NSEntityDescription? = entity
            for step in keyPath.split(separator: ".").map(String.init) {
                guard let here = current, let property = here.propertiesByName[step] else {
                    throw ToolError(
                        "--properties: \(current?.name ?? "a non-entity value") has no property named '\(step)' (in '\(keyPath)')"
                    )
                }
                current = (property as? NSRelationshipDescription)?.destinationEntity
            }
        }
    }
}
