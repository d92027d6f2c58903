import Foundation
import OpenCoreData
import Testing

/// Optimistic locking: a save over a row someone else saved since it was fetched, on both back
/// ends (SQLite: two coordinators on one file, and two contexts of one coordinator), under each
/// merge policy.
@Suite struct MergeConflictTests {
    /// The ways two contexts can share a store.
    static let setups: [(SaveConflictFixture.Backend, Bool)] = [(.inMemory, true), (.sqlite, false), (.sqlite, true)]

    /// Sales with Ann (50k) and Bob (70k), and an empty department, saved by the first context;
    /// Ann as the second context fetched her.
    static func prepare(_ fixture: SaveConflictFixture) throws -> (first: NSManagedObject, second: NSManagedObject) {
        let sales = fixture.insert("Department", ["title": "Sales"], into: fixture.first)
        fixture.insert("Department", ["title": "Empty"], into: fixture.first)
        let ann = fixture.insert(
            "Employee", ["name": "Ann", "salary": Decimal(50_000), "department": sales], into: fixture.first)
        fixture.insert("Employee", ["name": "Bob", "salary": Decimal(70_000), "department": sales], into: fixture.first)
        try fixture.first.save()
        let seen = try fixture.fetch("Employee", in: fixture.second, "name == 'Ann'")
        #expect(seen.count == 1)
        _ = seen.first?.value(forKey: "salary")
        return (ann, try #require(seen.first))
    }

    static func conflicts(of error: Error) -> [NSMergeConflict] {
        ((error as NSError).userInfo["conflictList"] as? [Any] ?? []).compactMap { $0 as? NSMergeConflict }
    }

    @Test(arguments: setups)
    func errorPolicyRefusesAStaleUpdate(backend: SaveConflictFixture.Backend, shared: Bool) throws {
        let fixture = try SaveConflictFixture(backend, sharedCoordinator: shared)
        defer { fixture.cleanUp() }
        let (ann, stale) = try Self.prepare(fixture)
        ann.setValue(Decimal(60_000), forKey: "salary")
        try fixture.first.save()
        stale.setValue("Annie", forKey: "name")
        let error = #expect(throws: NSError.self) { try fixture.second.save() }
        #expect(error?.domain == NSCocoaErrorDomain)
        #expect(error?.code == NSManagedObjectMergeError)
        let conflicts = error.map(Self.conflicts) ?? []
        #expect(conflicts.count == 1)
        let conflict = try #require(conflicts.first)
        #expect(conflict.sourceObject === stale)
        #expect(conflict.oldVersionNumber == 1)
        #expect(conflict.newVersionNumber == 2)
        #expect(conflict.objectSnapshot?["salary"] as? Decimal == Decimal(50_000))
        #expect(conflict.objectSnapshot?["name"] as? String == "Ann")
        #expect(conflict.persistedSnapshot?["salary"] as? Decimal == Decimal(60_000))
        #expect(conflict.persistedSnapshot?["department"] is NSManagedObjectID)
        #expect(conflict.persistedSnapshot?["employees"] == nil)
        // The store and the context's change are as they were.
        #expect(fixture.second.hasChanges)
        #expect(stale.value(forKey: "name") as? String == "Annie")
        let stored = try fixture.stored("Employee", "salary == 60000")
        #expect(stored.map { $0.value(forKey: "name") as? String } == ["Ann"])
        // The same save goes through once the policy allows it.
        fixture.second.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
        try fixture.second.save()
        #expect(try fixture.stored("Employee", "name == 'Annie'").first?.value(forKey: "salary") as? Decimal == Decimal(60_000))
    }

    @Test(arguments: setups)
    func aStaleDeleteAndAnUpdateOfADeletedRowConflict(backend: SaveConflictFixture.Backend, shared: Bool) throws {
        let fixture = try SaveConflictFixture(backend, sharedCoordinator: shared)
        defer { fixture.cleanUp() }
        let (ann, stale) = try Self.prepare(fixture)
        // Deleted by the first context, changed by the second.
        fixture.first.delete(ann)
        try fixture.first.save()
        stale.setValue(Decimal(1), forKey: "salary")
        let error = #expect(throws: NSError.self) { try fixture.second.save() }
        let conflict = try #require(error.map(Self.conflicts)?.first)
        #expect(conflict.newVersionNumber == 0)
        #expect(conflict.persistedSnapshot == nil)
        #expect(conflict.oldVersionNumber == 1)
        // Changed by the first context, deleted by the second.
        let empty = try #require(try fixture.fetch("Department", in: fixture.first, "title == 'Empty'", sort: "title").first)
        let staleEmpty = try #require(
            try fixture.fetch("Department", in: fixture.second, "title == 'Empty'", sort: "title").first)
        _ = staleEmpty.value(forKey: "title")
        empty.setValue("Void", forKey: "title")
        try fixture.first.save()
        fixture.second.rollback()
        fixture.second.delete(staleEmpty)
        let second = #expect(throws: NSError.self) { try fixture.second.save() }
        #expect(second?.code == NSManagedObjectMergeError)
        let deleteConflict = try #require(second.map(Self.conflicts)?.first)
        #expect(deleteConflict.sourceObject === staleEmpty)
        #expect(deleteConflict.persistedSnapshot?["title"] as? String == "Void")
        #expect(try fixture.stored("Department", "title == 'Void'", sort: "title").count == 1)
    }

    /// The first context changes salary and born; the second changes salary and name, then
    /// saves under each policy.
    @Test(
        arguments: [
            (NSMergeByPropertyStoreTrumpMergePolicy, "Annie", 60_000, true),
            (NSMergeByPropertyObjectTrumpMergePolicy, "Annie", 70_000, true),
            (NSOverwriteMergePolicy, "Annie", 70_000, false),
            (NSRollbackMergePolicy, "Ann", 60_000, true),
        ] as [(AnyObject, String, Int, Bool)])
    func policiesResolveAttributeConflicts(policy: AnyObject, name: String, salary: Int, keepsBorn: Bool) throws {
        for (backend, shared) in Self.setups {
            let fixture = try SaveConflictFixture(backend, sharedCoordinator: shared)
            defer { fixture.cleanUp() }
            let (ann, stale) = try Self.prepare(fixture)
            let born = Date(timeIntervalSinceReferenceDate: 86_400)
            ann.setValue(Decimal(60_000), forKey: "salary")
            ann.setValue(born, forKey: "born")
            try fixture.first.save()
            stale.setValue(Decimal(70_000), forKey: "salary")
            stale.setValue("Annie", forKey: "name")
            fixture.second.mergePolicy = policy
            try fixture.second.save()
            #expect(!fixture.second.hasChanges, "\(backend)")
            let stored = try #require(try fixture.stored("Employee", "name BEGINSWITH 'Ann'").first)
            #expect(stored.value(forKey: "name") as? String == name, "\(backend) \(policy)")
            #expect(stored.value(forKey: "salary") as? Decimal == Decimal(salary), "\(backend) \(policy)")
            #expect((stored.value(forKey: "born") as? Date == born) == keepsBorn, "\(backend) \(policy)")
            #expect(stale.value(forKey: "name") as? String == name, "\(backend) \(policy)")
            #expect(stale.value(forKey: "salary") as? Decimal == Decimal(salary), "\(backend) \(policy)")
            // A later change from the second context saves without conflict: its version is current.
            stale.setValue(Decimal(1), forKey: "salary")
            fixture.second.mergePolicy = NSErrorMergePolicy
            try fixture.second.save()
        }
    }

    @Test(arguments: setups)
    func toManyChangesOfBothSidesAreMerged(backend: SaveConflictFixture.Backend, shared: Bool) throws {
        let fixture = try SaveConflictFixture(backend, sharedCoordinator: shared)
        defer { fixture.cleanUp() }
        _ = try Self.prepare(fixture)
        let sales = try #require(try fixture.fetch("Department", in: fixture.first, "title == 'Sales'", sort: "title").first)
        let staleSales = try #require(
            try fixture.fetch("Department", in: fixture.second, "title == 'Sales'", sort: "title").first)
        _ = staleSales.value(forKey: "employees")
        fixture.insert("Employee", ["name": "Eve", "department": sales], into: fixture.first)
        try fixture.first.save()
        fixture.insert("Employee", ["name": "Fay", "department": staleSales], into: fixture.second)
        let error = #expect(throws: NSError.self) { try fixture.second.save() }
        #expect(error.map(Self.conflicts)?.map(\.sourceObject) == [staleSales])
        fixture.second.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
        try fixture.second.save()
        let stored = try #require(try fixture.stored("Department", "title == 'Sales'", sort: "title").first)
        let names = (stored.value(forKey: "employees") as? Set<NSManagedObject> ?? []).compactMap {
            $0.value(forKey: "name") as? String
        }
        #expect(names.sorted() == ["Ann", "Bob", "Eve", "Fay"])
    }

    @Test func aCustomPolicyIsAskedToResolve() throws {
        final class Counting: NSMergePolicy, @unchecked Sendable {
            var seen: [Any] = []
            override func resolve(mergeConflicts list: [Any]) throws {
                seen += list
                try super.resolve(mergeConflicts: list)
            }
        }
        let fixture = try SaveConflictFixture(.inMemory)
        let (ann, stale) = try Self.prepare(fixture)
        ann.setValue(Decimal(60_000), forKey: "salary")
        try fixture.first.save()
        stale.setValue(Decimal(1), forKey: "salary")
        let policy = Counting(merge: .overwriteMergePolicyType)
        fixture.second.mergePolicy = policy
        try fixture.second.save()
        #expect(policy.seen.count == 1)
        #expect((policy.seen.first as? NSMergeConflict)?.sourceObject === stale)
        #expect(try fixture.stored("Employee", "name == 'Ann'").first?.value(forKey: "salary") as? Decimal == Decimal(1))
    }
}
