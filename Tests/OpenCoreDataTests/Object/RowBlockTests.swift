import Foundation
@testable import OpenCoreData
import OpenStoreCore
import Testing

/// The SQLite store reads a fetch's rows into blocks (`RowBlock`: `RowBlock.capacity` rows of
/// one entity's width each), and new faults read their values in place: every store must give
/// the same objects, values and versions as before.
@Suite struct RowBlockTests {
    /// 600 rows of an entity and its sub-entity (which has one more property, so another width),
    /// interleaved: several blocks, and a new block wherever the width changes.
    private func fixture(_ storeType: String) throws -> ContextFixture {
        let fixture = try ContextFixture(storeType: storeType)
        for number in 0..<600 {
            fixture.insert(number % 3 == 0 ? "Manager" : "Employee", ["name": "P\(number)", "salary": Decimal(number)])
        }
        try fixture.context.save()
        return fixture
    }

    private func people(in context: NSManagedObjectContext) throws -> [NSManagedObject] {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Employee")
        request.predicate = NSPredicate(format: "name BEGINSWITH 'P'")
        return try context.fetch(request)
    }

    @Test(arguments: ContextFixture.storeTypes)
    func everyObjectReadsItsOwnRow(_ storeType: String) throws {
        let fixture = try fixture(storeType)
        let context = fixture.freshContext()
        let objects = try people(in: context)
        #expect(objects.count == 600)
        #expect(objects.allSatisfy { $0.isFault })
        var seen = Set<Int>()
        for object in objects {
            let name = try #require(object.value(forKey: "name") as? String)
            let number = try #require(Int(name.dropFirst()))
            seen.insert(number)
            #expect(object.value(forKey: "salary") as? Decimal == Decimal(number))
            #expect(object.entity.name == (number % 3 == 0 ? "Manager" : "Employee"))
        }
        #expect(seen == Set(0..<600))
        // Saved together: one version, read from the block while the objects are pending.
        let versions = Set(objects.map(\.version))
        #expect(versions.count == 1 && (versions.first ?? 0) > 0)
        if storeType == NSSQLiteStoreType {
            // The values are read in blocks, not copied out of them.
            #expect(objects.allSatisfy { if case .block = $0.link { true } else { false } })
        }
    }

    @Test(arguments: ContextFixture.storeTypes)
    func aChangedObjectSavesWithItsVersionAndAKeptFaultKeepsItsRow(_ storeType: String) throws {
        let fixture = try fixture(storeType)
        let context = fixture.freshContext()
        var objects = try people(in: context)
        let changed = objects[300]
        let name = try #require(changed.value(forKey: "name") as? String)
        let version = changed.version
        changed.setValue(Decimal(-1), forKey: "salary")
        #expect(changed.version == version)
        try context.save()
        #expect(changed.version == version + 1)
        // Another context reads the saved value; a stale copy of the row would conflict.
        let other = fixture.freshContext()
        let again = try ContextFixture.employee(name, in: other)
        #expect(again.value(forKey: "salary") as? Decimal == -1)
        again.setValue(Decimal(-2), forKey: "salary")
        try other.save()

        // A fault kept alone, the other objects of its fetch gone: it still reads its row.
        let keeper = fixture.freshContext()
        var fetched = try people(in: keeper)
        let kept = fetched[451]
        fetched.removeAll()
        #expect(kept.isFault && keeper.registeredObjects.count == 1)
        let elsewhere = try fixture.freshContext().existingObject(with: kept.objectID)
        let keptName = try #require(elsewhere.value(forKey: "name") as? String)
        let keptNumber = try #require(Int(keptName.dropFirst()))
        #expect(kept.value(forKey: "name") as? String == keptName)
        #expect(kept.value(forKey: "salary") as? Decimal == Decimal(keptNumber))
        withExtendedLifetime(keeper) {}
    }
}
