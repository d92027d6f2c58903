import Foundation
import OpenCoreData
import Testing

/// `NSManagedObjectContext.dictionaryResults`: the NSDictionary made of each row of a store's
/// `DictionaryRows`, on both store types. The company fixture plus Zed, an employee with no
/// salary, birth date or department.
@Suite struct DictionaryResultsTests {
    static func fixture(_ storeType: String) throws -> ContextFixture {
        let fixture = try ContextFixture(storeType: storeType)
        fixture.insert("Employee", ["name": "Zed"])
        try fixture.context.save()
        return fixture
    }

    static func request(_ properties: [Any]) -> NSFetchRequest<NSDictionary> {
        let request = NSFetchRequest<NSDictionary>(entityName: "Employee")
        request.resultType = .dictionaryResultType
        request.propertiesToFetch = properties
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        return request
    }

    static func named(_ name: String, _ keyPath: String) -> NSExpressionDescription {
        let description = NSExpressionDescription()
        description.name = name
        description.expression = NSExpression(forKeyPath: keyPath)
        description.expressionResultType = .stringAttributeType
        return description
    }

    /// A row whose every fetched column is NULL gives an empty dictionary (not a missing one).
    @Test(arguments: ContextFixture.storeTypes)
    func rowOfNullsIsEmptyDictionary(_ storeType: String) throws {
        let fixture = try Self.fixture(storeType)
        let results = try fixture.context.fetch(Self.request(["born", "department"]))
        #expect(results.map(\.count) == [1, 1, 1, 1, 0], "\(storeType)")
        #expect(results.last?.allKeys.isEmpty == true, "\(storeType)")
        #expect(results.first?["born"] == nil, "\(storeType)")
    }

    /// Rows with a decimal (made through `NSDictionary(dictionary:)`) and rows without (made
    /// from the shared keys) in one fetch: same keys, same values as each would alone.
    @Test(arguments: ContextFixture.storeTypes)
    func commonAndUncommonRowsMix(_ storeType: String) throws {
        let fixture = try Self.fixture(storeType)
        let results = try fixture.context.fetch(Self.request(["name", "salary", "department"]))
        let sales = try fixture.context.fetch(fixture.request("Department", "title == 'Sales'")).first?.objectID
        #expect(results.map { $0["name"] as? String } == ["Ann", "Bob", "Cy", "Dee", "Zed"], "\(storeType)")
        #expect(results.map { $0["salary"] as? Decimal } == [50_000, 70_000, 90_000, 120_000, nil], "\(storeType)")
        #expect(results.first?["department"] as? NSManagedObjectID == sales, "\(storeType)")
        #expect(results.map { Set($0.allKeys.compactMap { $0 as? String }) }.last == ["name"], "\(storeType)")
        #expect(results.dropLast().allSatisfy { $0.count == 3 }, "\(storeType)")
        // Both kinds bridge to Swift dictionaries alike.
        let zed = results.last as? [String: Any]
        #expect(zed?.count == 1 && zed?["name"] as? String == "Zed", "\(storeType)")
        let ann = results.first as? [String: Any]
        #expect(ann?.count == 3 && ann?["salary"] as? Decimal == 50_000, "\(storeType)")
    }

    /// Two fetched properties of one name give one key; a later column's value replaces an
    /// earlier one's unless it is NULL (as assigning the columns in order into one dictionary).
    /// A choice: Apple does not document it.
    @Test(arguments: ContextFixture.storeTypes)
    func sameNameTwiceKeepsLastNonNull(_ storeType: String) throws {
        let fixture = try Self.fixture(storeType)
        let request = Self.request([Self.named("x", "name"), Self.named("x", "department.title")])
        let results = try fixture.context.fetch(request)
        #expect(results.map { $0["x"] as? String } == ["Sales", "Sales", "Labs", "Labs", "Zed"], "\(storeType)")
        #expect(results.map(\.count) == [1, 1, 1, 1, 1], "\(storeType)")
    }

    /// The keys of common rows (one shared string per column, its hash stored) behave as plain
    /// strings do: in lookups by `String` and `NSString`, in equality both ways and with keys of
    /// another fetch, in hashes, in bridging and in copies. Names outside ASCII too.
    @Test(arguments: ContextFixture.storeTypes)
    func sharedKeysActAsStrings(_ storeType: String) throws {
        let fixture = try Self.fixture(storeType)
        let request = Self.request(["name", Self.named("prénom·名", "name")])
        let first = try fixture.context.fetch(request)
        let second = try fixture.context.fetch(request)
        #expect(first.map { $0["prénom·名"] as? String } == ["Ann", "Bob", "Cy", "Dee", "Zed"], "\(storeType)")
        #expect(first.first?.object(forKey: NSString(string: "name")) as? String == "Ann", "\(storeType)")
        #expect(first.first?["nom"] == nil, "\(storeType)")
        let keys = try #require(first.first?.allKeys.compactMap { $0 as? NSString })
        let otherKeys = try #require(second.first?.allKeys.compactMap { $0 as? NSString })
        #expect(Set(keys.map { $0 as String }) == ["name", "prénom·名"], "\(storeType)")
        for key in keys {
            let text = key as String
            let plain = NSString(string: text)
            #expect(key.isEqual(plain) && plain.isEqual(key) && key.isEqual(to: text), "\(storeType) \(text)")
            #expect(key.hash == plain.hash && key.length == plain.length, "\(storeType) \(text)")
            #expect(key.description == text && (key.copy() as? NSString)?.isEqual(plain) == true, "\(storeType) \(text)")
            #expect(otherKeys.contains { $0.isEqual(key) }, "\(storeType) \(text)")
            #expect(!key.isEqual(NSString(string: text + "x")) && !key.isEqual(NSNumber(value: 1)), "\(storeType) \(text)")
        }
        // A dictionary of plain strings with the same contents is equal, either way round.
        let plainAnn = NSDictionary(dictionary: ["name": "Ann", "prénom·名": "Ann"])
        #expect(first.first?.isEqual(plainAnn) == true && plainAnn.isEqual(first.first) == true, "\(storeType)")
        let bridged = try #require(first.last as? [String: String], "\(storeType)")
        #expect(bridged == ["name": "Zed", "prénom·名": "Zed"], "\(storeType)")
        let json = try JSONSerialization.data(withJSONObject: first.first as Any, options: [.sortedKeys])
        #expect(String(decoding: json, as: UTF8.self) == #"{"name":"Ann","prénom·名":"Ann"}"#, "\(storeType)")
    }
}
