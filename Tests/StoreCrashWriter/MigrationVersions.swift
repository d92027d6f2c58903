import CoreData
import Foundation
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

// The child-process side of the kill-during-migration trials; the model versions and the
// source store are `TestSupport`'s `MigrationVersions`.
extension MigrationVersions {
    /// The child side of a trial: migrates the store at `options["store"]` in place from version
    /// 1 to version 2 with `NSMigrationManager`, saying `migrating` just before and `migrated`
    /// after; `error CODE MESSAGE` when it throws. With `read=1` it instead opens the store with
    /// version 1 and reads all its people over and over, saying `read SEQ count PEOPLE NAMED`
    /// (the people fetched, and how many had a full name) or `read SEQ failed CODE` each time,
    /// until killed.
    static func run(_ options: [String: String]) -> Never {
        let url = URL(fileURLWithPath: options["store"] ?? "")
        if options["read"] == "1" { read(url) }
        let source = version1()
        let destination = version2()
        do {
            let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: source, destinationModel: destination)
            let manager = NSMigrationManager(sourceModel: source, destinationModel: destination)
            StoreCrashWriter.say("migrating")
            try manager.migrateStore(
                from: url, sourceType: NSSQLiteStoreType, options: nil, with: mapping, toDestinationURL: url,
                destinationType: NSSQLiteStoreType, destinationOptions: nil)
            StoreCrashWriter.say("migrated")
        } catch {
            let error = error as NSError
            StoreCrashWriter.say("error \(error.code) \(error.localizedDescription.replacingOccurrences(of: "\n", with: " "))")
            exit(3)
        }
        exit(0)
    }

    private static func read(_ url: URL) -> Never {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: version1())
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        do {
            _ = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        } catch {
            StoreCrashWriter.say("error \((error as NSError).code) \(error.localizedDescription)")
            exit(3)
        }
        StoreCrashWriter.say("opened")
        var sequence = 0
        while true {
            sequence += 1
            do {
                let people = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person"))
                let named = people.filter { ($0.value(forKey: "fullName") as? String) != nil }.count
                StoreCrashWriter.say("read \(sequence) count \(people.count) \(named)")
                context.reset()
            } catch {
                StoreCrashWriter.say("read \(sequence) failed \((error as NSError).code)")
            }
            usleep(2_000)
        }
    }
}
