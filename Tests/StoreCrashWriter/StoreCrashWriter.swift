import CoreData
import Foundation
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The writer the crash-safety tests (`Tests/StoreCrashTests`) run in a child process and kill
/// with `SIGKILL` at random points: it adds an SQLite store (creating it when missing) and saves
/// batches of rows, printing a line after each step so that the test knows what was
/// acknowledged. Not a product: it is built for the tests only.
///
/// Arguments (`key=value`): `store=PATH`, `journal=wal|delete`, `saves=N`, `items=K` (rows per
/// save), `fsize=BYTES` (runs under `RLIMIT_FSIZE` with `SIGXFSZ` ignored, so writes past it
/// fail with `EFBIG` as on a full disk), `user=nobody` (drops to uid/gid 65534 first, so a file
/// the test made read-only really is), `readonly=1` (adds the store with
/// `NSReadOnlyPersistentStoreOption`), `history=1` (adds it with `NSPersistentHistoryTrackingKey`
/// and saves as transaction author `writer`).
///
/// Output, one line each: `start` (before adding the store), `opened NEXT` (added; NEXT is the
/// first batch it will save), `ack B` (the save of batch B returned), `error CODE MESSAGE` and
/// then `kept INSERTED HASCHANGES` (a step threw; the context's state after it), `done`.
///
/// With `mode=migrate`, it migrates the store instead (`MigrationVersions.run(_:)`).
@main
enum StoreCrashWriter {
    static func main() {
        var options: [String: String] = [:]
        for argument in CommandLine.arguments.dropFirst() {
            let parts = argument.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { options[parts[0]] = parts[1] }
        }
        if options["mode"] == "migrate" { MigrationVersions.run(options) }
        guard let path = options["store"] else {
            say("error 0 usage: StoreCrashWriter store=PATH [journal=wal|delete] [saves=N] [items=K] [fsize=BYTES]")
            exit(2)
        }
        if let limit = options["fsize"].flatMap(UInt64.init) {
            signal(SIGXFSZ, SIG_IGN)
            var rlimitValue = rlimit(rlim_cur: rlim_t(limit), rlim_max: rlim_t(limit))
            guard setrlimit(Int32(RLIMIT_FSIZE.rawValue), &rlimitValue) == 0 else {
                say("error 0 setrlimit failed")
                exit(2)
            }
        }
        if options["user"] == "nobody" && getuid() == 0 {
            guard setgid(65534) == 0, setuid(65534) == 0 else {
                say("error 0 could not drop privileges")
                exit(2)
            }
        }
        let saves = options["saves"].flatMap(Int.init) ?? 1_000
        let items = options["items"].flatMap(Int.init) ?? 10
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model())
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        say("start")
        var storeOptions: [AnyHashable: Any] = [
            NSSQLitePragmasOption: ["journal_mode": (options["journal"] ?? "wal").uppercased() as NSString]
        ]
        if options["readonly"] == "1" { storeOptions[NSReadOnlyPersistentStoreOption] = true }
        if options["history"] == "1" {
            storeOptions[NSPersistentHistoryTrackingKey] = true
            context.transactionAuthor = "writer"
        }
        do {
            _ = try coordinator.addPersistentStore(
                ofType: NSSQLiteStoreType, configurationName: nil, at: URL(fileURLWithPath: path), options: storeOptions)
        } catch {
            fail(error, context: context)
        }
        let request = NSFetchRequest<NSDictionary>(entityName: "Item")
        request.resultType = .dictionaryResultType
        let highest = NSExpressionDescription()
        highest.name = "highest"
        highest.expression = NSExpression(forFunction: "max:", arguments: [NSExpression(forKeyPath: "batch")])
        highest.expressionResultType = .integer64AttributeType
        request.propertiesToFetch = [highest]
        var next = 1
        do {
            if let row = try context.fetch(request).first, let value = row["highest"] as? NSNumber { next = value.intValue + 1 }
        } catch {
            fail(error, context: context)
        }
        say("opened \(next)")
        let padding = String(repeating: "x", count: 400)
        for batch in next..<(next + saves) {
            for index in 0..<items {
                let item = NSManagedObject(
                    entity: coordinator.managedObjectModel.entitiesByName["Item"] ?? NSEntityDescription(), insertInto: context)
                item.setValue(Int64(batch), forKey: "batch")
                item.setValue(Int64(index), forKey: "index")
                item.setValue("\(batch)-\(index)-\(padding)", forKey: "payload")
            }
            do {
                try context.save()
            } catch {
                fail(error, context: context)
            }
            say("ack \(batch)")
        }
        say("done")
    }

    /// The model the tests open the store with too (`TestSupport`'s).
    static func model() -> NSManagedObjectModel { crashWriterModel() }

    static func fail(_ error: Error, context: NSManagedObjectContext) -> Never {
        let error = error as NSError
        say("error \(error.code) \(error.localizedDescription.replacingOccurrences(of: "\n", with: " "))")
        say("kept \(context.insertedObjects.count) \(context.hasChanges)")
        exit(3)
    }

    /// Writes a line to stdout at once (no buffering: the process may be killed next).
    static func say(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(1, buffer.baseAddress?.advanced(by: offset), buffer.count - offset)
                if written <= 0 { return }
                offset += written
            }
        }
    }
}
