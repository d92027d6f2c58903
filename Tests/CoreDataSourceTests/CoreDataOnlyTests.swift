import CoreData
import Testing

// A file that imports only CoreData, which re-exports Foundation (as Apple's does). Here every
// name resolves, including the *types* `NSExpression` and `NSComparisonPredicate`.

/// An app model type: predicates and sort descriptors read it through `KeyValueCodable`.
private final class Employee: KeyValueCodable {
    let id: UUID
    let name: String
    let salary: Int
    let hired: Date
    let tags: [String]

    init(_ name: String, salary: Int, hired: Date, tags: [String] = []) {
        self.id = UUID()
        self.name = name
        self.salary = salary
        self.hired = hired
        self.tags = tags
    }

    func value(forKey key: String) -> Any? {
        switch key {
        case "id": id
        case "name": name
        case "salary": salary
        case "hired": hired
        case "tags": tags
        default: nil
        }
    }
}

private let day: TimeInterval = 86_400
private let epoch = Date(timeIntervalSince1970: 0)
private let staff = [
    Employee("Jo Worsley", salary: 62_000, hired: epoch + 10 * day, tags: ["ops", "oncall"]),
    Employee("Ann Smith", salary: 48_000, hired: epoch + 20 * day, tags: ["dev"]),
    Employee("jim Jones", salary: 75_000, hired: epoch + 5 * day, tags: []),
    Employee("Zoë Müller", salary: 51_000, hired: epoch + 30 * day, tags: ["dev", "oncall"]),
]

private func names(_ employees: [Employee]) -> [String] { employees.map(\.name) }

@Suite("import CoreData only")
struct CoreDataOnlyTests {
    @Test func expressionAsAType() {
        let e: NSExpression = NSExpression(forKeyPath: "salary")
        #expect(e.description == "salary")
        #expect(e.expressionValue(with: staff[0], context: nil) as? Int == 62_000)

        let parsed: NSExpression = NSExpression(format: "salary * 2")
        #expect(parsed.description == "salary * 2")
        #expect(parsed.expressionValue(with: ["salary": 21], context: nil).flatMap(number) == 42)

        let all: [NSExpression] = [e, parsed, NSExpression(forConstantValue: 1)]
        #expect(all.count == 3)
        #expect(NSExpression(forKeyPath: "salary") == e)
    }

    @Test func comparisonPredicateAsAType() throws {
        let p = NSPredicate(format: "tags CONTAINS %@", "oncall")
        guard let c = p as? NSComparisonPredicate else {
            Issue.record("\(type(of: p)) is not an NSComparisonPredicate")
            return
        }
        #expect(c.predicateOperatorType == .contains)
        #expect(c.comparisonPredicateModifier == .direct)
        #expect(c.options == [])
        #expect(c.leftExpression.description == "tags")
        #expect(c.rightExpression.description == #""oncall""#)
        #expect(c.predicateFormat == #"tags CONTAINS "oncall""#)
        #expect(names(staff.filtered(using: c)) == ["Jo Worsley", "Zoë Müller"])

        let built: NSComparisonPredicate = NSComparisonPredicate(
            leftExpression: NSExpression(forKeyPath: "name"),
            rightExpression: NSExpression(forConstantValue: "zoe"),
            modifier: .direct, type: .beginsWith, options: [.caseInsensitive, .diacriticInsensitive])
        #expect(built.predicateFormat == #"name BEGINSWITH[cd] "zoe""#)
        #expect(names(staff.filtered(using: built)) == ["Zoë Müller"])
        #expect(built == NSPredicate(format: "name BEGINSWITH[cd] 'zoe'") as? NSComparisonPredicate)
    }

    @Test func applesRawValues() {
        #expect(NSComparisonPredicate.Operator.contains.rawValue == 99)
        #expect(NSComparisonPredicate.Operator.between.rawValue == 100)
        #expect(NSComparisonPredicate.Operator.like.rawValue == 7)
        #expect(NSComparisonPredicate.Modifier.any.rawValue == 2)
        #expect(NSComparisonPredicate.Options.caseInsensitive.rawValue == 1)
        #expect(NSExpression.ExpressionType.subquery.rawValue == 13)
        #expect(NSExpression.ExpressionType.keyPath.rawValue == 3)
        #expect(NSCompoundPredicate.LogicalType.or.rawValue == 2)
    }

    @Test func anyModifier() throws {
        let p = NSPredicate(format: "ANY tags == %@", "dev")
        let c = try #require(p as? NSComparisonPredicate)
        #expect(c.comparisonPredicateModifier == .any)
        #expect(c.predicateOperatorType == .equalTo)
        #expect(names(staff.filtered(using: p)) == ["Ann Smith", "Zoë Müller"])
    }

    @Test func datesAndUUIDsFromFoundation() {
        let cutoff = epoch + 15 * day
        let early = NSPredicate(format: "hired < %@", cutoff as NSDate)
        #expect(names(staff.filtered(using: early)) == ["Jo Worsley", "jim Jones"])
        let late = NSPredicate(format: "hired >= %@", cutoff)
        #expect(names(staff.filtered(using: late)) == ["Ann Smith", "Zoë Müller"])

        let target = staff[2].id
        let byID = NSPredicate(format: "id == %@", target)
        #expect(names(staff.filtered(using: byID)) == ["jim Jones"])
    }

    @Test func sortingModelObjects() {
        let bySalary = NSSortDescriptor(key: "salary", ascending: false)
        #expect(names(staff.sorted(using: [bySalary])) == ["jim Jones", "Jo Worsley", "Zoë Müller", "Ann Smith"])
        let byHired = [NSSortDescriptor(key: "hired", ascending: true)]
        #expect(names(staff.sorted(using: byHired)) == ["jim Jones", "Jo Worsley", "Ann Smith", "Zoë Müller"])
        let byName = NSSortDescriptor(key: "name", ascending: true, selector: "caseInsensitiveCompare:")
        #expect(names(staff.sorted(using: [byName])) == ["Ann Smith", "jim Jones", "Jo Worsley", "Zoë Müller"])
    }

    @Test func caseAndDiacriticFolding() {
        let p = NSPredicate(format: "name CONTAINS[cd] %@", "MULLER")
        #expect(names(staff.filtered(using: p)) == ["Zoë Müller"])
        let j = NSPredicate(format: "salary > %d AND name BEGINSWITH[c] %@", 50_000, "j")
        #expect(names(staff.filtered(using: j)) == ["Jo Worsley", "jim Jones"])
        #expect(j.description == #"salary > 50000 AND name BEGINSWITH[c] "j""#)
    }

    @Test func validatingExpressionFormat() throws {
        #expect(throws: (any Error).self) { try NSExpression(validatingFormat: "1 +") }
        let e: NSExpression = try NSExpression(validatingFormat: "2 ** 3 ** 2")
        // `**` is left-associative: (2 ** 3) ** 2.
        #expect(e.expressionValue(with: nil, context: nil).flatMap(number) == 64)
    }
}

private func number(_ value: Any) -> Double? {
    switch value {
    case let value as Int: Double(value)
    case let value as Double: value
    case let value as NSNumber: value.doubleValue
    default: nil
    }
}
