@testable import OpenCoreData
import Testing

/// `description` follows Apple's layout (`<NSFetchRequest: 0x…> (entity: Item; predicate: (name
/// CONTAINS "e"); sortDescriptors: ((null)); type: NSManagedObjectResultType; )`, as Apple's
/// framework prints it), without the address.
@Suite struct NSFetchRequestDescriptionTests {
    typealias Request = NSFetchRequest<NSFetchRequestResult>

    static let cases: [(String, @Sendable () -> Request, String)] = [
        (
            "a new request", { Request() },
            "<NSFetchRequest> (entity: (null); predicate: ((null)); sortDescriptors: ((null)); type: NSManagedObjectResultType; )"
        ),
        (
            "Apple's example",
            {
                let request = Request(entityName: "Item")
                request.predicate = NSPredicate(format: "name CONTAINS %@", "e")
                return request
            },
            #"<NSFetchRequest> (entity: Item; predicate: (name CONTAINS "e"); sortDescriptors: ((null)); type: NSManagedObjectResultType; )"#
        ),
        (
            "sorted and limited",
            {
                let request = Request(entityName: "Employee")
                request.predicate = NSPredicate(format: "salary > 50000")
                request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
                request.fetchLimit = 10
                return request
            },
            "<NSFetchRequest> (entity: Employee; predicate: (salary > 50000); sortDescriptors: ((\n    \"(name, ascending, compare:)\"\n)); limit: 10; type: NSManagedObjectResultType; )"
        ),
        (
            "every optional part",
            {
                let request = Request(entityName: "Employee")
                request.sortDescriptors = []
                request.fetchOffset = 5
                request.fetchBatchSize = 20
                request.resultType = .dictionaryResultType
                request.includesSubentities = false
                request.includesPropertyValues = false
                request.returnsObjectsAsFaults = false
                request.returnsDistinctResults = true
                request.shouldRefreshRefetchedObjects = true
                request.relationshipKeyPathsForPrefetching = ["department", "department.employees"]
                request.propertiesToFetch = ["name", "department.title"]
                request.havingPredicate = NSPredicate(format: "name != nil")
                request.propertiesToGroupBy = ["name"]
                return request
            },
            "<NSFetchRequest> (entity: Employee; predicate: ((null)); sortDescriptors: ((\n)); offset: 5; batch size: 20; "
                + "type: NSDictionaryResultType; includesSubentities: NO; includesPropertyValues: NO; returnsObjectsAsFaults: NO; "
                + "includesPendingChanges: NO; returnsDistinctResults: YES; shouldRefreshRefetchedObjects: YES; "
                + "relationshipKeyPathsForPrefetching: ((\n    department,\n    department.employees\n)); "
                + "propertiesToFetch: ((\n    name,\n    department.title\n)); havingPredicate: (name != nil); "
                + "propertiesToGroupBy: ((\n    name\n)); )"
        ),
        (
            "object IDs",
            {
                let request = Request(entityName: "Employee")
                request.resultType = .managedObjectIDResultType
                return request
            },
            "<NSFetchRequest> (entity: Employee; predicate: ((null)); sortDescriptors: ((null)); type: NSManagedObjectIDResultType; includesPropertyValues: NO; )"
        ),
        (
            "count, unknown type",
            {
                let request = Request(entityName: "Employee")
                request.resultType = NSFetchRequestResultType(rawValue: 3)
                return request
            },
            "<NSFetchRequest> (entity: Employee; predicate: ((null)); sortDescriptors: ((null)); type: unknown request type; )"
        ),
    ]

    @Test(arguments: cases.indices)
    func describesItselfAsApplesDoes(index: Int) {
        let (label, make, expected) = Self.cases[index]
        #expect(make().description == expected, "\(label)")
    }

    @Test func affectedStoresAreListedByIdentifier() {
        let request = Request(entityName: "Employee")
        let store = NSPersistentStore(
            persistentStoreCoordinator: nil, configurationName: nil, at: URL(fileURLWithPath: "/tmp/a.sqlite"), options: nil)
        store.identifier = "ABC-123"
        request.affectedStores = [store]
        #expect(request.description.contains("type: NSManagedObjectResultType; affected stores: ((\n    ABC-123\n)); )"))
    }

    @Test(arguments: [
        ("name", "name"), ("department.title", "department.title"), ("$x/y:z-1_", "$x/y:z-1_"), ("two words", "\"two words\""),
        ("", "\"\""), ("say \"hi\"\n", #""say \"hi\"\n""#), ("é", "\"é\""),
    ])
    func propertyListTextQuotesLikeFoundation(text: String, printed: String) {
        #expect(PropertyListText.quotedIfNeeded(text) == printed)
    }
}
