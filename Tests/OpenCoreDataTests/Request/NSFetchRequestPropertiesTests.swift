@testable import OpenCoreData
import TestSupport
import Testing

/// `propertiesToFetch` and `propertiesToGroupBy` when they are set: checked against the entity
/// with Apple's reasons, and stored as Apple stores them.
@Suite struct NSFetchRequestPropertiesTests {
    enum Outcome: Sendable, CustomStringConvertible {
        case stored([String])
        case refused(String)

        var description: String {
            switch self {
            case .stored(let names): return "stored \(names)"
            case .refused(let reason): return "refused: \(reason)"
            }
        }
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let entity: String
        let list: FetchPropertyList
        var resultType = NSFetchRequestResultType.managedObjectResultType
        let values: @Sendable (NSManagedObjectModel) -> [Any]
        let outcome: Outcome
        let label: String

        var testDescription: String { label }
    }

    static func sum(_ keyPath: String) -> NSExpressionDescription {
        aggregate("total", "sum:", keyPath, .decimalAttributeType)
    }

    static func keyPathColumn(_ name: String, _ keyPath: String) -> NSExpressionDescription {
        let column = NSExpressionDescription()
        column.name = name
        column.expression = NSExpression(forKeyPath: keyPath)
        return column
    }

    static let cases: [Case] = [
        // Accepted, and stored as Apple stores them.
        Case(
            entity: "Employee", list: .fetch, values: { _ in ["name"] }, outcome: .stored(["Attribute:name"]),
            label: "inherited name"),
        Case(
            entity: "Employee", list: .fetch, values: { _ in ["salary", "department", "salary"] },
            outcome: .stored(["Attribute:salary", "Relationship:department"]), label: "names, the same twice"),
        Case(
            entity: "Employee", list: .fetch, values: { _ in ["department.title"] },
            outcome: .stored(["Expression:department.title=department.title"]), label: "to-one key path"),
        Case(
            entity: "Employee", list: .fetch, values: { _ in ["objectID"] }, outcome: .stored(["Expression:objectID=SELF"]),
            label: "objectID"),
        Case(
            entity: "Employee", list: .fetch, values: { _ in [sum("salary")] },
            outcome: .stored(["Expression:total=sum:(salary)"]),
            label: "expression description"),
        Case(
            entity: "Employee", list: .fetch, values: { $0[entity: "Employee"].properties.filter { $0.name == "salary" } },
            outcome: .stored(["Attribute:salary"]), label: "the entity's own description"),
        Case(
            entity: "Department", list: .fetch, values: { _ in ["draft"] }, outcome: .stored(["Attribute:draft"]),
            label: "transient, managed objects"),
        Case(
            entity: "Employee", list: .groupBy, values: { _ in ["department.title", "name"] },
            outcome: .stored(["Expression:department.title=department.title", "Attribute:name"]), label: "group by key paths"),
        Case(
            entity: "Employee", list: .groupBy, values: { _ in [keyPathColumn("dept", "department.title")] },
            outcome: .stored(["Expression:dept=department.title"]), label: "group by key path expression"),
        Case(
            entity: "Manager", list: .groupBy, values: { $0[entity: "Person"].properties.filter { $0.name == "name" } },
            outcome: .stored(["Attribute:name"]), label: "group by inherited description"),

        // Refused, with Apple's reasons.
        Case(
            entity: "Employee", list: .fetch, values: { _ in ["nmae"] },
            outcome: .refused("Invalid keypath nmae passed to setPropertiesToFetch:"), label: "unknown name"),
        Case(
            entity: "Employee", list: .fetch, values: { _ in ["department.nmae"] },
            outcome: .refused("Invalid keypath department.nmae passed to setPropertiesToFetch:"), label: "unknown key path"),
        Case(
            entity: "Employee", list: .fetch, values: { _ in ["salary.amount"] },
            outcome: .refused("Invalid keypath salary.amount passed to setPropertiesToFetch: (non-terminal attribute)"),
            label: "through an attribute"),
        Case(
            entity: "Department", list: .fetch, values: { _ in ["seniors.name"] },
            outcome: .refused("Invalid keypath seniors.name passed to setPropertiesToFetch: (invalid property type)"),
            label: "through a fetched property"),
        Case(
            entity: "Department", list: .fetch, values: { _ in ["employees.name"] },
            outcome: .refused("Invalid to many relationship in setPropertiesToFetch: (employees.name)"), label: "to-many key path"
        ),
        Case(
            entity: "Department", list: .fetch, values: { _ in ["employees"] },
            outcome: .refused("Invalid to many relationship in setPropertiesToFetch: (employees)"), label: "to-many name"),
        Case(
            entity: "Department", list: .fetch, resultType: .dictionaryResultType, values: { _ in ["draft"] },
            outcome: .refused("Invalid keypath draft passed to setPropertiesToFetch:"), label: "transient, dictionaries"),
        Case(
            entity: "Department", list: .fetch, resultType: .dictionaryResultType,
            values: { $0[entity: "Department"].properties.filter { $0.name == "draft" } },
            outcome: .refused("Invalid property draft passed to setPropertiesToFetch: (property is transient)"),
            label: "transient description, dictionaries"),
        Case(
            entity: "Department", list: .fetch, values: { $0[entity: "Employee"].properties.filter { $0.name == "salary" } },
            outcome: .refused(
                "Attribute/relationship description names passed to setPropertiesToFetch: must match name on fetch entity (salary)"
            ),
            label: "another entity's description"),
        Case(
            entity: "Department", list: .fetch, values: { $0[entity: "Department"].properties.filter { $0.name == "employees" } },
            outcome: .refused("Invalid to many relationship (employees) passed to setPropertiesToFetch:"),
            label: "to-many description"),
        Case(
            entity: "Employee", list: .fetch, values: { _ in [42] },
            outcome: .refused("Invalid value 42 passed to setPropertiesToFetch: (expected a property description or a name)"),
            label: "not a property"),
        Case(
            entity: "Department", list: .groupBy, values: { _ in ["employees"] },
            outcome: .refused("Invalid keypath employees passed to setPropertiesToGroupBy:"), label: "group by to-many"),
        Case(
            entity: "Department", list: .groupBy, values: { _ in ["employees.name"] },
            outcome: .refused("Invalid keypath employees.name passed to setPropertiesToGroupBy:"), label: "group by to-many path"),
        Case(
            entity: "Department", list: .groupBy, values: { _ in ["draft"] },
            outcome: .refused("Invalid keypath draft passed to setPropertiesToGroupBy:"), label: "group by transient"),
        Case(
            entity: "Employee", list: .groupBy, values: { _ in [sum("salary")] },
            outcome: .refused("Invalid keypath expression (sum:(salary)) passed to setPropertiesToFetch:"),
            label: "group by an aggregate"),
        Case(
            entity: "Employee", list: .groupBy,
            values: { model in
                let other = NSEntityDescription()
                other.name = "Other"
                other.properties = [attribute("name", .stringAttributeType)]
                model.entities += [other]  // the model keeps the entity (properties hold it weakly)
                return other.properties
            },
            outcome: .refused("Invalid property (name) passed to setPropertiesToFetch: (entity mismatch)"),
            label: "group by an unrelated entity's description"),
    ]

    @Test(arguments: cases)
    func propertiesAreCheckedWhenSet(_ testCase: Case) throws {
        let model = RequestFixtures.model()
        let request = RequestFixtures.request(testCase.entity, in: model)
        request.resultType = testCase.resultType
        let values = testCase.values(model)
        let set: ([Any]?) throws -> Void =
            testCase.list == .fetch ? request.setPropertiesToFetch(validating:) : request.setPropertiesToGroupBy(validating:)
        let read = { testCase.list == .fetch ? request.propertiesToFetch : request.propertiesToGroupBy }
        switch testCase.outcome {
        case .stored(let expected):
            try set(values)
            #expect(read()?.map(RequestFixtures.describe) == expected)
        case .refused(let reason):
            try set(["name"].filter { _ in testCase.entity == "Employee" })
            let before = read()?.map(RequestFixtures.describe)
            let error = #expect(throws: NSError.self) { try set(values) }
            #expect(error?.localizedDescription == reason)
            #expect(error?.domain == NSCocoaErrorDomain && error?.code == NSCoreDataError)
            #expect(error?.userInfo[FetchRequestError.culpritKey] != nil)
            #expect(read()?.map(RequestFixtures.describe) == before, "a refused value leaves the request unchanged")
        }
    }

    @Test func theEntitysOwnDescriptionIsStoredAsGiven() throws {
        let model = RequestFixtures.model()
        let request = RequestFixtures.request("Employee", in: model)
        let salary = try #require(model[entity: "Employee"].propertiesByName["salary"])
        let total = Self.sum("salary")
        request.propertiesToFetch = [salary, total, "name"]
        let stored = try #require(request.propertiesToFetch)
        #expect(stored.count == 3)
        #expect(stored[0] as? NSPropertyDescription === salary)
        #expect(stored[1] as? NSPropertyDescription === total)
        #expect(stored[2] as? NSPropertyDescription === model[entity: "Person"].propertiesByName["name"])
    }

    @Test func aRequestByNameKeepsValuesUntilItRuns() {
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Employee")
        request.propertiesToFetch = ["nmae", "department.title"]
        request.propertiesToGroupBy = ["employees"]
        #expect(request.propertiesToFetch?.map(RequestFixtures.describe) == ["nmae", "department.title"])
        #expect(request.propertiesToGroupBy?.map(RequestFixtures.describe) == ["employees"])
    }

    @Test func withoutAnEntityOnlyExpressionsPass() throws {
        let request = NSFetchRequest<NSFetchRequestResult>()
        try request.setPropertiesToFetch(validating: [Self.sum("salary")])
        #expect(request.propertiesToFetch?.map(RequestFixtures.describe) == ["Expression:total=sum:(salary)"])
        let byName = #expect(throws: NSError.self) { try request.setPropertiesToFetch(validating: ["name"]) }
        #expect(byName?.localizedDescription == "Invalid keypath name passed to setPropertiesToFetch:")
        let salary = attribute("salary", .decimalAttributeType)
        let described = #expect(throws: NSError.self) { try request.setPropertiesToFetch(validating: [salary]) }
        #expect(
            described?.localizedDescription
                == "Attribute/relationship description names passed to setPropertiesToFetch: must match name on fetch entity (salary)"
        )
        try request.setPropertiesToFetch(validating: nil)
        #expect(request.propertiesToFetch == nil)
    }

    /// Each setter with a name it refuses: the entity, the name, and Apple's selector.
    @Test(arguments: [
        ("Employee", "nmae", "setPropertiesToFetch:"), ("Department", "employees", "setPropertiesToGroupBy:"),
    ])
    func theSetterStopsWithApplesException(entity: String, key: String, setter: String) async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) { [entity, key, setter] in
            let model = RequestFixtures.model()
            let request = RequestFixtures.request(entity, in: model)
            if setter == "setPropertiesToFetch:" {
                request.propertiesToFetch = [key]
            } else {
                request.propertiesToGroupBy = [key]
            }
        }
        let stderr = RequestFixtures.standardError(result)
        #expect(stderr.contains("NSInvalidArgumentException"))
        #expect(stderr.contains("Invalid keypath \(key) passed to \(setter)"))
    }

    @Test func theSettersAcceptWhatTheTwinsAccept() {
        let model = RequestFixtures.model()  // entities hold their model and super-entity weakly
        let request = RequestFixtures.request("Employee", in: model)
        request.propertiesToFetch = ["name", "department.title"]
        request.propertiesToGroupBy = ["name"]
        #expect(request.propertiesToFetch?.count == 2 && request.propertiesToGroupBy?.count == 1)
    }
}
