import Foundation
import OpenCoreData
import TestSupport
import Testing

/// `NSBatchInsertRequest` on the SQL stores: rows written from dictionaries and handlers, keys
/// that later saves never reuse, uniqueness constraints honoured by updating the stored object,
/// history, and bad input refused before anything is written.
struct BatchInsertTests {
    /// Quakes, unique by code; a place that defaults to "somewhere"; tags (a many-to-many).
    static func model() -> NSManagedObjectModel {
        let quake = BatchDeleteTests.entity("Quake")
        let tag = BatchDeleteTests.entity("Tag")
        let tags = relationship("tags", to: tag, maxCount: 0)
        let quakes = relationship("quakes", to: quake, maxCount: 0)
        inverses(tags, quakes)
        let place = attribute("place", .stringAttributeType)
        place.defaultValue = "somewhere"
        quake.properties = [
            attribute("code", .stringAttributeType), attribute("magnitude", .doubleAttributeType), place,
            attribute("time", .dateAttributeType), tags,
        ]
        quake.uniquenessConstraints = [["code"]]
        tag.properties = [attribute("name", .stringAttributeType), quakes]
        let model = NSManagedObjectModel()
        model.entities = [quake, tag]
        return model
    }

    struct Feed {
        let container: NSPersistentContainer
        let folder: TemporaryFolder

        init(_ storeType: String, history: Bool = false) throws {
            folder = try TemporaryFolder()
            container = NSPersistentContainer(name: "Quakes", managedObjectModel: BatchInsertTests.model())
            let description = NSPersistentStoreDescription()
            description.url = try folder.storeURL(for: storeType, name: "Quakes.sqlite")
            description.type = storeType
            if history { description.setOption(true as NSNumber, forKey: NSPersistentHistoryTrackingKey) }
            container.persistentStoreDescriptions = [description]
            var loadError: Error?
            container.loadPersistentStores { _, error in loadError = error }
            if let loadError { throw loadError }
        }

        func execute(_ request: NSBatchInsertRequest) throws -> NSBatchInsertResult? {
            let context = container.newBackgroundContext()
            return try context.performAndWait { try context.execute(request) as? NSBatchInsertResult }
        }

        func failure(of request: NSBatchInsertRequest) -> NSError? {
            do {
                _ = try execute(request)
                return nil
            } catch {
                return error as NSError
            }
        }

        /// `code place magnitude` of every quake, sorted, read in a new context.
        func quakes() throws -> [String] {
            let context = container.newBackgroundContext()
            return try context.performAndWait {
                try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Quake")).map { quake in
                    "\(quake.value(forKey: "code") ?? "nil") \(quake.value(forKey: "place") ?? "nil") "
                        + "\(quake.value(forKey: "magnitude") ?? "nil")"
                }.sorted()
            }
        }
    }

    @Test(arguments: BatchDeleteTests.sqlStoreTypes)
    func dictionariesBecomeRowsWithTheModelsDefaults(storeType: String) throws {
        let feed = try Feed(storeType)
        let request = NSBatchInsertRequest(
            entityName: "Quake",
            objects: [
                ["code": "a", "magnitude": 4.5, "place": "Lima"], ["code": "b", "magnitude": 3],
                ["code": "c", "place": NSNull()],
            ])
        request.resultType = .objectIDs
        let ids = try #require(try feed.execute(request)?.result as? [NSManagedObjectID])
        #expect(ids.count == 3)
        #expect(try feed.quakes() == ["a Lima 4.5", "b somewhere 3.0", "c nil nil"])
        // The IDs are the rows', in the request's order.
        let context = feed.container.newBackgroundContext()
        let codes = try context.performAndWait {
            try ids.map { try context.existingObject(with: $0).value(forKey: "code") as? String }
        }
        #expect(codes == ["a", "b", "c"])
    }

    @Test(arguments: BatchDeleteTests.sqlStoreTypes)
    func aSaveAfterwardsGetsKeysOfItsOwn(storeType: String) throws {
        let feed = try Feed(storeType)
        let request = NSBatchInsertRequest(entityName: "Quake", objects: (1...50).map { ["code": "q\($0)"] })
        request.resultType = .objectIDs
        let ids = try #require(try feed.execute(request)?.result as? [NSManagedObjectID])
        let context = feed.container.newBackgroundContext()
        let saved = try context.performAndWait {
            let quake = NSEntityDescription.insertNewObject(forEntityName: "Quake", into: context)
            quake.setValue("later", forKey: "code")
            try context.save()
            return quake.objectID
        }
        #expect(!ids.contains(saved))
        #expect(try feed.quakes().count == 51)
    }

    @Test(arguments: BatchDeleteTests.sqlStoreTypes)
    func aHandlerIsCalledUntilItReturnsTrue(storeType: String) throws {
        let feed = try Feed(storeType)
        var calls = 0
        let byDictionary = NSBatchInsertRequest(entityName: "Quake") { (dictionary: NSMutableDictionary) in
            calls += 1
            guard calls <= 3 else { return true }
            dictionary["code"] = "d\(calls)"
            dictionary["magnitude"] = Double(calls)
            return false
        }
        byDictionary.resultType = .count
        #expect((try feed.execute(byDictionary)?.result as? NSNumber)?.intValue == 3)
        #expect(calls == 4)
        var made = 0
        let byObject = NSBatchInsertRequest(entityName: "Quake") { (object: NSManagedObject) in
            made += 1
            object.setValue("o\(made)", forKey: "code")
            return made > 2
        }
        #expect((try feed.execute(byObject)?.result as? NSNumber)?.boolValue == true)
        #expect(
            try feed.quakes() == [
                "d1 somewhere 1.0", "d2 somewhere 2.0", "d3 somewhere 3.0", "o1 somewhere nil", "o2 somewhere nil",
            ])
    }

    /// As Apple's: a row whose constraint values a stored object has updates it (the values
    /// given; its others and its relationships are kept), and the later of two rows wins.
    @Test(arguments: BatchDeleteTests.sqlStoreTypes)
    func uniquenessConstraintsUpdateTheStoredObject(storeType: String) throws {
        let feed = try Feed(storeType)
        let context = feed.container.newBackgroundContext()
        let stored = try context.performAndWait {
            let quake = NSEntityDescription.insertNewObject(forEntityName: "Quake", into: context)
            quake.setValue("a", forKey: "code")
            quake.setValue("Quito", forKey: "place")
            quake.setValue(2.0, forKey: "magnitude")
            let tag = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: context)
            tag.setValue("deep", forKey: "name")
            quake.setValue(Set([tag]), forKey: "tags")
            try context.save()
            return quake.objectID
        }
        let request = NSBatchInsertRequest(
            entityName: "Quake",
            objects: [["code": "a", "magnitude": 5.0], ["code": "b", "magnitude": 1.0], ["code": "b", "magnitude": 1.5]])
        request.resultType = .objectIDs
        let ids = try #require(try feed.execute(request)?.result as? [NSManagedObjectID])
        #expect(ids.count == 2)
        #expect(ids.first == stored)
        #expect(try feed.quakes() == ["a Quito 5.0", "b somewhere 1.5"])
        let tags = try context.performAndWait {
            context.reset()
            return (try context.existingObject(with: stored).value(forKey: "tags") as? Set<NSManagedObject>)?.count
        }
        #expect(tags == 1)
    }

    @Test(arguments: BatchDeleteTests.sqlStoreTypes)
    func badInputIsRefusedBeforeAnythingIsWritten(storeType: String) throws {
        let feed = try Feed(storeType)
        let cases: [(NSBatchInsertRequest, Int, String)] = [
            (
                NSBatchInsertRequest(entityName: "Quake", objects: [["code": "a"], ["code": "b", "depth": 3]]),
                NSManagedObjectValidationError, "depth"
            ),
            (
                NSBatchInsertRequest(entityName: "Quake", objects: [["code": "a"], ["magnitude": "big"]]),
                NSManagedObjectValidationError, "magnitude"
            ),
            (NSBatchInsertRequest(entityName: "Quake", objects: [["tags": NSNull()]]), NSManagedObjectValidationError, "tags"),
            (NSBatchInsertRequest(entityName: "Nowhere", objects: [["code": "a"]]), NSCoreDataError, "Nowhere"),
        ]
        for (request, code, named) in cases {
            let failure = feed.failure(of: request)
            #expect(failure?.code == code, "\(String(describing: failure))")
            #expect(failure?.localizedDescription.contains(named) == true, "\(String(describing: failure))")
        }
        #expect(try feed.quakes() == [])
    }

    @Test(arguments: BatchDeleteTests.sqlStoreTypes)
    func persistentHistoryRecordsInsertsAndUpdates(storeType: String) throws {
        let feed = try Feed(storeType, history: true)
        _ = try feed.execute(NSBatchInsertRequest(entityName: "Quake", objects: [["code": "a"]]))
        _ = try feed.execute(NSBatchInsertRequest(entityName: "Quake", objects: [["code": "a", "magnitude": 2], ["code": "b"]]))
        let context = feed.container.newBackgroundContext()
        let changes = try context.performAndWait {
            let transactions = try context.allHistoryTransactions()
            return transactions.map { transaction in
                (transaction.changes ?? []).map { change in
                    "\(change.changeType == .insert ? "insert" : change.changeType == .update ? "update" : "delete")"
                        + (change.updatedProperties.map { " " + $0.map(\.name).sorted().joined(separator: ",") } ?? "")
                }.joined(separator: "; ")
            }
        }
        #expect(changes == ["insert", "insert; update code,magnitude"])
    }

    @Test func theInMemoryStoreRefusesAsApplesDoes() throws {
        let feed = try Feed(NSInMemoryStoreType)
        let failure = feed.failure(of: NSBatchInsertRequest(entityName: "Quake", objects: [["code": "a"]]))
        #expect(failure?.code == NSPersistentStoreUnsupportedRequestTypeError)
        #expect(try feed.quakes() == [])
    }
}
