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

    /// Objects taken off leave the list at once for every reader (iteration, `objects`, `count`),
    /// though the array drops them later; one that joins again is listed once, at the end.
    @Test func objectsTakenOffLeaveForEveryReader() {
        let entity = NSEntityDescription()
        entity.name = "Note"
        let notes = (0..<10).map { _ in NSManagedObject(entity: entity, insertInto: nil) }
        func ids(_ objects: some Sequence<NSManagedObject>) -> [ObjectIdentifier] { objects.map(ObjectIdentifier.init) }
        var list = ObjectList()
        for note in notes { list.append(note) }
        #expect(list.remove(notes[2]) && !list.remove(notes[2]) && list.remove(notes[5]))
        let left = notes.enumerated().filter { ![2, 5].contains($0.offset) }.map(\.element)
        #expect(list.count == 8 && !list.contains(notes[5]) && ids(list) == ids(left))
        #expect(ids(list.filter { _ in true }) == ids(left))
        list.append(notes[2])
        #expect(ids(list) == ids(left + [notes[2]]) && ids(list.objects) == ids(left + [notes[2]]))
        // More than half taken off: the rest, in order; then taken whole.
        for note in notes.prefix(8) { list.remove(note) }
        #expect(ids(list) == ids([notes[8], notes[9], notes[2]].filter { list.contains($0) }))
        #expect(ids(list.take()) == ids([notes[8], notes[9]]) && list.isEmpty && list.take().isEmpty)
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

    /// What observers of a context's changes (results controllers) are told: an object inserted
    /// and changed in one event only as inserted; changed after it was announced, as updated.
    @Test(arguments: ContextFixture.storeTypes)
    func newObjectsChangedInTheirEventAreAnnouncedOnce(_ storeType: String) throws {
        final class Recorder: ContextChangeObserver {
            var changes: [ContextChanges] = []
            func contextDidChange(_ changes: ContextChanges) { self.changes.append(changes) }
        }
        let fixture = try ContextFixture(storeType: storeType)
        let context = fixture.context
        let recorder = Recorder()
        context.changeState.addObserver(recorder)
        let notes = (0..<3).map { fixture.insert("Employee", ["name": "E\($0)"]) }
        for note in notes { note.setValue("F", forKey: "name") }
        context.processPendingChanges()
        let first = try #require(recorder.changes.first)
        #expect(Set(first.inserted.map(ObjectIdentifier.init)) == Set(notes.map(ObjectIdentifier.init)))
        #expect(first.updated.isEmpty)
        notes[1].setValue("G", forKey: "name")
        context.processPendingChanges()
        #expect(recorder.changes.count == 2)
        #expect(recorder.changes.last?.inserted.isEmpty == true)
        #expect(recorder.changes.last?.updated.map(ObjectIdentifier.init) == [ObjectIdentifier(notes[1])])
    }
}
