import Foundation
import OpenCoreData
import Testing

/// A group-by dictionary fetch whose `propertiesToFetch` selects a key path through a to-many
/// relationship that ends in a collection operator (`employees.@count`,
/// `employees.name.@count`, `employees.@sum.salary`): an aggregate over each group's objects, on
/// both stores.
///
/// A third department also titled Sales (with one employee, Eve) makes the Sales group hold two
/// departments: 2 + 1 = 3 employees, which no single department has.
@Suite struct GroupByCollectionOperatorTests {
    static func fixture(_ storeType: String) throws -> ContextFixture {
        let fixture = try ContextFixture(storeType: storeType)
        let sales = fixture.insert("Department", ["title": "Sales"])
        fixture.insert("Employee", ["name": "Eve", "salary": Decimal(10_000), "department": sales])
        try fixture.context.save()
        return fixture
    }

    static func grouped(_ fetched: [Any], in fixture: ContextFixture) throws -> [String: NSDictionary] {
        let request = NSFetchRequest<NSDictionary>(entityName: "Department")
        request.resultType = .dictionaryResultType
        request.propertiesToFetch = ["title"] + fetched
        request.propertiesToGroupBy = ["title"]
        let rows = try fixture.context.fetch(request)
        return Dictionary(uniqueKeysWithValues: rows.map { ($0["title"] as? String ?? "", $0) })
    }

    @Test(arguments: ContextFixture.storeTypes)
    func countOfAToManyRelationshipIsSummedOverTheGroup(storeType: String) throws {
        let fixture = try Self.fixture(storeType)
        let rows = try Self.grouped(["employees.@count"], in: fixture)
        #expect((rows["Sales"]?["employees.@count"] as? NSNumber)?.intValue == 3)
        #expect((rows["Labs"]?["employees.@count"] as? NSNumber)?.intValue == 2)
    }

    @Test(arguments: ContextFixture.storeTypes)
    func countThroughAnAttributeCountsTheMembers(storeType: String) throws {
        let fixture = try Self.fixture(storeType)
        let rows = try Self.grouped(["employees.name.@count"], in: fixture)
        #expect((rows["Sales"]?["employees.name.@count"] as? NSNumber)?.intValue == 3)
        #expect((rows["Labs"]?["employees.name.@count"] as? NSNumber)?.intValue == 2)
    }

    @Test(arguments: ContextFixture.storeTypes)
    func anExpressionDescriptionOfTheKeyPathIsTheSameAggregate(storeType: String) throws {
        let fixture = try Self.fixture(storeType)
        let count = NSExpressionDescription()
        count.name = "@count"
        count.expression = NSExpression(forKeyPath: "employees.name.@count")
        count.expressionResultType = .integer64AttributeType
        let total = NSExpressionDescription()
        total.name = "payroll"
        total.expression = NSExpression(forKeyPath: "employees.@sum.salary")
        total.expressionResultType = .decimalAttributeType
        let rows = try Self.grouped([count, total], in: fixture)
        #expect((rows["Sales"]?["@count"] as? NSNumber)?.intValue == 3)
        #expect((rows["Sales"]?["payroll"] as? NSNumber)?.intValue == 130_000)
        #expect((rows["Labs"]?["payroll"] as? NSNumber)?.intValue == 210_000)
    }

    @Test(arguments: ContextFixture.storeTypes)
    func withoutGroupingTheCountIsEachObjects(storeType: String) throws {
        let fixture = try Self.fixture(storeType)
        let request = NSFetchRequest<NSDictionary>(entityName: "Department")
        request.resultType = .dictionaryResultType
        request.propertiesToFetch = ["title", "employees.@count"]
        request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
        let counts = try fixture.context.fetch(request).map { ($0["employees.@count"] as? NSNumber)?.intValue }
        #expect(counts.sorted { ($0 ?? 0) < ($1 ?? 0) } == [1, 2, 2])
    }
}
