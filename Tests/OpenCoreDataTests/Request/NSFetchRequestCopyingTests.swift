@testable import OpenCoreData
import Testing

/// Copies are independent, equality covers every setting, and templates of a model in use are
/// immutable.
@Suite struct NSFetchRequestCopyingTests {
    typealias Request = NSFetchRequest<NSFetchRequestResult>

    /// A request with every setting away from its default.
    static func fullRequest(_ model: NSManagedObjectModel) -> Request {
        let request = RequestFixtures.request("Employee", in: model)
        request.predicate = NSPredicate(format: "salary > 10")
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        request.fetchLimit = 10
        request.fetchOffset = 2
        request.fetchBatchSize = 50
        request.resultType = .dictionaryResultType
        request.includesSubentities = false
        request.includesPendingChanges = false
        request.includesPropertyValues = false
        request.returnsObjectsAsFaults = false
        request.propertiesToFetch = ["name", NSFetchRequestPropertiesTests.sum("salary")]
        request.propertiesToGroupBy = ["name"]
        request.havingPredicate = NSPredicate(format: "total > 5")
        request.returnsDistinctResults = true
        request.relationshipKeyPathsForPrefetching = ["department"]
        request.shouldRefreshRefetchedObjects = true
        return request
    }

    /// One change per setting; each must make the request unequal to the unchanged one.
    static let changes: [(String, @Sendable (Request, NSManagedObjectModel) -> Void)] = [
        ("entity", { request, model in request.entity = model[entity: "Manager"] }),
        ("predicate", { request, _ in request.predicate = NSPredicate(format: "salary > 11") }),
        ("predicate nil", { request, _ in request.predicate = nil }),
        ("sortDescriptors", { request, _ in request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: false)] }),
        ("sortDescriptors nil", { request, _ in request.sortDescriptors = nil }),
        ("fetchLimit", { request, _ in request.fetchLimit = 11 }),
        ("fetchOffset", { request, _ in request.fetchOffset = 3 }),
        ("fetchBatchSize", { request, _ in request.fetchBatchSize = 51 }),
        ("resultType", { request, _ in request.resultType = .managedObjectIDResultType }),
        ("includesSubentities", { request, _ in request.includesSubentities = true }),
        ("includesPendingChanges", { request, _ in request.includesPendingChanges = true }),
        ("includesPropertyValues", { request, _ in request.includesPropertyValues = true }),
        ("returnsObjectsAsFaults", { request, _ in request.returnsObjectsAsFaults = true }),
        ("propertiesToFetch", { request, _ in request.propertiesToFetch = ["name"] }),
        ("propertiesToGroupBy", { request, _ in request.propertiesToGroupBy = ["salary"] }),
        ("havingPredicate", { request, _ in request.havingPredicate = NSPredicate(format: "total > 6") }),
        ("returnsDistinctResults", { request, _ in request.returnsDistinctResults = false }),
        ("relationshipKeyPathsForPrefetching", { request, _ in request.relationshipKeyPathsForPrefetching = [] }),
        ("shouldRefreshRefetchedObjects", { request, _ in request.shouldRefreshRefetchedObjects = false }),
        (
            "affectedStores",
            { request, _ in
                request.affectedStores = [
                    NSPersistentStore(
                        persistentStoreCoordinator: nil, configurationName: nil, at: URL(fileURLWithPath: "/tmp/a"), options: nil)
                ]
            }
        ),
    ]

    @Test(arguments: changes.indices)
    func changingTheCopyLeavesTheOriginal(index: Int) throws {
        let model = RequestFixtures.model()
        let original = Self.fullRequest(model)
        let before = RequestFixtures.settings(of: original)
        let copy = try #require(original.copy() as? Request)
        #expect(copy !== original)
        #expect(copy.isEqual(original) && original.isEqual(copy) && copy.hash == original.hash)
        #expect(RequestFixtures.settings(of: copy) == before)
        Self.changes[index].1(copy, model)
        #expect(RequestFixtures.settings(of: original) == before, "\(Self.changes[index].0)")
        #expect(!copy.isEqual(original) && !original.isEqual(copy), "\(Self.changes[index].0)")
    }

    @Test func equalSettingsMakeEqualRequestsOfAnyResultType() {
        let model = RequestFixtures.model()
        let first = Self.fullRequest(model)
        let second = Self.fullRequest(model)
        #expect(!first.isEqual(second), "expression descriptions compare by identity")
        second.propertiesToFetch = first.propertiesToFetch
        #expect(first.isEqual(second) && first.hash == second.hash)
        let typed = NSFetchRequest<NSDictionary>(entityName: "Employee")
        let untyped = Request(entityName: "Employee")
        #expect(typed.isEqual(untyped) && untyped.isEqual(typed) && typed.hash == untyped.hash)
        #expect(!untyped.isEqual("Employee") && !untyped.isEqual(nil))
        // The entity counts by name, as on Apple.
        let byEntity = RequestFixtures.request("Employee", in: model)
        #expect(byEntity.isEqual(untyped) && byEntity.hash == untyped.hash)
    }

    @Test func predicatesCompareByValue() {
        let first = Request(entityName: "Employee")
        first.predicate = NSPredicate(format: "name == %@", "Ann")
        let second = Request(entityName: "Employee")
        second.predicate = NSPredicate(format: "name == 'Ann'")
        #expect(first.predicate !== second.predicate)
        #expect(first.isEqual(second) && first.hash == second.hash)
    }

    @Test func copiesShareImmutableValuesButNotArrays() throws {
        let model = RequestFixtures.model()
        let original = Self.fullRequest(model)
        let copy = try #require(original.copy() as? Request)
        #expect(copy.entity === original.entity && copy.predicate === original.predicate)
        copy.relationshipKeyPathsForPrefetching?.append("department.employees")
        copy.sortDescriptors?.append(NSSortDescriptor(key: "salary", ascending: true))
        #expect(original.relationshipKeyPathsForPrefetching == ["department"])
        #expect(original.sortDescriptors?.count == 1)
    }

    @Test func aTemplateInUseIsImmutableAndItsCopyIsNot() throws {
        let request = Request(entityName: "Employee")
        request.markInUse()
        #expect(!request.isEditable)
        let copy = try #require(request.copy() as? Request)
        #expect(copy.isEditable)
        copy.fetchLimit = 3
        #expect(copy.fetchLimit == 3 && request.fetchLimit == 0)
        // A context may give a template by name its entity of that name.
        let model = RequestFixtures.model()
        request.entity = model[entity: "Employee"]
        #expect(request.entity === model[entity: "Employee"])
    }

    static let immutableChanges: [(String, @Sendable (Request) -> Void)] = [
        ("fetchLimit", { $0.fetchLimit = 1 }),
        ("predicate", { $0.predicate = nil }),
        ("resultType", { $0.resultType = .countResultType }),
        ("entity", { $0.entity = NSEntityDescription() }),
        ("affectedStores", { $0.affectedStores = [] }),
        ("propertiesToFetch", { $0.propertiesToFetch = ["name"] }),
        ("havingPredicate", { $0.havingPredicate = nil }),
    ]

    @Test(arguments: immutableChanges.indices)
    func changingATemplateInUseStopsWithApplesReason(index: Int) async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) { [index] in
            let request = Request(entityName: "Employee")
            request.markInUse()
            NSFetchRequestCopyingTests.immutableChanges[index].1(request)
        }
        let stderr = RequestFixtures.standardError(result)
        #expect(stderr.contains("NSInternalInconsistencyException"), "\(Self.immutableChanges[index].0)")
        #expect(stderr.contains("Can't modify a named fetch request in an immutable model."), "\(Self.immutableChanges[index].0)")
    }
}
