import Foundation
@testable import OpenCoreData
import Testing

@Suite struct ObjectListTests {
    @Test func keepsOrderAndEachObjectOnce() {
        let entity = NSEntityDescription()
        entity.name = "Note"
        let (a, b, c) = (
            NSManagedObject(entity: entity, insertInto: nil), NSManagedObject(entity: entity, insertInto: nil),
            NSManagedObject(entity: entity, insertInto: nil)
        )
        var list: ObjectList = [a, b]
        list.append(a)
        list.append(c)
        #expect(list.objects.map(ObjectIdentifier.init) == [a, b, c].map(ObjectIdentifier.init))
        #expect(list.contains(b) && list.count == 3)
        list.remove(b)
        list.remove(b)
        #expect(!list.contains(b) && list.objects.map(ObjectIdentifier.init) == [a, c].map(ObjectIdentifier.init))
        list.append(b)
        #expect(list.objects.last === b)
    }

    /// Many objects changed once each are each listed once, in the order they changed.
    @Test(arguments: ContextFixture.storeTypes)
    func manyChangedObjectsAreEachUpdatedOnce(_ storeType: String) throws {
        let fixture = try ContextFixture(storeType: storeType)
        let context = fixture.context
        let notes = (0..<3_000).map { fixture.insert("Employee", ["name": "E\($0)"]) }
        try context.save()
        for (index, note) in notes.enumerated() {
            note.setValue("F\(index)", forKey: "name")
            note.setValue(Decimal(index), forKey: "salary")
        }
        #expect(context.updatedObjects.count == 3_000)
        #expect(context.changedList.objects.map { $0.value(forKey: "name") as? String } == (0..<3_000).map { "F\($0)" })
        try context.save()
        #expect(!context.hasChanges)
        #expect(try fixture.names("Employee", "name BEGINSWITH 'F'").count == 3_000)
    }
}
