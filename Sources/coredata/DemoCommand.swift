import ArgumentParser
import CoreData

/// `coredata demo`: builds a sample store and runs a tour of fetch requests on it.
struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Build a sample store (NSSQLiteStoreType) and run a tour of fetch requests on it.",
        discussion: """
            The model (Department, Employee, Manager) is built in code; 3,000 employees are written \
            in 8 departments, the same on every run. With --folder the store is kept there \
            (Company.sqlite, replaced if it exists, and the model as Company.xcdatamodel for `coredata fetch`); otherwise it goes to a temporary folder that \
            is removed at the end.
            """)

    @Option(name: .long, help: "A folder to write Company.sqlite into and keep (default: a temporary folder).")
    var folder: String?

    func run() throws {
        let keep = folder != nil
        let folderURL =
            folder.map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("coredata-demo-\(UUID().uuidString)")
        let storeURL = folderURL.appendingPathComponent("Company.sqlite")
        defer { if !keep { try? FileManager.default.removeItem(at: folderURL) } }
        do {
            try FileManager.default.createDirectory(at: folderURL, withIntermediateDirectories: true)
            for suffix in ["", "-wal", "-shm"] {
                let file = URL(fileURLWithPath: storeURL.path + suffix)
                if FileManager.default.fileExists(atPath: file.path) { try FileManager.default.removeItem(at: file) }
            }
        } catch {
            throw ToolError.wrapping(error, "can't prepare the folder \(folderURL.path)")
        }

        let model = DemoModel.make()
        let modelURL = folderURL.appendingPathComponent("Company.xcdatamodel")
        do {
            try model.writeXcodeModel(to: modelURL)
        } catch {
            throw ToolError.wrapping(error, "can't write the demo model \(modelURL.path)")
        }
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        do {
            try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: storeURL)
        } catch {
            throw ToolError.wrapping(error, "can't create the demo store \(storeURL.path)")
        }
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator

        let started = Date()
        // The tool runs on the main thread, where the main-queue context is used directly.
        try DemoData.fill(context) { written, total in
            Console.progress("Writing employees: \(written) of \(total)…", done: written == total)
        }
        let seconds = Date().timeIntervalSince(started)
        Console.print("OpenCoreData demo: a model built in code (Department, Employee, its sub-entity Manager),")
        Console.print(
            "\(DemoData.employeeCount) employees in \(DemoData.departmentNames.count) departments saved to an NSSQLiteStoreType store"
                + " in \(String(format: "%.1f", seconds)) s.")
        Console.print("Store: \(keep ? storeURL.path : "a temporary folder, removed at the end (use --folder PATH to keep it)")")

        context.reset()
        var tour = DemoTour(context: context)
        try tour.run()
        Console.print("\nEvery request above ran through NSManagedObjectContext.fetch(_:) or count(for:) on the SQLite file.")
        if keep {
            Console.print(
                "Try: coredata fetch --model \(modelURL.path) --store \(storeURL.path) --entity Manager"
                    + " --sort=-salary --limit 5 --properties firstName,lastName,salary,department.name,reports")
        }
    }
}
