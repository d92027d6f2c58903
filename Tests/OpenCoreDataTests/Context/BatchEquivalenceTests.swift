import Foundation
@testable import OpenCoreData
import OpenStoreCore
import TestSupport
import Testing

/// Random equivalence, from a fixed seed: a batch request, and the same change made with objects
/// and `save()`, leave two stores of the Office model with equal rows (keys, values, versions) and
/// equal persistent history.
///
/// One difference is Apple's design, not a fault: an object deleted in a context marks the
/// objects on the to-many side of its relationships as changed (its department, its projects,
/// its mentor), so the save raises their versions and records them in history; a batch delete,
/// run in the store, leaves those rows alone. So history changes of to-many relationships only
/// are left out, and after an employee is deleted, versions are compared for badges and laptops
/// only. A request the store refuses (a deny rule) must fail with objects too, changing nothing.
struct BatchEquivalenceTests {
    typealias Office = BatchDeleteTests.Office

    /// The predicates requests choose from.
    static let employeePredicates = [
        "salary < 65", "salary >= 60 AND salary <= 80", "name BEGINSWITH 'D' OR name ENDSWITH 'e'", "department.title == 'Sales'",
        "mentor != nil", "badge == nil", "ANY projects.title == 'Apollo'", "salary > 1000",
    ]
    static let badgePredicates = ["code BEGINSWITH 'A'", "owner.salary > 55", "code != 'B2'", "owner == nil"]

    @Test(arguments: BatchDeleteTests.sqlStoreTypes)
    func batchRequestsAndObjectSavesLeaveEqualStores(storeType: String) throws {
        var random = SplitMix64(seed: 0x5EED_BA7C)
        for round in 0..<6 {
            let batch = try Office(storeType, history: true)
            let objects = try Office(storeType, history: true)
            var steps: [String] = []
            var employeesDeleted = false
            for step in 0..<4 {
                switch Int.random(in: 0..<4, using: &random) {
                case 0, 1:
                    let predicate = Self.employeePredicates.randomElement(using: &random) ?? "TRUEPREDICATE"
                    let raise = Int.random(in: 1...9, using: &random)
                    let properties: [String: Any] =
                        Bool.random(using: &random)
                        ? ["salary": NSExpression(format: "salary + \(raise)")] : ["name": "n\(round)-\(step)", "salary": raise]
                    steps.append("update \(predicate) \(properties.keys.sorted())")
                    let request = NSBatchUpdateRequest(entityName: "Employee")
                    request.predicate = NSPredicate(format: predicate)
                    request.propertiesToUpdate = properties
                    _ = try batch.execute(request)
                    try change(objects, "Employee", predicate) { employee in
                        for (key, value) in properties {
                            if let expression = value as? NSExpression {
                                employee.setValue(expression.expressionValue(with: employee, context: nil), forKey: key)
                            } else {
                                employee.setValue(value, forKey: key)
                            }
                        }
                    }
                case 2:
                    let predicate = Self.badgePredicates.randomElement(using: &random) ?? "TRUEPREDICATE"
                    steps.append("delete Badge \(predicate)")
                    _ = try delete(batch, objects, "Badge", predicate)
                default:
                    let predicate = Self.employeePredicates.randomElement(using: &random) ?? "TRUEPREDICATE"
                    steps.append("delete Employee \(predicate)")
                    employeesDeleted = try delete(batch, objects, "Employee", predicate) || employeesDeleted
                }
            }
            let versioned = employeesDeleted ? ["Badge", "Laptop"] : nil
            try #require(try rows(batch, versioned) == rows(objects, versioned), "round \(round): \(steps)")
            try #require(try history(batch) == history(objects), "round \(round): \(steps)")
        }
    }

    /// Deletes the objects of `entity` matching `predicate`: with a batch request in one store,
    /// with `delete(_:)` and `save()` in the other. Both fail, or neither; whether any was deleted.
    func delete(_ batch: Office, _ objects: Office, _ entity: String, _ predicate: String) throws -> Bool {
        let fetch = NSFetchRequest<NSFetchRequestResult>(entityName: entity)
        fetch.predicate = NSPredicate(format: predicate)
        let request = NSBatchDeleteRequest(fetchRequest: fetch)
        request.resultType = .resultTypeCount
        var deleted = 0
        var refused: Error?
        do {
            deleted = (try batch.execute(request)?.result as? NSNumber)?.intValue ?? 0
        } catch {
            refused = error
        }
        let context = objects.container.newBackgroundContext()
        let saveError: Error? = context.performAndWait {
            do {
                let request = NSFetchRequest<NSManagedObject>(entityName: entity)
                request.predicate = NSPredicate(format: predicate)
                for object in try context.fetch(request) { context.delete(object) }
                try context.save()
                return nil
            } catch {
                context.rollback()
                return error
            }
        }
        #expect(
            (refused == nil) == (saveError == nil),
            "\(entity) \(predicate): \(String(describing: refused)) / \(String(describing: saveError))")
        return deleted > 0
    }

    /// Changes the objects of `entity` matching `predicate` with `body`, and saves.
    func change(_ office: Office, _ entity: String, _ predicate: String, _ body: (NSManagedObject) -> Void) throws {
        let context = office.container.newBackgroundContext()
        try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: entity)
            request.predicate = NSPredicate(format: predicate)
            for object in try context.fetch(request) { body(object) }
            try context.save()
        }
    }

    /// Every row of the store, as text: key, values, and the version of rows of the entities
    /// `versioned` names (of every row when nil).
    func rows(_ office: Office, _ versioned: [String]?) throws -> [String] {
        let coordinator = office.container.persistentStoreCoordinator
        let store = try #require(coordinator.persistentStores.first as? RowBackedPersistentStore)
        let contents = try #require(store.rows as? TransferableRowStore).exportContents()
        return contents.rows.map { row in
            let entity = coordinator.schema.entity(row.key.entityID).name
            let version = versioned.map { $0.contains(entity) } ?? true ? " v\(row.version)" : ""
            let values = row.values.map { value in
                if case .objects(let members) = value { return "\(members.sorted { $0.primaryKey < $1.primaryKey })" }
                return "\(value)"
            }
            return "\(entity) \(row.key.primaryKey)\(version): \(values.joined(separator: ", "))"
        }.sorted()
    }

    /// The changes of every history transaction after the first (the store's filling), as text,
    /// sorted within each transaction, without changes of to-many relationships only.
    func history(_ office: Office) throws -> [[String]] {
        let context = office.container.newBackgroundContext()
        return try context.performAndWait {
            let transactions = try context.allHistoryTransactions()
            return transactions.dropFirst().map { transaction in
                (transaction.changes ?? []).compactMap { change -> String? in
                    let properties = change.updatedProperties?.filter { !(($0 as? NSRelationshipDescription)?.isToMany ?? false) }
                    if change.changeType == .update, properties?.isEmpty ?? false { return nil }
                    let names = properties.map { " " + $0.map(\.name).sorted().joined(separator: ",") } ?? ""
                    return "\(change.changeType.rawValue) \(change.changedObjectID.uriRepresentation().lastPathComponent)"
                        + " \(change.changedObjectID.entity.name ?? "")\(names)"
                }.sorted()
            }.filter { !$0.isEmpty }
        }
    }
}
