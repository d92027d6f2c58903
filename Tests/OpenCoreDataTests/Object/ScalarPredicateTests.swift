import Foundation
import OpenCoreData
import OpenPredicate
import TestSupport
import Testing

/// A reading with typed properties, as a generated subclass declares them.
final class Reading: NSManagedObject {
    @Managed var small: Int16
    @Managed var medium: Int32
    @Managed var large: Int64
    @Managed var label: String?
    @Managed var ratio: Double
}

/// A reading whose class changes what `value(forKey:)` returns for `label`.
final class ShoutingReading: NSManagedObject {
    override func value(forKey key: String) -> Any? {
        let value = super.value(forKey: key)
        return key == "label" ? (value as? String)?.uppercased() : value
    }
}

/// A reading that records the keys whose values are read.
final class CountedReading: NSManagedObject {
    nonisolated(unsafe) static var reads: [String] = []

    override func willAccessValue(forKey key: String?) {
        Self.reads.append(key ?? "")
        super.willAccessValue(forKey: key)
    }
}

/// Readings of two kinds, passed to predicates as their common superclass.
class KindedReading: NSManagedObject {}
final class FirstKindReading: KindedReading {}
final class SecondKindReading: KindedReading {}

/// A predicate's `key op constant` test reads a fetched object's integer and string attributes
/// from its row without boxing them (`ScalarKeyValueCodable`). It must answer as the same
/// predicate on the values as `value(forKey:)` returns them, and as the store's fetch, on every
/// store; a class that overrides `value(forKey:)` is read through it; the access hooks run once
/// per key.
@Suite(.serialized) struct ScalarPredicateTests {
    static func model(_ objectClass: NSManagedObject.Type) -> NSManagedObjectModel {
        let reading = entity(
            "Reading",
            properties: [
                attribute("small", type: .integer16), attribute("medium", type: .integer32),
                attribute("large", type: .integer64), attribute("label", type: .string), attribute("ratio", type: .double),
            ])
        reading.managedObjectClassName = NSStringFromClass(objectClass)
        let model = NSManagedObjectModel()
        model.entities = [reading]
        return model
    }

    static let labels: [String?] = ["Kate", "kate", "Karl", "Émile", "", nil, "Ka", "Zoë", "K"]

    /// A store of `objectClass` readings, saved, and a fresh context on it.
    static func savedReadings(_ objectClass: NSManagedObject.Type, _ storeType: String, folder: TemporaryFolder) throws
        -> NSManagedObjectContext
    {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model(objectClass))
        let url = try folder.storeURL(for: storeType, name: "Readings.sqlite")
        try coordinator.addPersistentStore(ofType: storeType, configurationName: nil, at: url)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            var random = SplitMix64(seed: 0x5CA1A2)
            for index in 0..<60 {
                let reading = NSEntityDescription.insertNewObject(forEntityName: "Reading", into: context)
                let integer = random.next(below: 41) - 20
                if index % 7 != 3 {
                    reading.setValue(Int16(integer), forKey: "small")
                    reading.setValue(Int32(integer * 1000), forKey: "medium")
                }
                // Beyond a Double's exact integers too, where integers compare as doubles.
                reading.setValue(index % 11 == 5 ? Int64.max - Int64(index) : Int64(integer) * 100_000, forKey: "large")
                if let label = labels[random.next(below: labels.count)] { reading.setValue(label, forKey: "label") }
                reading.setValue(Double(integer) / 4, forKey: "ratio")
            }
            try context.save()
        }
        let fresh = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        fresh.persistentStoreCoordinator = coordinator
        return fresh
    }

    static let formats = [
        "small > 3", "small == -2", "small != 0", "small <= %@", "medium >= 5000", "medium < -2500.5", "large > 100000",
        "large == %@", "large > 9200000000000000000", "large BETWEEN {-500000, 500000}", "small IN {1, 2, 3}",
        "label BEGINSWITH 'Ka'", "label BEGINSWITH[c] 'ka'", "label ==[cd] 'emile'", "label == 'Kate'", "label != 'Kate'",
        "label < 'L'", "label ENDSWITH 'e'", "label CONTAINS[c] 'A'", "label == nil", "small == nil", "label BEGINSWITH ''",
        "ratio > 1.5", "small > 2 AND label BEGINSWITH 'K'", "label == 3", "small BEGINSWITH '1'",
    ]

    static func predicate(_ format: String) -> NSPredicate {
        switch format {
        case "small <= %@": NSPredicate(format: format, NSNumber(value: 4))
        case "large == %@": NSPredicate(format: format, NSNumber(value: Int64(-500_000)))
        default: NSPredicate(format: format)
        }
    }

    @Test(arguments: ContextFixture.storeTypes) func fetchedObjectsAnswerAsTheirValuesAndTheStore(_ storeType: String) throws {
        #expect(Reading.testsScalarValues)
        let folder = try TemporaryFolder()
        let context = try Self.savedReadings(Reading.self, storeType, folder: folder)
        try context.performAndWait {
            for format in Self.formats {
                let predicate = Self.predicate(format)
                // Objects fetched afresh for each predicate: their values still the fetched row's.
                let readings = try context.fetch(NSFetchRequest<Reading>(entityName: "Reading"))
                #expect(readings.count == 60)
                let matching = readings.filter { predicate.evaluate(with: $0) }
                let filtered = readings.filtered(using: predicate)
                let keys = ["small", "medium", "large", "label", "ratio"]
                let expected = readings.filter { reading in
                    var values: [String: Any] = [:]
                    for key in keys { values[key] = reading.value(forKey: key) }
                    return predicate.evaluate(with: values)
                }
                #expect(matching.map(\.objectID) == expected.map(\.objectID), "\(format)")
                #expect(filtered.map(\.objectID) == expected.map(\.objectID), "\(format)")
                // The store's answer, where its SQL and in-memory evaluation agree with ours
                // (comparing a string attribute with a number, or an integer with a string
                // prefix, is not a fetch a store answers the same way).
                if !["label == 3", "small BEGINSWITH '1'"].contains(format) {
                    let request = NSFetchRequest<Reading>(entityName: "Reading")
                    request.predicate = predicate
                    let fetched = Set(try context.fetch(request).map(\.objectID))
                    #expect(fetched == Set(expected.map(\.objectID)), "\(format)")
                }
                context.reset()
            }
            // Every form of value reaches the test it should.
            let request = NSFetchRequest<Reading>(entityName: "Reading")
            request.predicate = NSPredicate(format: "label == 'Kate' AND small != nil")
            let kate = try #require(try context.fetch(request).first)
            var seen: [String] = []
            let tests = ScalarTests(
                integer: {
                    seen.append("integer \($0)"); return true
                },
                string: {
                    seen.append("string \($0)"); return true
                },
                other: {
                    seen.append("other \(String(describing: $0))"); return true
                })
            for key in ["small", "medium", "label", "ratio"] { _ = kate.scalarTest(forKey: key, tests) }
            #expect(
                seen == [
                    "integer \(kate.small)", "integer \(kate.medium)", "string Kate", "other Optional(\(kate.ratio))",
                ])
            // A value changed since the fetch is read as `value(forKey:)` returns it.
            kate.small = 7
            seen = []
            _ = kate.scalarTest(forKey: "small", tests)
            #expect(seen == ["other Optional(7)"])
            #expect(NSPredicate(format: "small == 7").evaluate(with: kate))
        }
    }

    @Test(arguments: ContextFixture.storeTypes) func aClassOverridingValueForKeyIsReadThroughIt(_ storeType: String) throws {
        #expect(!ShoutingReading.testsScalarValues)
        let folder = try TemporaryFolder()
        let context = try Self.savedReadings(ShoutingReading.self, storeType, folder: folder)
        try context.performAndWait {
            let readings = try context.fetch(NSFetchRequest<ShoutingReading>(entityName: "Reading"))
            let kates = readings.filter { $0.value(forKey: "label") as? String == "KATE" }
            #expect(!kates.isEmpty)
            #expect(readings.filter { NSPredicate(format: "label == 'KATE'").evaluate(with: $0) }.count == kates.count)
            #expect(readings.filtered(using: NSPredicate(format: "label == 'Kate'")).isEmpty)
        }
    }

    /// Objects passed as a superclass are stored as it: the first one's class must not be taken
    /// for every later one's (a reader made for it would cast an object of the other class).
    @Test func objectsPassedAsTheirSuperclassAreReadAsTheirOwn() throws {
        let model = Self.model(FirstKindReading.self)
        let second = try #require(model.entitiesByName["Reading"]?.copy() as? NSEntityDescription)
        second.name = "OtherReading"
        second.managedObjectClassName = NSStringFromClass(SecondKindReading.self)
        let both = NSManagedObjectModel()
        both.entities = [try #require(model.entitiesByName["Reading"]), second]
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = NSPersistentStoreCoordinator(managedObjectModel: both)
        _ = try context.persistentStoreCoordinator?.addPersistentStore(
            ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
        for (entity, label) in [("Reading", "Kate"), ("OtherReading", "Karl")] {
            let object = NSEntityDescription.insertNewObject(forEntityName: entity, into: context)
            object.setValue(label, forKey: "label")
        }
        try context.save()
        let fresh = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        fresh.persistentStoreCoordinator = context.persistentStoreCoordinator
        let first = try #require(try fresh.fetch(NSFetchRequest<NSManagedObject>(entityName: "Reading")).first)
        let other = try #require(try fresh.fetch(NSFetchRequest<NSManagedObject>(entityName: "OtherReading")).first)
        let readings = try [#require(first as? KindedReading), #require(other as? KindedReading)]
        #expect(readings[1] is SecondKindReading)
        let predicate = NSPredicate(format: "label BEGINSWITH 'Ka'")
        for _ in 0..<2 {
            #expect(readings.allSatisfy { predicate.evaluate(with: $0) })
        }
    }

    @Test(arguments: ContextFixture.storeTypes) func eachKeyIsAccessedOncePerTest(_ storeType: String) throws {
        let folder = try TemporaryFolder()
        let context = try Self.savedReadings(CountedReading.self, storeType, folder: folder)
        try context.performAndWait {
            let readings = try context.fetch(NSFetchRequest<CountedReading>(entityName: "Reading"))
            let predicate = NSPredicate(format: "small > -100 AND label BEGINSWITH 'Ka'")
            for reading in readings {
                let hasSmall = reading.value(forKey: "small") != nil
                // Twice: the first object of a class is cast, later ones are remembered.
                for _ in 0..<2 {
                    CountedReading.reads = []
                    _ = predicate.evaluate(with: reading)
                    #expect(CountedReading.reads == (hasSmall ? ["small", "label"] : ["small"]))
                }
            }
        }
    }
}
