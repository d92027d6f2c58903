import Foundation
import TestSupport
import Testing

@testable import OpenCoreData

/// Compiled models (`.mom`, `.momd`) and Xcode 3 `elements` files from `../shared/realworld/stores`,
/// each checked against the `contents` XML of the same model and against the version hashes
/// Apple's Core Data wrote into the store made with it. Skipped when that folder is absent.
@Suite(
    "Model files: compiled models and Xcode 3 elements files",
    .enabled(if: RealWorld.isAvailable, "../shared/realworld is not beside the package: compiled model tests skipped"))
struct CompiledModelTests {
    static func stores(_ path: String) throws -> URL {
        try #require(RealWorld.url("stores/" + path))
    }

    /// The `NSStoreModelVersionHashes` of a store, as hex strings.
    static func storeHashes(_ path: String) throws -> [String: String] {
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(
            ofType: NSSQLiteStoreType, at: try stores(path))
        let hashes = try #require(metadata[NSStoreModelVersionHashesKey] as? [String: Any])
        return hashes.compactMapValues { ($0 as? Data).map(hex) }
    }

    static func hex(_ data: Data) -> String { data.map { String(format: "%02x", $0) }.joined() }

    static func hashes(_ model: NSManagedObjectModel) -> [String: String] {
        model.entityVersionHashesByName.mapValues(hex)
    }

    /// Everything the task asks to be the same, per entity and property, as comparable text.
    static func summary(_ model: NSManagedObjectModel) -> [String] {
        var lines: [String] = []
        for entity in model.entities.sorted(by: { ($0.name ?? "") < ($1.name ?? "") }) {
            let name = entity.name ?? "?"
            lines.append(
                "\(name) parent=\(entity.superentity?.name ?? "-") abstract=\(entity.isAbstract) "
                    + "class=\(entity.managedObjectClassName ?? "-") renaming=\(entity.renamingIdentifier ?? "-") "
                    + "unique=\(entity.uniquenessConstraints.map { $0.map { "\($0)" }.joined(separator: "+") }) "
                    + "indexes=\(entity.indexes.map { "\($0.name):\($0.elements.map { "\($0.propertyName ?? "?")/\($0.collationType.rawValue)/\($0.isAscending)" })" })"
            )
            for property in entity.properties.sorted(by: { $0.name < $1.name }) {
                var line = "  \(name).\(property.name) optional=\(property.isOptional) transient=\(property.isTransient)"
                line += " indexed=\(property.isIndexed) renaming=\(property.renamingIdentifier ?? "-")"
                if let attribute = property as? NSAttributeDescription {
                    line +=
                        " attribute type=\(attribute.attributeType.rawValue) default=\(attribute.defaultValue.map { "\($0)" } ?? "-")"
                    // momc does not keep a transformable attribute's custom class name (SampleModel.mom's
                    // `color`, customClassName="Color" in the XML, has a null NSAttributeValueClassName).
                    let className =
                        attribute.attributeType == .transformableAttributeType ? "-" : attribute.attributeValueClassName
                    line += " class=\(className ?? "-") transformer=\(attribute.valueTransformerName ?? "-")"
                    line += " external=\(attribute.allowsExternalBinaryDataStorage)"
                    line += " preserved=\(attribute.preservesValueInHistoryOnDeletion)"
                    line += " validation=\(attribute.validationPredicates.map(\.predicateFormat))"
                } else if let relationship = property as? NSRelationshipDescription {
                    line += " relationship to=\(relationship.destinationEntity?.name ?? "-")"
                    line += " inverse=\(relationship.inverseRelationship?.name ?? "-")"
                    line += " min=\(relationship.minCount) max=\(relationship.maxCount) toMany=\(relationship.isToMany)"
                    line += " ordered=\(relationship.isOrdered) delete=\(relationship.deleteRule.rawValue)"
                } else {
                    line += " fetched"
                }
                lines.append(line)
            }
        }
        return lines
    }

    // MARK: - .mom

    @Test(
        "A compiled .mom gives the model of its XML and the version hashes of its store",
        arguments: [
            (
                "coredataplus-samplemodel-v1/SampleModel.mom", "coredataplus-samplemodel-v1/SampleModel.xcdatamodel.contents.xml",
                "coredataplus-samplemodel-v1/SampleModel_V1.sqlite"
            ),
            (
                "coredataplus-samplemodel-v2/SampleModel2.mom",
                "coredataplus-samplemodel-v2/SampleModel2.xcdatamodel.contents.xml",
                "coredataplus-samplemodel-v2/SampleModel_V2.sqlite"
            ),
        ])
    func momMatchesXMLAndStore(mom: String, xml: String, store: String) throws {
        let compiled = try NSManagedObjectModel(validatingContentsOf: try Self.stores(mom))
        let source = try NSManagedObjectModel(validatingContentsOf: try Self.stores(xml))
        #expect(compiled.entities.count == 4)
        let compiledSummary = Self.summary(compiled)
        let sourceSummary = Self.summary(source)
        #expect(compiledSummary == sourceSummary)
        for (a, b) in zip(compiledSummary, sourceSummary) where a != b { Issue.record("mom: \(a)\nxml: \(b)") }
        #expect(Self.hashes(compiled) == Self.hashes(source))
        #expect(Self.hashes(compiled) == (try Self.storeHashes(store)))
        #expect(compiled.versionIdentifiers == source.versionIdentifiers)
        #expect(compiled.sourceFileURL?.lastPathComponent == (mom as NSString).lastPathComponent)
    }

    @Test("SampleModel.mom's details: inheritance, relationships, constraints, transient defaults, preserved UUID")
    func sampleModelDetails() throws {
        let model = try NSManagedObjectModel(validatingContentsOf: try Self.stores("coredataplus-samplemodel-v1/SampleModel.mom"))
        let car = try #require(model.entitiesByName["Car"])
        let person = try #require(model.entitiesByName["Person"])
        let sport = try #require(model.entitiesByName["SportCar"])
        #expect(sport.superentity === car)
        #expect(model.entitiesByName["ExpensiveSportCar"]?.superentity === sport)
        let owner = try #require(car.relationshipsByName["owner"])
        #expect(owner.destinationEntity === person)
        #expect(owner.inverseRelationship === person.relationshipsByName["cars"])
        #expect(!owner.isToMany && owner.deleteRule == .nullifyDeleteRule)
        #expect(person.relationshipsByName["cars"]?.isToMany == true)
        #expect(car.uniquenessConstraints.map { $0.map { "\($0)" } } == [["numberPlate"]])
        let speed = try #require(car.attributesByName["currentDrivingSpeed"])
        #expect(speed.isTransient && speed.attributeType == .integer64AttributeType)
        #expect((speed.defaultValue as? NSNumber)?.intValue == 0)
        #expect(car.attributesByName["numberPlate"]?.isOptional == false)
        #expect(car.attributesByName["color"]?.valueTransformerName == "ColorTransformer")
        #expect(person.attributesByName["id"]?.preservesValueInHistoryOnDeletion == true)
        #expect(model.versionIdentifiers == ["1"])
    }

    @Test("SampleModel2.mom keeps its fetch index and LuxuryCar's renaming identifier")
    func sampleModel2Details() throws {
        let model = try NSManagedObjectModel(
            validatingContentsOf: try Self.stores("coredataplus-samplemodel-v2/SampleModel2.mom"))
        let car = try #require(model.entitiesByName["Car"])
        #expect(car.indexes.map(\.name) == ["byMakerAndNumberPlate"])
        #expect(car.indexes.first?.elements.compactMap(\.propertyName) == ["maker", "numberPlate"])
        #expect(model.entitiesByName["LuxuryCar"]?.renamingIdentifier == "ExpensiveSportCar")
        #expect(model.entitiesByName["Person"]?.renamingIdentifier == nil)
    }

    // MARK: - .momd

    /// A `.momd` folder made of the two real `.mom` files, with an optional `VersionInfo.plist`.
    static func momd(in folder: TemporaryFolder, currentVersion: String?) throws -> URL {
        let momd = folder.url.appendingPathComponent("SampleModel.momd")
        try FileManager.default.createDirectory(at: momd, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: try stores("coredataplus-samplemodel-v1/SampleModel.mom"), to: momd.appendingPathComponent("SampleModel.mom"))
        try FileManager.default.copyItem(
            at: try stores("coredataplus-samplemodel-v2/SampleModel2.mom"), to: momd.appendingPathComponent("SampleModel 2.mom"))
        if let currentVersion {
            let info: [String: Any] = [
                "NSManagedObjectModel_CurrentVersionName": currentVersion,
                "NSManagedObjectModel_VersionHashes": [String: Any](),
            ]
            let data = try PropertyListSerialization.data(fromPropertyList: info, format: .xml, options: 0)
            try data.write(to: momd.appendingPathComponent("VersionInfo.plist"))
        }
        return momd
    }

    @Test("A .momd loads the version its VersionInfo.plist names")
    func momdCurrentVersion() throws {
        let folder = try TemporaryFolder()
        let momd = try Self.momd(in: folder, currentVersion: "SampleModel")
        let model = try NSManagedObjectModel(validatingContentsOf: momd)
        #expect(Self.hashes(model) == (try Self.storeHashes("coredataplus-samplemodel-v1/SampleModel_V1.sqlite")))
        #expect(model.versionIdentifiers == ["1"])
    }

    @Test("A .momd without VersionInfo.plist loads its last version in numeric order; an .omo loads its .mom")
    func momdWithoutVersionInfo() throws {
        let folder = try TemporaryFolder()
        let momd = try Self.momd(in: folder, currentVersion: nil)
        let model = try NSManagedObjectModel(validatingContentsOf: momd)
        #expect(model.versionIdentifiers == ["2"])
        #expect(Self.hashes(model) == (try Self.storeHashes("coredataplus-samplemodel-v2/SampleModel_V2.sqlite")))
        try Data("not read".utf8).write(to: momd.appendingPathComponent("SampleModel.omo"))
        let viaOptimized = try NSManagedObjectModel(validatingContentsOf: momd.appendingPathComponent("SampleModel.omo"))
        #expect(viaOptimized.versionIdentifiers == ["1"])
    }

    @Test("A .momd whose VersionInfo.plist names a missing version is refused")
    func momdMissingVersion() throws {
        let folder = try TemporaryFolder()
        let momd = try Self.momd(in: folder, currentVersion: "SampleModel 9")
        #expect(NSManagedObjectModel(contentsOf: momd) == nil)
        #expect {
            try NSManagedObjectModel(validatingContentsOf: momd)
        } throws: { error in
            (error as NSError).code == NSFileReadNoSuchFileError && error.localizedDescription.contains("SampleModel 9")
        }
    }

    @Test("mergedModel(from:) and NSPersistentContainer find a .momd in a bundle")
    func momdInBundle() throws {
        let folder = try TemporaryFolder()
        _ = try Self.momd(in: folder, currentVersion: "SampleModel 2")
        let bundle = try #require(Bundle(url: folder.url))
        let merged = try #require(NSManagedObjectModel.mergedModel(from: [bundle]))
        #expect(Self.hashes(merged) == (try Self.storeHashes("coredataplus-samplemodel-v2/SampleModel_V2.sqlite")))
    }

    // MARK: - Xcode 3 elements files

    /// An `.xcdatamodel` folder holding only an `elements` file copied from `path`.
    static func elementsModel(_ path: String, in folder: TemporaryFolder) throws -> URL {
        let model = folder.url.appendingPathComponent("Model.xcdatamodel")
        try FileManager.default.createDirectory(at: model, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: try stores(path), to: model.appendingPathComponent("elements"))
        return model
    }

    @Test(
        "An Xcode 3 .xcdatamodel with only an elements file loads, with the version hashes of its store",
        arguments: [
            ("apple-recipes-2010/Recipes.xcdatamodel.elements.bplist", "apple-recipes-2010/Recipes.sqlite"),
            ("restkit-twitter-seed/RKTwitterCoreData.xcdatamodel.elements.bplist", "restkit-twitter-seed/RKSeedDatabase.sqlite"),
        ])
    func elementsMatchStore(elements: String, store: String) throws {
        let folder = try TemporaryFolder()
        let model = try NSManagedObjectModel(validatingContentsOf: try Self.elementsModel(elements, in: folder))
        let stored = try Self.storeHashes(store)
        #expect(!model.entities.isEmpty)
        #expect(Self.hashes(model) == stored)
    }

    /// The committer of CoreDataBooks.sqlite added a `contents` attribute to the model and the
    /// column `ZCONTENTS` to the store by hand: the store's hash is the one Apple wrote for the
    /// model before that attribute, so Book matches exactly when `contents` is left out.
    @Test("CoreDataBooks' elements file matches its store's hash once the hand-added 'contents' attribute is left out")
    func coreDataBooksElements() throws {
        let folder = try TemporaryFolder()
        let model = try NSManagedObjectModel(
            validatingContentsOf: try Self.elementsModel(
                "apple-coredatabooks-modified/CoreDataBooks.xcdatamodel.elements.bplist", in: folder))
        let book = try #require(model.entitiesByName["Book"])
        #expect(book.properties.map(\.name).sorted() == ["author", "contents", "copyright", "title"])
        #expect(book.attributesByName["author"]?.defaultValue as? String == "Author")
        #expect(book.attributesByName["author"]?.validationPredicates.map(\.predicateFormat) == ["length >= 1"])
        let stored = try Self.storeHashes("apple-coredatabooks-modified/CoreDataBooks.sqlite")
        #expect(Self.hashes(model)["Book"] != stored["Book"])
        book.properties = book.properties.filter { $0.name != "contents" }
        #expect(Self.hashes(model) == stored)
    }

    @Test("The rules of CoreDataBooks' Xcode 3 model hold when its Apple-written store is saved")
    func coreDataBooksRulesHoldAtSave() throws {
        let folder = try TemporaryFolder()
        let model = try NSManagedObjectModel(
            validatingContentsOf: try Self.elementsModel(
                "apple-coredatabooks-modified/CoreDataBooks.xcdatamodel.elements.bplist", in: folder))
        let book = try #require(model.entitiesByName["Book"])
        book.properties = book.properties.filter { $0.name != "contents" }  // added by hand after the store
        let url = folder.url.appendingPathComponent("CoreDataBooks.sqlite")
        try FileManager.default.copyItem(at: try Self.stores("apple-coredatabooks-modified/CoreDataBooks.sqlite"), to: url)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        _ = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let count = try context.count(for: NSFetchRequest<NSFetchRequestResult>(entityName: "Book"))
            // `author` must be at least 1 character long (the model's minimum length).
            let new = NSManagedObject(entity: book, insertInto: context)
            new.setValue("", forKey: "author")
            new.setValue("Untitled", forKey: "title")
            #expect {
                try context.save()
            } throws: { error in
                let error = error as NSError
                return error.code == NSValidationStringTooShortError
                    && error.userInfo[NSValidationKeyErrorKey] as? String == "author"
            }
            new.setValue("Anon", forKey: "author")
            try context.save()
            #expect(try context.count(for: NSFetchRequest<NSFetchRequestResult>(entityName: "Book")) == count + 1)
        }
    }

    @Test("Recipes' elements file gives the 2010 model: required to-one relationships with minCount 1")
    func recipesElementsDetails() throws {
        let folder = try TemporaryFolder()
        let model = try NSManagedObjectModel(
            validatingContentsOf: try Self.elementsModel("apple-recipes-2010/Recipes.xcdatamodel.elements.bplist", in: folder))
        #expect(model.entities.compactMap(\.name) == ["Image", "Ingredient", "Recipe", "RecipeType"])
        let recipe = try #require(model.entitiesByName["Recipe"])
        let ingredients = try #require(recipe.relationshipsByName["ingredients"])
        #expect(ingredients.isToMany && ingredients.deleteRule == .cascadeDeleteRule)
        #expect(ingredients.inverseRelationship === model.entitiesByName["Ingredient"]?.relationshipsByName["recipe"])
        let image = try #require(recipe.relationshipsByName["image"])
        #expect(!image.isToMany && image.minCount == 1)
    }

    @Test("RKTwitter's elements file keeps entity class names and user info")
    func twitterElementsDetails() throws {
        let folder = try TemporaryFolder()
        let model = try NSManagedObjectModel(
            validatingContentsOf: try Self.elementsModel(
                "restkit-twitter-seed/RKTwitterCoreData.xcdatamodel.elements.bplist", in: folder))
        let tweet = try #require(model.entitiesByName["Tweet"])
        #expect(tweet.managedObjectClassName == "RKTweet")
        #expect(tweet.userInfo?.isEmpty == false)
        #expect(tweet.relationshipsByName["user"]?.destinationEntity === model.entitiesByName["User"])
    }
}
