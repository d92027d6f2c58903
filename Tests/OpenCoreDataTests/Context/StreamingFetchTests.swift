import Foundation
import OpenCoreData
import Testing

/// `objects(for:batchSize:)` and `stream(_:batchSize:)`: the same objects in the same order as
/// `fetch(_:)`, a batch per store query, through both stores.
@Suite struct StreamingFetchTests {
    /// The fixture plus 24 employees E00…E23 (salaries in four values with ties, every seventh
    /// without one; names alternating in case) and two more managers, saved.
    static func fixture(_ storeType: String) throws -> ContextFixture {
        let fixture = try ContextFixture(storeType: storeType)
        for index in 0..<24 {
            let name = String(format: index % 2 == 0 ? "e%02d" : "E%02d", index)
            var values: [String: Any] = ["name": name]
            if index % 7 != 0 { values["salary"] = Decimal((index % 4) * 10_000) }
            fixture.insert(index % 9 == 4 ? "Manager" : "Employee", values)
        }
        try fixture.context.save()
        return fixture
    }

    static func names(_ objects: some Sequence<NSManagedObject>) -> [String] {
        objects.map { $0.value(forKey: "name") as? String ?? "?" }
    }

    /// `fetch(_:)`'s results in the stream's order: by the sort descriptors, ties (and all, without
    /// sort descriptors) by primary key; the in-memory store's `fetch(_:)` orders ties by
    /// insertion order instead, which differs when a save inserts employees and managers.
    static func namesInStreamOrder(_ request: NSFetchRequest<NSManagedObject>, in context: NSManagedObjectContext) throws
        -> [String]
    {
        let whole = request.copy() as? NSFetchRequest<NSManagedObject> ?? request
        whole.fetchOffset = 0
        whole.fetchLimit = 0
        func primaryKey(_ object: NSManagedObject) -> Int {
            Int(object.objectID.uriRepresentation().lastPathComponent.dropFirst()) ?? -1
        }
        var objects = try context.fetch(whole).sorted { primaryKey($0) < primaryKey($1) }
        if let descriptors = request.sortDescriptors, !descriptors.isEmpty { objects = objects.sorted(using: descriptors) }
        let window = objects.dropFirst(request.fetchOffset).prefix(request.fetchLimit > 0 ? request.fetchLimit : Int.max)
        return names(window)
    }

    /// Requests whose streamed order must equal `fetch(_:)`'s.
    static let requests: [(String, (NSFetchRequest<NSManagedObject>) -> Void)] = [
        ("unsorted", { _ in }),
        ("salary ties and nils", { $0.sortDescriptors = [NSSortDescriptor(key: "salary", ascending: true)] }),
        (
            "salary descending, name",
            {
                $0.sortDescriptors = [
                    NSSortDescriptor(key: "salary", ascending: false), NSSortDescriptor(key: "name", ascending: true),
                ]
            }
        ),
        (
            "case-insensitive names, descending",
            {
                $0.sortDescriptors = [
                    NSSortDescriptor(key: "name", ascending: false, selector: "caseInsensitiveCompare:")
                ]
            }
        ),
        (
            "predicate",
            {
                $0.predicate = NSPredicate(format: "salary >= 10000 OR name BEGINSWITH 'e'")
                $0.sortDescriptors = [NSSortDescriptor(key: "salary", ascending: true)]
            }
        ),
        (
            "limit and offset",
            {
                $0.sortDescriptors = [NSSortDescriptor(key: "salary", ascending: true)]
                $0.fetchOffset = 3
                $0.fetchLimit = 11
            }
        ),
        (
            "offset past the end",
            {
                $0.fetchOffset = 100
            }
        ),
        (
            "without sub-entities",
            {
                $0.includesSubentities = false
                $0.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
            }
        ),
        ("department's title", { $0.sortDescriptors = [NSSortDescriptor(key: "department.title", ascending: true)] }),
    ]

    @Test(arguments: ContextFixture.storeTypes)
    func streamsWhatFetchReturnsInItsOrder(_ storeType: String) throws {
        let fixture = try Self.fixture(storeType)
        for (name, configure) in Self.requests {
            for entity in ["Employee", "Manager"] {
                let request = NSFetchRequest<NSManagedObject>(entityName: entity)
                configure(request)
                let fetching = fixture.freshContext()
                let fetched = Self.names(try fetching.fetch(request))
                let expected = try Self.namesInStreamOrder(request, in: fetching)
                #expect(!expected.isEmpty || request.fetchOffset > 0, "\(name)")
                if storeType != NSInMemoryStoreType {
                    // The SQL stores' fetches order ties by primary key too.
                    #expect(expected == fetched, "\(name)")
                } else {
                    #expect(Set(expected) == Set(fetched), "\(name)")
                }
                // 1; 2 (a multiple of the count of 28 employees); 5; more than the count.
                for batchSize in [1, 2, 5, 1000] {
                    let context = fixture.freshContext()
                    let streamed = try context.objects(for: request, batchSize: batchSize)
                    #expect(Self.names(streamed) == expected, "\(name), \(entity), batch size \(batchSize)")
                    #expect(streamed.error == nil)
                }
            }
        }
    }

    @Test(arguments: ContextFixture.storeTypes)
    func bothStoresStreamTheSameSequence(_ storeType: String) throws {
        let other = storeType == NSSQLiteStoreType ? NSInMemoryStoreType : NSSQLiteStoreType
        let (one, two) = (try Self.fixture(storeType), try Self.fixture(other))
        for (name, configure) in Self.requests {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Employee")
            configure(request)
            let first = Self.names(try one.freshContext().objects(for: request, batchSize: 4))
            let second = Self.names(try two.freshContext().objects(for: request, batchSize: 4))
            #expect(first == second, "\(name)")
        }
    }

    @Test(arguments: ContextFixture.storeTypes)
    func anObjectInTheContextComesBackAsItIs(_ storeType: String) throws {
        let fixture = try Self.fixture(storeType)
        let context = fixture.context
        let bob = try ContextFixture.employee("Bob", in: context)
        bob.setValue(Decimal(1), forKey: "salary")
        let cy = try ContextFixture.employee("Cy", in: context)
        context.delete(cy)
        let request = fixture.request("Employee", "name IN {'Ann', 'Bob', 'Cy', 'Dee'}", sort: [("name", true)])
        let streamed = Array(try context.objects(for: request, batchSize: 1))
        // The same instance, with its unsaved change; matched and ordered by its saved values.
        #expect(Self.names(streamed) == ["Ann", "Bob", "Dee"])
        #expect(streamed[1] === bob && bob.value(forKey: "salary") as? Decimal == 1)
        #expect(streamed.allSatisfy { $0.managedObjectContext === context })
        // Unsaved inserts are not in the stores: not streamed.
        fixture.insert("Employee", ["name": "Ann2"])
        #expect(Self.names(try context.objects(for: fixture.request("Employee", "name BEGINSWITH 'Ann'"))) == ["Ann"])
    }

    /// Nothing stays open between batches: each sees the store as it is then. A row inserted
    /// after the position is delivered, one before it is not; a row deleted before its batch is
    /// not delivered.
    @Test(arguments: ContextFixture.storeTypes)
    func savesBetweenBatches(_ storeType: String) throws {
        let fixture = try ContextFixture(storeType: storeType)
        let context = fixture.freshContext()
        let request = fixture.request("Employee", sort: [("name", true)])
        var iterator = try context.objects(for: request, batchSize: 2).makeIterator()
        #expect(Self.names([iterator.next(), iterator.next()].compactMap { $0 }) == ["Ann", "Bob"])
        // Another context saves: Dee (not delivered yet) deleted, Aaron (before) and Cz (after) inserted.
        let writer = fixture.freshContext()
        writer.delete(try ContextFixture.employee("Dee", in: writer))
        for name in ["Aaron", "Cz"] {
            NSManagedObject(entity: fixture.model[entity: "Employee"], insertInto: writer).setValue(name, forKey: "name")
        }
        try writer.save()
        var rest: [NSManagedObject] = []
        while let object = iterator.next() { rest.append(object) }
        #expect(Self.names(rest) == ["Cy", "Cz"])
        #expect(iterator.error == nil)
    }

    @Test(arguments: ContextFixture.storeTypes)
    func badRequestsThrowInsteadOfCrashing(_ storeType: String) throws {
        let fixture = try Self.fixture(storeType)
        let context = fixture.freshContext()
        #expect(throws: NSError.self) {
            try context.objects(for: fixture.request("Employee", "nosuchkey == 1"))
        }
        #expect(throws: NSError.self) {
            try context.objects(for: fixture.request("Employee", sort: [("nosuchkey", true)]))
        }
        #expect(throws: NSError.self) { try context.objects(for: fixture.request("Employee"), batchSize: 0) }
        let counting = fixture.request("Employee")
        counting.resultType = .countResultType
        #expect(throws: NSError.self) { try context.objects(for: counting) }
        let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        child.parent = context
        let error = #expect(throws: NSError.self) { try child.objects(for: fixture.request("Employee")) }
        #expect(error?.localizedDescription.contains("child context") == true)
    }

    /// A sort the paging cannot express (by a to-one object, not an attribute) ends the
    /// iteration with the store's error, kept in `error` and thrown by `nextObject()`.
    @Test(arguments: ContextFixture.storeTypes)
    func aStoreErrorEndsTheIterationAndIsKept(_ storeType: String) throws {
        let fixture = try Self.fixture(storeType)
        let request = fixture.request("Employee", sort: [("department", true)])
        let objects = try fixture.freshContext().objects(for: request, batchSize: 3)
        #expect(Array(objects).isEmpty)
        #expect(objects.error != nil)
        var iterator = objects.makeIterator()
        #expect(throws: (any Error).self) { try iterator.nextObject() }
        #expect(iterator.error != nil && iterator.next() == nil)
    }

    @Test(arguments: ContextFixture.storeTypes)
    func theAsyncFormStreamsOnTheContextsQueue(_ storeType: String) async throws {
        let fixture = try Self.fixture(storeType)
        let request = fixture.request("Employee", "salary > 0", sort: [("salary", false), ("name", true)])
        let context = fixture.freshContext()
        let expected = try await context.perform { Self.names(try context.fetch(request)) }
        var names: [String] = []
        for try await employee in context.stream(request, batchSize: 3) {
            names.append(await context.perform { employee.value(forKey: "name") as? String ?? "?" })
        }
        #expect(names == expected && names.count > 10)
        // Errors come out of `next()`.
        await #expect(throws: NSError.self) {
            for try await _ in context.stream(fixture.request("Employee", "nosuchkey == 1")) {}
        }
    }

    @Test(arguments: ContextFixture.storeTypes)
    func untypedRequestsStreamToo(_ storeType: String) throws {
        let fixture = try Self.fixture(storeType)
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Department")
        request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
        let titles = try fixture.freshContext().objects(for: request, batchSize: 1).map {
            ($0 as? NSManagedObject)?.value(forKey: "title") as? String
        }
        #expect(titles == ["Labs", "Sales"])
    }

    /// The sequence keeps only the current batch, and the context holds unchanged objects
    /// weakly: an object of the first batch is freed once the caller drops it and the stream
    /// has moved on.
    @Test(arguments: ContextFixture.storeTypes)
    func pastBatchesAreNotRetained(_ storeType: String) throws {
        let fixture = try Self.fixture(storeType)
        let context = fixture.freshContext()
        let request = fixture.request("Employee", sort: [("name", true)])
        var iterator = try context.objects(for: request, batchSize: 4).makeIterator()
        weak var first: NSManagedObject?
        do {
            let next = iterator.next()
            let object = try #require(next)
            #expect(object.value(forKey: "name") as? String == "Ann")
            first = object
        }
        #expect(first != nil)  // its batch is still the current one
        for _ in 0..<8 { _ = iterator.next() }  // two batches on
        #expect(first == nil)
        #expect(context.registeredObjects.count <= 4)
    }
}
