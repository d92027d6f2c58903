import CoreData
import Foundation
import TestSupport
import XCTest

// Typed `@Managed` properties read fetched values straight from the fetched row (one overload
// per type); these tests hold them to what `value(forKey:)` gives, on every store, for objects
// whose values are still the fetched row's and for objects whose values were decoded by a change.

class SampleOwner: NSManagedObject {
    @Managed var name: String?
}

class TypedSample: NSManagedObject {
    @Managed var text: String?
    @Managed("text") var requiredText: String
    @Managed var int16: Int16
    @Managed("int16") var int16AsInt: Int
    @Managed var int32: Int32?
    @Managed var int64: Int64
    @Managed("int64") var int64AsInt: Int?
    @Managed var double: Double
    @Managed var float: Float?
    @Managed var flag: Bool
    @Managed var amount: Decimal?
    @Managed var when: Date?
    @Managed var blob: Data?
    @Managed var token: UUID?
    @Managed var link: URL?
    @Managed var owner: SampleOwner?

    /// Property reads seen by the access hooks, by key.
    var accesses: [String: Int] = [:]
    var finishedAccesses: [String: Int] = [:]
    override func willAccessValue(forKey key: String?) { accesses[key ?? "", default: 0] += 1 }
    override func didAccessValue(forKey key: String?) { finishedAccesses[key ?? "", default: 0] += 1 }
}

final class SpecialSample: TypedSample {
    @Managed var note: String?
}

private let typedSampleModel: NSManagedObjectModel = {
    let owner = NSEntityDescription()
    owner.name = "Owner"
    owner.managedObjectClassName = String(reflecting: SampleOwner.self)
    owner.properties = [attribute("name", .stringAttributeType)]
    let sample = NSEntityDescription()
    sample.name = "Sample"
    sample.managedObjectClassName = String(reflecting: TypedSample.self)
    let ownerRelationship = relationship("owner", to: owner, maxCount: 1)
    sample.properties = [
        attribute("text", .stringAttributeType), attribute("int16", .integer16AttributeType),
        attribute("int32", .integer32AttributeType), attribute("int64", .integer64AttributeType),
        attribute("double", .doubleAttributeType), attribute("float", .floatAttributeType),
        attribute("flag", .booleanAttributeType), attribute("amount", .decimalAttributeType),
        attribute("when", .dateAttributeType), attribute("blob", .binaryDataAttributeType),
        attribute("token", .UUIDAttributeType), attribute("link", .URIAttributeType), ownerRelationship,
    ]
    let special = NSEntityDescription()
    special.name = "SpecialSample"
    special.managedObjectClassName = String(reflecting: SpecialSample.self)
    special.properties = [attribute("note", .stringAttributeType)]
    sample.subentities = [special]
    let model = NSManagedObjectModel()
    model.entities = [owner, sample, special]
    return model
}()

final class TypedReadTests: XCTestCase {
    /// Runs `body` on a background context of a fresh container of each store kind, with the
    /// samples saved (see `saveSamples(in:)`).
    private func onSavedSamples(_ body: (NSManagedObjectContext, StoreKind) throws -> Void) throws {
        for kind in StoreKind.allCases {
            let container = try makeContainer(named: "TypedSamples", model: typedSampleModel, kind)
            try saveSamples(in: container)
            let context = container.newBackgroundContext()
            try context.performAndWait { try body(context, kind) }
        }
    }

    /// Two samples saved: one with every value set (its owner named "Ada"), one with only the
    /// scalars a non-optional property needs; and a special sample.
    private func saveSamples(in container: NSPersistentContainer) throws {
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let owner = SampleOwner(context: context)
            owner.name = "Ada"
            let full = TypedSample(context: context)
            full.text = "Grüße, 世界"
            full.int16 = -1234
            full.int32 = 70_000
            full.int64 = 9_000_000_000
            full.double = 2.5
            full.float = 0.25
            full.flag = true
            full.amount = Decimal(string: "12.345")
            full.when = Date(timeIntervalSinceReferenceDate: 86_400.5)
            full.blob = Data([0, 1, 2, 255])
            full.token = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
            full.link = URL(string: "https://example.com/a?b=c")
            full.owner = owner
            let sparse = TypedSample(context: context)
            sparse.int16 = 7
            sparse.int64 = -3
            sparse.double = 0
            sparse.flag = false
            let special = SpecialSample(context: context)
            special.text = "special"
            special.note = "a note"
            special.int16 = 2
            special.int64 = 1
            special.double = 1.5
            special.flag = true
            try context.save()
        }
    }

    /// Every typed property of `sample` against `value(forKey:)`.
    private func assertTypedReadsMatchKeyValueReads(_ sample: TypedSample, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(sample.text, sample.value(forKey: "text") as? String, file: file, line: line)
        XCTAssertEqual(sample.int16, sample.value(forKey: "int16") as? Int16, file: file, line: line)
        XCTAssertEqual(sample.int16AsInt, (sample.value(forKey: "int16") as? Int16).map(Int.init), file: file, line: line)
        XCTAssertEqual(sample.int32, sample.value(forKey: "int32") as? Int32, file: file, line: line)
        XCTAssertEqual(sample.int64, sample.value(forKey: "int64") as? Int64, file: file, line: line)
        XCTAssertEqual(sample.int64AsInt, (sample.value(forKey: "int64") as? Int64).map(Int.init), file: file, line: line)
        XCTAssertEqual(sample.double, sample.value(forKey: "double") as? Double, file: file, line: line)
        XCTAssertEqual(sample.float, sample.value(forKey: "float") as? Float, file: file, line: line)
        XCTAssertEqual(sample.flag, sample.value(forKey: "flag") as? Bool, file: file, line: line)
        XCTAssertEqual(sample.amount, sample.value(forKey: "amount") as? Decimal, file: file, line: line)
        XCTAssertEqual(sample.when, sample.value(forKey: "when") as? Date, file: file, line: line)
        XCTAssertEqual(sample.blob, sample.value(forKey: "blob") as? Data, file: file, line: line)
        XCTAssertEqual(sample.token, sample.value(forKey: "token") as? UUID, file: file, line: line)
        XCTAssertEqual(sample.link, sample.value(forKey: "link") as? URL, file: file, line: line)
        XCTAssertTrue(sample.owner === sample.value(forKey: "owner") as? SampleOwner, file: file, line: line)
    }

    private func fetchSamples(_ context: NSManagedObjectContext) throws -> [TypedSample] {
        let request = NSFetchRequest<TypedSample>(entityName: "Sample")
        request.sortDescriptors = [NSSortDescriptor(key: "int64", ascending: false)]
        return try context.fetch(request)
    }

    func testTypedPropertiesReadFetchedValues() throws {
        try onSavedSamples { context, kind in
            let samples = try fetchSamples(context)
            XCTAssertEqual(samples.map(\.int64), [9_000_000_000, 1, -3], "\(kind)")
            guard samples.count == 3 else { return }
            let full = samples[0]
            XCTAssertEqual(full.text, "Grüße, 世界")
            XCTAssertEqual(full.requiredText, "Grüße, 世界")
            XCTAssertEqual(full.int16, -1234)
            XCTAssertEqual(full.int16AsInt, -1234)
            XCTAssertEqual(full.int32, 70_000)
            XCTAssertEqual(full.int64AsInt, 9_000_000_000)
            XCTAssertEqual(full.double, 2.5)
            XCTAssertEqual(full.float, 0.25)
            XCTAssertEqual(full.flag, true)
            XCTAssertEqual(full.amount, Decimal(string: "12.345"))
            XCTAssertEqual(full.when, Date(timeIntervalSinceReferenceDate: 86_400.5))
            XCTAssertEqual(full.blob, Data([0, 1, 2, 255]))
            XCTAssertEqual(full.token, UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
            XCTAssertEqual(full.link, URL(string: "https://example.com/a?b=c"))
            XCTAssertEqual(full.owner?.name, "Ada")
            XCTAssertTrue(full.owner === full.owner, "a to-one reads the same object each time")

            let sparse = samples[2]
            XCTAssertNil(sparse.text)
            XCTAssertEqual(sparse.int16, 7)
            XCTAssertNil(sparse.int32)
            XCTAssertEqual(sparse.int64AsInt, -3)
            XCTAssertEqual(sparse.double, 0)
            XCTAssertNil(sparse.float)
            XCTAssertEqual(sparse.flag, false)
            XCTAssertNil(sparse.amount)
            XCTAssertNil(sparse.when)
            XCTAssertNil(sparse.blob)
            XCTAssertNil(sparse.token)
            XCTAssertNil(sparse.link)
            XCTAssertNil(sparse.owner)

            let special = try XCTUnwrap(samples[1] as? SpecialSample, "\(kind)")
            XCTAssertEqual(special.note, "a note")
            XCTAssertEqual(special.text, "special")

            for sample in samples { assertTypedReadsMatchKeyValueReads(sample) }
        }
    }

    func testTypedPropertiesReadChangedValues() throws {
        try onSavedSamples { context, kind in
            let samples = try fetchSamples(context)
            guard let full = samples.first, let sparse = samples.last else { return XCTFail("no samples in \(kind)") }
            // A change decodes the fetched row: reads then come from the decoded values.
            full.int32 = nil
            full.text = "changed"
            sparse.amount = Decimal(7)
            sparse.owner = full.owner
            XCTAssertNil(full.int32)
            XCTAssertEqual(full.text, "changed")
            XCTAssertEqual(full.int16, -1234)
            XCTAssertEqual(sparse.amount, 7)
            XCTAssertEqual(sparse.owner?.name, "Ada")
            for sample in samples { assertTypedReadsMatchKeyValueReads(sample) }
        }
    }

    func testEachTypedReadRunsTheAccessHooksOnce() throws {
        try onSavedSamples { context, kind in
            guard let full = try fetchSamples(context).first else { return XCTFail("no samples in \(kind)") }
            full.accesses = [:]
            full.finishedAccesses = [:]
            _ = full.int64
            _ = full.text
            _ = full.owner
            _ = full.float
            _ = full.int16AsInt
            XCTAssertEqual(full.accesses, ["int64": 1, "text": 1, "owner": 1, "float": 1, "int16": 1], "\(kind)")
            XCTAssertEqual(full.finishedAccesses, full.accesses, "\(kind)")
        }
    }

    func testFetchedObjectsHaveTheirStoreIDs() throws {
        try onSavedSamples { context, kind in
            let idRequest = NSFetchRequest<NSManagedObjectID>(entityName: "Sample")
            idRequest.resultType = .managedObjectIDResultType
            idRequest.sortDescriptors = [NSSortDescriptor(key: "int64", ascending: false)]
            let ids = try context.fetch(idRequest)
            let samples = try fetchSamples(context)
            XCTAssertEqual(samples.map(\.objectID), ids, "\(kind)")
            for (sample, id) in zip(samples, ids) {
                XCTAssertFalse(sample.objectID.isTemporaryID)
                XCTAssertTrue(context.registeredObject(for: id) === sample)
                XCTAssertTrue(context.object(with: id) === sample)
                XCTAssertTrue(try context.existingObject(with: id) === sample)
            }
            // Found again by a fetch, before and after its ID was asked for.
            let again = try fetchSamples(context)
            XCTAssertTrue(zip(again, samples).allSatisfy { $0 === $1 }, "\(kind)")
            // The destination of a to-one is the object a fetch of its entity returns.
            let owners = try context.fetch(NSFetchRequest<SampleOwner>(entityName: "Owner"))
            XCTAssertTrue(owners.first === samples.first?.owner, "\(kind)")
        }
    }

    func testAFetchTypedAsASuperclassReturnsEachSubclass() throws {
        try onSavedSamples { context, kind in
            let samples = try fetchSamples(context)
            XCTAssertEqual(samples.map { String(describing: type(of: $0)) }, ["TypedSample", "SpecialSample", "TypedSample"])
            // A request whose result type the objects are not is an error, not a crash.
            let wrong = NSFetchRequest<SpecialSample>(entityName: "Sample")
            XCTAssertThrowsError(try context.fetch(wrong), "\(kind)")
            let specials = try context.fetch(NSFetchRequest<SpecialSample>(entityName: "SpecialSample"))
            XCTAssertEqual(specials.map(\.note), ["a note"], "\(kind)")
        }
    }
}
