@testable import OpenCoreData
import TestSupport
import Testing

/// `validated(in:)`: what Apple checks when a request runs, with Apple's reasons.
@Suite struct NSFetchRequestValidationTests {
    typealias Request = NSFetchRequest<NSFetchRequestResult>

    struct Case: Sendable, CustomTestStringConvertible {
        let label: String
        let make: @Sendable (NSManagedObjectModel) -> Request
        /// nil when the request is valid.
        let reason: String?
        var culprit: String?
        var operation = "executeFetchRequest:error:"

        var testDescription: String { label }
    }

    static func dictionaryRequest(_ entityName: String, fetch: [Any]?, groupBy: [Any]?) -> Request {
        let request = Request(entityName: entityName)
        request.resultType = .dictionaryResultType
        request.propertiesToFetch = fetch
        request.propertiesToGroupBy = groupBy
        return request
    }

    static let cases: [Case] = [
        // Valid.
        Case(label: "by name", make: { _ in Request(entityName: "Employee") }, reason: nil),
        Case(label: "entity of the model", make: { RequestFixtures.request("Manager", in: $0) }, reason: nil),
        Case(
            label: "grouped, with aggregate and having",
            make: { _ in
                let request = dictionaryRequest(
                    "Employee", fetch: ["department.title", NSFetchRequestPropertiesTests.sum("salary")],
                    groupBy: ["department.title"])
                request.havingPredicate = NSPredicate(format: "total > 100")
                return request
            }, reason: nil),
        Case(
            label: "grouped key path expression",
            make: { _ in
                dictionaryRequest(
                    "Employee",
                    fetch: [NSFetchRequestPropertiesTests.keyPathColumn("dept", "department.title"), "objectID"],
                    groupBy: ["department.title"])
            }, reason: nil),
        Case(
            label: "grouped, every stored attribute",
            make: { _ in dictionaryRequest("Department", fetch: nil, groupBy: ["title"]) },
            reason: nil),
        Case(label: "empty group by", make: { _ in dictionaryRequest("Employee", fetch: ["name"], groupBy: []) }, reason: nil),

        // The entity.
        Case(
            label: "no entity", make: { _ in Request() },
            reason: "executeFetchRequest:error: A fetch request must have an entity."
        ),
        Case(
            label: "no entity, counting", make: { _ in Request() },
            reason: "countForFetchRequest:error: A fetch request must have an entity.", operation: "countForFetchRequest:error:"),
        Case(
            label: "unknown entity name", make: { _ in Request(entityName: "Employe") },
            reason: "NSFetchRequest could not locate an NSEntityDescription for entity name 'Employe'", culprit: "Employe"),
        Case(
            label: "entity of no model",
            make: { _ in
                let loose = NSEntityDescription()
                loose.name = "Loose"
                let request = Request()
                request.entity = loose
                return request
            },
            reason: "The fetch request's entity 'Loose' appears to be from a different NSManagedObjectModel than this context's",
            culprit: "Loose"),

        // Numbers.
        Case(
            label: "negative limit",
            make: { _ in
                let request = Request(entityName: "Employee")
                request.fetchLimit = -1
                return request
            }, reason: "Invalid fetch request: fetchLimit must not be negative (-1)", culprit: "fetchLimit"),
        Case(
            label: "negative offset",
            make: { _ in
                let request = Request(entityName: "Employee")
                request.fetchOffset = -5
                return request
            }, reason: "Invalid fetch request: fetchOffset must not be negative (-5)", culprit: "fetchOffset"),

        // Property lists of a request by name, checked only now.
        Case(
            label: "unknown name by name", make: { _ in dictionaryRequest("Employee", fetch: ["nmae"], groupBy: nil) },
            reason: "Invalid keypath nmae passed to setPropertiesToFetch:", culprit: "nmae"),
        Case(
            label: "to-many group by, by name",
            make: { _ in dictionaryRequest("Department", fetch: nil, groupBy: ["employees"]) },
            reason: "Invalid keypath employees passed to setPropertiesToGroupBy:", culprit: "employees"),
        Case(
            label: "transient, result type changed after",
            make: { model in
                let request = RequestFixtures.request("Department", in: model)
                request.propertiesToFetch = ["draft"]
                request.resultType = .dictionaryResultType
                return request
            }, reason: "Invalid property draft passed to setPropertiesToFetch: (property is transient)", culprit: "draft"),

        // Grouping.
        Case(
            label: "having without group by",
            make: { _ in
                let request = dictionaryRequest("Employee", fetch: ["name"], groupBy: nil)
                request.havingPredicate = NSPredicate(format: "name != nil")
                return request
            }, reason: "Invalid fetch request: HAVING with no GROUP BY"),
        Case(
            label: "having with empty group by",
            make: { _ in
                let request = dictionaryRequest("Employee", fetch: ["name"], groupBy: [])
                request.havingPredicate = NSPredicate(format: "name != nil")
                return request
            }, reason: "Invalid fetch request: HAVING with no GROUP BY"),
        Case(
            label: "group by, managed objects",
            make: { _ in
                let request = Request(entityName: "Employee")
                request.propertiesToGroupBy = ["name"]
                return request
            }, reason: "Invalid fetch request: GROUP BY requires NSDictionaryResultType"),
        Case(
            label: "group by, count",
            make: { _ in
                let request = dictionaryRequest("Employee", fetch: ["name"], groupBy: ["name"])
                request.resultType = .countResultType
                return request
            }, reason: "Invalid fetch request: GROUP BY requires NSDictionaryResultType"),
        Case(
            label: "selected attribute not grouped",
            make: { _ in dictionaryRequest("Employee", fetch: ["name", "salary"], groupBy: ["name"]) },
            reason:
                "SELECT clauses in queries with GROUP BY components can only contain properties named in the GROUP BY or aggregate functions (salary is not in the GROUP BY)",
            culprit: "salary"),
        Case(
            label: "selected key path not grouped",
            make: { _ in dictionaryRequest("Employee", fetch: ["department.title", "name"], groupBy: ["name"]) },
            reason:
                "SELECT clauses in queries with GROUP BY components can only contain properties named in the GROUP BY or aggregate functions (department.title is not in the GROUP BY)",
            culprit: "department.title"),
        Case(
            label: "every stored attribute, not all grouped",
            make: { _ in dictionaryRequest("Employee", fetch: nil, groupBy: ["name"]) },
            reason:
                "SELECT clauses in queries with GROUP BY components can only contain properties named in the GROUP BY or aggregate functions (born is not in the GROUP BY)",
            culprit: "born"),
    ]

    @Test(arguments: cases)
    func requestsAreCheckedWhenTheyRun(_ testCase: Case) throws {
        let model = RequestFixtures.model()
        let request = testCase.make(model)
        guard let reason = testCase.reason else {
            let validated = try request.validated(in: model, operation: testCase.operation)
            #expect(validated.entity === model.entitiesByName[request.entityName ?? ""])
            return
        }
        let error = #expect(throws: NSError.self) { try request.validated(in: model, operation: testCase.operation) }
        #expect(error?.localizedDescription == reason)
        #expect(error?.domain == NSCocoaErrorDomain && error?.code == NSCoreDataError)
        #expect(error?.userInfo[FetchRequestError.culpritKey] as? String == testCase.culprit)
    }

    @Test func propertiesResolveToTheModelsDescriptions() throws {
        let model = RequestFixtures.model()
        let request = Self.dictionaryRequest(
            "Employee", fetch: ["name", "department.title"], groupBy: ["name", "department.title"])
        let validated = try request.validated(in: model)
        #expect(validated.entity === model[entity: "Employee"])
        let fetched = try #require(validated.propertiesToFetch)
        #expect(fetched.first === model[entity: "Person"].propertiesByName["name"])
        let keyPath = try #require(fetched.last as? NSExpressionDescription)
        #expect(keyPath.name == "department.title" && keyPath.expression?.keyPath == "department.title")
        #expect(keyPath.expressionResultType == .stringAttributeType)
        #expect(validated.propertiesToGroupBy?.count == 2)
        #expect(
            request.propertiesToFetch?.map(RequestFixtures.describe) == ["name", "department.title"], "the request is unchanged")
    }

    @Test func anEntityOfAnotherModelIsReplacedByTheModelsOwn() throws {
        let model = RequestFixtures.model()
        let copy = try #require(model.copy() as? NSManagedObjectModel)
        let request = RequestFixtures.request("Employee", in: copy)
        request.propertiesToFetch = ["salary", "department"]
        let validated = try request.validated(in: model)
        #expect(validated.entity === model[entity: "Employee"])
        #expect(validated.propertiesToFetch?.first === model[entity: "Employee"].propertiesByName["salary"])
        #expect(validated.propertiesToFetch?.last === model[entity: "Employee"].propertiesByName["department"])
        #expect(request.entity === copy[entity: "Employee"], "the request keeps its own entity")
    }

    @Test func keyPathsAreTypedAsWhatTheyReach() throws {
        let model = RequestFixtures.model()
        let department = model[entity: "Department"]
        department.properties =
            department.properties + [relationship("head", to: model[entity: "Manager"], maxCount: 1)]
        let request = Request(entityName: "Employee")
        request.propertiesToFetch = ["department.title", "department.head"]
        let validated = try request.validated(in: model)
        let columns = try #require(validated.propertiesToFetch as? [NSExpressionDescription])
        #expect(columns.map(\.expressionResultType) == [.stringAttributeType, .objectIDAttributeType])
        #expect(columns.map { $0.expression?.keyPath } == ["department.title", "department.head"])
    }
}
