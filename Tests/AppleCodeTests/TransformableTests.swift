import CoreData
import Foundation
import TestSupport
import XCTest

/// A value type of the app, stored through a secure-coding transformer.
final class Swatch: NSObject, NSSecureCoding {
    static var supportsSecureCoding: Bool { true }
    let name: String
    let red: Double

    init(name: String, red: Double) {
        self.name = name
        self.red = red
    }

    func encode(with coder: NSCoder) {
        coder.encode(name, forKey: "name")
        coder.encode(red, forKey: "red")
    }

    required init?(coder: NSCoder) {
        guard let name = coder.decodeObject(of: NSString.self, forKey: "name") as String? else { return nil }
        self.name = name
        red = coder.decodeDouble(forKey: "red")
    }
}

/// The transformer an app registers for `Swatch` attributes, as Apple recommends.
final class SwatchTransformer: NSSecureUnarchiveFromDataTransformer {
    static let name = NSValueTransformerName(rawValue: "SwatchTransformer")
    override class var allowedTopLevelClasses: [AnyClass] { [Swatch.self] }
}

/// A transformer of the classic kind: `transformedValue` makes the stored `Data`.
final class ReversedTextTransformer: ValueTransformer {
    static let name = NSValueTransformerName("ReversedTextTransformer")
    nonisolated(unsafe) static var calls = 0
    override class func transformedValueClass() -> AnyClass { NSData.self }
    override class func allowsReverseTransformation() -> Bool { true }

    override func transformedValue(_ value: Any?) -> Any? {
        Self.calls += 1
        guard let text = value as? String else { return nil }
        return Data(String(text.reversed()).utf8)
    }

    override func reverseTransformedValue(_ value: Any?) -> Any? {
        guard let data = value as? Data else { return nil }
        return String(String(decoding: data, as: UTF8.self).reversed())
    }
}

/// Transformable attributes hold their values: archived through their transformer when saved,
/// unarchived when read, in the in-memory store and in SQLite stores.
final class TransformableTests: XCTestCase {
    override class func setUp() {
        super.setUp()
        ValueTransformer.setValueTransformer(SwatchTransformer(), forName: SwatchTransformer.name)
        ValueTransformer.setValueTransformer(ReversedTextTransformer(), forName: ReversedTextTransformer.name)
    }

    static let model: NSManagedObjectModel = {
        let palette = NSEntityDescription()
        palette.name = "Palette"
        palette.properties = [
            attribute("name", .stringAttributeType),
            attribute(
                "tags", .transformableAttributeType,
                transformer: NSValueTransformerName.secureUnarchiveFromDataTransformerName.rawValue),
            attribute("settings", .transformableAttributeType),
            attribute("swatch", .transformableAttributeType, transformer: SwatchTransformer.name.rawValue),
            attribute("motto", .transformableAttributeType, transformer: ReversedTextTransformer.name.rawValue),
        ]
        let model = NSManagedObjectModel()
        model.entities = [palette]
        return model
    }()

    func makeContainer(_ type: String, url: URL? = nil) throws -> NSPersistentContainer {
        let container = NSPersistentContainer(name: "Palettes", managedObjectModel: Self.model)
        let description = NSPersistentStoreDescription()
        description.type = type
        if let url { description.url = url }
        container.persistentStoreDescriptions = [description]
        var loadError: Error?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        return container
    }

    func insertPalette(into context: NSManagedObjectContext) throws {
        let palette = NSEntityDescription.insertNewObject(forEntityName: "Palette", into: context)
        palette.setValue("Autumn", forKey: "name")
        palette.setValue(["warm", "dry"], forKey: "tags")
        palette.setValue(["columns": 3, "title": "Leaves"] as [String: Any], forKey: "settings")
        palette.setValue(Swatch(name: "rust", red: 0.72), forKey: "swatch")
        palette.setValue("stressed", forKey: "motto")
        try context.save()
    }

    func assertPaletteReadsBack(in context: NSManagedObjectContext, file: StaticString = #filePath, line: UInt = #line)
        throws
    {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Palette")
        let palette = try XCTUnwrap(try context.fetch(request).first, file: file, line: line)
        XCTAssertEqual(palette.value(forKey: "tags") as? [String], ["warm", "dry"], file: file, line: line)
        let settings = try XCTUnwrap(palette.value(forKey: "settings") as? [String: Any], file: file, line: line)
        XCTAssertEqual(settings["columns"] as? Int, 3, file: file, line: line)
        XCTAssertEqual(settings["title"] as? String, "Leaves", file: file, line: line)
        let swatch = try XCTUnwrap(palette.value(forKey: "swatch") as? Swatch, file: file, line: line)
        XCTAssertEqual(swatch.name, "rust", file: file, line: line)
        XCTAssertEqual(swatch.red, 0.72, file: file, line: line)
        XCTAssertTrue(palette.value(forKey: "swatch") as AnyObject === swatch, "read once, then kept", file: file, line: line)
        XCTAssertEqual(palette.value(forKey: "motto") as? String, "stressed", file: file, line: line)
    }

    func testValuesRoundTripThroughTheInMemoryStore() throws {
        let container = try makeContainer(NSInMemoryStoreType)
        try insertPalette(into: container.viewContext)
        try assertPaletteReadsBack(in: container.newBackgroundContext())
    }

    func testValuesRoundTripThroughAnSQLiteFileAndAreStoredAsData() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("Palettes.sqlite")
        ReversedTextTransformer.calls = 0
        try insertPalette(into: try makeContainer(NSSQLiteStoreType, url: url).viewContext)
        XCTAssertEqual(ReversedTextTransformer.calls, 1, "the custom transformer makes the stored Data")
        // Another container reads the file: the values come from the stored archives.
        try assertPaletteReadsBack(in: try makeContainer(NSSQLiteStoreType, url: url).viewContext)
    }

    func testValuesRoundTripThroughADevNullSQLiteStore() throws {
        let container = try makeContainer(NSSQLiteStoreType, url: URL(fileURLWithPath: "/dev/null"))
        try insertPalette(into: container.viewContext)
        try assertPaletteReadsBack(in: container.newBackgroundContext())
    }

    func testAValueTheTransformerDoesNotAllowFailsTheSave() throws {
        let container = try makeContainer(NSInMemoryStoreType)
        let palette = NSEntityDescription.insertNewObject(forEntityName: "Palette", into: container.viewContext)
        palette.setValue(NSObject(), forKey: "swatch")
        XCTAssertThrowsError(try container.viewContext.save()) { error in
            XCTAssertEqual((error as NSError).code, NSManagedObjectValidationError)
        }
    }

    /// The same refusal as the 301st of 301 new objects, on every store: the stores make each
    /// inserted row from its object as they write it, so the refusal comes after the rows bound
    /// before it; nothing is written, the objects stay inserted, and once the value is mended
    /// the same save writes every row.
    func testAValueTheTransformerDoesNotAllowLastOfManyWritesNothing() throws {
        let stores = [NSInMemoryStoreType, NSSQLiteStoreType] + (PostgresTestServer.isEnabled ? [NSPostgreSQLStoreType] : [])
        for storeType in stores {
            var url: URL?
            switch storeType {
            case NSSQLiteStoreType:
                let folder = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
                url = folder.appendingPathComponent("Palettes.sqlite")
            case NSPostgreSQLStoreType:
                let fresh = try PostgresTestServer.freshStoreURL()
                addTeardownBlock { PostgresTestServer.destroy(fresh) }
                url = fresh
            default:
                url = nil
            }
            let container = try makeContainer(storeType, url: url)
            let context = container.viewContext
            for index in 0..<300 {
                let palette = NSEntityDescription.insertNewObject(forEntityName: "Palette", into: context)
                palette.setValue("Palette \(index)", forKey: "name")
                palette.setValue(Swatch(name: "rust", red: Double(index) / 300), forKey: "swatch")
            }
            let odd = NSEntityDescription.insertNewObject(forEntityName: "Palette", into: context)
            odd.setValue("Odd", forKey: "name")
            odd.setValue(NSObject(), forKey: "swatch")
            func storedCount() throws -> Int {
                let other = container.newBackgroundContext()
                return try other.performAndWait { try other.count(for: NSFetchRequest<NSFetchRequestResult>(entityName: "Palette")) }
            }

            XCTAssertThrowsError(try context.save(), storeType) { error in
                XCTAssertEqual((error as NSError).code, NSManagedObjectValidationError, storeType)
                XCTAssertTrue((error as NSError).localizedDescription.contains("swatch"), "\(storeType): \(error)")
            }
            XCTAssertEqual(try storedCount(), 0, storeType)
            XCTAssertEqual(context.insertedObjects.count, 301, storeType)
            XCTAssertTrue(odd.isInserted, storeType)

            odd.setValue(Swatch(name: "odd", red: 1), forKey: "swatch")
            try context.save()
            XCTAssertEqual(try storedCount(), 301, storeType)
            let request = NSFetchRequest<NSManagedObject>(entityName: "Palette")
            request.predicate = NSPredicate(format: "name == %@", "Odd")
            let reader = container.newBackgroundContext()
            let stored = try reader.performAndWait { try reader.fetch(request).first?.value(forKey: "swatch") as? Swatch }
            XCTAssertEqual(stored?.name, "odd", storeType)
        }
    }

    func testTheRegistryHasApplesTransformersAndOurs() throws {
        let names = ValueTransformer.valueTransformerNames()
        for name in [
            NSValueTransformerName.secureUnarchiveFromDataTransformerName, .keyedUnarchiveFromDataTransformerName,
            .unarchiveFromDataTransformerName, .isNilTransformerName, .isNotNilTransformerName,
            .negateBooleanTransformerName, SwatchTransformer.name,
        ] {
            XCTAssertTrue(names.contains(name), name.rawValue)
        }
        XCTAssertEqual(NSValueTransformerName.secureUnarchiveFromDataTransformerName.rawValue, "NSSecureUnarchiveFromData")
        XCTAssertTrue(ValueTransformer(forName: SwatchTransformer.name) is SwatchTransformer)
        XCTAssertNotNil(SwatchTransformer(forName: SwatchTransformer.name))
        XCTAssertNil(ValueTransformer(forName: NSValueTransformerName("NoSuchTransformer")))

        let negate = try XCTUnwrap(ValueTransformer(forName: .negateBooleanTransformerName))
        XCTAssertEqual(negate.transformedValue(true) as? Bool, false)
        XCTAssertEqual(negate.reverseTransformedValue(NSNumber(value: false)) as? Bool, true)
        let isNil = try XCTUnwrap(ValueTransformer(forName: .isNilTransformerName))
        XCTAssertEqual(isNil.transformedValue(nil) as? Bool, true)
        XCTAssertEqual(isNil.transformedValue("x") as? Bool, false)
        XCTAssertEqual(ValueTransformer(forName: .isNotNilTransformerName)?.transformedValue("x") as? Bool, true)

        let secure = NSSecureUnarchiveFromDataTransformer()
        let archive = try XCTUnwrap(secure.reverseTransformedValue(["a": [1, 2]]) as? Data)
        XCTAssertEqual((secure.transformedValue(archive) as? [String: [Int]])?["a"], [1, 2])
        // A Swatch is not among the classes the plain transformer allows.
        let swatchArchive = try XCTUnwrap(SwatchTransformer().reverseTransformedValue(Swatch(name: "x", red: 0)) as? Data)
        XCTAssertNil(secure.transformedValue(swatchArchive))
        XCTAssertEqual((SwatchTransformer().transformedValue(swatchArchive) as? Swatch)?.name, "x")
    }
}

/// CoreDataPlus's `Cover`, as its test suite archived it into the books of an SQLite store that
/// Apple's Core Data wrote (`shared/realworld/stores/coredataplus-samplemodel2-history`).
final class Cover: NSObject, NSSecureCoding {
    static var supportsSecureCoding: Bool { true }
    let text: String

    init(text: String) { self.text = text }

    func encode(with coder: NSCoder) { coder.encode(text, forKey: "text") }

    required init?(coder: NSCoder) {
        guard let text = coder.decodeObject(of: [NSString.self], forKey: "text") as? String else { return nil }
        self.text = text
    }
}

final class CoverTransformer: NSSecureUnarchiveFromDataTransformer {
    override class var allowedTopLevelClasses: [AnyClass] { [Cover.self] }
}

/// Values that Apple's `NSKeyedArchiver` wrote into an Apple-written store read back as values.
final class AppleWrittenTransformableTests: XCTestCase {
    /// CoreDataPlus's SampleModel2 (version 1), built in code as its source builds it, with the
    /// book's cover stored through `CoverTransformer`.
    static func sampleModel() -> NSManagedObjectModel {
        let writer = entity("Writer"), author = entity("Author"), book = entity("Book"), novel = entity("GraphicNovel")
        let page = entity("Page"), feedback = entity("Feedback")
        writer.isAbstract = true
        writer.properties = [attribute("age", .integer16AttributeType, optional: false)]
        let books = relationship("books", to: book, maxCount: .max)
        let bookAuthor = relationship("author", to: author, minCount: 1, maxCount: 1, optional: false)
        let pages = relationship("pages", to: page, minCount: 1, maxCount: 10_000, optional: false)
        let pageBook = relationship("book", to: book, minCount: 1, maxCount: 1, optional: false)
        inverses(books, bookAuthor)
        inverses(pages, pageBook)
        let feedbacks = NSFetchedPropertyDescription()
        feedbacks.name = "feedbacks"
        author.properties = [
            attribute("alias", .stringAttributeType, optional: false), attribute("siteURL", .URIAttributeType), feedbacks,
            books,
        ]
        author.uniquenessConstraints = [["alias"]]
        let pagesCount = NSDerivedAttributeDescription()
        pagesCount.name = "pagesCount"
        pagesCount.attributeType = .integer64AttributeType
        pagesCount.derivationExpression = NSExpression(format: "pages.@count")
        let cover = attribute("cover", .transformableAttributeType, optional: false, transformer: "CoverTransformer")
        book.properties = [
            attribute("uniqueID", .UUIDAttributeType, optional: false), attribute("title", .stringAttributeType, optional: false),
            attribute("price", .decimalAttributeType, optional: false), cover,
            attribute("publishedAt", .dateAttributeType, optional: false), pagesCount, bookAuthor, pages,
        ]
        book.uniquenessConstraints = [["uniqueID"]]
        novel.properties = [attribute("isBlackAndWhite", .booleanAttributeType, optional: false)]
        page.properties = [
            attribute("isBookmarked", .booleanAttributeType, optional: false),
            attribute("number", .integer32AttributeType, optional: false),
            attribute("content", .transformableAttributeType, optional: false), pageBook,
        ]
        feedback.properties = [
            attribute("authorAlias", .stringAttributeType, optional: false),
            attribute("bookID", .UUIDAttributeType, optional: false), attribute("comment", .stringAttributeType),
            attribute("rating", .doubleAttributeType, optional: false),
        ]
        writer.subentities = [author]
        book.subentities = [novel]
        let model = NSManagedObjectModel()
        model.entities = [writer, author, book, novel, page, feedback]
        return model
    }

    func testCoversArchivedByApplesKeyedArchiverReadBack() throws {
        guard RealWorld.hasStores else {
            throw XCTSkip("../shared/realworld is not beside the package: the Apple-written store test is skipped")
        }
        // A copy: the shared store is never opened in place.
        let temporary = try TemporaryFolder()
        let folder = try RealWorld.copyStore("coredataplus-samplemodel2-history", into: temporary.url)

        // The archives name the class as CoreDataPlus's test module spelled it.
        NSKeyedUnarchiver.setClass(Cover.self, forClassName: "CoreDataPlus_Tests.Cover")
        ValueTransformer.setValueTransformer(CoverTransformer(), forName: NSValueTransformerName("CoverTransformer"))
        let container = NSPersistentContainer(name: "SampleModel2", managedObjectModel: Self.sampleModel())
        let description = NSPersistentStoreDescription(url: folder.appendingPathComponent("SampleModel2_V1.sqlite"))
        container.persistentStoreDescriptions = [description]
        var loadError: Error?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }

        let request = NSFetchRequest<NSManagedObject>(entityName: "Book")
        request.includesSubentities = false
        let books = try container.viewContext.fetch(request)
        XCTAssertEqual(books.count, 51)
        let covers = books.compactMap { ($0.value(forKey: "cover") as? Cover)?.text }
        XCTAssertEqual(covers.count, 51)
        XCTAssertEqual(Set(covers), ["default cover"])
    }
}
