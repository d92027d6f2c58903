import Foundation
import OpenCoreData
import TestSupport
import Testing

/// Random predicates over the data of every Apple-written store that has rows: the store is
/// opened read-only as an app opens it, its objects are copied into an in-memory store of the
/// same model and saved there, and each predicate must find the same objects (and count) in both.
/// The predicates are built from each entity's own properties with constants taken from its data
/// (strings and their prefixes with `[c]`/`[cd]`, numbers, dates, booleans, nil, to-one paths,
/// to-many counts and `ANY`), nested under `AND`/`OR`/`NOT`; every fourth again sorted by a
/// random attribute and selector, with a random limit; and dictionary results grouped by an
/// attribute with an aggregate of another. Seeded: a failure names the store, entity and
/// predicate.
@Suite(.enabled(if: RealWorld.isAvailable, "../shared/realworld is not beside the package: Apple-written store tests skipped"))
struct RealStoreRandomTests {
    /// The stores with rows (one of each model).
    static let stores = AppleWrittenStoreTests.stores.filter { $0.counts.values.contains { $0 > 0 } }

    /// Copies every object of `source` into `target` (same model): attributes, then each
    /// relationship from one side (an ordered to-many from its own side, so that order is kept).
    /// Returns the copies by the originals' IDs.
    static func copy(from source: NSManagedObjectContext, to target: NSManagedObjectContext) throws -> [NSManagedObjectID:
        NSManagedObject]
    {
        var copies: [NSManagedObjectID: NSManagedObject] = [:]
        var originals: [NSManagedObject] = []
        let model = try #require(source.persistentStoreCoordinator?.managedObjectModel)
        for entity in model.entities where !entity.isAbstract {
            let request = NSFetchRequest<NSManagedObject>(entityName: entity.name ?? "")
            request.includesSubentities = false
            for original in try source.fetch(request) {
                let copy = NSManagedObject(entity: entity, insertInto: target)
                for (name, attribute) in entity.attributesByName where !attribute.isTransient {
                    copy.setValue(original.value(forKey: name), forKey: name)
                }
                copies[original.objectID] = copy
                originals.append(original)
            }
        }
        for original in originals {
            for (name, relationship) in original.entity.relationshipsByName where Self.copiesSide(relationship) {
                let copy = copies[original.objectID]
                if relationship.isToMany {
                    let members: [NSManagedObject] =
                        (original.value(forKey: name) as? NSOrderedSet)?.array as? [NSManagedObject]
                        ?? Array(original.value(forKey: name) as? Set<NSManagedObject> ?? [])
                    let mapped = members.compactMap { copies[$0.objectID] }
                    copy?.setValue(relationship.isOrdered ? NSOrderedSet(array: mapped) : Set(mapped), forKey: name)
                } else if let destination = original.value(forKey: name) as? NSManagedObject {
                    copy?.setValue(copies[destination.objectID], forKey: name)
                }
            }
        }
        return copies
    }

    /// A context on a store file, and one on an in-memory store holding a saved copy of its
    /// objects (by the originals' IDs).
    static func fileAndCopy(of url: URL, model: NSManagedObjectModel, readOnly: Bool) throws -> (
        file: NSManagedObjectContext, memory: NSManagedObjectContext, copies: [NSManagedObjectID: NSManagedObject]
    ) {
        let file = try AppleWrittenStoreTests.open(url, model: model, readOnly: readOnly)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
        let memory = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        memory.persistentStoreCoordinator = coordinator
        let copies = try copy(from: file, to: memory)
        try memory.save()
        return (file, memory, copies)
    }

    /// Whether a relationship is copied from this side: the inverse follows.
    static func copiesSide(_ relationship: NSRelationshipDescription) -> Bool {
        guard let inverse = relationship.inverseRelationship else { return true }
        if relationship.isOrdered != inverse.isOrdered { return relationship.isOrdered }
        if relationship.isToMany != inverse.isToMany { return !relationship.isToMany }
        return (relationship.entity.name ?? "", relationship.name) < (inverse.entity.name ?? "", inverse.name)
    }

    /// Writes predicates for one entity from its properties and data.
    struct PredicateMaker {
        var random: SplitMix64
        let entity: NSEntityDescription
        let objects: [NSManagedObject]

        mutating func pick<T>(_ choices: [T]) -> T { choices[Int.random(in: 0..<choices.count, using: &random)] }

        /// A value `key` has in the data (nil sometimes, or when it has none).
        mutating func sample(_ key: String, of objects: [NSManagedObject]) -> Any? {
            guard !objects.isEmpty, Int.random(in: 0..<8, using: &random) > 0 else { return nil }
            return pick(objects).value(forKey: key)
        }

        mutating func predicate(depth: Int = 0) -> NSPredicate? {
            guard depth < 2, Int.random(in: 0..<3, using: &random) == 0 else { return atom() }
            let left = predicate(depth: depth + 1), right = predicate(depth: depth + 1)
            switch (Int.random(in: 0..<3, using: &random), left, right) {
            case (0, let left?, _): return NSCompoundPredicate(notPredicateWithSubpredicate: left)
            case (1, let left?, let right?): return NSCompoundPredicate(andPredicateWithSubpredicates: [left, right])
            case (_, let left?, let right?): return NSCompoundPredicate(orPredicateWithSubpredicates: [left, right])
            default: return left ?? right
            }
        }

        mutating func atom() -> NSPredicate? {
            let relationships = entity.relationshipsByName.values.sorted { $0.name < $1.name }
            let attributes = entity.attributesByName.values.filter { Self.comparable($0) }.sorted { $0.name < $1.name }
            if !relationships.isEmpty, Int.random(in: 0..<4, using: &random) == 0 {
                let relationship = pick(relationships)
                let destinations = objects.flatMap { object -> [NSManagedObject] in
                    if relationship.isToMany {
                        return (object.value(forKey: relationship.name) as? NSOrderedSet)?.array as? [NSManagedObject]
                            ?? Array(object.value(forKey: relationship.name) as? Set<NSManagedObject> ?? [])
                    }
                    return (object.value(forKey: relationship.name) as? NSManagedObject).map { [$0] } ?? []
                }
                let destinationAttributes = (relationship.destinationEntity?.attributesByName.values ?? [:].values)
                    .filter { Self.comparable($0) }.sorted { $0.name < $1.name }
                switch (relationship.isToMany, Int.random(in: 0..<2, using: &random), destinationAttributes.isEmpty) {
                case (true, 0, _), (true, _, true):
                    return NSPredicate(
                        format: "\(relationship.name).@count \(pick(["==", ">", "<"])) %d", Int.random(in: 0...3, using: &random))
                case (false, 0, _), (false, _, true):
                    return NSPredicate(format: "\(relationship.name) \(pick(["==", "!="])) nil")
                default:
                    let attribute = pick(destinationAttributes)
                    let path = (relationship.isToMany ? "ANY " : "") + relationship.name + "." + attribute.name
                    return comparison(path, attribute, value: sample(attribute.name, of: destinations))
                }
            }
            guard !attributes.isEmpty else { return nil }
            let attribute = pick(attributes)
            return comparison(attribute.name, attribute, value: sample(attribute.name, of: objects))
        }

        static func comparable(_ attribute: NSAttributeDescription) -> Bool {
            switch attribute.attributeType {
            case .stringAttributeType, .integer16AttributeType, .integer32AttributeType, .integer64AttributeType,
                .doubleAttributeType, .floatAttributeType, .decimalAttributeType, .booleanAttributeType, .dateAttributeType:
                return !attribute.isTransient
            default:
                return false
            }
        }

        mutating func comparison(_ path: String, _ attribute: NSAttributeDescription, value: Any?) -> NSPredicate {
            guard let value else { return NSPredicate(format: "\(path) \(pick(["==", "!="])) nil") }
            if attribute.attributeType == .stringAttributeType, let text = value as? String {
                let operation = pick(["==", "BEGINSWITH", "CONTAINS", "ENDSWITH", "<"]) + pick(["", "[c]", "[cd]"])
                let length = text.count < 2 ? text.count : Int.random(in: 1...min(4, text.count), using: &random)
                let constant = operation.hasPrefix("==") || operation.hasPrefix("<") ? text : String(text.prefix(length))
                return NSPredicate(format: "\(path) \(operation) %@", argumentArray: [constant])
            }
            return NSPredicate(format: "\(path) \(pick(["<", "<=", ">", ">=", "==", "!="])) %@", argumentArray: [value])
        }
    }

    @Test(arguments: stores)
    func randomPredicatesAgreeWithAnInMemoryCopy(_ store: AppleWrittenStoreTests.Store) throws {
        let folder = try TemporaryFolder()
        let model = try store.model()
        let (sqlite, memory, copies) = try Self.fileAndCopy(
            of: try store.copy(into: folder), model: model, readOnly: true)
        var compared = 0
        for entity in model.entities.sorted(by: { ($0.name ?? "") < ($1.name ?? "") }) {
            let all = try sqlite.fetch(NSFetchRequest<NSManagedObject>(entityName: entity.name ?? ""))
            guard !all.isEmpty else { continue }
            var maker = PredicateMaker(random: SplitMix64(seed: UInt64(all.count) &* 7_919), entity: entity, objects: all)
            for index in 0..<40 {
                guard let predicate = maker.predicate() else { continue }
                let label = "\(store.testDescription) \(entity.name ?? "") #\(index) \(predicate)"
                let request = NSFetchRequest<NSManagedObject>(entityName: entity.name ?? "")
                request.predicate = predicate
                let fromFile = Result { try sqlite.fetch(request) }
                let fromMemory = Result { try memory.fetch(request) }
                switch (fromFile, fromMemory) {
                case (.success(let file), .success(let copied)):
                    let mapped = Set(file.compactMap { copies[$0.objectID].map(ObjectIdentifier.init) })
                    #expect(mapped == Set(copied.map(ObjectIdentifier.init)), "\(label)")
                    #expect(try sqlite.count(for: request) == copied.count, "\(label) count")
                    compared += 1
                    // Sorted by an attribute with one of the selectors the SQL store supports, and
                    // cut by a limit: the same sequence of sort values (ties may differ in which
                    // object comes first: the copy was inserted entity by entity).
                    let keys = entity.attributesByName.values.filter { PredicateMaker.comparable($0) }
                        .sorted { $0.name < $1.name }
                    guard !keys.isEmpty, index % 4 == 0 else { continue }
                    let key = maker.pick(keys)
                    let selectors =
                        key.attributeType == .stringAttributeType
                        ? ["compare:", "caseInsensitiveCompare:", "localizedStandardCompare:"] : ["compare:"]
                    request.sortDescriptors = [
                        NSSortDescriptor(
                            key: key.name, ascending: Bool.random(using: &maker.random), selector: maker.pick(selectors))
                    ]
                    request.fetchLimit = maker.pick([0, 1, 5])
                    func sortValues(_ objects: [NSManagedObject]) -> [String] {
                        objects.map { $0.value(forKey: key.name).map { "\($0)" } ?? "nil" }
                    }
                    #expect(
                        sortValues(try sqlite.fetch(request)) == sortValues(try memory.fetch(request)),
                        "\(label) sorted \(request.sortDescriptors ?? []) limit \(request.fetchLimit)")
                case (.failure, .failure):
                    break
                default:
                    Issue.record("\(label): the file \(fromFile), memory \(fromMemory)")
                }
            }
            try compareGroups(of: entity, sqlite: sqlite, memory: memory, maker: &maker, label: store.testDescription)
        }
        #expect(compared > 20, "\(store.testDescription)")
    }

    /// Dictionary results grouped by one attribute, with an aggregate of another, sorted by the
    /// group: the same dictionaries from the file and from the copy.
    func compareGroups(
        of entity: NSEntityDescription, sqlite: NSManagedObjectContext, memory: NSManagedObjectContext,
        maker: inout PredicateMaker, label: String
    ) throws {
        let attributes = entity.attributesByName.values.filter { PredicateMaker.comparable($0) }.sorted { $0.name < $1.name }
        let exactNumbers: [NSAttributeType] = [
            .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .decimalAttributeType,
        ]
        guard !attributes.isEmpty else { return }
        for index in 0..<4 {
            let group = maker.pick(attributes)
            let measured = maker.pick(attributes)
            // Sums and averages of exact kinds only: doubles add up in another order in SQL.
            let functions =
                exactNumbers.contains(measured.attributeType)
                ? ["count:", "min:", "max:", "sum:", "average:"] : ["count:", "min:", "max:"]
            let function = maker.pick(functions)
            let aggregate = NSExpressionDescription()
            aggregate.name = "aggregate"
            aggregate.expression = NSExpression(forFunction: function, arguments: [NSExpression(forKeyPath: measured.name)])
            aggregate.expressionResultType =
                function == "count:"
                ? .integer64AttributeType : function == "average:" ? .doubleAttributeType : measured.attributeType
            let request = NSFetchRequest<NSDictionary>(entityName: entity.name ?? "")
            request.resultType = .dictionaryResultType
            request.propertiesToFetch = [group, aggregate]
            request.propertiesToGroupBy = [group]
            request.sortDescriptors = [NSSortDescriptor(key: group.name, ascending: index % 2 == 0)]
            request.predicate = index == 3 ? maker.predicate() : nil
            func spelled(_ results: [NSDictionary]) -> [String] {
                results.map { row in
                    [group.name, "aggregate"].map { key in row[key].map { "\($0)" } ?? "nil" }.joined(separator: " | ")
                }
            }
            let what =
                "\(label) \(entity.name ?? "") by \(group.name), \(function)(\(measured.name)) \(request.predicate.map { "\($0)" } ?? "")"
            let fromFile = Result { spelled(try sqlite.fetch(request)) }
            let fromMemory = Result { spelled(try memory.fetch(request)) }
            switch (fromFile, fromMemory) {
            case (.success(let file), .success(let copied)): #expect(file == copied, "\(what)")
            case (.failure, .failure): break
            default: Issue.record("\(what): the file \(fromFile), memory \(fromMemory)")
            }
        }
    }
}
