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

    /// A main-queue context on the SQLite store at `path`, opened read-only unless `write`.
    ///
    /// The file must exist (the tool never creates a store), be a Core Data SQLite store, and
    /// match the model's version hashes.
    static func context(model: NSManagedObjectModel, storePath path: String, write: Bool) throws -> NSManagedObjectContext {
        let url = URL(fileURLWithPath: path)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw ToolError("no store file at \(path)")
        }
        guard !isDirectory.boolValue else { throw ToolError("the store \(path) is a folder, not a SQLite file") }
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        var options: [AnyHashable: Any] = [:]
        if !write { options[NSReadOnlyPersistentStoreOption] = true }
        do {
            try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: options)
        } catch {
            throw ToolError.wrapping(error, "can't open the store \(path)")
        }
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }
}
