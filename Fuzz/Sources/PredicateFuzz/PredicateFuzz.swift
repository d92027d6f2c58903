import CoreData
import Foundation
import FuzzerDriver

// One fuzz input: bytes read as a format string (invalid UTF-8 repaired), then
//
// 1. parsed as a predicate with the throwing parser; when it parses, printed and parsed back
//    (the printed form must parse), evaluated with the throwing twin on a sample dictionary, and
//    fetched through an in-memory and an SQLite store (the SQL compiler, the registered SQL
//    functions, the in-memory engine over saved rows and over a pending insert);
// 2. parsed as an expression; when it parses, printed and parsed back, and evaluated with the
//    throwing twin.
//
// Errors thrown are the expected outcome for most inputs; a crash, a trap, an AddressSanitizer
// report or a hang (libFuzzer's -timeout) is a finding.

/// Stores, contexts and a sample object, made once per process.
final class FuzzWorld {
    let memory: NSManagedObjectContext
    let sqlite: NSManagedObjectContext
    let folder: URL
    let sample: [String: Any] = [
        "name": "Jo\u{301}e\r\n", "age": 42, "salary": 5.5, "hired": Date(timeIntervalSince1970: 1e9),
        "tags": ["a", "b"], "department": ["title": "R&D", "size": 3], "data": Data([0, 1, 2]),
        "nothing": NSNull(),
    ]

    static let shared = FuzzWorld()

    private init() {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("PredicateFuzz-\(getpid())")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let model = Self.model()
        memory = Self.context(model: model, type: NSInMemoryStoreType, url: nil)
        sqlite = Self.context(model: model, type: NSSQLiteStoreType, url: folder.appendingPathComponent("Fuzz.sqlite"))
        atexit {
            try? FileManager.default.removeItem(at: FuzzWorld.shared.folder)
        }
    }

    /// Employee: name, nick (strings), age (Int64), salary (Double), hired (Date), blob (Data),
    /// department (to-one); Department: title, employees (to-many).
    static func model() -> NSManagedObjectModel {
        func attribute(_ name: String, _ type: NSAttributeType) -> NSAttributeDescription {
            let attribute = NSAttributeDescription()
            attribute.name = name
            attribute.attributeType = type
            attribute.isOptional = true
            return attribute
        }
        let employee = NSEntityDescription()
        employee.name = "Employee"
        let department = NSEntityDescription()
        department.name = "Department"
        let toDepartment = NSRelationshipDescription()
        toDepartment.name = "department"
        toDepartment.destinationEntity = department
        toDepartment.maxCount = 1
        toDepartment.isOptional = true
        let toEmployees = NSRelationshipDescription()
        toEmployees.name = "employees"
        toEmployees.destinationEntity = employee
        toEmployees.maxCount = 0
        toEmployees.isOptional = true
        toDepartment.inverseRelationship = toEmployees
        toEmployees.inverseRelationship = toDepartment
        employee.properties = [
            attribute("name", .stringAttributeType), attribute("nick", .stringAttributeType),
            attribute("age", .integer64AttributeType), attribute("salary", .doubleAttributeType),
            attribute("hired", .dateAttributeType), attribute("blob", .binaryDataAttributeType), toDepartment,
        ]
        department.properties = [attribute("title", .stringAttributeType), toEmployees]
        let model = NSManagedObjectModel()
        model.entities = [employee, department]
        return model
    }

    static func context(model: NSManagedObjectModel, type: String, url: URL?) -> NSManagedObjectContext {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        do {
            try coordinator.addPersistentStore(ofType: type, configurationName: nil, at: url, options: nil)
        } catch {
            print("PredicateFuzz: cannot open the \(type) store: \(error)")
            exit(2)
        }
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let names = ["Ann", "e\u{301}x", "x\r\nb", "\u{1FEF}a", "a\u{0}b", "Straße", "", "(", "K"]
        var departments: [NSManagedObject] = []
        for title in ["R&D", "Sales", "\u{212A}"] {
            let department = NSManagedObject(entity: model.entitiesByName["Department"]!, insertInto: context)
            department.setValue(title, forKey: "title")
            departments.append(department)
        }
        for (index, name) in names.enumerated() {
            let employee = NSManagedObject(entity: model.entitiesByName["Employee"]!, insertInto: context)
            employee.setValue(name, forKey: "name")
            employee.setValue(names[(index + 3) % names.count], forKey: "nick")
            employee.setValue(Int64(index * 7 - 20), forKey: "age")
            employee.setValue(Double(index) * 1.5, forKey: "salary")
            employee.setValue(Date(timeIntervalSince1970: Double(index) * 1e8), forKey: "hired")
            employee.setValue(Data([UInt8(index)]), forKey: "blob")
            if index % 4 != 3 { employee.setValue(departments[index % departments.count], forKey: "department") }
        }
        do {
            try context.save()
        } catch {
            print("PredicateFuzz: cannot save the \(type) store: \(error)")
            exit(2)
        }
        // One pending insert, so that fetches also evaluate in memory against unsaved objects.
        let pending = NSManagedObject(entity: model.entitiesByName["Employee"]!, insertInto: context)
        pending.setValue("pending \u{1FEF}a", forKey: "name")
        pending.setValue(Int64(99), forKey: "age")
        return context
    }

    func run(_ format: String) {
        if let predicate = try? NSPredicate(validatingFormat: format) {
            runPredicate(predicate, format: format)
        }
        if let expression = try? NSExpression(validatingFormat: format) {
            runExpression(expression, format: format)
        }
    }

    private func runPredicate(_ predicate: NSPredicate, format: String) {
        let printed = predicate.predicateFormat
        if (try? NSPredicate(validatingFormat: printed)) == nil, ProcessInfo.processInfo.environment["FUZZ_STRICT"] != nil {
            fatalError("The printed predicate does not parse: \(format.debugDescription) printed as \(printed.debugDescription)")
        }
        _ = try? predicate.evaluate(validating: sample, substitutionVariables: ["x": 1])
        for context in [memory, sqlite] {
            for entity in ["Employee", "Department"] {
                let request = NSFetchRequest<NSManagedObject>(entityName: entity)
                request.predicate = predicate
                _ = try? context.fetch(request)
                _ = try? context.count(for: request)
            }
        }
    }

    private func runExpression(_ expression: NSExpression, format: String) {
        _ = expression.description
        _ = try? expression.expressionValue(validating: sample, context: nil)
    }
}

/// One input, as libFuzzer calls it.
func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data else { return 0 }
    let format = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    FuzzWorld.shared.run(format)
    return 0
}

@main
enum PredicateFuzz {
    static func main() {
        // The stores are made before the first input, so that their allocations are not
        // counted against it.
        _ = FuzzWorld.shared
        guard fuzzer_driver_available() != 0 else { return replay() }
        // libFuzzer's loop, with its command-line options (`-max_total_time=…`, corpus folders).
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(fuzzer_driver_run(&argc, &argv) { data, size in fuzzTestOneInput(data, size) })
    }

    /// Without libFuzzer: runs each file named on the command line (or every file in a folder)
    /// as one input, and reports how many ran.
    static func replay() {
        var count = 0
        for path in CommandLine.arguments.dropFirst() {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { continue }
            let files =
                isFolder.boolValue
                ? ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted().map { path + "/" + $0 }
                : [path]
            for file in files {
                guard let data = FileManager.default.contents(atPath: file) else { continue }
                _ = data.withUnsafeBytes { bytes in
                    fuzzTestOneInput(bytes.bindMemory(to: UInt8.self).baseAddress, bytes.count)
                }
                count += 1
            }
        }
        print("PredicateFuzz: ran \(count) inputs")
    }
}
