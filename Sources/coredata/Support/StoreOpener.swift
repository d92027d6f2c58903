import CoreData
import OpenCoreData

/// Loads model files and opens stores the way every command does, turning each failure into one
/// line that names the file.
enum StoreOpener {
    /// The model in `path`: an `.xcdatamodeld` or `.xcdatamodel` folder, or a `contents` XML file.
    static func model(at path: String) throws -> NSManagedObjectModel {
        let url = URL(fileURLWithPath: path)
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw ToolError("no model file or folder at \(path)")
        }
        do {
            return try NSManagedObjectModel(validatingContentsOf: url)
        } catch {
            throw ToolError.wrapping(error, "can't load the model \(path)")
        }
    }

    /// The model given with `--model`, else the one the store at `storePath` caches
    /// (`Z_MODELCACHE`, which Apple's Core Data writes into the stores of recent versions).
    static func model(at path: String?, orCachedIn storePath: String) throws -> NSManagedObjectModel {
        if let path { return try model(at: path) }
        let (type, url) = try location(storePath)
        guard type == NSSQLiteStoreType else {
            throw ToolError("a PostgreSQL store keeps no copy of its model: give --model")
        }
        guard FileManager.default.fileExists(atPath: url.path) else { throw ToolError("no store file at \(storePath)") }
        let cached: NSManagedObjectModel?
        do {
            cached = try NSManagedObjectModel.cachedModel(ofStoreAt: url)
        } catch {
            throw ToolError.wrapping(error, "can't read the model cached in \(storePath) (give --model)")
        }
        guard let cached else {
            throw ToolError(
                "the store \(storePath) keeps no copy of its model (no Z_MODELCACHE table, as in stores of older "
                    + "versions of Core Data): give --model")
        }
        return cached
    }

    /// Where a store named on the command line lives: a `postgres://` (or `postgresql://`) URL
    /// names a PostgreSQL store, anything else a SQLite file.
    static func location(_ text: String) throws -> (type: String, url: URL) {
        let lowered = text.lowercased()
        guard lowered.hasPrefix("postgres://") || lowered.hasPrefix("postgresql://") else {
            return (NSSQLiteStoreType, URL(fileURLWithPath: text))
        }
        guard let url = URL(string: text) else { throw ToolError("\(redacted(text)) is not a valid URL") }
        return (NSPostgreSQLStoreType, url)
    }

    /// A store named on the command line as messages may show it: a URL's password replaced by
    /// `***`.
    static func redacted(_ text: String) -> String {
        guard let scheme = text.range(of: "://"), let at = text[scheme.upperBound...].firstIndex(of: "@"),
            let colon = text[scheme.upperBound..<at].firstIndex(of: ":")
        else { return text }
        return String(text[...colon]) + "***" + String(text[at...])
    }

    /// A main-queue context on the store at `path` (a SQLite file, or a `postgres://` URL),
    /// opened read-only unless `write`.
    ///
    /// A file must exist (the tool never creates a store), be a Core Data SQLite store, and
    /// match the model's version hashes; a PostgreSQL store must exist in its schema.
    ///
    /// A store written with another version of the model (found among the versions of
    /// `modelPath`, or the model the store caches): with `migrate`, a copy of it is migrated and opened (the store itself, with
    /// `write`), after a report of what changed on stderr; without, a read-only open whose
    /// differences leave the store's tables as they are goes ahead with a warning listing them,
    /// and anything else is an error saying what differs. A store of no version of the model
    /// opens read-only when its tables hold every table and column the model reads (the store
    /// refuses otherwise, naming what is missing), with a warning naming the entities whose
    /// version hashes differ; it is refused when opened to write
    /// (`NSPersistentStoreIncompatibleVersionHashError`).
    static func context(
        model: NSManagedObjectModel, modelPath: String? = nil, storePath path: String, write: Bool, migrate: Bool = false
    ) throws -> NSManagedObjectContext {
        var (type, url) = try location(path)
        if type == NSSQLiteStoreType {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
                throw ToolError("no store file at \(path)")
            }
            guard !isDirectory.boolValue else { throw ToolError("the store \(path) is a folder, not a SQLite file") }
        }
        var options: [AnyHashable: Any] = [NSReadOnlyPersistentStoreOption: !write]
        // The entities whose version hashes differ, when the store opens read-only without a
        // version of the model that matches it.
        var unmatched: [String]?
        if let metadata = try? NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: type, at: url),
            !model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata)
        {
            // A version of the model file, else the model the store caches, that is the store's.
            let storeModel =
                modelPath.flatMap { NSManagedObjectModel.versions(at: URL(fileURLWithPath: $0)) }?.first {
                    $0.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata)
                }
                ?? (type == NSSQLiteStoreType ? try? NSManagedObjectModel.cachedModel(ofStoreAt: url) : nil).flatMap {
                    $0.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata) ? $0 : nil
                }
            if migrate {
                url = try migrated(url, type: type, path: path, from: storeModel, to: model, inPlace: write)
            } else if let storeModel {
                let differences = ModelDifferences(from: storeModel, to: model)
                let what = differences.lines.joined(separator: "; ")
                guard !write, !differences.changesLayout else {
                    throw ToolError(
                        "the store \(redacted(path)) was written with another version of the model (\(what)); --migrate "
                            + "migrates a copy of it (with --write, the store itself)")
                }
                Console.warning(
                    "the store \(redacted(path)) was written with another version of the model; opened read-only, as the "
                        + "differences leave its tables as they are: \(what)")
                options[NSIgnorePersistentStoreVersioningOption] = true
            } else if !write {
                // No version of the model is the store's: read-only, it opens when its tables hold
                // every table and column this model reads (the store checks as it opens).
                options[NSIgnorePersistentStoreVersioningOption] = true
                unmatched = differingEntities(model, metadata)
            }
        }
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        do {
            if type == NSPostgreSQLStoreType && write {
                // Opened read-only first, which fails when there is no store: the tool never
                // creates one.
                try coordinator.remove(
                    coordinator.addPersistentStore(
                        ofType: type, configurationName: nil, at: url, options: [NSReadOnlyPersistentStoreOption: true]))
            }
            try coordinator.addPersistentStore(ofType: type, configurationName: nil, at: url, options: options)
        } catch {
            if let unmatched {
                throw ToolError.wrapping(
                    error,
                    "can't open the store \(redacted(path)): it was written with another model (version hashes differ for "
                        + "\(unmatched.joined(separator: ", "))), and its tables do not hold what this model reads")
            }
            throw ToolError.wrapping(error, "can't open the store \(redacted(path))")
        }
        if let unmatched {
            Console.warning(
                "the store \(redacted(path)) was not written with this model (version hashes differ for "
                    + "\(unmatched.joined(separator: ", "))); opened read-only, as its tables hold every column the model reads")
        }
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// The objects of the store at `url`, opened read-only with `model`, the store's own; 0
    /// when it can't be opened (the migration that follows says why).
    private static func objectCount(at url: URL, type: String, model: NSManagedObjectModel) -> Int {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        guard
            let store = try? coordinator.addPersistentStore(
                ofType: type, configurationName: nil, at: url, options: [NSReadOnlyPersistentStoreOption: true])
        else { return 0 }
        defer { try? coordinator.remove(store) }
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context.performAndWait {
            model.entities.filter { $0.superentity == nil }.reduce(0) { total, entity in
                total + ((try? context.count(for: NSFetchRequest<NSManagedObject>(entityName: entity.name ?? ""))) ?? 0)
            }
        }
    }

    /// The model's entities whose version hashes are not the store's (`NSStoreModelVersionHashes`
    /// in its metadata), and the store's entities the model lacks, sorted.
    private static func differingEntities(_ model: NSManagedObjectModel, _ metadata: [String: Any]) -> [String] {
        let stored = metadata[NSStoreModelVersionHashesKey] as? [String: Any] ?? [:]
        let hashes = model.entityVersionHashesByName
        let differing = hashes.filter { name, hash in (stored[name] as? Data) != hash }.keys
        return (Array(differing) + stored.keys.filter { hashes[$0] == nil }).sorted()
    }

    /// Migrates the store (or, unless `inPlace`, a copy of it in a temporary folder) from
    /// `storeModel` to `model`, reporting what changed; the URL of the migrated store.
    private static func migrated(
        _ url: URL, type: String, path: String, from storeModel: NSManagedObjectModel?, to model: NSManagedObjectModel,
        inPlace: Bool
    ) throws -> URL {
        guard let storeModel else {
            throw ToolError(
                "can't migrate \(redacted(path)): no version of the model file has the store's version hashes, and the "
                    + "store caches no model that has them (give the .xcdatamodeld that holds every version)")
        }
        guard inPlace || type == NSSQLiteStoreType else {
            throw ToolError("--migrate on a PostgreSQL store migrates the store itself: add --write")
        }
        let target =
            inPlace
            ? url
            : FileManager.default.temporaryDirectory.appendingPathComponent("coredata-migrate-\(UUID().uuidString)")
                .appendingPathComponent(url.lastPathComponent)
        if !inPlace {
            try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        }
        for line in ModelDifferences(from: storeModel, to: model).lines { Console.note("migrating \(line)") }
        do {
            let rows = ProgressLine.isShown ? objectCount(at: url, type: type, model: storeModel) : 0
            try ProgressLine(verb: "migrating", rows: rows).run {
                try NSMigrationManager(sourceModel: storeModel, destinationModel: model).migrateStore(
                    from: url, sourceType: type, with: nil, toDestinationURL: target, destinationType: type)
            }
        } catch {
            throw ToolError.wrapping(error, "can't migrate the store \(redacted(path))")
        }
        Console.note(
            inPlace
                ? "migrated \(redacted(path)) in place"
                : "migrated a copy of \(redacted(path)) at \(target.path); the store is unchanged")
        return target
    }
}
