import ArgumentParser
import CoreData

/// `coredata copy`: a store moved between SQLite and PostgreSQL, keys and all.
struct CopyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "copy",
        abstract: "Copy a store between SQLite and PostgreSQL (either way), keeping primary keys, Z_MAX and the UUID.",
        discussion: """
            Example: coredata copy --store App.sqlite --to "postgres://app@db/shop?schema=catalog". \
            The store (--store, or SOURCE) and the destination (--to, or DESTINATION) are SQLite files or postgres://user:password@host:port/database?schema=name \
            URLs. The source is opened read-only; the destination is created (a new file, or the store's tables \
            in its schema) and must hold no rows. The copy is one transaction. An app's device store can so be \
            served from PostgreSQL, and a server's data written back to a file Apple's Core Data opens.
            """)

    @Option(
        name: .long,
        help: "The model (.xcdatamodeld, .xcdatamodel or contents file; default: the model a SQLite source caches).")
    var model: String?

    @Option(name: .long, help: "The store to copy: a SQLite file or a postgres:// URL.")
    var store: String?

    @Option(name: .long, help: "Where the copy goes: a new SQLite file or a postgres:// URL.")
    var to: String?

    @Argument(help: "SOURCE DESTINATION, as --store and --to give them (the older spelling).")
    var paths: [String] = []

    func validate() throws {
        guard (store == nil) == (to == nil), store == nil ? paths.count == 2 : paths.isEmpty else {
            throw ValidationError("give --store SOURCE --to DESTINATION (or SOURCE DESTINATION)")
        }
    }

    /// The store to copy.
    private var source: String { store ?? paths.first ?? "" }

    /// Where the copy goes.
    private var destination: String { to ?? paths.last ?? "" }

    func run() throws {
        let model = try StoreOpener.model(at: model, orCachedIn: source)
        let context = try StoreOpener.context(model: model, storePath: source, write: false)
        guard let coordinator = context.persistentStoreCoordinator, let store = coordinator.persistentStores.first else {
            throw ToolError("can't open the store \(StoreOpener.redacted(source))")
        }
        let (type, url) = try StoreOpener.location(destination)
        if type == NSSQLiteStoreType, FileManager.default.fileExists(atPath: url.path) {
            throw ToolError("\(destination) exists already; copy into a new file")
        }
        let counts = try model.entities.filter { $0.superentity == nil }.map { entity -> Int in
            try context.count(for: NSFetchRequest<NSManagedObject>(entityName: entity.name ?? ""))
        }
        do {
            try ProgressLine(verb: "copying", rows: counts.reduce(0, +)).run {
                _ = try coordinator.migratePersistentStore(store, to: url, withType: type)
            }
        } catch {
            if type == NSSQLiteStoreType {
                // Nothing half made is left behind.
                for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
            }
            throw ToolError.wrapping(
                error, "can't copy \(StoreOpener.redacted(source)) to \(StoreOpener.redacted(destination))")
        }
        Console.print(
            "copied \(counts.reduce(0, +)) objects from \(StoreOpener.redacted(source)) to \(StoreOpener.redacted(destination))")
    }
}
