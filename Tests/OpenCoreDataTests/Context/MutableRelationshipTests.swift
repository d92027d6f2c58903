import Foundation
import OpenCoreData
import Testing

/// `mutableSetValue(forKey:)` and `mutableOrderedSetValue(forKey:)`: proxies whose changes go
/// through `setValue(_:forKey:)`.
@Suite struct MutableRelationshipTests {
    @Test(arguments: ContextFixture.storeTypes) func aMutableSetChangesTheRelationshipAndItsInverse(_ storeType: String) throws {
        let fixture = try ContextFixture(storeType: storeType)
        let context = fixture.context
        let sales = try #require(try context.fetch(fixture.request("Department", "title == 'Sales'")).first)
        let labs = try #require(try context.fetch(fixture.request("Department", "title == 'Labs'")).first)
        let cy = try #require(try context.fetch(fixture.request("Employee", "name == 'Cy'")).first)
        let ann = try #require(try context.fetch(fixture.request("Employee", "name == 'Ann'")).first)

        let employees = sales.mutableSetValue(forKey: "employees")
        #expect(employees.count == 2 && employees.member(ann) != nil && employees.member(cy) == nil)
        employees.add(cy)
        #expect(employees.count == 3 && employees.contains(cy))
        #expect(cy.value(forKey: "department") as? NSManagedObject === sales)
        #expect((labs.value(forKey: "employees") as? Set<NSManagedObject>)?.contains(cy) == false)
        employees.remove(ann)
        #expect(ann.value(forKey: "department") == nil)
        #expect(
            Set(employees.allObjects.compactMap { ($0 as? NSManagedObject)?.value(forKey: "name") as? String }) == ["Bob", "Cy"])
        #expect(sales.isUpdated && cy.isUpdated && ann.isUpdated)
        try context.save()
        #expect(try fixture.names("Employee", "department.title == 'Sales'") == ["Bob", "Cy"])
    }

    @Test(arguments: ContextFixture.storeTypes) func aMutableOrderedSetKeepsOrder(_ storeType: String) throws {
        let fixture = try ContextFixture(storeType: storeType)
        let context = fixture.context
        let dee = try #require(try context.fetch(fixture.request("Manager")).first)
        let ann = try #require(try context.fetch(fixture.request("Employee", "name == 'Ann'")).first)
        let bob = try #require(try context.fetch(fixture.request("Employee", "name == 'Bob'")).first)
        let reports = dee.mutableOrderedSetValue(forKey: "reports")
        reports.insert(ann, at: 0)
        reports.add(bob)
        func names() -> [String?] {
            ((dee.value(forKey: "reports") as? NSOrderedSet)?.array ?? []).map {
                ($0 as? NSManagedObject)?.value(forKey: "name") as? String
            }
        }
        #expect(names() == ["Ann", "Cy", "Bob"])
        #expect(reports.count == 3 && reports.index(of: bob) == 2)
        reports.removeObject(at: 1)
        #expect(names() == ["Ann", "Bob"])
        reports.replaceObject(at: 0, with: ann)
        #expect(names() == ["Ann", "Bob"])
    }
}
