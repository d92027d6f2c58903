@testable import OpenCoreData
import Testing

/// Apple's defaults (NSFetchRequest.h and the documentation pages), and the two settings Apple
/// changes behind the caller's back.
@Suite struct NSFetchRequestDefaultsTests {
    static let defaults: [String: String] = [
        "entity": "nil",
        "entityName": "nil",
        "predicate": "nil",
        "sortDescriptors": "nil",
        "fetchLimit": "0",
        "fetchOffset": "0",
        "fetchBatchSize": "0",
        "affectedStores": "nil",
        "resultType": "0",
        "includesSubentities": "true",
        "includesPendingChanges": "true",
        "includesPropertyValues": "true",
        "returnsObjectsAsFaults": "true",
        "propertiesToFetch": "nil",
        "propertiesToGroupBy": "nil",
        "havingPredicate": "nil",
        "returnsDistinctResults": "false",
        "relationshipKeyPathsForPrefetching": "nil",
        "shouldRefreshRefetchedObjects": "false",
    ]

    @Test func aNewRequestHasApplesDefaults() {
        let request = NSFetchRequest<NSFetchRequestResult>()
        #expect(RequestFixtures.settings(of: request) == Self.defaults)
        #expect(request.requestType == .fetchRequestType)
        #expect(request.isEditable)
    }

    @Test func aRequestByNameDiffersOnlyInItsName() {
        let request = NSFetchRequest<NSDictionary>(entityName: "Employee")
        var expected = Self.defaults
        expected["entityName"] = "Employee"
        #expect(RequestFixtures.settings(of: request) == expected)
    }

    @Test func settingTheEntitySetsTheName() {
        let model = RequestFixtures.model()
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Employee")
        request.entity = model[entity: "Manager"]
        #expect(request.entityName == "Manager")
        request.entity = nil
        #expect(request.entity == nil)
        #expect(request.entityName == "Employee", "setting nil keeps the name given to init(entityName:)")
    }

    @Test(arguments: [
        (NSFetchRequestResultType.managedObjectResultType, true),
        (.managedObjectIDResultType, false),
        (.dictionaryResultType, true),
        (.countResultType, false),
    ])
    func objectIDAndCountResultsStopLoadingPropertyValues(type: NSFetchRequestResultType, loadsValues: Bool) {
        let request = NSFetchRequest<NSFetchRequestResult>()
        request.resultType = type
        #expect(request.includesPropertyValues == loadsValues)
        request.includesPropertyValues = true
        #expect(request.includesPropertyValues)
    }

    @Test func dictionaryResultsNeverIncludePendingChanges() {
        let request = NSFetchRequest<NSFetchRequestResult>()
        request.resultType = .dictionaryResultType
        #expect(!request.includesPendingChanges)
        request.includesPendingChanges = true
        #expect(!request.includesPendingChanges)
        request.resultType = .managedObjectResultType
        #expect(request.includesPendingChanges, "the setting itself is kept")
        request.includesPendingChanges = false
        #expect(!request.includesPendingChanges)
    }

    @Test func resultTypesHaveApplesRawValues() {
        #expect(NSFetchRequestResultType.managedObjectResultType.rawValue == 0)
        #expect(NSFetchRequestResultType.managedObjectIDResultType.rawValue == 1)
        #expect(NSFetchRequestResultType.dictionaryResultType.rawValue == 2)
        #expect(NSFetchRequestResultType.countResultType.rawValue == 4)
    }

    @Test func everySettingReadsBackWhatWasSet() {
        let predicate = NSPredicate(format: "salary > 10")
        let having = NSPredicate(format: "count > 1")
        let store = NSPersistentStore(
            persistentStoreCoordinator: nil, configurationName: nil, at: URL(fileURLWithPath: "/tmp/x.sqlite"), options: nil)
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Employee")
        request.predicate = predicate
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: false)]
        request.fetchLimit = 7
        request.fetchOffset = 3
        request.fetchBatchSize = 20
        request.affectedStores = [store]
        request.includesSubentities = false
        request.returnsObjectsAsFaults = false
        request.returnsDistinctResults = true
        request.relationshipKeyPathsForPrefetching = ["department"]
        request.shouldRefreshRefetchedObjects = true
        request.havingPredicate = having
        request.propertiesToGroupBy = ["name"]
        request.propertiesToFetch = ["name", "salary"]
        #expect(
            RequestFixtures.settings(of: request) == [
                "entity": "nil", "entityName": "Employee", "predicate": "salary > 10",
                "sortDescriptors": "[(name, descending, compare:)]", "fetchLimit": "7", "fetchOffset": "3",
                "fetchBatchSize": "20", "affectedStores": "1 stores", "resultType": "0", "includesSubentities": "false",
                "includesPendingChanges": "true", "includesPropertyValues": "true", "returnsObjectsAsFaults": "false",
                "propertiesToFetch": "[name, salary]", "propertiesToGroupBy": "[name]", "havingPredicate": "count > 1",
                "returnsDistinctResults": "true", "relationshipKeyPathsForPrefetching": "[department]",
                "shouldRefreshRefetchedObjects": "true",
            ])
        #expect(request.predicate === predicate && request.havingPredicate === having)
        #expect(request.affectedStores?.first === store)
    }
}
