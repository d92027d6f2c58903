import OpenInMemoryStore
import OpenPredicate
import OpenStoreCore
import TestSupport
import Testing

@Suite("In-memory store: entities, predicates, windows, outputs")
struct FetchTests {
    let fixture: StoreFixture

    init() throws { fixture = try StoreFixture() }

    @Test("which rows a plan takes", arguments: [
        // (entity, with sub-entities, titles in insertion order)
        (Schema.graphic, true, ["file10", "file2", "File3", "file1"]),
        (Schema.graphic, false, []),  // abstract: no rows of its own
        (Schema.circle, true, ["file10", "file1"]),
        (Schema.line, false, ["file2"]),
        (Schema.textArea, true, ["File3"]),
    ])
    func entitySelection(entity: Int, subentities: Bool, titles: [String]) throws {
        #expect(try fixture.names(StoreFixture.plan(entity, subentities: subentities)) == titles)
    }

    @Test func aPlanWithSeveralEntitiesTakesExactlyThose() throws {
        let plan = FetchPlan(entityID: Schema.graphic, entityIDs: [Schema.line, Schema.textArea])
        #expect(try fixture.names(plan) == ["file2", "File3"])
        // Numbers no entity has are ignored, not a crash.
        let odd = FetchPlan(entityID: Schema.graphic, entityIDs: [0, 99, Schema.circle])
        #expect(try fixture.names(odd) == ["file10", "file1"])
    }

    @Test("attribute predicates read Core Data's Swift values", arguments: [
        ("salary > 100", [Any](), ["Ada", "Alan", "Grace"]),
        ("salary == 120.5", [], ["Ada"]),
        ("salary BETWEEN {60, 110}", [], ["Alan", "Bob", "Carol"]),
        ("level == 3", [], ["Ada", "Alan"]),
        ("level >= %d", [2], ["Ada", "Alan", "Grace", "Carol"]),
        ("firstName BEGINSWITH[c] 'a'", [], ["Ada", "Alan"]),
        ("lastName == 'Smith' AND NOT firstName == 'Bob'", [], ["Dave"]),
        ("nickname == nil", [], ["Alan", "Bob", "Carol"]),
        ("nickname != nil", [], ["Ada", "Grace", "Dave"]),
        ("hireDate < %@", [day(250)], ["Ada", "Grace"]),
        ("hireDate > CAST(%@, 'NSDate')", [day(450).timeIntervalSinceReferenceDate], ["Bob", "Dave"]),
        ("firstName IN %@", [["Grace", "Bob", "Nobody"]], ["Grace", "Bob"]),
        ("salary * 2 > 250", [], ["Grace"]),
        ("TRUEPREDICATE", [], StoreFixture.firstNames),
        ("FALSEPREDICATE", [], []),
    ] as [(String, [Any], [String])])
    func attributePredicates(format: String, arguments: [Any], expected: [String]) throws {
        #expect(try fixture.names(StoreFixture.plan(Schema.employee, format, arguments)) == expected)
    }

    @Test func attributesReadBackAsTheirKindsSwiftType() throws {
        // Each comparison only holds for the exact Swift type Core Data users read back.
        let checks: [(String, Any, [String])] = [
            ("level", Int32(3), ["Ada", "Alan"]), ("salary", dec("120.50"), ["Ada"]), ("hireDate", day(200), ["Grace"]),
            ("firstName", "Dave", ["Dave"]),
        ]
        for (key, value, expected) in checks {
            let predicate = NSPredicate { object, _ in
                guard let row = object as? KeyValueCodable else { return false }
                let read = row.value(forKey: key)
                switch value {
                case let expected as Int32: return (read as? Int32) == expected
                case let expected as Decimal: return (read as? Decimal) == expected
                case let expected as Date: return (read as? Date) == expected
                case let expected as String: return (read as? String) == expected
                default: return false
                }
            }
            let plan = FetchPlan(entityID: Schema.employee, entityIDs: [Schema.employee], predicate: predicate)
            #expect(try fixture.names(plan) == expected, "\(key)")
        }
        let types = NSPredicate { object, _ in
            guard let row = object as? KeyValueCodable else { return false }
            return row.value(forKey: "z") is Int64 && row.value(forKey: "radius") is Double
        }
        #expect(try fixture.names(FetchPlan(entityID: Schema.circle, entityIDs: [Schema.circle], predicate: types)).count == 2)
        let float = NSPredicate { object, _ in ((object as? KeyValueCodable)?.value(forKey: "length") as? Float) == 10 }
        #expect(try fixture.names(FetchPlan(entityID: Schema.line, entityIDs: [Schema.line], predicate: float)) == ["file2"])
    }

    @Test("offset and limit", arguments: [
        // (offset, limit, first names) over the six employees in insertion order
        (0, 0, StoreFixture.firstNames),
        (0, 2, ["Ada", "Alan"]),
        (2, 2, ["Grace", "Bob"]),
        (4, 0, ["Carol", "Dave"]),
        (5, 10, ["Dave"]),
        (6, 0, []),
        (6, 1, []),
        (60, 3, []),
    ])
    func window(offset: Int, limit: Int, expected: [String]) throws {
        let plan = StoreFixture.plan(Schema.employee, limit: limit, offset: offset)
        #expect(try fixture.names(plan) == expected)
        #expect(try fixture.count(plan) == expected.count)
    }

    @Test func offsetOfFourOverFourMatchesIsEmpty() throws {
        let plan = StoreFixture.plan(Schema.employee, "department != nil AND firstName != 'Bob'", offset: 4)
        #expect(try fixture.count(StoreFixture.plan(Schema.employee, "department != nil AND firstName != 'Bob'")) == 4)
        #expect(try fixture.keys(plan).isEmpty)
        #expect(try fixture.count(plan) == 0)
        var sorted = plan
        sorted.sortDescriptors = [by("salary")]
        #expect(try fixture.keys(sorted).isEmpty)
    }

    @Test("count honours the predicate, offset and limit", arguments: [
        ("salary > 50", 0, 0, 5),
        ("salary > 50", 0, 3, 3),
        ("salary > 50", 3, 0, 2),
        ("salary > 50", 3, 3, 2),
        ("salary > 500", 0, 3, 0),
    ])
    func count(format: String, offset: Int, limit: Int, expected: Int) throws {
        #expect(try fixture.count(StoreFixture.plan(Schema.employee, format, limit: limit, offset: offset)) == expected)
    }

    @Test func outputsAgree() throws {
        let plan = StoreFixture.plan(Schema.employee, "level < 3", sort: [by("salary", false)])
        #expect(try fixture.keys(plan) == [5, 4, 6].map(StoreFixture.employee))
        var rows = plan
        rows.output = .rows
        guard case .rows(let snapshots) = try fixture.store.execute(rows) else {
            Issue.record("expected rows")
            return
        }
        #expect(snapshots.map(\.key) == [5, 4, 6].map(StoreFixture.employee))
        #expect(snapshots.first?.values[2] == .decimal(dec("75.25")))
        #expect(try fixture.count(plan) == 3)
    }

    @Test func unknownKeysAreErrorsNamingTheKey() throws {
        for format in ["shoeSize > 3", "department.floor == 2", "ANY department.employees.shoeSize == 1"] {
            do {
                _ = try fixture.keys(StoreFixture.plan(Schema.employee, format))
                Issue.record("expected an error for \(format)")
            } catch let error as NSError {
                #expect(error.domain == NSCocoaErrorDomain)
                #expect(error.code == 134_070)
                let key = format.contains("floor") ? "floor" : "shoeSize"
                let entity = format.contains("floor") ? "Department" : "Employee"
                #expect(error.localizedDescription == "keypath \(key) not found in entity \(entity)")
                #expect(error.userInfo["keyPath"] as? String == key)
            }
        }
        // Sorting and dictionary columns report them too.
        #expect(throws: NSError.self) {
            try fixture.keys(StoreFixture.plan(Schema.employee, sort: [by("shoeSize")]))
        }
    }

    @Test func evaluationErrorsAreThrownNotSwallowed() throws {
        // An unbound variable: Apple raises; `evaluate(with:)` would answer false.
        do {
            _ = try fixture.keys(StoreFixture.plan(Schema.employee, "salary > $LIMIT"))
            Issue.record("expected an error")
        } catch let error as NSError {
            #expect(error.code == 134_070)
            #expect(error.localizedDescription.contains("Can't get value for 'LIMIT' in bindings"))
            #expect(error.localizedDescription.contains("Employee"))
            #expect((error.userInfo[NSUnderlyingErrorKey] as? NSError)?.domain == NSCocoaErrorDomain)
        }
    }

    @Test func aFetchSeesTheStoreAsItWasWhenItBegan() throws {
        // A predicate that saves while the fetch runs: the fetch goes on over the old rows.
        let store = fixture.store
        var saved = false
        let predicate = NSPredicate { _, _ in
            if !saved {
                saved = true
                try? store.apply(inserted: [], updated: [], deleted: [StoreFixture.employee(6)])
            }
            return true
        }
        let plan = FetchPlan(entityID: Schema.employee, entityIDs: [Schema.employee], predicate: predicate)
        #expect(try fixture.names(plan) == StoreFixture.firstNames)
        #expect(try fixture.names(StoreFixture.plan(Schema.employee)) == Array(StoreFixture.firstNames.dropLast()))
    }
}
