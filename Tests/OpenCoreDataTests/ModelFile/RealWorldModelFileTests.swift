import Foundation
import OpenCoreData
import TestSupport
import Testing

// These tests read the team's real-world model files from ../shared/realworld (beside the
// package). A fresh clone has no such folder: the tests are then skipped, with this reason.
private let sharedFolderReason: Comment = "needs ../shared/realworld beside the package (absent in a fresh clone)"

@Suite("Real-world model files", .enabled(if: RealWorld.isAvailable, sharedFolderReason))
struct RealWorldModelFileTests {
    @Test("Every file in shared/realworld loads with the facts read off its XML", arguments: ModelFileFacts.realWorldModels + ModelFileFacts.realWorldStores)
    func loads(_ facts: ModelFileFacts) throws {
        let url = try #require(RealWorld.url(facts.path))
        let model = try NSManagedObjectModel(validatingContentsOf: url)
        let summary = ModelSummary(model: model)
        #expect(summary.entities == facts.entities)
        #expect(summary.attributeCount == facts.attributeCount)
        #expect(summary.abstract == facts.abstract)
        #expect(summary.parents == facts.parents)
        #expect(summary.relationships == facts.relationships)
        #expect(summary.fetchedProperties == facts.fetchedProperties)
        #expect(summary.templates == facts.templates)
        #expect(summary.configurations == facts.configurations)
        #expect(summary.uniquenessConstraints == facts.uniquenessConstraints)
        #expect(summary.fetchIndexes == facts.fetchIndexes)
        #expect(summary.derivedAttributes == facts.derivedAttributes)
        #expect(summary.userInfo == facts.userInfo)
        #expect(model.versionIdentifiers == Set(facts.versionIdentifier.map { [AnyHashable($0)] } ?? []))
        #expect(NSManagedObjectModel(contentsOf: url) != nil)
    }

    @Test("The table covers every model file in the shared folder")
    func coversEveryFile() throws {
        let folder = try #require(RealWorld.folder)
        let manager = FileManager.default
        let models = try manager.contentsOfDirectory(atPath: folder.appendingPathComponent("models").path)
            .filter { $0.hasSuffix(".xml") }.map { "models/\($0)" }
        var stores: [String] = []
        for store in try manager.contentsOfDirectory(atPath: folder.appendingPathComponent("stores").path) {
            let storeFolder = folder.appendingPathComponent("stores/\(store)")
            let files = (try? manager.contentsOfDirectory(atPath: storeFolder.path)) ?? []
            stores += files.filter { $0.hasSuffix(".contents.xml") }.map { "stores/\(store)/\($0)" }
        }
        #expect(models.count == 24)
        #expect(Set(ModelFileFacts.realWorldModels.map(\.path)) == Set(models))
        #expect(Set(ModelFileFacts.realWorldStores.map(\.path)) == Set(stores))
    }

    @Test("SwiftGen's Model 2: default values, types, class names, transient and indexed flags")
    func swiftGenDetails() throws {
        let model = try NSManagedObjectModel(validatingContentsOf: try #require(RealWorld.url("models/SwiftGen--Model2.xml")))
        let main = try #require(model.entitiesByName["MainEntity"])
        let attributes = main.attributesByName
        #expect(main.managedObjectClassName == "CustomMainEntity")
        #expect(attributes["int16"]?.attributeType == .integer16AttributeType)
        #expect(attributes["int16"]?.defaultValue as? Int16 == 0)
        #expect(attributes["int32"]?.defaultValue as? Int32 == 0)
        #expect(attributes["int64"]?.defaultValue as? Int64 == 0)
        #expect(attributes["double"]?.defaultValue as? Double == 0)
        #expect(attributes["decimal"]?.defaultValue as? Decimal == 0)
        #expect(attributes["boolean"]?.defaultValue == nil)
        #expect(attributes["string"]?.isOptional == false)
        #expect(attributes["optionalString"]?.isOptional == true)
        #expect(attributes["transient"]?.isTransient == true)
        #expect(attributes["uri"]?.attributeType == .URIAttributeType)
        #expect(attributes["uuid"]?.attributeType == .UUIDAttributeType)
        #expect(attributes["attributedString"]?.attributeType == .transformableAttributeType)
        #expect(attributes["attributedString"]?.attributeValueClassName == "NSAttributedString")
        #expect(attributes["transformable"]?.attributeValueClassName == nil)
        let child = try #require(model.entitiesByName["ChildEntity"])
        #expect(child.managedObjectClassName == "SwiftGen.ChildEntity")
        #expect(child.superentity === main)
        #expect(child.attributesByName["int16"] != nil, "inherited from MainEntity")
        #expect(child.attributesByName["derivedCount"] is NSDerivedAttributeDescription)
        #expect(model.entitiesByName["AbstractEntity"]?.subentities.compactMap(\.name) == ["NewEntity"])
        #expect(model.entitiesByName["ImpossibleType"]?.managedObjectClassName == "Something.We.Cannot.Handle.ImpossibleType")
        let objects = try #require(model.fetchRequestTemplate(forName: "ObjectFetchRequest"))
        #expect(objects.entity === main)
        #expect(objects.resultType == .managedObjectResultType)
        #expect(objects.returnsDistinctResults)
        let dictionaries = try #require(model.fetchRequestTemplate(forName: "DictionaryFetchRequest"))
        #expect(dictionaries.resultType == .dictionaryResultType)
        #expect(dictionaries.predicate == nil)
        let filled = try #require(
            model.fetchRequestFromTemplate(withName: "ObjectIDFetchRequest", substitutionVariables: ["NAME": "a", "NEEDLE": "b"]))
        #expect(filled.resultType == .managedObjectIDResultType)
        #expect(filled.predicate?.description == #"oneToOne.name == "a" OR string == "b""#)
        let index = try #require(model.entitiesByName["NewEntity"]?.indexes.first)
        #expect(index.elements.first?.property === model.entitiesByName["NewEntity"]?.attributesByName["identifier"])
    }

    @Test("momcom's models: validation rules from min, max and regular expression")
    func momcomValidation() throws {
        let model = try NSManagedObjectModel(validatingContentsOf: try #require(RealWorld.url("models/momcom--momcTests.xml")))
        let entity = try #require(model.entitiesByName["Entity"])
        func rules(_ name: String) -> [String] {
            guard let attribute = entity.attributesByName[name] else { return ["missing"] }
            return zip(attribute.validationPredicates, attribute.validationWarnings).map { "\($0.0.description) \($0.1)" }
        }
        // int16Attribute: minValueString="-3" maxValueString="9"
        #expect(rules("int16Attribute") == ["SELF >= -3 \(NSValidationNumberTooSmallError)", "SELF <= 9 \(NSValidationNumberTooLargeError)"])
        // decimalAttribute: minValueString="-4.5" maxValueString="4.5"
        #expect(rules("decimalAttribute") == ["SELF >= -4.5 1620", "SELF <= 4.5 1610"])
        #expect(rules("stringAttribute") == [])
        // dateAttribute: minDateTimeInterval="284000400" maxDateTimeInterval="602395200"
        let dates = try #require(entity.attributesByName["dateAttribute"])
        #expect(dates.validationWarnings.map { "\($0)" } == ["1640", "1630"])
        #expect(dates.defaultValue as? Date == Date(timeIntervalSinceReferenceDate: 388_411_200))
        #expect(dates.validationPredicates.first?.evaluate(with: Date(timeIntervalSinceReferenceDate: 284_000_400)) == true)
        #expect(dates.validationPredicates.first?.evaluate(with: Date(timeIntervalSinceReferenceDate: 284_000_399)) == false)
        #expect(entity.attributesByName["booleanAttribute"]?.validationPredicates.isEmpty == true)
    }

    @Test("Core Data Editor's ValidationTest.email: length limits and a regular expression")
    func stringValidation() throws {
        let url = try #require(RealWorld.url("models/Core-Data-Editor--iOS_Example.xml"))
        let model = try NSManagedObjectModel(validatingContentsOf: url)
        // <attribute name="email" attributeType="String" minValueString="3" maxValueString="1000"
        //  regularExpressionString="\A[^@]+@([^@\.]+\.)+[^@\.]+\z"/>
        let email = try #require(model.entitiesByName["ValidationTest"]?.attributesByName["email"])
        #expect(email.isOptional == false)
        #expect(email.validationPredicates.count == 3)
        #expect(email.validationWarnings.map { "\($0)" } == ["1670", "1660", "1680"])
        #expect(email.validationPredicates.prefix(2).map(\.description) == ["length >= 3", "length <= 1000"])
        let pattern = try #require(email.validationPredicates.last)
        #expect(pattern.evaluate(with: "ann@example.com"))
        #expect(!pattern.evaluate(with: "ann at example"))
    }
}
