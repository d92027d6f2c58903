import OpenInMemoryStore
import OpenPredicate
import OpenStoreCore
import TestSupport
import Testing

/// The schema the store tests use, built in code, numbered as Apple numbers entities (roots in
/// name order, each followed by its sub-entities):
///
/// - 1 Department: name, budget (decimal), employees (to-many → Employee, inverse department)
/// - 2 Employee: firstName, lastName, salary (decimal), hireDate, level (Int32), nickname,
///   department (to-one → Department, inverse employees)
/// - 3 Graphic (abstract): title, z (Int64)
/// - 4 Circle: title, z, radius (double)
/// - 5 Line: title, z, length (float)
/// - 6 TextArea: title, z, text
enum Schema {
    static let department = 1
    static let employee = 2
    static let graphic = 3
    static let circle = 4
    static let line = 5
    static let textArea = 6

    static let schema: StoreSchema = {
        let graphicProperties = [
            PropertySchema(name: "title", kind: .attribute(.string)),
            PropertySchema(name: "z", kind: .attribute(.integer64)),
        ]
        return StoreSchema(entities: [
            EntitySchema(
                id: 1, name: "Department", isAbstract: false, superID: nil, familyIDs: [1],
                properties: [
                    PropertySchema(name: "name", kind: .attribute(.string)),
                    PropertySchema(name: "budget", kind: .attribute(.decimal)),
                    PropertySchema(name: "employees", kind: .toMany(destination: 2, inverse: "department", ordered: false)),
                ]),
            EntitySchema(
                id: 2, name: "Employee", isAbstract: false, superID: nil, familyIDs: [2],
                properties: [
                    PropertySchema(name: "firstName", kind: .attribute(.string)),
                    PropertySchema(name: "lastName", kind: .attribute(.string)),
                    PropertySchema(name: "salary", kind: .attribute(.decimal)),
                    PropertySchema(name: "hireDate", kind: .attribute(.date)),
                    PropertySchema(name: "level", kind: .attribute(.integer32)),
                    PropertySchema(name: "nickname", kind: .attribute(.string)),
                    PropertySchema(name: "department", kind: .toOne(destination: 1, inverse: "employees")),
                ]),
            EntitySchema(
                id: 3, name: "Graphic", isAbstract: true, superID: nil, familyIDs: [3, 4, 5, 6],
                properties: graphicProperties),
            EntitySchema(
                id: 4, name: "Circle", isAbstract: false, superID: 3, familyIDs: [4],
                properties: graphicProperties + [PropertySchema(name: "radius", kind: .attribute(.double))]),
            EntitySchema(
                id: 5, name: "Line", isAbstract: false, superID: 3, familyIDs: [5],
                properties: graphicProperties + [PropertySchema(name: "length", kind: .attribute(.float))]),
            EntitySchema(
                id: 6, name: "TextArea", isAbstract: false, superID: 3, familyIDs: [6],
                properties: graphicProperties + [PropertySchema(name: "text", kind: .attribute(.string))]),
        ])
    }()
}



/// A store holding the company and the graphics:
///
/// | pk | Employee        | salary | hired | level | nickname | department  |
/// |----|-----------------|--------|-------|-------|----------|-------------|
/// | 1  | Ada Lovelace    | 120.50 | 100   | 3     | Countess | Engineering |
/// | 2  | Alan Turing     | 110    | 300   | 3     | —        | Engineering |
/// | 3  | Grace Hopper    | 130    | 200   | 4     | Amazing  | Engineering |
/// | 4  | Bob Smith       | 60     | 500   | 1     | —        | Sales       |
/// | 5  | Carol Jones     | 75.25  | 400   | 2     | —        | Sales       |
/// | 6  | Dave Smith      | 40     | 600   | 1     | Davy     | —           |
///
/// Departments: 1 Engineering (budget 1000.5), 2 Sales (500), 3 Empty (no budget).
/// Graphics (one table, keys in insertion order): Circle 1 "file10" z 3 r 2.5, Line 2 "file2"
/// z 1 length 10, TextArea 3 "File3" z 2 text "hello", Circle 4 "file1" z 5 r 1.
struct StoreFixture {
    let store: InMemoryRowStore

    static let firstNames = ["Ada", "Alan", "Grace", "Bob", "Carol", "Dave"]

    init() throws {
        store = InMemoryRowStore(schema: Schema.schema)
        let departmentKeys = try store.newPrimaryKeys(forEntity: Schema.department, count: 3)
        let employeeKeys = try store.newPrimaryKeys(forEntity: Schema.employee, count: 6)
        #expect(departmentKeys == [1, 2, 3] && employeeKeys == [1, 2, 3, 4, 5, 6])
        func employee(_ pk: Int64, _ first: String, _ last: String, _ salary: String, _ hired: Int, _ level: Int64,
                      _ nickname: String?, _ department: Int64?) -> RowSnapshot {
            RowSnapshot(
                key: Self.employee(pk), version: 1,
                values: [
                    .string(first), .string(last), .decimal(dec(salary)), .date(day(hired)), .integer(level),
                    nickname.map(StoreValue.string) ?? .null, department.map { .object(Self.department($0)) } ?? .null,
                ])
        }
        func department(_ pk: Int64, _ name: String, _ budget: String?, _ members: [Int64]) -> RowSnapshot {
            RowSnapshot(
                key: Self.department(pk), version: 1,
                values: [.string(name), budget.map { .decimal(dec($0)) } ?? .null, .objects(members.map(Self.employee))])
        }
        try store.apply(
            inserted: [
                department(1, "Engineering", "1000.5", [1, 2, 3]),
                department(2, "Sales", "500", [4, 5]),
                department(3, "Empty", nil, []),
                employee(1, "Ada", "Lovelace", "120.50", 100, 3, "Countess", 1),
                employee(2, "Alan", "Turing", "110", 300, 3, nil, 1),
                employee(3, "Grace", "Hopper", "130", 200, 4, "Amazing", 1),
                employee(4, "Bob", "Smith", "60", 500, 1, nil, 2),
                employee(5, "Carol", "Jones", "75.25", 400, 2, nil, 2),
                employee(6, "Dave", "Smith", "40", 600, 1, "Davy", nil),
            ], updated: [], deleted: [])

        let graphicKeys = try store.newPrimaryKeys(forEntity: Schema.circle, count: 4)
        #expect(graphicKeys == [1, 2, 3, 4])
        try store.apply(
            inserted: [
                RowSnapshot(
                    key: ObjectKey(entityID: Schema.circle, primaryKey: 1), version: 1,
                    values: [.string("file10"), .integer(3), .double(2.5)]),
                RowSnapshot(
                    key: ObjectKey(entityID: Schema.line, primaryKey: 2), version: 1,
                    values: [.string("file2"), .integer(1), .double(10)]),
                RowSnapshot(
                    key: ObjectKey(entityID: Schema.textArea, primaryKey: 3), version: 1,
                    values: [.string("File3"), .integer(2), .string("hello")]),
                RowSnapshot(
                    key: ObjectKey(entityID: Schema.circle, primaryKey: 4), version: 1,
                    values: [.string("file1"), .integer(5), .double(1)]),
            ], updated: [], deleted: [])
    }

    static func employee(_ pk: Int64) -> ObjectKey { ObjectKey(entityID: Schema.employee, primaryKey: pk) }
    static func department(_ pk: Int64) -> ObjectKey { ObjectKey(entityID: Schema.department, primaryKey: pk) }

    /// A plan for one entity (with its sub-entities unless told otherwise).
    static func plan(
        _ entityID: Int, subentities: Bool = true, _ format: String? = nil, _ arguments: [Any] = [],
        sort: [NSSortDescriptor] = [], limit: Int = 0, offset: Int = 0, output: FetchPlan.Output = .keys
    ) -> FetchPlan {
        let ids = subentities ? Schema.schema.entity(entityID).familyIDs : [entityID]
        return FetchPlan(
            entityID: entityID, entityIDs: ids,
            predicate: format.map { NSPredicate(format: $0, argumentArray: arguments) },
            sortDescriptors: sort, limit: limit, offset: offset, output: output)
    }

    func keys(_ plan: FetchPlan) throws -> [ObjectKey] {
        guard case .keys(let keys) = try store.execute(plan) else {
            Issue.record("expected keys")
            return []
        }
        return keys
    }

    /// The value of the first slot of each row the plan finds (an employee's first name, a
    /// department's name, a graphic's title), in order.
    func names(_ plan: FetchPlan) throws -> [String] {
        var plan = plan
        plan.output = .rows
        guard case .rows(let rows) = try store.execute(plan) else {
            Issue.record("expected rows")
            return []
        }
        return rows.map { row in
            if case .string(let name) = row.values[0] { return name }
            return "?"
        }
    }

    func count(_ plan: FetchPlan) throws -> Int {
        var plan = plan
        plan.output = .count
        guard case .count(let count) = try store.execute(plan) else {
            Issue.record("expected a count")
            return -1
        }
        return count
    }

    func dictionaries(_ plan: FetchPlan) throws -> [[String: StoreValue]] {
        guard case .dictionaries(let results) = try store.execute(plan) else {
            Issue.record("expected dictionaries")
            return []
        }
        return Array(results)
    }
}

/// A sort descriptor, in the shape Apple users write.
func by(_ key: String, _ ascending: Bool = true, _ selector: String? = nil) -> NSSortDescriptor {
    selector.map { NSSortDescriptor(key: key, ascending: ascending, selector: $0) } ?? NSSortDescriptor(key: key, ascending: ascending)
}
