import Foundation
@testable import OpenCoreData
import TestSupport
import Testing

/// Random model changes within Apple's inference rules, applied to random stores: each round
/// picks changes from a fixed seed, fills a store of the first version with random objects,
/// migrates it, and compares it with a store of the second version into which the same objects
/// were inserted directly, changed as the rules say (renamed, converted, defaulted, dropped).
/// Objects are matched by a `uid` attribute no change touches, relationships by their members'
/// `uid`s.
@Suite struct RandomMigrationTests {
    /// The changes a round may make to the first version.
    enum Change: CaseIterable {
        case renameTitle, widenCount, priceToInteger, removeFlag, addRating, requireOwnerName, renameTag
        case removeSpecial, ownerToMany, addNote, newParentForOwner, dateToDouble, uniqueOwnerUID
    }

    // MARK: - Models

    /// Item(uid, title, count: Int16, price: Double, flag, added: Date) > Special(level: Int32);
    /// Owner(uid, name) with items ↔ Item.owner; Tag(uid, label) with items ↔ Item.tags (many
    /// to many). The second version applies `changes`.
    static func model(_ changes: Set<Change> = []) -> NSManagedObjectModel {
        let item = entity("Item"), special = entity("Special")
        let owner = entity("Owner")
        let tag = entity(changes.contains(.renameTag) ? "Label" : "Tag")
        if changes.contains(.renameTag) { tag.renamingIdentifier = "Tag" }
        var itemProperties: [NSPropertyDescription] = [attribute("uid", .integer64AttributeType, optional: false)]
        let title = attribute(changes.contains(.renameTitle) ? "heading" : "title", .stringAttributeType)
        if changes.contains(.renameTitle) { title.renamingIdentifier = "title" }
        itemProperties.append(title)
        itemProperties.append(
            attribute("count", changes.contains(.widenCount) ? .integer64AttributeType : .integer16AttributeType))
        itemProperties.append(
            attribute("price", changes.contains(.priceToInteger) ? .integer64AttributeType : .doubleAttributeType))
        if !changes.contains(.removeFlag) { itemProperties.append(attribute("flag", .booleanAttributeType)) }
        itemProperties.append(attribute("added", changes.contains(.dateToDouble) ? .doubleAttributeType : .dateAttributeType))
        if changes.contains(.addRating) { itemProperties.append(attribute("rating", .integer32AttributeType, default: 3)) }

        let toOwner: NSRelationshipDescription
        if changes.contains(.ownerToMany) {
            toOwner = relationship("owners", to: owner, maxCount: 0)
            toOwner.renamingIdentifier = "owner"
        } else {
            toOwner = relationship("owner", to: owner, maxCount: 1)
        }
        let ownerItems = relationship("items", to: item, maxCount: 0)
        inverses(toOwner, ownerItems)
        let itemTags = relationship("tags", to: tag, maxCount: 0)
        let tagItems = relationship("items", to: item, maxCount: 0)
        inverses(itemTags, tagItems)
        item.properties = itemProperties + [toOwner, itemTags]

        owner.properties = [
            attribute("uid", .integer64AttributeType, optional: false),
            changes.contains(.requireOwnerName)
                ? attribute("name", .stringAttributeType, optional: false, default: "anon")
                : attribute("name", .stringAttributeType),
            ownerItems,
        ]
        if changes.contains(.uniqueOwnerUID) { owner.uniquenessConstraints = [["uid"]] }
        tag.properties = [
            attribute("uid", .integer64AttributeType, optional: false), attribute("label", .stringAttributeType), tagItems,
        ]
        var entities = [item, owner, tag]
        if !changes.contains(.removeSpecial) {
            special.properties = [attribute("level", .integer32AttributeType)]
            item.subentities = [special]
            entities.append(special)
        }
        if changes.contains(.addNote) {
            let note = entity("Note")
            note.properties = [
                attribute("uid", .integer64AttributeType, optional: false), attribute("text", .stringAttributeType),
            ]
            entities.append(note)
        }
        if changes.contains(.newParentForOwner) {
            let thing = entity("Thing")
            thing.isAbstract = true
            thing.properties = [attribute("created", .dateAttributeType)]
            thing.subentities = [owner]
            entities.append(thing)
        }
        let model = NSManagedObjectModel()
        model.entities = entities
        return model
    }

    // MARK: - Data

    struct Row {
        var entity: String
        var uid: Int64
        var values: [String: Any]
        var owner: Int64?
        var tags: [Int64] = []
    }

    static func randomRows(using random: inout SplitMix64) -> [Row] {
        var rows: [Row] = []
        var uid: Int64 = 0
        func next() -> Int64 {
            uid += 1
            return uid
        }
        let owners = (0..<Int.random(in: 2...6, using: &random)).map { _ in
            Row(entity: "Owner", uid: next(), values: Bool.random(using: &random) ? ["name": "owner\(uid)"] : [:])
        }
        let tags = (0..<Int.random(in: 1...5, using: &random)).map { _ in
            Row(entity: "Tag", uid: next(), values: ["label": "tag\(uid)"])
        }
        rows += owners + tags
        for _ in 0..<Int.random(in: 10...40, using: &random) {
            var values: [String: Any] = [:]
            if Bool.random(using: &random) { values["title"] = "title \(Int.random(in: 0...99, using: &random))" }
            if Bool.random(using: &random) { values["count"] = Int16.random(in: -300...300, using: &random) }
            if Bool.random(using: &random) { values["price"] = Double(Int.random(in: -5000...5000, using: &random)) / 8 }
            if Bool.random(using: &random) { values["flag"] = Bool.random(using: &random) }
            if Bool.random(using: &random) {
                values["added"] = Date(timeIntervalSinceReferenceDate: Double(Int.random(in: 0...1_000_000, using: &random)))
            }
            let special = Int.random(in: 0..<4, using: &random) == 0
            if special { values["level"] = Int32.random(in: 0...9, using: &random) }
            var row = Row(entity: special ? "Special" : "Item", uid: next(), values: values)
            if Bool.random(using: &random) { row.owner = owners.randomElement(using: &random)?.uid }
            row.tags = tags.filter { _ in Int.random(in: 0..<3, using: &random) == 0 }.map(\.uid)
            rows.append(row)
        }
        return rows
    }

    /// The rows as the second version holds them, by the inference rules.
    static func expected(_ rows: [Row], _ changes: Set<Change>) -> [Row] {
        rows.compactMap { original in
            var row = original
            if changes.contains(.removeSpecial) && row.entity == "Special" { return nil }
            if changes.contains(.renameTag) && row.entity == "Tag" { row.entity = "Label" }
            if changes.contains(.renameTitle), let title = row.values.removeValue(forKey: "title") {
                row.values["heading"] = title
            }
            if changes.contains(.widenCount), let count = row.values["count"] as? Int16 { row.values["count"] = Int64(count) }
            if changes.contains(.priceToInteger), let price = row.values["price"] as? Double {
                row.values["price"] = Int64(price)
            }
            if changes.contains(.removeFlag) { row.values["flag"] = nil }
            if changes.contains(.dateToDouble), let date = row.values["added"] as? Date {
                row.values["added"] = date.timeIntervalSinceReferenceDate
            }
            if changes.contains(.addRating) && (row.entity == "Item" || row.entity == "Special") { row.values["rating"] = 3 }
            if changes.contains(.requireOwnerName) && row.entity == "Owner" && row.values["name"] == nil {
                row.values["name"] = "anon"
            }
            if changes.contains(.removeSpecial) { row.values["level"] = nil }
            return row
        }
    }

    /// A store: its type and URL.
    struct Store {
        let type: String
        let url: URL
    }

    /// A context on `store`, added without automatic migration.
    static func open(_ store: Store, model: NSManagedObjectModel, readOnly: Bool) throws -> NSManagedObjectContext {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(
            ofType: store.type, configurationName: nil, at: store.url, options: [NSReadOnlyPersistentStoreOption: readOnly])
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// Where each round migrates: in place in a SQLite file or a PostgreSQL schema, and from a
    /// SQLite file into a new PostgreSQL schema.
    static let directions: [(String, String)] =
        [(NSSQLiteStoreType, NSSQLiteStoreType)]
        + (PostgresTestServer.isEnabled
            ? [(NSPostgreSQLStoreType, NSPostgreSQLStoreType), (NSSQLiteStoreType, NSPostgreSQLStoreType)] : [])

    /// Inserts the rows into `store` (created with `model`).
    static func insert(_ rows: [Row], into store: Store, model: NSManagedObjectModel, changes: Set<Change>) throws {
        try insert(rows, into: try open(store, model: model, readOnly: false), changes: changes)
    }

    /// Inserts the rows through `context` and saves.
    static func insert(_ rows: [Row], into context: NSManagedObjectContext, changes: Set<Change> = []) throws {
        try context.performAndWait {
            var objects: [Int64: NSManagedObject] = [:]
            for row in rows {
                let object = NSEntityDescription.insertNewObject(forEntityName: row.entity, into: context)
                object.setValue(row.uid, forKey: "uid")
                for (key, value) in row.values { object.setValue(value, forKey: key) }
                objects[row.uid] = object
            }
            for row in rows {
                guard let object = objects[row.uid] else { continue }
                if let owner = row.owner.flatMap({ objects[$0] }) {
                    if changes.contains(.ownerToMany) {
                        object.mutableSetValue(forKey: "owners").add(owner)
                    } else {
                        object.setValue(owner, forKey: "owner")
                    }
                }
                for tag in row.tags.compactMap({ objects[$0] }) { object.mutableSetValue(forKey: "tags").add(tag) }
            }
            try context.save()
        }
    }

    /// Every object by entity and `uid`: attributes as text, relationships as sorted `uid`s.
    static func contents(of store: Store, model: NSManagedObjectModel) throws -> [String: [Int64: [String: String]]] {
        try contents(in: try open(store, model: model, readOnly: true), model: model)
    }

    /// Every object `context` fetches, as `contents(of:model:)` gives them.
    static func contents(in context: NSManagedObjectContext, model: NSManagedObjectModel) throws
        -> [String: [Int64: [String: String]]]
    {
        var contents: [String: [Int64: [String: String]]] = [:]
        try context.performAndWait {
            for entity in model.entities where !entity.isAbstract {
                let name = try #require(entity.name)
                let request = NSFetchRequest<NSManagedObject>(entityName: name)
                request.includesSubentities = false
                for object in try context.fetch(request) {
                    var values: [String: String] = [:]
                    for property in entity.properties {
                        if let relationship = property as? NSRelationshipDescription {
                            let members =
                                relationship.isToMany
                                ? (object.value(forKey: property.name) as? NSSet)?.allObjects as? [NSManagedObject] ?? []
                                : [object.value(forKey: property.name) as? NSManagedObject].compactMap { $0 }
                            values[property.name] = members.compactMap { $0.value(forKey: "uid") as? Int64 }.sorted().description
                        } else {
                            values[property.name] = object.value(forKey: property.name).map { "\($0)" } ?? "nil"
                        }
                    }
                    let uid = try #require(object.value(forKey: "uid") as? Int64)
                    contents[name, default: [:]][uid] = values
                }
            }
        }
        return contents
    }

    /// A new uniqueness constraint that the rows break: `NSMigrationConstraintViolationError`,
    /// and the store is left a store of the first version.
    @Test(arguments: directions.filter { $0.0 == $0.1 }.map(\.0))
    func aNewConstraintTheRowsBreakFailsAndKeepsTheStore(_ type: String) throws {
        let folder = try TemporaryFolder()
        let v1 = Self.model()
        let store = Store(type: type, url: try #require(try folder.storeURL(for: type, name: "unique.sqlite")))
        let twins = [
            Row(entity: "Owner", uid: 1, values: ["name": "Ann"]), Row(entity: "Owner", uid: 1, values: ["name": "Bo"]),
        ]
        try Self.insert(twins, into: store, model: v1, changes: [])
        let error = try #require(throws: NSError.self) {
            try NSMigrationManager(sourceModel: v1, destinationModel: Self.model([.uniqueOwnerUID])).migrateStore(
                from: store.url, sourceType: type, with: nil, toDestinationURL: store.url, destinationType: type)
        }
        // PostgreSQL reports it as a store operation error (its failed statement aborts the
        // transaction); either way nothing of the migration is kept.
        #expect(error.code == (type == NSSQLiteStoreType ? NSMigrationConstraintViolationError : NSPersistentStoreOperationError))
        // The store still opens with the first version, both owners in it.
        let context = try Self.open(store, model: v1, readOnly: true)
        #expect(try context.performAndWait { try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Owner")) } == 2)
    }

    @Test(arguments: directions.flatMap { direction in (0..<24).map { (direction.0, direction.1, $0) } })
    func migratedStoreEqualsTheDataInsertedUnderTheNewModel(_ sourceType: String, _ destinationType: String, _ round: Int)
        throws
    {
        var random = SplitMix64(seed: 0x519_2026 &+ UInt64(round))
        let changes = Set(Change.allCases.filter { _ in Int.random(in: 0..<5, using: &random) < 2 })
        let rows = Self.randomRows(using: &random)
        let folder = try TemporaryFolder()
        let v1 = Self.model(), v2 = Self.model(changes)
        let source = Store(type: sourceType, url: try #require(try folder.storeURL(for: sourceType, name: "source.sqlite")))
        try Self.insert(rows, into: source, model: v1, changes: [])
        let migrated =
            sourceType == destinationType
            ? source
            : Store(type: destinationType, url: try #require(try folder.storeURL(for: destinationType, name: "migrated")))

        let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: v1, destinationModel: v2)
        try NSMigrationManager(sourceModel: v1, destinationModel: v2).migrateStore(
            from: source.url, sourceType: sourceType, with: mapping, toDestinationURL: migrated.url,
            destinationType: destinationType)

        let direct = Store(type: destinationType, url: try #require(try folder.storeURL(for: destinationType, name: "direct")))
        try Self.insert(Self.expected(rows, changes), into: direct, model: Self.model(changes), changes: changes)
        let want = try Self.contents(of: direct, model: Self.model(changes))
        let got = try Self.contents(of: migrated, model: Self.model(changes))
        #expect(got == want, "changes: \(changes.map { "\($0)" }.sorted())")
        if sourceType != destinationType {
            #expect(try Self.contents(of: source, model: v1).values.map(\.count).reduce(0, +) == rows.count, "the source is kept")
        }

        // The migrated store takes new objects after its old keys, and saves them.
        let context = try Self.open(migrated, model: Self.model(changes), readOnly: false)
        try context.performAndWait {
            let owner = NSEntityDescription.insertNewObject(forEntityName: "Owner", into: context)
            owner.setValue(Int64(999), forKey: "uid")
            owner.setValue("new", forKey: "name")
            try context.save()
            let request = NSFetchRequest<NSManagedObject>(entityName: "Owner")
            #expect(try context.count(for: request) == rows.filter { $0.entity == "Owner" }.count + 1)
        }
    }
}
