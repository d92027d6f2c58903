import Foundation
@testable import OpenCoreData
import OpenSQLStore
import OpenSQLiteStore
import TestSupport
import Testing

/// Every store in `shared/realworld/stores` that comes with its model, opened through
/// `NSPersistentStoreCoordinator` as an app opens it: read-only, and read-write on a copy. Each
/// test copies the store's folder first (WAL files included), so the shared files are never
/// written. The expected numbers were read off the files with the `sqlite3` shell.
///
/// `EasyLife.sqlite` and `EasyLife_1.3.0.sqlite` were written before the Project–TodoItem
/// relationship their model files have: they open with the 1.3.0 file's model without it
/// (`easyLifeBeforeProjects`), whose version hashes are the stores'. SampleModel2's models were
/// written in Swift: they are rebuilt in code (`RealWorldModels`).
@Suite(.enabled(if: RealWorld.isAvailable, "../shared/realworld is not beside the package: Apple-written store tests skipped"))
struct AppleWrittenStoreTests {
    struct Store: CustomTestStringConvertible, Sendable {
        let directory: String
        let file: String
        /// The model's `contents` XML in the store's folder, or nil for `code`.
        let xml: String?
        let code: (@Sendable () -> NSManagedObjectModel)?
        /// Rows per entity, sub-entities not included.
        let counts: [String: Int]
        var testDescription: String { "\(directory)/\(file)" }

        init(_ directory: String, _ file: String, xml: String, counts: [String: Int]) {
            (self.directory, self.file, self.xml, code, self.counts) = (directory, file, xml, nil, counts)
        }

        init(_ directory: String, _ file: String, code: @escaping @Sendable () -> NSManagedObjectModel, counts: [String: Int]) {
            (self.directory, self.file, xml, self.code, self.counts) = (directory, file, nil, code, counts)
        }

        func model() throws -> NSManagedObjectModel {
            if let code { return code() }
            let url = try #require(RealWorld.url("stores/\(directory)/\(xml ?? "")"))
            return try NSManagedObjectModel(validatingContentsOf: url)
        }

        /// A copy of the store's folder; returns the copied store file.
        func copy(into folder: TemporaryFolder) throws -> URL {
            try RealWorld.copyStore(directory, into: folder.url).appendingPathComponent(file)
        }
    }

    static let stores: [Store] = [
        Store(
            "apple-coredatabooks-modified", "CoreDataBooks.sqlite", code: { RealWorldModels.coreDataBooksModel() },
            counts: ["Book": 12]),
        Store(
            "apple-recipes-2010", "Recipes.sqlite", code: { RealWorldModels.recipesModel() },
            counts: ["Image": 7, "Ingredient": 31, "Recipe": 7, "RecipeType": 5]),
        Store(
            "apple-recipes-2018", "Recipes.sqlite", code: { RealWorldModels.recipesModel() },
            counts: ["Image": 3, "Ingredient": 19, "Recipe": 3, "RecipeType": 4]),
        Store(
            "coredataplus-samplemodel-v1", "SampleModel_V1.sqlite", xml: "SampleModel.xcdatamodel.contents.xml",
            counts: ["Car": 115, "SportCar": 5, "ExpensiveSportCar": 5, "Person": 20]),
        Store(
            "coredataplus-samplemodel-v2", "SampleModel_V2.sqlite", xml: "SampleModel2.xcdatamodel.contents.xml",
            counts: ["Car": 115, "SportCar": 5, "LuxuryCar": 5, "Person": 20]),
        Store(
            "coredataplus-samplemodel2-history", "SampleModel2_V1.sqlite", code: { RealWorldModels.sampleModel2V1() },
            counts: ["Book": 51, "GraphicNovel": 1, "Feedback": 444, "Page": 4970, "Writer": 0, "Author": 2]),
        Store(
            "coredataplus-samplemodel2-history", "SampleModel2_V2.sqlite", code: { RealWorldModels.sampleModel2V2() },
            counts: ["Book": 2, "GraphicNovel": 1, "Feedback": 3, "Page": 119, "Writer": 0, "Author": 1]),
        Store(
            "coredataplus-samplemodel3-v1", "SampleModel3_V1.sqlite", xml: "SampleModel3.xcdatamodel.contents.xml",
            counts: ["User": 12]),
        Store(
            "easylife-todo", "EasyLife_1.5.0.sqlite", xml: "EasyLife_1.5.0.xcdatamodel.contents.xml",
            counts: ["Project": 0, "TodoItem": 6]),
        Store("easylife-todo", "EasyLife_1.3.0.sqlite", code: easyLifeBeforeProjects, counts: ["Project": 0, "TodoItem": 0]),
        Store("easylife-todo", "EasyLife.sqlite", code: easyLifeBeforeProjects, counts: ["Project": 0, "TodoItem": 158]),
        Store(
            "jeffreybergier-elementid-migration", "Example_v1.0.0.sqlite", xml: "v1.0.0.xcdatamodel.contents.xml",
            counts: ["BasicEntity": 1]),
        Store(
            "jeffreybergier-elementid-migration", "Example_v1.1.0.sqlite", xml: "v1.1.0.xcdatamodel.contents.xml",
            counts: ["BasicEntity": 1]),
        Store(
            "jeffreybergier-elementid-migration", "Example_v1.1.2.sqlite", xml: "v1.1.2.xcdatamodel.contents.xml",
            counts: ["BasicEntity": 1]),
        Store(
            "jeffreybergier-elementid-migration", "Example_v1.2.0.sqlite", xml: "v1.2.0.xcdatamodel.contents.xml",
            counts: ["BasicEntity": 1]),
        Store(
            "jeffreybergier-elementid-migration", "Example_v2.0.0.sqlite", xml: "v2.0.0.xcdatamodel.contents.xml",
            counts: ["BasicEntity": 1]),
        Store(
            "kodeco-surfjournal-wal", "SurfJournalModel.sqlite", xml: "SurfJournalModel.xcdatamodel.contents.xml",
            counts: ["JournalEntry": 5000]),
        Store(
            "restkit-twitter-seed", "RKSeedDatabase.sqlite", code: { RealWorldModels.twitterModel() },
            counts: ["Tweet": 20, "User": 2]),
        Store(
            "wibosco-migration-posts", "CoreDataMigration_Example_1.sqlite", xml: "v1.xcdatamodel.contents.xml",
            counts: ["Post": 1001]),
        Store(
            "wibosco-migration-posts", "CoreDataMigration_Example_2.sqlite", xml: "v2.xcdatamodel.contents.xml",
            counts: ["Post": 5979]),
        Store(
            "wibosco-migration-posts", "CoreDataMigration_Example_3.sqlite", xml: "v3.xcdatamodel.contents.xml",
            counts: ["Color": 7995, "Post": 7995]),
        Store(
            "wibosco-migration-posts", "CoreDataMigration_Example_WAL.sqlite", xml: "v4.xcdatamodel.contents.xml",
            counts: ["Color": 84, "Post": 84]),
    ]

    /// EasyLife 1.3.0's model file without the Project–TodoItem relationship, which its stores
    /// predate (an empty model if the file cannot be read: the stores then refuse it).
    @Sendable static func easyLifeBeforeProjects() -> NSManagedObjectModel {
        guard let url = RealWorld.url("stores/easylife-todo/EasyLife_1.3.0.xcdatamodel.contents.xml"),
            let model = try? NSManagedObjectModel(validatingContentsOf: url)
        else { return NSManagedObjectModel() }
        for entity in model.entities {
            entity.properties = entity.properties.filter { !($0 is NSRelationshipDescription) }
        }
        return model
    }

    @Test func easyLifeStoresHaveTheHashesOfTheModelWithoutProjects() throws {
        let model = Self.easyLifeBeforeProjects()
        // A copy: reading a WAL store's metadata makes its -wal and -shm files.
        let folder = try TemporaryFolder()
        let copied = try Store("easylife-todo", "EasyLife.sqlite", code: Self.easyLifeBeforeProjects, counts: [:]).copy(
            into: folder)
        for file in ["EasyLife.sqlite", "EasyLife_1.3.0.sqlite"] {
            let url = copied.deletingLastPathComponent().appendingPathComponent(file)
            let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
            #expect(metadata[NSStoreModelVersionHashesKey] as? [String: Data] == model.entityVersionHashesByName, "\(file)")
        }
    }

    /// EasyLife.sqlite's 158 to-do items, as the `sqlite3` shell counts them: optional Booleans
    /// that are NULL (16 items never marked done), dates missing on 12, repeats on 8.
    @Test func easyLifeAnswersOnItsTodoItems() throws {
        let folder = try TemporaryFolder()
        let store = try #require(Self.stores.first { $0.file == "EasyLife.sqlite" })
        let context = try Self.open(try store.copy(into: folder), model: try store.model(), readOnly: true)
        #expect(try Self.count(context, "TodoItem", "done == YES") == 142)
        #expect(try Self.count(context, "TodoItem", "done == nil") == 16)
        #expect(try Self.count(context, "TodoItem", "done != YES") == 16)
        #expect(try Self.count(context, "TodoItem", "done == NO") == 0)
        #expect(try Self.count(context, "TodoItem", "repeats > 0") == 8)
        #expect(try Self.count(context, "TodoItem", "date == nil") == 12)
        #expect(try Self.count(context, "TodoItem", "name CONTAINS[c] %@", ["TEST"]) == 1)
        let newest = NSFetchRequest<NSManagedObject>(entityName: "TodoItem")
        newest.predicate = NSPredicate(format: "date != nil")
        newest.sortDescriptors = [NSSortDescriptor(key: "date", ascending: false)]
        newest.fetchLimit = 2
        #expect(
            try context.fetch(newest).compactMap { $0.value(forKey: "name") as? String } == [
                "upload photos to google photos?", "LinkedIn ",
            ])
        let byName = try Self.fetch(context, "TodoItem", sort: [NSSortDescriptor(key: "name", ascending: true)])
        #expect(
            byName.prefix(3).compactMap { $0.value(forKey: "name") as? String } == ["Book therapy", "DigiDocs", "Dirty master"])
        // Grouped in SQL: how many items repeat how often.
        let grouped = NSFetchRequest<NSDictionary>(entityName: "TodoItem")
        grouped.resultType = .dictionaryResultType
        grouped.propertiesToFetch = ["repeats", aggregate("items", "count:", "name", .integer64AttributeType)]
        grouped.propertiesToGroupBy = ["repeats"]
        grouped.sortDescriptors = [NSSortDescriptor(key: "repeats", ascending: true)]
        let rows = try context.fetch(grouped).map {
            [($0["repeats"] as? NSNumber)?.intValue, ($0["items"] as? NSNumber)?.intValue]
        }
        #expect(rows == [[0, 150], [3, 1], [5, 7]])
    }

    /// A context on the store at `url`.
    static func open(_ url: URL, model: NSManagedObjectModel, readOnly: Bool) throws -> NSManagedObjectContext {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        _ = try coordinator.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil, at: url,
            options: readOnly ? [NSReadOnlyPersistentStoreOption: true] : nil)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    static func count(
        _ context: NSManagedObjectContext, _ entity: String, _ format: String? = nil, _ arguments: [Any] = [],
        subentities: Bool = false
    ) throws -> Int {
        let request = NSFetchRequest<NSManagedObject>(entityName: entity)
        request.includesSubentities = subentities
        request.predicate = format.map { NSPredicate(format: $0, argumentArray: arguments) }
        return try context.count(for: request)
    }

    static func fetch(
        _ context: NSManagedObjectContext, _ entity: String, _ format: String? = nil, _ arguments: [Any] = [],
        sort: [NSSortDescriptor] = []
    ) throws -> [NSManagedObject] {
        let request = NSFetchRequest<NSManagedObject>(entityName: entity)
        request.predicate = format.map { NSPredicate(format: $0, argumentArray: arguments) }
        request.sortDescriptors = sort
        return try context.fetch(request)
    }

    // MARK: - Every store

    @Test(arguments: stores)
    func opensReadOnlyWithItsModel(_ store: Store) throws {
        let folder = try TemporaryFolder()
        let url = try store.copy(into: folder)
        let context = try Self.open(url, model: try store.model(), readOnly: true)
        for (entity, rows) in store.counts {
            #expect(try Self.count(context, entity) == rows, "\(entity)")
            // The objects come back whole: every one of them, with its entity.
            if rows > 0 && rows <= 200 {
                let objects = try Self.fetch(context, entity).filter { $0.entity.name == entity }
                #expect(objects.count == rows, "\(entity)")
            }
        }
        let first = try #require(context.persistentStoreCoordinator?.persistentStores.first)
        #expect(first.isReadOnly)
        #expect(first.type == NSSQLiteStoreType)
    }

    /// Read-write: the first object of each entity gets a new value in its first string
    /// attribute; the save lands, bumps `Z_OPT`, keeps every count, and a new coordinator reads
    /// the new value back. SQLite's integrity check passes afterwards.
    @Test(arguments: stores)
    func savesChangesReadWrite(_ store: Store) throws {
        let folder = try TemporaryFolder()
        let url = try store.copy(into: folder)
        let model = try store.model()
        let context = try Self.open(url, model: model, readOnly: false)
        var changed: [(entity: String, id: NSManagedObjectID, key: String, version: Int64)] = []
        for (entity, rows) in store.counts.sorted(by: { $0.key < $1.key }) where rows > 0 {
            let description = try #require(model.entitiesByName[entity])
            let ownAttributes = description.attributesByName.values.filter {
                $0.attributeType == .stringAttributeType && !$0.isTransient
            }
            guard let key = ownAttributes.map(\.name).sorted().first else { continue }
            let request = NSFetchRequest<NSManagedObject>(entityName: entity)
            request.includesSubentities = false
            request.fetchLimit = 1
            let object = try #require(try context.fetch(request).first)
            object.setValue("written on Linux: \(entity)", forKey: key)
            changed.append((entity, object.objectID, key, try Self.version(of: object, at: url)))
        }
        try context.save()

        let reopened = try Self.open(url, model: try store.model(), readOnly: true)
        for (entity, rows) in store.counts { #expect(try Self.count(reopened, entity) == rows, "\(entity)") }
        for change in changed {
            let request = NSFetchRequest<NSManagedObject>(entityName: change.entity)
            request.predicate = NSPredicate(format: "%K == %@", change.key, "written on Linux: \(change.entity)")
            request.includesSubentities = false
            let objects = try reopened.fetch(request)
            #expect(objects.count == 1, "\(change.entity)")
            if let object = objects.first { #expect(try Self.version(of: object, at: url) == change.version + 1) }
        }
        let connection = try SQLiteConnection(url: url, mode: .readOnly)
        let check = try connection.statement("PRAGMA integrity_check")
        #expect(try check.step() && check.string(at: 0) == "ok")
        check.reset()
    }

    /// A new store made here for a store's model has the tables, columns and indexes Apple's
    /// Core Data made, statement for statement (`sqlite_master.sql`), so Apple's Core Data can
    /// open it. Compared: every table and index but Apple's bookkeeping (`Z_METADATA`,
    /// `Z_PRIMARYKEY`, `Z_MODELCACHE`) and persistent history (`ACHANGE`, `ATRANSACTION…`).
    @Test(arguments: stores)
    func newStoresHaveApplesSchema(_ store: Store) throws {
        let folder = try TemporaryFolder()
        let url = try store.copy(into: folder)
        let fresh = folder.url.appendingPathComponent("fresh/New.sqlite")
        _ = try Self.open(fresh, model: try store.model(), readOnly: false)
        let apple = try Self.schemaStatements(at: url)
        let ours = try Self.schemaStatements(at: fresh)
        if Self.differentSchemas.contains(store.testDescription) {
            #expect(apple != ours, "\(store.testDescription) now matches: take it off differentSchemas")
        } else {
            #expect(ours == apple)
        }
    }

    /// Stores whose schema Apple wrote differently from today's rules: CoreDataBooks has a column
    /// its committer added by hand, and the 2010 Recipes store predates Apple's column order.
    static let differentSchemas: Set<String> = [
        "apple-coredatabooks-modified/CoreDataBooks.sqlite", "apple-recipes-2010/Recipes.sqlite",
    ]

    /// The `CREATE` statements of a file's tables and indexes, by name.
    static func schemaStatements(at url: URL) throws -> [String: String] {
        let connection = try SQLiteConnection(url: url, mode: .readOnly)
        let statement = try connection.statement(
            "SELECT name, sql FROM sqlite_master WHERE type IN ('table', 'index') AND sql IS NOT NULL")
        defer { statement.reset() }
        var result: [String: String] = [:]
        let skipped = ["Z_METADATA", "Z_PRIMARYKEY", "Z_MODELCACHE", "ACHANGE", "ATRANSACTION", "Z_TRANSACTION"]
        while try statement.step() {
            let name = statement.string(at: 0) ?? ""
            guard !skipped.contains(where: { name.hasPrefix($0) }) else { continue }
            result[name] = statement.string(at: 1)
        }
        return result
    }

    /// `Z_OPT` of an object's row, read with SQL.
    static func version(of object: NSManagedObject, at url: URL) throws -> Int64 {
        let connection = try SQLiteConnection(url: url, mode: .readOnly)
        let table = "Z" + (rootEntity(object.entity).name ?? "").uppercased()
        let key = try #require(Int64(object.objectID.uriRepresentation().lastPathComponent.dropFirst()))
        let statement = try connection.statement("SELECT Z_OPT FROM \(table) WHERE Z_PK = ?")
        defer { statement.reset() }
        try statement.bind([.integer(key)])
        return try statement.step() ? statement.int64(at: 0) : -1
    }

    static func rootEntity(_ entity: NSEntityDescription) -> NSEntityDescription {
        var root = entity
        while let parent = root.superentity { root = parent }
        return root
    }

    // MARK: - What each store holds

    /// Apple's Recipes sample: accented names, to-one and to-many relationships.
    @Test func recipesAnswerWithDiacriticsAndRelationships() throws {
        let folder = try TemporaryFolder()
        let url = try Self.stores[1].copy(into: folder)
        let context = try Self.open(url, model: RealWorldModels.recipesModel(), readOnly: true)
        func names(_ format: String) throws -> [String] {
            try Self.fetch(context, "Recipe", format, sort: [NSSortDescriptor(key: "name", ascending: true)])
                .compactMap { $0.value(forKey: "name") as? String }
        }
        #expect(try names("name BEGINSWITH[cd] 'crepes'") == ["Crèpes Suzette"])
        #expect(try names("name CONTAINS[cd] 'LIEGE'") == ["Gaufres de Liège"])
        #expect(try names("type.name ==[cd] 'entree'") == [])
        #expect(try Self.count(context, "RecipeType", "name ==[cd] 'entree'") == 1)
        #expect(try names("type.name == 'Snack'") == ["Gaufres de Liège", "Ginger snaps"])
        #expect(try names("ingredients.@count > 4") == ["Chocolate Cake", "Gaufres de Liège"])
        #expect(try names("ingredients.@count == 0") == ["Ginger snaps", "Three Berry Cobbler"])
        #expect(try names("ANY ingredients.name BEGINSWITH[c] 'sugar'").count <= 7)
        let crepes = try #require(try Self.fetch(context, "Recipe", "name == 'Crèpes Suzette'").first)
        #expect((crepes.value(forKey: "ingredients") as? Set<NSManagedObject>)?.count == 4)
        #expect((crepes.value(forKey: "type") as? NSManagedObject)?.value(forKey: "name") as? String == "Dessert")
    }

    /// SurfJournal: all 5,000 rows live in the `-wal` file.
    @Test func surfJournalReadsRowsFromTheWAL() throws {
        let folder = try TemporaryFolder()
        let store = try #require(Self.stores.first { $0.directory == "kodeco-surfjournal-wal" })
        let url = try store.copy(into: folder)
        #expect(try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int ?? 0 < 64 * 1024)
        let context = try Self.open(url, model: try store.model(), readOnly: true)
        #expect(try Self.count(context, "JournalEntry", "rating == 5") == 989)
        #expect(try Self.count(context, "JournalEntry", "location == 'C Street'") == 546)
        #expect(try Self.count(context, "JournalEntry", "rating >= 4 AND location BEGINSWITH 'T'") > 0)
        let request = NSFetchRequest<NSManagedObject>(entityName: "JournalEntry")
        request.sortDescriptors = [NSSortDescriptor(key: "date", ascending: false)]
        request.fetchLimit = 1
        let latest = try #require(try context.fetch(request).first?.value(forKey: "date") as? Date)
        #expect(abs(latest.timeIntervalSinceReferenceDate - 431_013_729.299382) < 0.001)
        request.sortDescriptors = [NSSortDescriptor(key: "date", ascending: true)]
        let earliest = try #require(try context.fetch(request).first?.value(forKey: "date") as? Date)
        #expect(abs(earliest.timeIntervalSinceReferenceDate - 115_801_388.7906) < 0.001)
    }

    /// CoreDataBooks: dates before 2001 are negative `TIMESTAMP`s.
    @Test func coreDataBooksSortsDatesBefore2001() throws {
        let folder = try TemporaryFolder()
        let url = try Self.stores[0].copy(into: folder)
        let context = try Self.open(url, model: RealWorldModels.coreDataBooksModel(), readOnly: true)
        let books = try Self.fetch(context, "Book", sort: [NSSortDescriptor(key: "copyright", ascending: true)])
        #expect(books.first?.value(forKey: "title") as? String == "Psmith in the City")
        #expect((books.first?.value(forKey: "copyright") as? Date)?.timeIntervalSinceReferenceDate == -2_848_789_424)
        #expect(try Self.count(context, "Book", "author == 'Terry Pratchett'") == 2)
        // Psmith in the City (1910) and The Inimitable Jeeves (1923).
        #expect(try Self.count(context, "Book", "copyright < %@", [Date(timeIntervalSince1970: 0)]) == 2)
    }

    /// RestKit's seed: Integer 64 status IDs beyond 2^53, a to-one with minCount 1.
    @Test func twitterSeedKeepsLargeIntegers() throws {
        let folder = try TemporaryFolder()
        let store = try #require(Self.stores.first { $0.directory == "restkit-twitter-seed" })
        let url = try store.copy(into: folder)
        let context = try Self.open(url, model: RealWorldModels.twitterModel(), readOnly: true)
        let tweets = try Self.fetch(
            context, "Tweet", "user.name == 'RestKit'", sort: [NSSortDescriptor(key: "createdAt", ascending: false)])
        #expect(tweets.count == 20)
        #expect((tweets.first?.value(forKey: "statusID") as? NSNumber)?.int64Value == 44_029_179_364_253_696)
        #expect(try Self.count(context, "Tweet", "statusID == %@", [NSNumber(value: 43_646_264_163_844_096 as Int64)]) == 1)
        #expect(try Self.count(context, "Tweet", "text CONTAINS 'RestKit'") == 16)
        #expect(try Self.count(context, "User", "status.@count == 0") == 1)
    }

    /// SampleModel v2: `LuxuryCar` was `ExpensiveSportCar`, and `Z_PRIMARYKEY` still says so.
    @Test func renamedEntityIsFoundUnderItsOldName() throws {
        let folder = try TemporaryFolder()
        let store = try #require(Self.stores.first { $0.directory == "coredataplus-samplemodel-v2" })
        let url = try store.copy(into: folder)
        let context = try Self.open(url, model: try store.model(), readOnly: true)
        #expect(try Self.count(context, "Car", subentities: true) == 125)
        #expect(try Self.count(context, "SportCar", subentities: true) == 10)
        #expect(try Self.fetch(context, "LuxuryCar").allSatisfy { $0.entity.name == "LuxuryCar" })
    }

    /// SampleModel2: inheritance in shared tables, a to-one into a hierarchy (`Z1_BOOK`), and
    /// the derived `pagesCount` kept by Apple's triggers, which call Apple-only SQL functions:
    /// moving a page to another book updates both counts in the file.
    /// SampleModel2 version 2: the renamed `frontCover` column, derived page counts, and a
    /// to-one into the Book hierarchy, as the `sqlite3` shell reads the file.
    @Test func sampleModel2Version2ReadsItsRenamedAndDerivedColumns() throws {
        let folder = try TemporaryFolder()
        let store = try #require(Self.stores.first { $0.file == "SampleModel2_V2.sqlite" })
        let context = try Self.open(try store.copy(into: folder), model: try store.model(), readOnly: true)
        let books = try Self.fetch(context, "Book", sort: [NSSortDescriptor(key: "title", ascending: true)])
        #expect(
            books.compactMap { $0.value(forKey: "title") as? String } == [
                "title 1 - author 1", "title 2 - author 1", "title graphic novel - author 1",
            ])
        #expect(books.map { ($0.value(forKey: "pagesCount") as? NSNumber)?.intValue } == [99, 1, 19])
        #expect(books.allSatisfy { ($0.value(forKey: "frontCover") as? Data)?.isEmpty == false })
        #expect(try Self.count(context, "Page", "book.author.alias == 'Alessandro' AND book.title BEGINSWITH 'title 1'") == 99)
        #expect(try Self.count(context, "Feedback", "comment CONTAINS[c] 'GREAT' AND rating > 4") == 2)
    }

    @Test func sampleModel2TriggersRunOnSave() throws {
        let folder = try TemporaryFolder()
        let store = try #require(Self.stores.first { $0.directory == "coredataplus-samplemodel2-history" })
        let url = try store.copy(into: folder)
        let context = try Self.open(url, model: RealWorldModels.sampleModel2V1(), readOnly: false)
        #expect(try Self.count(context, "Book", subentities: true) == 52)
        #expect(try Self.count(context, "Book", "author.alias == 'Andrea'", subentities: true) == 49)
        #expect(try Self.count(context, "Page", "book.title == 'title 2 - author 2' AND number > 50") == 49)
        let novel = try #require(try Self.fetch(context, "GraphicNovel").first)
        #expect(novel.value(forKey: "title") as? String == "title graphic novel - author 1")
        #expect((novel.value(forKey: "pagesCount") as? NSNumber)?.intValue == 19)
        #expect(try Self.count(context, "Page", "book == %@", [novel]) == 19)

        let book = try #require(try Self.fetch(context, "Book", "title == 'title 2 - author 2'").first)
        #expect((book.value(forKey: "pagesCount") as? NSNumber)?.intValue == 99)
        let moved = try #require(try Self.fetch(context, "Page", "book.title == 'title 2 - author 2'").first)
        moved.setValue(novel, forKey: "book")
        try context.save()

        let reopened = try Self.open(url, model: RealWorldModels.sampleModel2V1(), readOnly: true)
        let counts = try Self.fetch(reopened, "Book", "title IN {'title 2 - author 2', 'title graphic novel - author 1'}")
            .reduce(into: [String: Int]()) {
                $0[$1.value(forKey: "title") as? String ?? ""] = ($1.value(forKey: "pagesCount") as? NSNumber)?.intValue
            }
        #expect(counts == ["title 2 - author 2": 98, "title graphic novel - author 1": 20])
    }
}
