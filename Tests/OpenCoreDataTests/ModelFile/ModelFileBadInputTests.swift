import Foundation
import OpenCoreData
import TestSupport
import Testing

/// Bad model files: each throws an NSError in NSCocoaErrorDomain naming the file and the line,
/// and the failable initializer returns nil (checked by `loadError`).
@Suite("Model files: bad input")
struct ModelFileBadInputTests {
    /// Error at `line` (the `<model>` tag is line 2, so the first body line is line 3).
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var body: String
        var line: Int
        var message: String

        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "malformed XML: a tag left open",
            body: """
                <entity name="A">
                    <attribute name="x" attributeType="String">
                </entity>
                """,
            line: 5, message: "malformed XML: opening and ending tag mismatch"),
        Case(
            name: "malformed XML: an attribute without quotes",
            body: """
                <entity name="A">
                    <attribute name=x attributeType="String"/>
                </entity>
                """,
            line: 4, message: "malformed XML: attribute value without quotes"),
        Case(
            name: "unknown attribute type",
            body: """
                <entity name="A">
                    <attribute name="x" attributeType="Integer 8"/>
                </entity>
                """,
            line: 4, message: "unknown attributeType 'Integer 8' of attribute 'x'"),
        Case(
            name: "unknown parent entity",
            body: """
                <entity name="A"/>
                <entity name="B" parentEntity="Nope"/>
                """,
            line: 4, message: "entity 'B' has parentEntity 'Nope', which the model does not have"),
        Case(
            name: "an entity that inherits from itself",
            body: """
                <entity name="A" parentEntity="B"/>
                <entity name="B" parentEntity="A"/>
                """,
            line: 3, message: "entity 'A' inherits from itself"),
        Case(
            name: "a parentEntity chain that loops",
            body: """
                <entity name="A" parentEntity="B"/>
                <entity name="B" parentEntity="C"/>
                <entity name="C" parentEntity="B"/>
                """,
            line: 3, message: "the parentEntity chain of entity 'A' loops"),
        Case(
            name: "a fetched property without its fetch request",
            body: """
                <entity name="A">
                    <fetchedProperty name="f" optional="YES"/>
                </entity>
                """,
            line: 4, message: "fetchedProperty 'f' needs exactly one <fetchRequest>, not 0"),
        Case(
            name: "two templates with one name",
            body: """
                <entity name="A"/>
                <fetchRequest name="t" entity="A"/>
                <fetchRequest name="t" entity="A" fetchLimit="-1"/>
                """,
            line: 5, message: "a second fetch request template named 't'"),
        Case(
            name: "a fetch limit that is not a whole number",
            body: """
                <entity name="A"/>
                <fetchRequest name="t" entity="A" fetchLimit="many"/>
                """,
            line: 4, message: "fetchLimit=\"many\" of <fetchRequest> is not a whole number"),
        Case(
            name: "unknown destination entity",
            body: """
                <entity name="A">
                    <relationship name="r" maxCount="1" deletionRule="Nullify" destinationEntity="Nope"/>
                </entity>
                """,
            line: 4, message: "destinationEntity 'Nope' of relationship 'r' is not an entity of the model"),
        Case(
            name: "unknown inverse",
            body: """
                <entity name="A">
                    <relationship name="r" maxCount="1" destinationEntity="B" inverseName="back" inverseEntity="B"/>
                </entity>
                <entity name="B"/>
                """,
            line: 4, message: "inverse 'back' of relationship 'r' is not a relationship of entity 'B'"),
        Case(
            name: "a template's predicate that does not parse",
            body: """
                <entity name="A"/>
                <fetchRequest name="broken" entity="A" predicateString="name == == 3"/>
                """,
            line: 4, message: "predicateString of fetchRequest 'broken' does not parse: Unable to parse the format string"),
        Case(
            name: "a fetched property's predicate that does not parse",
            body: """
                <entity name="A">
                    <fetchedProperty name="f" optional="YES">
                        <fetchRequest name="fetchedPropertyFetchRequest" entity="A" predicateString="a IN ("/>
                    </fetchedProperty>
                </entity>
                """,
            line: 5, message: "predicateString of fetchRequest 'fetchedPropertyFetchRequest' does not parse"),
        Case(
            name: "a derivation expression that does not parse",
            body: """
                <entity name="A">
                    <attribute name="d" attributeType="Integer 64" derived="YES" derivationExpression="items.@count +"/>
                </entity>
                """,
            line: 4, message: "derivationExpression of attribute 'd' does not parse"),
        Case(
            name: "a template for an unknown entity",
            body: """
                <entity name="A"/>
                <fetchRequest name="t" entity="Nope"/>
                """,
            line: 4, message: "entity 'Nope' of fetchRequest 't' is not an entity of the model"),
        Case(
            name: "a configuration listing an unknown entity",
            body: """
                <entity name="A"/>
                <configuration name="C">
                    <memberEntity name="A"/>
                    <memberEntity name="Nope"/>
                </configuration>
                """,
            line: 6, message: "configuration 'C' lists entity 'Nope', which the model does not have"),
        Case(
            name: "an unknown element in an entity",
            body: """
                <entity name="A">
                    <attribute name="x" attributeType="String"/>
                    <gizmo name="g"/>
                </entity>
                """,
            line: 5, message: "unknown element <gizmo> in entity 'A'"),
        Case(
            name: "a default value that does not fit the type",
            body: """
                <entity name="A">
                    <attribute name="x" attributeType="Integer 16" defaultValueString="40000"/>
                </entity>
                """,
            line: 4, message: "defaultValueString=\"40000\" of attribute 'x' is not a valid Integer 16 value"),
        Case(
            name: "two entities with one name",
            body: """
                <entity name="A"/>
                <entity name="A"/>
                """,
            line: 4, message: "a second entity named 'A'"),
        Case(
            name: "two properties with one name",
            body: """
                <entity name="A">
                    <attribute name="x" attributeType="String"/>
                    <relationship name="x" maxCount="1" destinationEntity="A"/>
                </entity>
                """,
            line: 5, message: "a second property named 'x' in entity 'A'"),
        Case(
            name: "an unknown deletion rule",
            body: """
                <entity name="A">
                    <relationship name="r" maxCount="1" deletionRule="Explode" destinationEntity="A"/>
                </entity>
                """,
            line: 4, message: "unknown deletionRule 'Explode' of relationship 'r'"),
        Case(
            name: "a flag that is not YES or NO",
            body: """
                <entity name="A" isAbstract="maybe"/>
                """,
            line: 3, message: "isAbstract=\"maybe\" of <entity> is not YES or NO"),
        Case(
            name: "a uniqueness constraint on an unknown property",
            body: """
                <entity name="A">
                    <attribute name="x" attributeType="String"/>
                    <uniquenessConstraints>
                        <uniquenessConstraint>
                            <constraint value="y"/>
                        </uniquenessConstraint>
                    </uniquenessConstraints>
                </entity>
                """,
            line: 7, message: "uniqueness constraint names 'y', which is not a property of entity 'A'"),
        Case(
            name: "a fetch index on an unknown property",
            body: """
                <entity name="A">
                    <fetchIndex name="byY">
                        <fetchIndexElement property="y" type="Binary" order="ascending"/>
                    </fetchIndex>
                </entity>
                """,
            line: 5, message: "fetch index 'byY' names 'y', which is not a property of entity 'A'"),
        Case(
            name: "a composite attribute whose composite is not defined",
            body: """
                <entity name="A">
                    <attribute name="c" optional="YES" attributeType="Composite" composite="Nope"/>
                </entity>
                """,
            line: 4, message: "composite 'Nope' of attribute 'c' is not defined in the model"),
    ]

    @Test("Each bad file throws an error naming the file and the line", arguments: cases)
    func badFile(_ bad: Case) throws {
        let error = try #require(try loadError(modelXML(bad.body)))
        #expect(error.domain == NSCocoaErrorDomain)
        #expect(error.code == NSFileReadCorruptFileError)
        #expect(error.userInfo["NSModelFileLine"] as? Int == bad.line)
        #expect(error.localizedDescription.contains("Test.xcdatamodel/contents:\(bad.line):"), "\(error.localizedDescription)")
        #expect(error.localizedDescription.contains(bad.message), "\(error.localizedDescription)")
        #expect((error.userInfo[NSFilePathErrorKey] as? String)?.hasSuffix("Test.xcdatamodel/contents") == true)
    }

    @Test("A predicate error keeps the parser's error as the underlying error")
    func underlyingPredicateError() throws {
        let error = try #require(try loadError(modelXML(#"<entity name="A"/><fetchRequest name="t" entity="A" predicateString="a =="/>"#)))
        let underlying = try #require(error.userInfo[NSUnderlyingErrorKey] as? NSError)
        #expect(underlying.code == NSFormattingError)
        #expect(error.localizedDescription.contains(underlying.localizedDescription))
    }

    @Test(
        "An empty file, a file that is not XML, and a root that is not <model> are corrupt files",
        arguments: [
            ("", "the file has no root element"), ("hello", "start tag expected"),
            (#"<?xml version="1.0"?><plist version="1.0"><dict/></plist>"#, "the root element is <plist>, not <model>"),
        ])
    func notAModel(text: String, message: String) throws {
        let error = try #require(try loadError(text))
        #expect(error.code == NSFileReadCorruptFileError)
        #expect(error.localizedDescription.contains(message), "\(error.localizedDescription)")
        #expect(error.userInfo["NSModelFileLine"] as? Int == 1)
    }

    @Test("Deeply nested elements give an error, not a crash")
    func deepNesting() throws {
        let depth = 20_000
        let xml = modelXML(String(repeating: "<a>", count: depth) + String(repeating: "</a>", count: depth))
        let error = try #require(try loadError(xml))
        #expect(error.code == NSFileReadCorruptFileError)
        #expect(error.localizedDescription.contains("nested more than 256 levels deep"), "\(error.localizedDescription)")
    }

    @Test("A missing file is NSFileReadNoSuchFileError")
    func missingFile() throws {
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("Nope.xcdatamodel")
        #expect(NSManagedObjectModel(contentsOf: url) == nil)
        #expect {
            try NSManagedObjectModel(validatingContentsOf: url)
        } throws: { error in
            let error = error as NSError
            return error.domain == NSCocoaErrorDomain && error.code == NSFileReadNoSuchFileError
                && error.localizedDescription.contains("Nope.xcdatamodel")
        }
    }

    @Test("A truncated compiled model is refused as corrupt; a missing .momd as missing")
    func compiledModel() throws {
        let folder = try TemporaryFolder()
        let mom = try folder.write("bplist00", to: "Model.mom")
        let disguised = try folder.write("bplist00\u{1}\u{2}", to: "Model.xcdatamodel/contents")
        for url in [mom, disguised] {
            #expect(NSManagedObjectModel(contentsOf: url) == nil)
            #expect {
                try NSManagedObjectModel(validatingContentsOf: url)
            } throws: { error in
                let error = error as NSError
                return error.code == NSFileReadCorruptFileError
                    && error.localizedDescription.contains("not a valid binary property list")
            }
        }
        #expect {
            try NSManagedObjectModel(validatingContentsOf: folder.url.appendingPathComponent("Model.momd"))
        } throws: { error in
            (error as NSError).code == NSFileReadNoSuchFileError
        }
    }

    @Test("A URL that is not a file URL is refused")
    func remoteURL() throws {
        let url = try #require(URL(string: "https://example.com/Model.xcdatamodel"))
        #expect(NSManagedObjectModel(contentsOf: url) == nil)
        #expect(throws: (any Error).self) { try NSManagedObjectModel(validatingContentsOf: url) }
    }
}
