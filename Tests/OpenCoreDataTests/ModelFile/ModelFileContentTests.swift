import Foundation
import OpenCoreData
import Testing

/// What each part of a `contents` file becomes, on small files written by the tests.
@Suite("Model files: contents")
struct ModelFileContentTests {
    static let people = modelXML(
        """
        <entity name="Party" representedClassName="Party" isAbstract="YES" elementID="OldParty" versionHashModifier="v2" syncable="YES">
            <attribute name="name" attributeType="String" elementID="title"/>
            <relationship name="addresses" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Address" inverseName="party" inverseEntity="Address"/>
            <userInfo>
                <entry key="table" value="parties"/>
            </userInfo>
        </entity>
        <entity name="Person" representedClassName="App.Person" parentEntity="Party" syncable="YES" codeGenerationType="class">
            <attribute name="age" optional="YES" attributeType="Integer 16" defaultValueString="-1" usesScalarValueType="YES" indexed="YES"/>
            <attribute name="nickname" optional="YES" transient="YES" attributeType="String" defaultValueString="Bob &amp; &quot;Rob&quot;"/>
            <relationship name="friends" optional="YES" toMany="YES" maxCount="5" deletionRule="Deny" ordered="YES" destinationEntity="Person"/>
            <relationship name="pet" optional="YES" maxCount="1" deletionRule="No Action" destinationEntity="Pet"/>
            <fetchedProperty name="namesakes" optional="YES">
                <fetchRequest name="fetchedPropertyFetchRequest" entity="Person" predicateString="name == $FETCH_SOURCE.name"/>
            </fetchedProperty>
            <uniquenessConstraints>
                <uniquenessConstraint>
                    <constraint value="name"/>
                    <constraint value="age"/>
                </uniquenessConstraint>
            </uniquenessConstraints>
            <fetchIndex name="byAge">
                <fetchIndexElement property="age" type="Binary" order="descending"/>
                <fetchIndexElement property="name" type="RTree" order="ascending"/>
            </fetchIndex>
            <compoundIndexes>
                <compoundIndex>
                    <index value="age"/>
                </compoundIndex>
            </compoundIndexes>
        </entity>
        <entity name="Company" parentEntity="Party"/>
        <entity name="Address" syncable="YES">
            <attribute name="city" attributeType="String" minValueString="1" maxValueString="80"/>
            <relationship name="party" maxCount="1" deletionRule="Nullify" destinationEntity="Party" inverseName="addresses" inverseEntity="Person"/>
        </entity>
        <entity name="Pet"/>
        <fetchRequest name="adults" entity="Person" predicateString="age &gt;= $AGE" fetchLimit="10" fetchBatchSize="5" fetchOffset="2" resultType="1" includeSubentities="NO" includePropertyValues="NO" includesPendingChanges="NO" returnObjectsAsFaults="NO" returnDistinctResults="YES"/>
        <fetchRequest name="all" entity="Party"/>
        <configuration name="Cloud">
            <memberEntity name="Person"/>
            <memberEntity name="Address"/>
        </configuration>
        <configuration name="Local">
            <memberEntity name="Pet"/>
        </configuration>
        <elements>
            <element name="Party" positionX="0" positionY="0" width="128" height="60"/>
        </elements>
        """, identifier: "2.1")

    @Test("Entities keep file order; inheritance sets sub-entities and inherited properties")
    func entitiesAndInheritance() throws {
        let model = try loadModel(Self.people)
        #expect(model.entities.compactMap(\.name) == ["Party", "Person", "Company", "Address", "Pet"])
        let party = try #require(model.entitiesByName["Party"])
        let person = try #require(model.entitiesByName["Person"])
        #expect(party.isAbstract)
        #expect(!person.isAbstract)
        #expect(party.subentities.compactMap(\.name) == ["Person", "Company"])
        #expect(person.superentity === party)
        #expect(person.properties.map(\.name) == ["name", "addresses", "age", "nickname", "friends", "pet", "namesakes"])
        #expect(person.propertiesByName["name"]?.entity === party)
        #expect(person.managedObjectClassName == "App.Person")
        #expect(model.entitiesByName["Pet"]?.managedObjectClassName == "NSManagedObject")
        #expect(party.renamingIdentifier == "OldParty")
        #expect(party.versionHashModifier == "v2")
        #expect(party.userInfo?["table"] as? String == "parties")
        #expect(person.userInfo == nil)
        #expect(model.versionIdentifiers == ["2.1"])
    }

    @Test("Attributes: flags, renaming identifier, default values and validation rules")
    func attributes() throws {
        let model = try loadModel(Self.people)
        let person = try #require(model.entitiesByName["Person"])
        let name = try #require(person.attributesByName["name"])
        #expect(!name.isOptional)
        #expect(name.renamingIdentifier == "title")
        let age = try #require(person.attributesByName["age"])
        #expect(age.isOptional && age.isIndexed && !age.isTransient)
        #expect(age.defaultValue as? Int16 == -1)
        let nickname = try #require(person.attributesByName["nickname"])
        #expect(nickname.isTransient)
        #expect(nickname.defaultValue as? String == #"Bob & "Rob""#)
        let city = try #require(model.entitiesByName["Address"]?.attributesByName["city"])
        #expect(city.validationPredicates.map(\.description) == ["length >= 1", "length <= 80"])
        #expect(city.validationWarnings.compactMap { ($0 as? NSNumber)?.intValue } == [1670, 1660])
        #expect(city.validationPredicates[0].evaluate(with: "York"))
        #expect(!city.validationPredicates[0].evaluate(with: ""))
    }

    @Test("Relationships: destination, inverse, counts, order and delete rule")
    func relationships() throws {
        let model = try loadModel(Self.people)
        let person = try #require(model.entitiesByName["Person"])
        let friends = try #require(person.relationshipsByName["friends"])
        #expect(friends.destinationEntity === person)
        #expect(friends.isToMany && friends.isOrdered && friends.maxCount == 5)
        #expect(friends.deleteRule == .denyDeleteRule)
        #expect(friends.inverseRelationship == nil)
        let pet = try #require(person.relationshipsByName["pet"])
        #expect(!pet.isToMany && pet.maxCount == 1 && pet.deleteRule == .noActionDeleteRule)
        let party = try #require(model.entitiesByName["Address"]?.relationshipsByName["party"])
        let addresses = try #require(model.entitiesByName["Party"]?.relationshipsByName["addresses"])
        #expect(party.inverseRelationship === addresses, "inverse found in Person, which inherits it from Party")
        #expect(addresses.inverseRelationship === party)
        #expect(addresses.isToMany && addresses.maxCount == 0 && addresses.deleteRule == .cascadeDeleteRule)
        #expect(!party.isOptional)
    }

    @Test("Fetched properties, uniqueness constraints and fetch indexes")
    func fetchedPropertiesAndIndexes() throws {
        let model = try loadModel(Self.people)
        let person = try #require(model.entitiesByName["Person"])
        let namesakes = try #require(person.propertiesByName["namesakes"] as? NSFetchedPropertyDescription)
        #expect(namesakes.fetchRequest?.entity === person)
        #expect(namesakes.fetchRequest?.predicate?.description == "name == $FETCH_SOURCE.name")
        #expect(person.uniquenessConstraints.map { $0.compactMap { $0 as? String } } == [["name", "age"]])
        #expect(person.indexes.count == 1, "compound indexes are ignored")
        let index = try #require(person.indexes.first)
        #expect(index.name == "byAge")
        #expect(index.elements.map(\.propertyName) == ["age", "name"])
        #expect(index.elements.map(\.isAscending) == [false, true])
        #expect(index.elements.map(\.collationType) == [.binary, .rTree])
        #expect(index.elements.first?.property === person.attributesByName["age"])
    }

    @Test("Fetch request templates and configurations")
    func templatesAndConfigurations() throws {
        let model = try loadModel(Self.people)
        let adults = try #require(model.fetchRequestTemplate(forName: "adults"))
        #expect(adults.entity === model.entitiesByName["Person"])
        #expect(adults.predicate?.description == "age >= $AGE")
        #expect(adults.fetchLimit == 10 && adults.fetchBatchSize == 5 && adults.fetchOffset == 2)
        #expect(adults.resultType == .managedObjectIDResultType)
        #expect(!adults.includesSubentities && !adults.includesPropertyValues)
        #expect(!adults.includesPendingChanges && !adults.returnsObjectsAsFaults && adults.returnsDistinctResults)
        let all = try #require(model.fetchRequestTemplate(forName: "all"))
        #expect(all.predicate == nil && all.fetchLimit == 0 && all.resultType == .managedObjectResultType)
        #expect(all.includesSubentities && all.includesPropertyValues && all.includesPendingChanges)
        #expect(all.returnsObjectsAsFaults && !all.returnsDistinctResults)
        let filled = try #require(model.fetchRequestFromTemplate(withName: "adults", substitutionVariables: ["AGE": 18]))
        #expect(filled.predicate?.description == "age >= 18")
        #expect(model.configurations == ["Cloud", "Local"])
        #expect(model.entities(forConfigurationName: "Cloud")?.compactMap(\.name) == ["Person", "Address"])
        #expect(model.entities(forConfigurationName: "Local")?.compactMap(\.name) == ["Pet"])
    }

    /// One attribute of each type with a default value: the value's Swift type and width.
    @Test("Default values take the attribute type's value")
    func defaultValues() throws {
        let model = try loadModel(
            modelXML(
                """
                <entity name="T">
                    <attribute name="i16" attributeType="Integer 16" defaultValueString="-7"/>
                    <attribute name="i32" attributeType="Integer 32" defaultValueString="70000"/>
                    <attribute name="i64" attributeType="Integer 64" defaultValueString="5000000000"/>
                    <attribute name="dbl" attributeType="Double" defaultValueString="2.5"/>
                    <attribute name="flt" attributeType="Float" defaultValueString="1.5"/>
                    <attribute name="dec" attributeType="Decimal" defaultValueString="12.34"/>
                    <attribute name="yes" attributeType="Boolean" defaultValueString="YES"/>
                    <attribute name="no" attributeType="Boolean" defaultValueString="NO"/>
                    <attribute name="str" attributeType="String" defaultValueString="Set From Core Data Model Editor"/>
                    <attribute name="day" attributeType="Date" defaultValueString="86400"/>
                    <attribute name="when" attributeType="Date" defaultDateTimeInterval="388411200" defaultValueString="2013-04-23 12:00:00 +0000"/>
                    <attribute name="id" attributeType="UUID" defaultValueString="E621E1F8-C36C-495A-93FC-0C247A3E6E5F"/>
                    <attribute name="link" attributeType="URI" defaultValueString="https://example.com/a"/>
                    <attribute name="blob" attributeType="Binary" allowsExternalBinaryDataStorage="YES"/>
                    <attribute name="thing" attributeType="Transformable" valueTransformerName="NSSecureUnarchiveFromData" customClassName="Thing"/>
                    <attribute name="later" attributeType="Undefined" transient="YES"/>
                    <attribute name="kept" attributeType="String" preserveAfterDeletion="YES" spotlightIndexingEnabled="YES"/>
                </entity>
                """))
        let attributes = try #require(model.entitiesByName["T"]?.attributesByName)
        func objCType(_ name: String) -> String? {
            (attributes[name]?.defaultValue as? NSNumber).map { String(cString: $0.objCType) }
        }
        #expect(objCType("i16") == "s" && attributes["i16"]?.defaultValue as? Int16 == -7)
        #expect(objCType("i32") == "i" && attributes["i32"]?.defaultValue as? Int32 == 70000)
        #expect(objCType("i64") == "q" && attributes["i64"]?.defaultValue as? Int64 == 5_000_000_000)
        #expect(objCType("dbl") == "d" && attributes["dbl"]?.defaultValue as? Double == 2.5)
        #expect(objCType("flt") == "f" && attributes["flt"]?.defaultValue as? Float == 1.5)
        #expect(attributes["dec"]?.defaultValue is NSDecimalNumber)
        #expect(attributes["dec"]?.defaultValue as? Decimal == Decimal(string: "12.34"))
        #expect(attributes["yes"]?.defaultValue as? Bool == true)
        #expect(attributes["no"]?.defaultValue as? Bool == false)
        #expect(attributes["str"]?.defaultValue as? String == "Set From Core Data Model Editor")
        #expect(attributes["day"]?.defaultValue as? Date == Date(timeIntervalSinceReferenceDate: 86400))
        #expect(attributes["when"]?.defaultValue as? Date == Date(timeIntervalSinceReferenceDate: 388_411_200))
        #expect(attributes["id"]?.defaultValue as? UUID == UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        #expect(attributes["link"]?.defaultValue as? URL == URL(string: "https://example.com/a"))
        #expect(attributes["blob"]?.allowsExternalBinaryDataStorage == true)
        #expect(attributes["thing"]?.valueTransformerName == "NSSecureUnarchiveFromData")
        #expect(attributes["thing"]?.attributeValueClassName == "Thing")
        #expect(attributes["later"]?.attributeType == .undefinedAttributeType)
        #expect(attributes["kept"]?.preservesValueInHistoryOnDeletion == true)
        #expect(attributes["kept"]?.isIndexedBySpotlight == true)
    }

    @Test("Derived and composite attributes")
    func derivedAndComposite() throws {
        let model = try loadModel(
            modelXML(
                """
                <entity name="T">
                    <attribute name="title" optional="YES" attributeType="String"/>
                    <attribute name="search" optional="YES" attributeType="String" derived="YES" derivationExpression="canonical:(title)"/>
                    <attribute name="count" optional="YES" attributeType="Integer 64" derived="YES" derivationExpression="items.@count"/>
                    <attribute name="place" optional="YES" attributeType="Composite" composite="Place"/>
                    <relationship name="items" optional="YES" toMany="YES" destinationEntity="T"/>
                </entity>
                <composite name="Place">
                    <attribute name="lat" optional="YES" attributeType="Double" defaultValueString="0.0"/>
                    <attribute name="lon" optional="YES" attributeType="Double" defaultValueString="0.0"/>
                </composite>
                """))
        let attributes = try #require(model.entitiesByName["T"]?.attributesByName)
        let search = try #require(attributes["search"] as? NSDerivedAttributeDescription)
        #expect(search.derivationExpression?.description == "canonical:(title)")
        let count = try #require(attributes["count"] as? NSDerivedAttributeDescription)
        #expect(count.derivationExpression?.description == "items.@count")
        #expect(attributes["place"]?.attributeType == .compositeAttributeType)
        #expect(!(attributes["title"] is NSDerivedAttributeDescription))
    }

    @Test("An Xcode 4 file (syncable, elements, no sourceLanguage) and unknown XML attributes load")
    func toleratesXcodeExtras() throws {
        let model = try loadModel(
            """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model name="" userDefinedModelVersionIdentifier="" type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="2061" systemVersion="12D78" minimumToolsVersion="Automatic" macOSVersion="Automatic" iOSVersion="Automatic" futureFlag="1">
                <entity name="A" syncable="YES" somethingNew="YES">
                    <attribute name="x" optional="YES" attributeType="Integer 32" defaultValueString="0" storedInTruthFile="YES" syncable="YES"/>
                </entity>
                <elements>
                    <element name="A" positionX="160" positionY="192" width="128" height="60"/>
                </elements>
            </model>
            """)
        #expect(model.entities.compactMap(\.name) == ["A"])
        #expect(model.versionIdentifiers.isEmpty)
    }
}
