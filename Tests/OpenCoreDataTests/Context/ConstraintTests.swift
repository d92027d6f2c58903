import Foundation
import OpenCoreData
import Testing

/// Uniqueness constraints (`Department.title`, `Person (name, born)` inherited by Employee and
/// Manager) on both back ends: conflicts with stored rows and within one save, and Apple's
/// upserts under the merge policies.
@Suite struct ConstraintTests {
    static let backends = SaveConflictFixture.Backend.allCases
    static let born = Date(timeIntervalSinceReferenceDate: 0)

    /// Sales with Ann (born 2001-01-01, 50k), saved.
    static func prepare(_ fixture: SaveConflictFixture) throws -> NSManagedObject {
        let sales = fixture.insert("Department", ["title": "Sales"], into: fixture.first)
        let ann = fixture.insert(
            "Employee", ["name": "Ann", "born": born, "salary": Decimal(50_000), "department": sales], into: fixture.first)
        try fixture.first.save()
        return ann
    }

    static func conflicts(of error: Error?) -> [NSConstraintConflict] {
        ((error as NSError?)?.userInfo["conflictList"] as? [Any] ?? []).compactMap { $0 as? NSConstraintConflict }
    }

    @Test(arguments: backends)
    func aDuplicateOfAStoredRowIsRefused(backend: SaveConflictFixture.Backend) throws {
        let fixture = try SaveConflictFixture(backend, constraints: true)
        defer { fixture.cleanUp() }
        let ann = try Self.prepare(fixture)
        let copy = fixture.insert("Manager", ["name": "Ann", "born": Self.born], into: fixture.second)
        let error = #expect(throws: NSError.self) { try fixture.second.save() }
        #expect(error?.code == NSManagedObjectConstraintMergeError)
        let conflict = try #require(Self.conflicts(of: error).first)
        #expect(Self.conflicts(of: error).count == 1)
        #expect(conflict.constraint == ["name", "born"])
        #expect(conflict.constraintValues["name"] as? String == "Ann")
        #expect(conflict.databaseObject?.objectID.uriRepresentation() == ann.objectID.uriRepresentation())
        #expect(conflict.databaseSnapshot?["salary"] as? Decimal == Decimal(50_000))
        #expect(conflict.conflictingObjects == [copy])
        #expect(copy.isInserted)
        #expect(try fixture.stored("Person", "name == 'Ann'").count == 1)
        // The same name with another birth date, or none, is no conflict.
        copy.setValue(Date(timeIntervalSinceReferenceDate: 1), forKey: "born")
        fixture.insert("Employee", ["name": "Ann"], into: fixture.second)
        fixture.insert("Employee", ["name": "Ann"], into: fixture.second)
        try fixture.second.save()
        #expect(try fixture.stored("Person", "name == 'Ann'").count == 4)
    }

    @Test(arguments: backends)
    func duplicatesWithinOneSaveAreRefused(backend: SaveConflictFixture.Backend) throws {
        let fixture = try SaveConflictFixture(backend, constraints: true)
        defer { fixture.cleanUp() }
        let a = fixture.insert("Department", ["title": "Labs"], into: fixture.first)
        let b = fixture.insert("Department", ["title": "Labs"], into: fixture.first)
        let error = #expect(throws: NSError.self) { try fixture.first.save() }
        let conflict = try #require(Self.conflicts(of: error).first)
        #expect(conflict.databaseObject == nil)
        #expect(conflict.constraint == ["title"])
        #expect(conflict.conflictingObjects == [a, b])
        #expect(try fixture.stored("Department", "title == 'Labs'", sort: "title").isEmpty)
        // Rewritten rows count with their new values: swapping to a free value saves.
        b.setValue("Labs 2", forKey: "title")
        try fixture.first.save()
        a.setValue("Labs 3", forKey: "title")
        b.setValue("Labs", forKey: "title")
        try fixture.first.save()
        #expect(try fixture.stored("Department", "title BEGINSWITH 'Labs'", sort: "title").count == 2)
    }

    /// An inserted Ann (born the same day, 99k, no department) meets the stored one.
    @Test(
        arguments: [
            (NSMergeByPropertyObjectTrumpMergePolicy, 99_000, true, true),
            (NSMergeByPropertyStoreTrumpMergePolicy, 50_000, true, true),
            (NSOverwriteMergePolicy, 99_000, false, true),
            (NSRollbackMergePolicy, 50_000, true, false),
        ] as [(AnyObject, Int, Bool, Bool)])
    func policiesUpsert(policy: AnyObject, salary: Int, keepsDepartment: Bool, takesOver: Bool) throws {
        for backend in Self.backends {
            let fixture = try SaveConflictFixture(backend, constraints: true)
            defer { fixture.cleanUp() }
            let ann = try Self.prepare(fixture)
            let copy = fixture.insert(
                "Employee", ["name": "Ann", "born": Self.born, "salary": Decimal(99_000)], into: fixture.second)
            fixture.second.mergePolicy = policy
            try fixture.second.save()
            let stored = try fixture.stored("Person", "name == 'Ann'")
            #expect(stored.count == 1, "\(backend) \(policy)")
            let row = try #require(stored.first)
            #expect(row.objectID.uriRepresentation() == ann.objectID.uriRepresentation())
            #expect(row.value(forKey: "salary") as? Decimal == Decimal(salary), "\(backend) \(policy)")
            #expect((row.value(forKey: "department") != nil) == keepsDepartment, "\(backend) \(policy)")
            if takesOver {
                #expect(copy.objectID.uriRepresentation() == ann.objectID.uriRepresentation(), "\(backend) \(policy)")
                #expect(copy.managedObjectContext === fixture.second)
                #expect(!copy.isInserted)
            } else {
                #expect(copy.managedObjectContext == nil, "\(backend) \(policy)")
            }
            #expect(!fixture.second.hasChanges)
        }
    }

    @Test(arguments: backends)
    func duplicatesWithinOneSaveBecomeOneUnderObjectTrump(backend: SaveConflictFixture.Backend) throws {
        let fixture = try SaveConflictFixture(backend, constraints: true)
        defer { fixture.cleanUp() }
        let first = fixture.insert("Department", ["title": "Labs"], into: fixture.first)
        let second = fixture.insert("Department", ["title": "Labs"], into: fixture.first)
        let cy = fixture.insert("Employee", ["name": "Cy", "department": second], into: fixture.first)
        fixture.first.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
        try fixture.first.save()
        #expect(second.managedObjectContext == nil)
        #expect(cy.value(forKey: "department") as? NSManagedObject === first)
        let stored = try fixture.stored("Department", "title == 'Labs'", sort: "title")
        #expect(stored.count == 1)
        let members = stored.first?.value(forKey: "employees") as? Set<NSManagedObject> ?? []
        #expect(members.compactMap { $0.value(forKey: "name") as? String } == ["Cy"])
    }
}
