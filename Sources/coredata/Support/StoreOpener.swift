import CoreData

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
    static func context(model: NSManagedObjectModel, storePath path: String, write: Bool) throws -> NSManagedObjectContext {
        let (type, url) = try location(path)
        if type == NSSQLiteStoreType {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
                throw ToolError("no store file at \(path)")
            }
            guard !isDirectory.boolValue else { throw ToolError("the store \(path) is a folder, not a SQLite file") }
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
            try coordinator.addPersistentStore(
                ofType: type, configurationName: nil, at: url, options: [NSReadOnlyPersistentStoreOption: !write])
        } catch {
            throw ToolError.wrapping(error, "can't open the store \(redacted(path))")
        }
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }
}
