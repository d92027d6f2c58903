import Foundation
import OpenCoreData
import Testing

/// Two coordinators on one SQLite file: each sees the other's saves on its next fetch,
/// `shouldRefreshRefetchedObjects` refreshes registered objects, and a save whose outcome
/// SQLite cannot know is reported as such.
@Suite struct SQLiteSharedFileTests {
    @Test func savesOfOneCoordinatorAreSeenByTheOther() throws {
        let fixture = try SaveConflictFixture(.sqlite)
        defer { fixture.cleanUp() }
        let sales = fixture.insert("Department", ["title": "Sales"], into: fixture.first)
        let ann = fixture.insert("Employee", ["name": "Ann", "salary": Decimal(50_000), "department": sales], into: fixture.first)
        try fixture.first.save()
        let seen = try fixture.fetch("Employee", in: fixture.second)
        #expect(seen.map { $0.value(forKey: "name") as? String } == ["Ann"])
        #expect(seen.first?.objectID.uriRepresentation() == ann.objectID.uriRepresentation())

        // New rows and changed values reach the other coordinator's next fetch.
        fixture.insert("Employee", ["name": "Bob", "salary": Decimal(70_000), "department": sales], into: fixture.first)
        ann.setValue(Decimal(60_000), forKey: "salary")
        try fixture.first.save()
        #expect(try fixture.fetch("Employee", in: fixture.second, "salary >= 60000").count == 2)
        // A registered object keeps the values it has unless the fetch refreshes it.
        let kept = try fixture.fetch("Employee", in: fixture.second, "name == 'Ann'")
        #expect(kept.first === seen.first)
        #expect(kept.first?.value(forKey: "salary") as? Decimal == Decimal(50_000))
        let refreshed = try fixture.fetch("Employee", in: fixture.second, "name == 'Ann'", refresh: true)
        #expect(refreshed.first === seen.first)
        #expect(refreshed.first?.value(forKey: "salary") as? Decimal == Decimal(60_000))
        // Refreshed, the object saves without a conflict.
        refreshed.first?.setValue(Decimal(65_000), forKey: "salary")
        try fixture.second.save()
        // Deletions too.
        fixture.second.delete(try #require(refreshed.first))
        try fixture.second.save()
        #expect(try fixture.fetch("Employee", in: fixture.first, refresh: true).map { $0.value(forKey: "name") as? String } == ["Bob"])
    }

    @Test func anIDOfTheOtherCoordinatorNamesTheSameObject() throws {
        let fixture = try SaveConflictFixture(.sqlite)
        defer { fixture.cleanUp() }
        fixture.insert("Employee", ["name": "Ann", "salary": Decimal(50_000)], into: fixture.first)
        try fixture.first.save()
        let ann = try #require(try fixture.fetch("Employee", in: fixture.first).first)
        let theirs = try #require(try fixture.fetch("Employee", in: fixture.second).first?.objectID)
        #expect(theirs == ann.objectID && theirs !== ann.objectID)
        #expect(fixture.first.registeredObject(for: theirs) === ann)
        #expect(fixture.first.object(with: theirs) === ann)
        #expect(try fixture.first.existingObject(with: theirs) === ann)
    }

    @Test func anIOErrorAfterTheCommitPointSaysTheOutcomeIsUnknown() throws {
        let fixture = try SaveConflictFixture(.sqlite)
        defer { fixture.cleanUp() }
        let store = try #require(fixture.coordinators[0].persistentStores.first)
        fixture.insert("Department", ["title": "Sales"], into: fixture.first)
        store.testingCommitResult = 1034  // SQLITE_IOERR_FSYNC
        let error = #expect(throws: NSError.self) { try fixture.first.save() }
        #expect(error?.code == NSPersistentStoreSaveError)
        #expect(error?.userInfo["NSPersistentStoreSaveOutcomeUnknown"] as? Bool == true)
        #expect(error?.userInfo["NSSQLiteErrorDomain"] as? Int == 1034)
        #expect((error?.userInfo[NSUnderlyingErrorKey] as? NSError)?.code == 134_180)
        #expect(error?.localizedDescription.contains("outcome of the save") == true)
        // The context keeps its changes; here the commit did happen, which is why it is unknown.
        #expect(fixture.first.hasChanges)
        #expect(try fixture.fetch("Department", in: fixture.second, sort: "title").count == 1)

        // A failure that is not an I/O error is a plain failure.
        store.testingCommitResult = 5  // SQLITE_BUSY
        fixture.first.rollback()
        fixture.insert("Department", ["title": "Labs"], into: fixture.first)
        let busy = #expect(throws: NSError.self) { try fixture.first.save() }
        #expect(busy?.code == 134_180)
        #expect(busy?.userInfo["NSPersistentStoreSaveOutcomeUnknown"] == nil)
        store.testingCommitResult = nil
    }
}
