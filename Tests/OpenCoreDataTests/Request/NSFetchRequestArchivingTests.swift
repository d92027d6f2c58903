import Foundation
import OpenCoreData
import Testing

/// An object that archives a fetch request inside itself, as an app's own classes do.
final class SavedSearch: NSObject, NSSecureCoding {
    static var supportsSecureCoding: Bool { true }
    let title: String
    let request: NSFetchRequest<NSFetchRequestResult>?

    init(title: String, request: NSFetchRequest<NSFetchRequestResult>) {
        self.title = title
        self.request = request
    }

    func encode(with coder: NSCoder) {
        coder.encode(title as NSString, forKey: "title")
        coder.encode(request, forKey: "request")
    }

    init?(coder: NSCoder) {
        title = coder.decodeObject(of: NSString.self, forKey: "title") as String? ?? ""
        guard let request = try? coder.decodeFetchRequest(forKey: "request") else { return nil }
        self.request = request
    }
}

@Suite struct NSFetchRequestArchivingTests {
    static func everySetting() -> NSFetchRequest<NSFetchRequestResult> {
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Employee")
        request.predicate = NSPredicate(format: "salary > %@ AND name BEGINSWITH[cd] $PREFIX", 50_000 as NSNumber)
        request.sortDescriptors = [
            NSSortDescriptor(key: "name", ascending: true, selector: "localizedStandardCompare:"),
            NSSortDescriptor(key: "salary", ascending: false),
        ]
        request.fetchLimit = 10
        request.fetchOffset = 3
        request.fetchBatchSize = 25
        request.includesSubentities = false
        request.returnsObjectsAsFaults = false
        request.shouldRefreshRefetchedObjects = true
        request.relationshipKeyPathsForPrefetching = ["department", "department.manager"]
        return request
    }

    @Test func everySettingRoundTripsAsTheRootObject() throws {
        let request = Self.everySetting()
        let data = try NSKeyedArchiver.archivedData(withRootObject: request, requiringSecureCoding: true)
        let decoded = try NSKeyedUnarchiver.unarchivedFetchRequest(from: data)
        #expect(decoded !== request)
        #expect(decoded == request)
        #expect(decoded.entityName == "Employee")
        #expect(decoded.predicate?.description == #"salary > 50000 AND name BEGINSWITH[cd] $PREFIX"#)
        #expect(decoded.sortDescriptors?.map(\.description) == ["(name, ascending, localizedStandardCompare:)", "(salary, descending, compare:)"])
        #expect(decoded.fetchLimit == 10 && decoded.fetchOffset == 3 && decoded.fetchBatchSize == 25)
        #expect(!decoded.includesSubentities && !decoded.returnsObjectsAsFaults && decoded.shouldRefreshRefetchedObjects)
        #expect(decoded.includesPropertyValues && decoded.includesPendingChanges && !decoded.returnsDistinctResults)
        #expect(decoded.relationshipKeyPathsForPrefetching == ["department", "department.manager"])
        // The variable survives and still substitutes.
        let bound = decoded.predicate?.withSubstitutionVariables(["PREFIX": "jo"])
        #expect(bound?.evaluate(with: ["salary": 60_000, "name": "Jöns"]) == true)
    }

    @Test func dictionaryRequestsKeepTheirShape() throws {
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Employee")
        request.resultType = .dictionaryResultType
        request.returnsDistinctResults = true
        let total = aggregate("total", "sum:", "salary", .decimalAttributeType)
        request.propertiesToFetch = ["department", total]
        request.propertiesToGroupBy = ["department"]
        request.havingPredicate = NSPredicate(format: "total > 100000")

        let data = try NSKeyedArchiver.archivedData(withRootObject: request, requiringSecureCoding: true)
        let decoded = try NSKeyedUnarchiver.unarchivedFetchRequest(from: data)
        #expect(decoded.resultType == .dictionaryResultType)
        #expect(decoded.returnsDistinctResults)
        #expect(decoded.propertiesToGroupBy as? [String] == ["department"])
        #expect(decoded.havingPredicate?.description == "total > 100000")
        let fetched = try #require(decoded.propertiesToFetch)
        #expect(fetched.count == 2)
        #expect(fetched.first as? String == "department")
        let decodedTotal = try #require(fetched.last as? NSExpressionDescription)
        #expect(decodedTotal.name == "total")
        #expect(decodedTotal.expressionResultType == .decimalAttributeType)
        #expect(decodedTotal.expression == total.expression)
    }

    @Test(arguments: [NSFetchRequestResultType.managedObjectIDResultType, .countResultType])
    func resultTypesRoundTrip(_ type: NSFetchRequestResultType) throws {
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Employee")
        request.resultType = type
        let data = try NSKeyedArchiver.archivedData(withRootObject: request, requiringSecureCoding: true)
        let decoded = try NSKeyedUnarchiver.unarchivedFetchRequest(from: data)
        #expect(decoded.resultType == type)
        #expect(!decoded.includesPropertyValues)  // as the setter left it
        #expect(decoded == request)
    }

    @Test func aRequestWithAnEntityIsArchivedByName() throws {
        let model = CompanyModel.make()
        let template = try #require(model.fetchRequestTemplate(forName: "HighEarners"))
        #expect(template.entity != nil)
        let data = try NSKeyedArchiver.archivedData(withRootObject: template, requiringSecureCoding: true)
        let decoded = try NSKeyedUnarchiver.unarchivedFetchRequest(from: data)
        #expect(decoded.entity == nil)
        #expect(decoded.entityName == "Employee")
        #expect(decoded.predicate?.description == "salary > $MIN")
        #expect(decoded.fetchLimit == 5)
        #expect(decoded.isEditable)
    }

    @Test func nestedInsideAnotherObjectsArchive() throws {
        let search = SavedSearch(title: "Seniors", request: Self.everySetting())
        let data = try NSKeyedArchiver.archivedData(withRootObject: search, requiringSecureCoding: true)
        let decoded = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: SavedSearch.self, from: data))
        #expect(decoded.title == "Seniors")
        #expect(decoded.request == Self.everySetting())
    }

    @Test func aBlockPredicateCannotBeArchived() {
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Employee")
        request.predicate = NSPredicate { _, _ in true }
        #expect(throws: (any Error).self) {
            try NSKeyedArchiver.archivedData(withRootObject: request, requiringSecureCoding: true)
        }
    }

    @Test func otherDataIsNotAFetchRequest() throws {
        let data = try NSKeyedArchiver.archivedData(withRootObject: "just a string" as NSString, requiringSecureCoding: true)
        #expect(throws: (any Error).self) { try NSKeyedUnarchiver.unarchivedFetchRequest(from: data) }
        #expect(throws: (any Error).self) { try NSKeyedUnarchiver.unarchivedFetchRequest(from: Data("not an archive".utf8)) }
    }

    /// The archive of a plain request with its `NSResultType` replaced.
    static func archive(resultType: Int) throws -> Data {
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Employee")
        let data = try NSKeyedArchiver.archivedData(withRootObject: request, requiringSecureCoding: true)
        var plist = try #require(try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])
        var objects = try #require(plist["$objects"] as? [Any])
        let index = try #require(objects.firstIndex { ($0 as? [String: Any])?["NSResultType"] != nil })
        var fields = try #require(objects[index] as? [String: Any])
        fields["NSResultType"] = resultType
        objects[index] = fields
        plist["$objects"] = objects
        return try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0)
    }

    @Test func aMalformedArchiveFailsWithAnError() throws {
        // The edit itself is sound: a valid result type decodes…
        #expect(try NSKeyedUnarchiver.unarchivedFetchRequest(from: Self.archive(resultType: 2)).resultType == .dictionaryResultType)
        // …and one Apple does not have (3) is refused.
        #expect(throws: (any Error).self) { try NSKeyedUnarchiver.unarchivedFetchRequest(from: Self.archive(resultType: 3)) }
    }
}
