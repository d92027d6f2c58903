import Foundation
import OpenCoreData
import TestSupport
import Testing

/// Two contexts of one coordinator pass their saves to each other with
/// `mergeChanges(fromContextDidSave:)`, the pattern of a background context and a view context,
/// on both store types. Each round one side makes random changes (attributes, nils, department
/// moves, inserts, deletes) and saves; the other, holding unsaved changes of its own to some
/// salaries, merges the notification. Every object the merging side knows must then show the
/// saved values with its own unsaved changes on top, objects deleted by the saver must have left
/// it, and after it saves in turn (no conflict: the merge brought its snapshots up to date) and
/// the first merges back, both sides must hold the same values. Seeded.
@Suite struct RandomMergeNotificationTests {
    /// An employee's values as both contexts should show them.
    struct Values: Equatable, CustomStringConvertible {
        var name: String
        var salary: Decimal?
        var born: Date?
        var department: String?

        init(_ object: NSManagedObject) {
            name = object.value(forKey: "name") as? String ?? "?"
            salary = object.value(forKey: "salary") as? Decimal
            born = object.value(forKey: "born") as? Date
            department = (object.value(forKey: "department") as? NSManagedObject)?.value(forKey: "title") as? String
        }

        var description: String {
            "\(name) \(salary.map { "\($0)" } ?? "-") \(born.map { "\($0.timeIntervalSinceReferenceDate)" } ?? "-") \(department ?? "-")"
        }
    }

    /// Saves a context and returns its `NSManagedObjectContextDidSave` (nil when it had nothing
    /// to save).
    static func save(_ context: NSManagedObjectContext) throws -> Notification? {
        var saved: Notification?
        let observer = NotificationCenter.default.addObserver(
            forName: .NSManagedObjectContextDidSave, object: context, queue: nil
        ) { saved = $0 }
        defer { NotificationCenter.default.removeObserver(observer) }
        try context.save()
        return saved
    }

    @Test(arguments: ContextFixture.storeTypes, [UInt64(1), 2])
    func savesMergedBothWays(_ storeType: String, _ seed: UInt64) throws {
        let fixture = try ContextFixture(storeType: storeType)
        let contexts = [fixture.context, fixture.freshContext()]
        var random = SplitMix64(seed: seed)
        func int(_ bound: Int) -> Int { Int.random(in: 0..<bound, using: &random) }
        var serial = 0
        func employees(in context: NSManagedObjectContext) throws -> [NSManagedObject] {
            try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Employee")).sorted {
                "\($0.objectID.uriRepresentation())" < "\($1.objectID.uriRepresentation())"
            }
        }
        let departments = try contexts.map { context in
            try context.fetch(fixture.request("Department", sort: [("title", true)]))
        }
        for index in 0..<20 {
            let employee = NSManagedObject(entity: fixture.model[entity: "Employee"], insertInto: contexts[0])
            employee.setValue("S\(index)", forKey: "name")
            employee.setValue(Decimal(index) * 500, forKey: "salary")
            employee.setValue(departments[0][index % 2], forKey: "department")
        }
        try contexts[0].save()
        // Both sides know every employee before the rounds start.
        for context in contexts { for employee in try employees(in: context) { _ = employee.value(forKey: "name") } }
        for round in 0..<10 {
            let (saver, merger) = round.isMultiple(of: 2) ? (0, 1) : (1, 0)
            let label = "\(storeType) seed \(seed) round \(round)"
            // The merging side's own unsaved changes: some salaries.
            var local: [NSManagedObjectID: Decimal] = [:]
            for employee in try employees(in: contexts[merger]) where int(5) == 0 {
                let salary = Decimal(int(100)) * 100 + 1
                employee.setValue(salary, forKey: "salary")
                local[employee.objectID] = salary
            }
            // The saving side's changes.
            for employee in try employees(in: contexts[saver]) where local[employee.objectID] == nil {
                switch int(8) {
                case 0: employee.setValue(int(3) == 0 ? nil : Decimal(int(200)) * 1_000, forKey: "salary")
                case 1:
                    employee.setValue(
                        int(3) == 0 ? nil : Date(timeIntervalSinceReferenceDate: Double(int(50)) * 3_600), forKey: "born")
                case 2: employee.setValue(departments[saver].randomElement(using: &random), forKey: "department")
                case 3: employee.setValue(nil, forKey: "department")
                case 4 where int(2) == 0: contexts[saver].delete(employee)
                default: break
                }
            }
            for _ in 0..<int(3) {
                serial += 1
                let employee = NSManagedObject(entity: fixture.model[entity: "Employee"], insertInto: contexts[saver])
                employee.setValue("N\(serial)", forKey: "name")
                employee.setValue(Decimal(serial), forKey: "salary")
                employee.setValue(departments[saver].randomElement(using: &random), forKey: "department")
            }
            let notification = try #require(try Self.save(contexts[saver]), "\(label)")
            contexts[merger].mergeChanges(fromContextDidSave: notification)

            // The merging side: saved values, its own salaries on top; deleted objects gone.
            let savedValues = Dictionary(
                uniqueKeysWithValues: try employees(in: contexts[saver]).map { ($0.objectID, Values($0)) })
            for employee in try employees(in: contexts[merger]) {
                guard var expected = savedValues[employee.objectID] else {
                    Issue.record("\(label): \(Values(employee)) is still in the merging context")
                    continue
                }
                if let salary = local[employee.objectID] { expected.salary = salary }
                #expect(Values(employee) == expected, "\(label) \(employee.objectID)")
            }
            #expect(try employees(in: contexts[merger]).count == savedValues.count, "\(label) count")

            // The merging side saves its salaries, and the saving side merges them back.
            if let back = try Self.save(contexts[merger]) { contexts[saver].mergeChanges(fromContextDidSave: back) }
            let left = try employees(in: contexts[0]).map(Values.init)
            let right = try employees(in: contexts[1]).map(Values.init)
            #expect(left == right, "\(label) both sides")
        }
    }
}
