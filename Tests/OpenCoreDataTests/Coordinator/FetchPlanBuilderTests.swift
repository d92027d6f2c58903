import Foundation
@testable import OpenCoreData
import OpenStoreCore
import TestSupport
import Testing

@Suite struct FetchPlanBuilderTests {
    let model = CompanyModel.make()
    var builder: FetchPlanBuilder { FetchPlanBuilder(model: model, schema: SchemaLowering.schema(for: model)) }

    func request(_ entity: String, _ format: String? = nil, sort: [String] = []) -> NSFetchRequest<NSFetchRequestResult> {
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: entity)
        request.predicate = format.map { NSPredicate(format: $0) }
        request.sortDescriptors = sort.map { NSSortDescriptor(key: $0, ascending: true) }
        return request
    }

    @Test func entityAndSubentities() throws {
        let all = try builder.plan(for: request("Person"))
        #expect(all.entityID == 2 && all.entityIDs == [2, 3, 4])
        let exact = request("Employee")
        exact.includesSubentities = false
        #expect(try builder.plan(for: exact).entityIDs == [3])
    }

    @Test func settingsCarryOver() throws {
        let plain = request("Employee", "salary > 10", sort: ["name", "department.title"])
        plain.fetchLimit = 5
        plain.fetchOffset = 2
        let plan = try builder.plan(for: plain)
        #expect(plan.predicate?.description == "salary > 10")
        #expect(plan.sortDescriptors.compactMap(\.key) == ["name", "department.title"])
        #expect(plan.limit == 5 && plan.offset == 2)
        guard case .rows = plan.output else { Issue.record("expected rows"); return }
    }

    @Test func resultTypesPickTheOutput() throws {
        let ids = request("Employee")
        ids.resultType = .managedObjectIDResultType
        guard case .keys = try builder.plan(for: ids).output else { Issue.record("IDs → keys"); return }
        let count = request("Employee")
        count.resultType = .countResultType
        guard case .count = try builder.plan(for: count).output else { Issue.record("count"); return }
        let noValues = request("Employee")
        noValues.includesPropertyValues = false
        guard case .keys = try builder.plan(for: noValues).output else { Issue.record("no property values → keys"); return }
    }

    @Test func dictionaryColumns() throws {
        let grouped = request("Employee")
        grouped.resultType = .dictionaryResultType
        let total = aggregate("total", "sum:", "salary", .decimalAttributeType)
        grouped.propertiesToFetch = ["department", total]
        grouped.propertiesToGroupBy = ["department"]
        grouped.havingPredicate = NSPredicate(format: "total > 100")
        guard case .dictionaries(let shape) = try builder.plan(for: grouped).output else { Issue.record("dictionaries"); return }
        #expect(shape.columns.map(\.name) == ["department", "total"])
        #expect(shape.columns.map(\.expression.description) == ["department", "sum:(salary)"])
        #expect(shape.columns.last?.resultKind == .decimal)
        #expect(shape.groupBy.map(\.name) == ["department"])
        #expect(shape.having?.description == "total > 100")

        let everything = request("Manager")
        everything.resultType = .dictionaryResultType
        guard case .dictionaries(let all) = try builder.plan(for: everything).output else { Issue.record("dictionaries"); return }
        #expect(all.columns.map(\.name) == ["name", "born", "salary"])
        #expect(all.columns.map(\.resultKind) == [.string, .date, .decimal])
    }

    @Test(arguments: [
        "department.title == 'Sales'", "ANY department.employees.salary > 5", "department.employees.@count > 3",
        "SUBQUERY(reports, $r, $r.salary > 10).@count > 0", "self == $FETCH_SOURCE", "name.length > 3",
        "salary > 10 AND (name BEGINSWITH 'A' OR NOT born == nil)", "TRUEPREDICATE",
    ])
    func validKeyPaths(_ format: String) throws {
        _ = try builder.plan(for: request("Manager", format))
    }

    @Test(arguments: [
        ("Employee", "salry > 10", "keypath salry not found in entity Employee"),
        ("Employee", "department.titel == 'x'", "keypath department.titel not found in entity Department"),
        ("Employee", "salary > 1 AND (born == nil OR boss.name == 'x')", "keypath boss.name not found in entity Employee"),
        ("Department", "seniors.@count > 1", "keypath seniors.@count uses the fetched property seniors of entity Department"),
        ("Employee", "reports.@count > 1", "keypath reports.@count not found in entity Employee"),
        // A subquery's member paths are read from the entity its collection leads to, and a
        // function's receiver from the object.
        ("Manager", "SUBQUERY(reports, $r, $r.salry > 10).@count > 0", "keypath salry not found in entity Employee"),
        ("Employee", "FUNCTION(nmae, 'uppercaseString') == 'ANN'", "keypath nmae not found in entity Employee"),
    ])
    func badKeyPathsAreErrorsThatNameThem(entity: String, format: String, message: String) {
        do {
            _ = try builder.plan(for: request(entity, format))
            Issue.record("no error for \(format)")
        } catch {
            #expect(error.localizedDescription.hasPrefix(message), "\(error.localizedDescription)")
            #expect((error as NSError).code == NSCoreDataError)
        }
    }

    @Test func sortKeysMayNotCrossToMany() {
        #expect(throws: (any Error).self) { try builder.plan(for: request("Department", sort: ["employees.name"])) }
        #expect(throws: (any Error).self) { try builder.plan(for: request("Department", sort: ["nmae"])) }
        #expect(throws: Never.self) { try builder.plan(for: request("Employee", sort: ["department.title"])) }
    }

    @Test func transientKeysAreRefused() {
        let transient = attribute("mood", .stringAttributeType)
        transient.isTransient = true
        let person = model[entity: "Person"]
        person.properties = person.properties + [transient]
        do {
            _ = try builder.plan(for: request("Employee", "mood == 'happy'"))
            Issue.record("a transient key was accepted")
        } catch {
            #expect(error.localizedDescription.contains("transient property mood"))
        }
    }

    @Test func requestRulesComeFirst() {
        let grouped = request("Employee")
        grouped.propertiesToGroupBy = ["department"]
        do {
            _ = try builder.plan(for: grouped)
            Issue.record("group by without dictionaries was accepted")
        } catch {
            #expect(error.localizedDescription == "Invalid fetch request: GROUP BY requires NSDictionaryResultType")
        }
        #expect(throws: (any Error).self) { try builder.plan(for: request("Nobody")) }
    }
}
