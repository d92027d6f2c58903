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

    @Option(
        name: .long,
        help: "table (fits the terminal: COLUMNS, else its width, else 100), json, ndjson (an object a line) or csv (exact).")
    var format: OutputFormat = .table

    func run() throws {
        let session = try FetchSession(fetch)
        let writer = format.writer(width: Console.width, output: Console.write)
        let rowCount = try session.write(to: writer)
        if format == .table, fetch.resultKind != .count {
            Console.print("(\(rowCount) \(rowCount == 1 ? "row" : "rows"))")
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

    /// How many objects each query of a streamed fetch reads.
    static let batchSize = 1000

    /// Runs the request and writes its results to `writer` as they come; returns how many rows
    /// were written.
    ///
    /// Objects and object IDs stream (`objects(for:batchSize:)`): a batch of objects is alive at
    /// a time, so that memory stays flat however many rows match. A request the stream does not
    /// take (sorts through a to-many relationship, say) is fetched whole, as are dictionaries
    /// (their columns may depend on every result) and counts.
    func write(to writer: RowWriter) throws -> Int {
        let entity = request.entity ?? NSEntityDescription()
        switch request.resultType {
        case .managedObjectResultType, .managedObjectIDResultType:
            let ids = request.resultType == .managedObjectIDResultType
            if !ids { try checkKeyPaths(builder.shownProperties, in: entity) }
            let rows = ObjectRows(entity: entity, properties: builder.shownProperties)
            writer.begin(columns: ids ? ["objectID"] : rows.columns)
            var count = 0
            try forEachObject { object in
                writer.write(ids ? [.object(object.objectID)] : try rows.row(object))
                count += 1
            }
            writer.end()
            return count
        case .dictionaryResultType:
            let dictionaries = try fetch(request).compactMap { $0 as? NSDictionary }
            let rows = DictionaryRows(dictionaries, request: request)
            writer.begin(columns: rows.columns)
            for dictionary in dictionaries { writer.write(rows.row(dictionary)) }
            writer.end()
            return dictionaries.count
        default:
            let results = try fetch(request)
            writer.begin(columns: ["count"])
            for result in results { writer.write([Cell(result)]) }
            writer.end()
            return results.count
        }
    }

    /// Calls `body` with each object the request matches, a batch at a time when the stream
    /// takes the request, else after fetching them all.
    private func forEachObject(_ body: (NSManagedObject) throws -> Void) throws {
        let objectRequest = NSFetchRequest<NSManagedObject>(entityName: request.entityName ?? "")
        objectRequest.entity = request.entity
        objectRequest.predicate = request.predicate
        objectRequest.sortDescriptors = request.sortDescriptors
        objectRequest.fetchLimit = request.fetchLimit
        objectRequest.fetchOffset = request.fetchOffset
        objectRequest.includesSubentities = request.includesSubentities
        objectRequest.relationshipKeyPathsForPrefetching = request.relationshipKeyPathsForPrefetching
        // The tool's context is a main-queue context and its commands run on the main thread: the
        // context is used directly, as Apple-platform code uses its view context.
        guard let objects = try? context.objects(for: objectRequest, batchSize: Self.batchSize) else {
            for object in try fetch(objectRequest) { try body(object) }
            return
        }
        var iterator = objects.makeIterator()
        do {
            while let object = try iterator.nextObject() { try body(object) }
        } catch let error as ToolError {
            throw error
        } catch {
            throw ToolError.wrapping(error, "can't fetch \(request.entityName ?? "")")
        }
    }

    /// A request's results, fetched whole.
    private func fetch<Result>(_ request: NSFetchRequest<Result>) throws -> [Result] {
        do {
            return try context.fetch(request)
        } catch {
            throw ToolError.wrapping(error, "can't fetch \(request.entityName ?? "")")
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
