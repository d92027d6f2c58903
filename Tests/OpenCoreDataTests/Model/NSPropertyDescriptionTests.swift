import OpenCoreData
import TestSupport
import Testing

@Suite struct NSPropertyDescriptionTests {
    @Test(arguments: [
        (NSAttributeType.undefinedAttributeType, 0, nil),
        (.integer16AttributeType, 100, "NSNumber"), (.integer32AttributeType, 200, "NSNumber"),
        (.integer64AttributeType, 300, "NSNumber"), (.decimalAttributeType, 400, "NSDecimalNumber"),
        (.doubleAttributeType, 500, "NSNumber"), (.floatAttributeType, 600, "NSNumber"),
        (.stringAttributeType, 700, "NSString"), (.booleanAttributeType, 800, "NSNumber"),
        (.dateAttributeType, 900, "NSDate"), (.binaryDataAttributeType, 1000, "NSData"),
        (.UUIDAttributeType, 1100, "NSUUID"), (.URIAttributeType, 1200, "NSURL"),
        (.transformableAttributeType, 1800, nil), (.objectIDAttributeType, 2000, "NSManagedObjectID"),
        (.compositeAttributeType, 2100, nil),
    ] as [(NSAttributeType, UInt, String?)])
    func attributeTypesHaveApplesRawValuesAndClasses(type: NSAttributeType, raw: UInt, className: String?) {
        #expect(type.rawValue == raw)
        #expect(NSAttributeType(rawValue: raw) == type)
        let attribute = NSAttributeDescription()
        attribute.attributeType = type
        #expect(attribute.attributeValueClassName == className)
    }

    @Test func transformableKeepsItsCustomClass() {
        let attribute = NSAttributeDescription()
        attribute.attributeType = .transformableAttributeType
        attribute.attributeValueClassName = "UIColor"
        attribute.valueTransformerName = "NSSecureUnarchiveFromData"
        #expect(attribute.attributeValueClassName == "UIColor")
        #expect(attribute.valueTransformerName == "NSSecureUnarchiveFromData")
    }

    @Test func defaults() {
        let attribute = NSAttributeDescription()
        #expect(attribute.name == "")
        #expect(attribute.isOptional && !attribute.isTransient && !attribute.isIndexed)
        #expect(attribute.attributeType == .undefinedAttributeType)
        #expect(attribute.defaultValue == nil && attribute.userInfo == nil && attribute.renamingIdentifier == nil)
        #expect(!attribute.allowsExternalBinaryDataStorage && !attribute.preservesValueInHistoryOnDeletion)
        #expect(attribute.validationPredicates.isEmpty && attribute.validationWarnings.isEmpty)

        let relationship = NSRelationshipDescription()
        #expect(relationship.maxCount == 0 && relationship.minCount == 0)
        #expect(relationship.isToMany)
        #expect(relationship.deleteRule == .nullifyDeleteRule)
        #expect(!relationship.isOrdered)
        #expect(relationship.destinationEntity == nil && relationship.inverseRelationship == nil)
        relationship.maxCount = 1
        #expect(!relationship.isToMany)
        relationship.maxCount = 5
        #expect(relationship.isToMany)

        #expect(NSExpressionDescription().expressionResultType == .undefinedAttributeType)
        #expect(NSExpressionDescription().expression == nil)
        #expect(NSFetchedPropertyDescription().fetchRequest == nil)
        #expect(NSDerivedAttributeDescription().derivationExpression == nil)
    }

    @Test func deleteRulesHaveApplesRawValues() {
        #expect(
            [NSDeleteRule.noActionDeleteRule, .nullifyDeleteRule, .cascadeDeleteRule, .denyDeleteRule].map(\.rawValue) == [0, 1, 2, 3])
    }

    @Test func validationPredicatesAndWarnings() {
        let attribute = attribute("age", .integer16AttributeType)
        let predicates = [NSPredicate(format: "SELF >= 0"), NSPredicate(format: "SELF <= 150")]
        attribute.setValidationPredicates(predicates, withValidationWarnings: ["too small", "too large"])
        #expect(attribute.validationPredicates.map(\.description) == ["SELF >= 0", "SELF <= 150"])
        #expect(attribute.validationWarnings as? [String] == ["too small", "too large"])
        attribute.setValidationPredicates(nil, withValidationWarnings: nil)
        #expect(attribute.validationPredicates.isEmpty && attribute.validationWarnings.isEmpty)
    }

    @Test func copiesKeepTheirClassAndValues() throws {
        let derived = NSDerivedAttributeDescription()
        derived.name = "employeeCount"
        derived.attributeType = .integer64AttributeType
        derived.derivationExpression = NSExpression(format: "employees.@count")
        derived.isOptional = false
        derived.userInfo = ["key": "value"]
        let copy = try #require(derived.copy() as? NSDerivedAttributeDescription)
        #expect(copy !== derived)
        #expect(copy.name == "employeeCount" && copy.attributeType == .integer64AttributeType && !copy.isOptional)
        #expect(copy.derivationExpression?.description == "employees.@count")
        #expect(copy.userInfo?["key"] as? String == "value")

        let relationship = relationship("owner", to: NSEntityDescription(), maxCount: 1)
        relationship.deleteRule = .denyDeleteRule
        relationship.isOrdered = true
        let relationshipCopy = try #require(relationship.copy() as? NSRelationshipDescription)
        #expect(relationshipCopy.maxCount == 1 && relationshipCopy.deleteRule == .denyDeleteRule && relationshipCopy.isOrdered)

        let sum = NSExpressionDescription()
        sum.name = "total"
        sum.expression = NSExpression(forFunction: "sum:", arguments: [NSExpression(forKeyPath: "salary")])
        sum.expressionResultType = .decimalAttributeType
        let sumCopy = try #require(sum.copy() as? NSExpressionDescription)
        #expect(sumCopy.expression?.description == "sum:(salary)")
        #expect(sumCopy.expressionResultType == .decimalAttributeType)
    }

    @Test func propertyOutsideAnEntityTrapsOnEntity() async {
        await #expect(processExitsWith: .failure) {
            _ = NSAttributeDescription().entity
        }
    }
}
