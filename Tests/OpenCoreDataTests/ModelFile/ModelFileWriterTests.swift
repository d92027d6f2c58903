import Foundation
import TestSupport
import Testing

import OpenCoreData

/// `NSManagedObjectModel.writeXcodeModel(to:)`: a model built in code, written as Xcode's
/// `contents` file and read back, is the same model as far as a store and an app can tell.
@Suite struct ModelFileWriterTests {
    private func attribute(
        _ name: String, _ type: NSAttributeType, optional: Bool = true, default value: Any? = nil
    ) -> NSAttributeDescription {
        let attribute = NSAttributeDescription()
        attribute.name = name
        attribute.attributeType = type
        attribute.isOptional = optional
        attribute.defaultValue = value
        return attribute
    }

    /// Author and Book (abstract) with its sub-entity Novel: every attribute type with a default,
    /// the flags that enter version hashes, a derived attribute, ordered and counted
    /// relationships, constraints, user info, a fetched property, templates, configurations.
    private func makeModel() -> NSManagedObjectModel {
        let author = NSEntityDescription()
        author.name = "Author"
        author.managedObjectClassName = "Author"
        author.versionHashModifier = "v2"
        author.renamingIdentifier = "Writer"
        author.userInfo = ["note": "quotes \" and <angles> & ampersands"]
        let book = NSEntityDescription()
        book.name = "Book"
        book.isAbstract = true
        let novel = NSEntityDescription()
        novel.name = "Novel"
        book.subentities = [novel]

        let name = attribute("name", .stringAttributeType, optional: false, default: "Anonymous \"A\" <x>")
        name.versionHashModifier = "name2"
        let born = attribute("born", .dateAttributeType, default: Date(timeIntervalSinceReferenceDate: -5_000_000.5))
        let photo = attribute("photo", .binaryDataAttributeType)
        photo.allowsExternalBinaryDataStorage = true
        let id = attribute("id", .UUIDAttributeType, default: UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        let site = attribute("site", .URIAttributeType, default: URL(string: "https://example.com/a?b=c&d"))
        let scratch = attribute("scratch", .stringAttributeType)
        scratch.isTransient = true
        let bookCount = NSDerivedAttributeDescription()
        bookCount.name = "bookCount"
        bookCount.attributeType = .integer64AttributeType
        bookCount.derivationExpression = NSExpression(format: "books.@count")
        let books = NSRelationshipDescription()
        books.name = "books"
        books.destinationEntity = book
        books.maxCount = 0
        books.isOrdered = true
        books.deleteRule = .cascadeDeleteRule
        let writer = NSRelationshipDescription()
        writer.name = "author"
        writer.destinationEntity = author
        writer.maxCount = 1
        writer.minCount = 1
        writer.isOptional = false
        writer.deleteRule = .denyDeleteRule
        books.inverseRelationship = writer
        writer.inverseRelationship = books
        author.properties = [name, born, photo, id, site, scratch, bookCount, books]
        author.uniquenessConstraints = [["name"], ["id", "site"]]

        let title = attribute("title", .stringAttributeType, optional: false)
        let pages = attribute("pages", .integer16AttributeType, default: 100)
        let sold = attribute("sold", .integer64AttributeType, default: 9_000_000_000)
        let price = attribute("price", .decimalAttributeType, default: NSDecimalNumber(string: "12.75"))
        let rating = attribute("rating", .doubleAttributeType, default: 0.1)
        let ratio = attribute("ratio", .floatAttributeType, default: 1.5)
        let inPrint = attribute("inPrint", .booleanAttributeType, default: true)
        let tags = attribute("tags", .transformableAttributeType)
        tags.valueTransformerName = "NSSecureUnarchiveFromData"
        let history = attribute("history", .stringAttributeType)
        history.preservesValueInHistoryOnDeletion = true
        let long = NSFetchedPropertyDescription()
        long.name = "longer"
        let longRequest = NSFetchRequest<NSFetchRequestResult>(entityName: "Book")
        longRequest.predicate = NSPredicate(format: "pages > $FETCH_SOURCE.pages AND title != 'a<b'")
        long.fetchRequest = longRequest
        book.properties = [title, pages, sold, price, rating, ratio, inPrint, tags, history, writer, long]
        novel.properties = [attribute("genre", .stringAttributeType, default: "")]

        let model = NSManagedObjectModel()
        model.entities = [author, book, novel]
        model.versionIdentifiers = ["2.1"]
        let cheaper = NSFetchRequest<NSFetchRequestResult>(entityName: "Book")
        cheaper.predicate = NSPredicate(format: "price < $MAX AND title BEGINSWITH[cd] \"The\"")
        model.setFetchRequestTemplate(cheaper, forName: "Cheaper")
        model.setEntities([author], forConfigurationName: "People")
        model.setEntities([book, novel], forConfigurationName: "Works")
        return model
    }

    @Test func aModelReadsBackWithTheSameHashesAndValues() throws {
        let folder = try TemporaryFolder()
        let model = makeModel()
        let url = folder.url.appendingPathComponent("Library.xcdatamodel")
        try model.writeXcodeModel(to: url)
        let read = try NSManagedObjectModel(validatingContentsOf: url)

        #expect(read.entityVersionHashesByName == model.entityVersionHashesByName)
        #expect(read.entityVersionHashesByName.count == 3)
        #expect(read.versionIdentifiers == model.versionIdentifiers)
        for entity in model.entities {
            let twin = try #require(read.entitiesByName[entity.name ?? ""])
            #expect(twin.isAbstract == entity.isAbstract)
            #expect(twin.superentity?.name == entity.superentity?.name)
            #expect(twin.renamingIdentifier == entity.renamingIdentifier)
            #expect(twin.managedObjectClassName == entity.managedObjectClassName)
            #expect(twin.properties.map(\.name) == entity.properties.map(\.name))
            for (key, attribute) in entity.attributesByName {
                let other = try #require(twin.attributesByName[key])
                #expect(other.attributeType == attribute.attributeType, "\(key)")
                #expect(other.isTransient == attribute.isTransient, "\(key)")
                #expect((other.defaultValue as? NSObject) == (attribute.defaultValue as? NSObject), "\(key)")
                #expect(other.valueTransformerName == attribute.valueTransformerName, "\(key)")
                #expect(other is NSDerivedAttributeDescription == attribute is NSDerivedAttributeDescription, "\(key)")
            }
            for (key, relationship) in entity.relationshipsByName {
                let other = try #require(twin.relationshipsByName[key])
                #expect(other.deleteRule == relationship.deleteRule, "\(key)")
                #expect(other.isOrdered == relationship.isOrdered, "\(key)")
                #expect(other.inverseRelationship?.name == relationship.inverseRelationship?.name, "\(key)")
            }
        }
        let author = try #require(read.entitiesByName["Author"])
        #expect(author.userInfo?["note"] as? String == "quotes \" and <angles> & ampersands")
        #expect(author.uniquenessConstraints.map { $0.compactMap { $0 as? String } } == [["name"], ["id", "site"]])
        let longer = try #require(read.entitiesByName["Book"]?.propertiesByName["longer"] as? NSFetchedPropertyDescription)
        #expect(
            longer.fetchRequest?.predicate
                == model.entitiesByName["Book"].flatMap { entity in
                    (entity.propertiesByName["longer"] as? NSFetchedPropertyDescription)?.fetchRequest?.predicate
                })
        #expect(
            read.fetchRequestTemplate(forName: "Cheaper")?.predicate == model.fetchRequestTemplate(forName: "Cheaper")?.predicate)
        #expect(read.entities(forConfigurationName: "People")?.compactMap(\.name) == ["Author"])
        #expect(read.entities(forConfigurationName: "Works")?.compactMap(\.name).sorted() == ["Book", "Novel"])
    }

    /// Writing again replaces the file; a plain file in the way is an error naming it.
    @Test func writingReplacesAndRefusesAFileInTheWay() throws {
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("Twice.xcdatamodel")
        try makeModel().writeXcodeModel(to: url)
        let other = NSManagedObjectModel()
        let only = NSEntityDescription()
        only.name = "Only"
        other.entities = [only]
        try other.writeXcodeModel(to: url)
        #expect(try NSManagedObjectModel(validatingContentsOf: url).entities.compactMap(\.name) == ["Only"])

        let file = folder.url.appendingPathComponent("file.xcdatamodel")
        try Data("x".utf8).write(to: file)
        let error = #expect(throws: NSError.self) { try other.writeXcodeModel(to: file) }
        #expect(error?.code == NSFileWriteUnknownError)
        #expect(error?.localizedDescription.contains(file.path) == true)
    }
}
