import OpenInMemoryStore
import OpenPredicate
import OpenStoreCore
import TestSupport
import Testing

@Suite("In-memory store: relationships and object identity in predicates")
struct RelationshipPredicateTests {
    let fixture: StoreFixture

    init() throws { fixture = try StoreFixture() }

    @Test("key paths through to-one relationships", arguments: [
        ("department.name == 'Sales'", ["Bob", "Carol"]),
        ("department.name BEGINSWITH 'E'", ["Ada", "Alan", "Grace"]),
        ("department == nil", ["Dave"]),
        ("department.name == nil", ["Dave"]),
        ("department.budget > 600", ["Ada", "Alan", "Grace"]),
        ("department.employees.@count == 2", ["Bob", "Carol"]),
        ("ANY department.employees.nickname == 'Amazing'", ["Ada", "Alan", "Grace"]),
        ("salary > department.budget / 10", ["Ada", "Alan", "Grace", "Bob", "Carol"]),
    ])
    func toOne(format: String, expected: [String]) throws {
        #expect(try fixture.names(StoreFixture.plan(Schema.employee, format)) == expected)
    }

    @Test("to-many relationships: ANY, ALL, NONE, @count, collection operators, SUBQUERY", arguments: [
        ("ANY employees.salary > 125", ["Engineering"]),
        ("ANY employees.salary > 70", ["Engineering", "Sales"]),
        ("ALL employees.salary > 70", ["Engineering", "Empty"]),  // ALL holds for no employees
        ("NONE employees.level > 1", ["Empty"]),
        ("employees.@count == 0", ["Empty"]),
        ("employees.@count >= 2", ["Engineering", "Sales"]),
        ("employees.@avg.salary > 100", ["Engineering"]),
        ("employees.@sum.salary == 135.25", ["Sales"]),
        ("employees.@max.hireDate > %@", ["Sales"]),
        ("SUBQUERY(employees, $e, $e.level >= 2).@count == 1", ["Sales"]),
        ("SUBQUERY(employees, $e, $e.level >= 2 AND $e.nickname != nil).@count > 0", ["Engineering"]),
        ("SUBQUERY(employees, $e, $e.department.name == 'Sales').@count == 2", ["Sales"]),
        ("ANY employees.firstName IN {'Bob', 'Grace'}", ["Engineering", "Sales"]),
        // Members come in the slot's order (an ordered relationship's order).
        ("employees[FIRST].firstName == 'Bob'", ["Sales"]),
        ("employees[LAST].firstName == 'Grace'", ["Engineering"]),
        ("employees[SIZE] == 3", ["Engineering"]),
    ])
    func toMany(format: String, expected: [String]) throws {
        let plan = StoreFixture.plan(Schema.department, format, format.contains("%@") ? [day(450)] : [])
        #expect(try fixture.names(plan) == expected)
    }

    @Test("objects are matched by their keys", arguments: [
        ("self == %@", [StoreFixture.employee(3)] as [Any], ["Grace"]),
        ("%@ == self", [StoreFixture.employee(3)], ["Grace"]),
        ("self != %@", [StoreFixture.employee(3)], ["Ada", "Alan", "Bob", "Carol", "Dave"]),
        ("self IN %@", [[StoreFixture.employee(1), StoreFixture.employee(4)]], ["Ada", "Bob"]),
        ("self IN %@", [Set([StoreFixture.employee(5), StoreFixture.employee(6)])], ["Carol", "Dave"]),
        ("NOT self IN %@", [[StoreFixture.employee(1), StoreFixture.employee(2), StoreFixture.employee(3)]],
            ["Bob", "Carol", "Dave"]),
        ("department == %@", [StoreFixture.department(2)], ["Bob", "Carol"]),
        ("department != %@", [StoreFixture.department(2)], ["Ada", "Alan", "Grace", "Dave"]),
        ("department IN %@", [[StoreFixture.department(2), StoreFixture.department(3)]], ["Bob", "Carol"]),
        ("department.employees CONTAINS %@", [StoreFixture.employee(5)], ["Bob", "Carol"]),
        // A key of another entity with the same primary key is another object.
        ("self == %@", [ObjectKey(entityID: Schema.department, primaryKey: 3)], []),
        ("department == %@", [ObjectKey(entityID: Schema.employee, primaryKey: 2)], []),
    ])
    func identity(format: String, arguments: [Any], expected: [String]) throws {
        #expect(try fixture.names(StoreFixture.plan(Schema.employee, format, arguments)) == expected)
    }

    @Test func toManyMembershipByKey() throws {
        let plan = StoreFixture.plan(Schema.department, "ANY employees == %@", [StoreFixture.employee(4)])
        #expect(try fixture.names(plan) == ["Sales"])
        let contains = StoreFixture.plan(Schema.department, "employees CONTAINS %@", [StoreFixture.employee(2)])
        #expect(try fixture.names(contains) == ["Engineering"])
        let objectID = StoreFixture.plan(Schema.department, "objectID == %@", [StoreFixture.department(3)])
        #expect(try fixture.names(objectID) == ["Empty"])
    }

    @Test func aDeletedDestinationReadsAsNil() throws {
        try fixture.store.apply(inserted: [], updated: [], deleted: [StoreFixture.department(2)])
        #expect(try fixture.names(StoreFixture.plan(Schema.employee, "department == nil")) == ["Bob", "Carol", "Dave"])
    }
}
