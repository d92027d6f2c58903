import Foundation
import OpenCoreData
import TestSupport
import Testing

/// `migratePersistentStore(_:to:options:withType:)` between the SQL stores: every row, its
/// primary key, its relationships (ordered ones in order), each entity's `Z_MAX` and the store's
/// UUID arrive in the new store.
struct MigratePersistentStoreTests {
    /// Every SQL store type a store can move to.
    static let destinations = ContextFixture.storeTypes.filter { $0 != NSInMemoryStoreType }

    @Test(arguments: destinations)
    func aStoreMovesWithItsKeysRelationshipsAndUUID(_ destinationType: String) throws {
        let fixture = try ContextFixture(storeType: NSSQLiteStoreType)
        // A deleted row leaves Z_MAX above the highest key kept, which must survive the move.
        let doomed = fixture.insert("Employee", ["name": "Gone", "salary": Decimal(1)])
        try fixture.context.save()
        fixture.context.delete(doomed)
        try fixture.context.save()
        let before = try Self.snapshot(fixture.freshContext())
        let uuid = try #require(fixture.store.identifier)

        let folder = try TemporaryFolder()
        let url = try #require(try folder.storeURL(for: destinationType, name: "Moved.sqlite"))
        let moved = try fixture.coordinator.migratePersistentStore(fixture.store, to: url, withType: destinationType)
        #expect(moved.type == destinationType)
        #expect(moved.identifier == uuid)
        #expect(fixture.coordinator.persistentStores.count == 1)
        #expect(fixture.coordinator.persistentStores.first === moved)
        #expect(try Self.snapshot(fixture.freshContext()) == before)

        // Read again through a new coordinator: what was written is the store's, not a cache.
        let reader = NSPersistentStoreCoordinator(managedObjectModel: fixture.model)
        let reopened = try reader.addPersistentStore(ofType: destinationType, configurationName: nil, at: url)
        #expect(reopened.identifier == uuid)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = reader
        #expect(try Self.snapshot(context) == before)
        // The next key is the one the source would have handed out: after the deleted row's.
        let newcomer = NSManagedObject(entity: fixture.model[entity: "Employee"], insertInto: context)
        newcomer.setValue("New", forKey: "name")
        try context.save()
        let keys = before.people.map(\.key)
        let gone = try #require(keys.max()) + 1  // "Gone" was inserted last, then deleted
        #expect(Self.key(newcomer.objectID) == gone + 1)
    }

    @Test func aDestinationWithRowsIsRefusedAndKeepsTheSourceAttached() throws {
        let source = try ContextFixture(storeType: NSSQLiteStoreType)
        let occupied = try ContextFixture(storeType: NSSQLiteStoreType)
        let url = try #require(occupied.store.url)
        #expect(throws: NSError.self) {
            try source.coordinator.migratePersistentStore(source.store, to: url, withType: NSSQLiteStoreType)
        }
        #expect(source.coordinator.persistentStores.count == 1)
        #expect(source.coordinator.persistentStores.first === source.store)
        #expect(try occupied.freshContext().count(for: NSFetchRequest<NSManagedObject>(entityName: "Employee")) == 4)
    }

    struct Person: Equatable {
        let key: Int64
        let name: String
        let salary: Decimal?
        let department: String?
        let reports: [String]
    }

    struct Snapshot: Equatable {
        var people: [Person]
        var departments: [Int64: String]
    }

    static func key(_ id: NSManagedObjectID) -> Int64 {
        Int64(id.uriRepresentation().lastPathComponent.dropFirst()) ?? -1
    }

    /// Every person and department, with their keys, sorted by key.
    static func snapshot(_ context: NSManagedObjectContext) throws -> Snapshot {
        var snapshot = Snapshot(people: [], departments: [:])
        for department in try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Department")) {
            snapshot.departments[key(department.objectID)] = department.value(forKey: "title") as? String
        }
        let request = NSFetchRequest<NSManagedObject>(entityName: "Employee")
        for person in try context.fetch(request) {
            let reports = (person.entity.name == "Manager" ? person.value(forKey: "reports") as? NSOrderedSet : nil)
            snapshot.people.append(
                Person(
                    key: key(person.objectID), name: person.value(forKey: "name") as? String ?? "?",
                    salary: person.value(forKey: "salary") as? Decimal,
                    department: (person.value(forKey: "department") as? NSManagedObject)?.value(forKey: "title") as? String,
                    reports: (reports?.array as? [NSManagedObject] ?? []).compactMap { $0.value(forKey: "name") as? String }))
        }
        snapshot.people.sort { $0.key < $1.key }
        return snapshot
    }
}
