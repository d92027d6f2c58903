@testable import OpenCoreData
import Testing

/// `NSFetchRequestExpression`: Apple's accessors, type, format, equality and evaluation errors
/// (running the fetch is in `Context/FetchedPropertyTests`).
@Suite struct NSFetchRequestExpressionTests {
    static func fetchExpression(countOnly: Bool, request: NSExpression? = nil) -> NSExpression {
        let fetch = NSFetchRequest<NSFetchRequestResult>(entityName: "Employee")
        return NSFetchRequestExpression.expression(
            forFetch: request ?? NSExpression(forConstantValue: fetch), context: NSExpression(forVariable: "context"),
            countOnly: countOnly)
    }

    @Test func keepsItsPartsAndHasApplesType() throws {
        let request = NSExpression(forVariable: "request")
        let context = NSExpression(forKeyPath: "managedObjectContext")
        let expression = NSFetchRequestExpression.expression(forFetch: request, context: context, countOnly: true)
        let fetch = try #require(expression as? NSFetchRequestExpression)
        #expect(fetch.requestExpression === request && fetch.contextExpression === context)
        #expect(fetch.isCountOnlyRequest)
        #expect(expression.expressionType == NSFetchRequestExpressionType)
        #expect(NSFetchRequestExpressionType.rawValue == 50)
        #expect(NSExpression.ExpressionType(rawValue: 50) == NSFetchRequestExpressionType)
        #expect(expression.copy() as? NSExpression === expression, "immutable, so the copy is the object itself")
    }

    @Test(arguments: [(true, "YES"), (false, "NO")])
    func printsAsApplesFetch(countOnly: Bool, flag: String) {
        let expression = NSFetchRequestExpression.expression(
            forFetch: NSExpression(forVariable: "request"), context: NSExpression(forVariable: "context"), countOnly: countOnly)
        #expect(expression.description == "FETCH($request, $context, \(flag))")
        let withRequest = Self.fetchExpression(countOnly: countOnly)
        #expect(
            withRequest.description
                == "FETCH(<NSFetchRequest> (entity: Employee; predicate: ((null)); sortDescriptors: ((null)); type: NSManagedObjectResultType; ), $context, \(flag))"
        )
    }

    @Test func equalityComparesEveryPart() {
        func make(_ request: String, _ context: String, _ countOnly: Bool) -> NSExpression {
            NSFetchRequestExpression.expression(
                forFetch: NSExpression(forVariable: request), context: NSExpression(forVariable: context), countOnly: countOnly)
        }
        let base = make("r", "c", false)
        #expect(base.isEqual(make("r", "c", false)) && base.hash == make("r", "c", false).hash)
        #expect(!base.isEqual(make("r", "c", true)))
        #expect(!base.isEqual(make("other", "c", false)))
        #expect(!base.isEqual(make("r", "other", false)))
        #expect(!base.isEqual(NSExpression(forVariable: "r")))
        #expect(!NSExpression(forVariable: "r").isEqual(base))
    }

    @Test func evaluatingThrowsUntilThereIsAContext() {
        let expression = Self.fetchExpression(countOnly: false)
        let missing = #expect(throws: NSError.self) { try expression.expressionValue(validating: nil, context: nil) }
        #expect(missing?.localizedDescription.contains("Can't get value for 'context'") == true)

        let bindings = NSMutableDictionary(dictionary: ["context": "a context"])
        let noContext = #expect(throws: NSError.self) { try expression.expressionValue(validating: nil, context: bindings) }
        #expect(noContext?.domain == NSCocoaErrorDomain && noContext?.code == NSCoreDataError)
        #expect(noContext?.localizedDescription.contains("needs a managed object context") == true)
        #expect(noContext?.localizedDescription.hasPrefix("FETCH(<NSFetchRequest> (entity: Employee;") == true)

        let nilRequest = Self.fetchExpression(countOnly: true, request: NSExpression(forConstantValue: nil))
        let couldNot = #expect(throws: NSError.self) { try nilRequest.expressionValue(validating: nil, context: bindings) }
        #expect(couldNot?.localizedDescription == "NSFetchRequestExpression could not evaluate its request or context.")

        let notARequest = Self.fetchExpression(countOnly: true, request: NSExpression(forConstantValue: "Employee"))
        let wrong = #expect(throws: NSError.self) { try notARequest.expressionValue(validating: nil, context: bindings) }
        #expect(
            wrong?.localizedDescription
                == #"FETCH("Employee", $context, YES) needs an NSFetchRequest; its request expression gave Employee"#)
    }

    @Test func evaluatingWithoutTheTwinStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let expression = NSFetchRequestExpressionTests.fetchExpression(countOnly: true)
            _ = expression.expressionValue(with: nil, context: NSMutableDictionary(dictionary: ["context": 1]))
        }
        let stderr = RequestFixtures.standardError(result)
        #expect(stderr.contains("NSInternalInconsistencyException"))
        #expect(stderr.contains("needs a managed object context"))
    }

    @Test(arguments: [true, false])
    func archivesUnderApplesKeys(countOnly: Bool) throws {
        let expression = NSFetchRequestExpression.expression(
            forFetch: NSExpression(forVariable: "request"), context: NSExpression(forKeyPath: "managedObjectContext"),
            countOnly: countOnly)
        let data = try NSKeyedArchiver.archivedData(withRootObject: expression, requiringSecureCoding: true)
        let plist = try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any]
        let root = try #require(
            (plist?["$objects"] as? [Any])?.compactMap { $0 as? [String: Any] }.first { $0["NSFRExpression"] != nil })
        #expect(root["NSCountOnlyFlag"] as? Bool == countOnly)
        #expect(root["NSMOCExpression"] != nil)
        let decoder = try NSKeyedUnarchiver(forReadingFrom: data)
        decoder.decodingFailurePolicy = .setErrorAndReturn
        let decoded = try #require(decoder.decodeObject(of: NSFetchRequestExpression.self, forKey: NSKeyedArchiveRootObjectKey))
        #expect(decoded.isEqual(expression))
        #expect(decoded.isCountOnlyRequest == countOnly)
        #expect(decoded.description == expression.description)
    }

    @Test func insideAPredicateItStandsAsTheFetchCall() {
        let fetch = NSFetchRequestExpression.expression(
            forFetch: NSExpression(forVariable: "request"), context: NSExpression(forVariable: "context"), countOnly: true)
        let predicate = NSComparisonPredicate(
            leftExpression: fetch, rightExpression: NSExpression(forConstantValue: 3), modifier: .direct, type: .greaterThan)
        #expect(predicate.predicateFormat == "FETCH($request, $context, 1) > 3")
    }
}
