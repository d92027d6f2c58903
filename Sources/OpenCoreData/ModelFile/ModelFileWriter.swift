/// Writes a model as the `contents` XML of an Xcode `.xcdatamodel` folder, in the elements and
/// attributes `ModelFileBuilder` reads (Xcode's own), so that the file loads back into a model
/// with the same version hashes, and Xcode opens it.
///
/// Written: entities (class name, parent, abstract, version hash modifier, renaming identifier,
/// uniqueness constraints, user info), attributes (type, optional, transient, derived with its
/// expression, default value, external storage, history preservation, cloud encryption,
/// transformer and class names), relationships (destination, inverse, to-many, ordered, counts,
/// delete rule), fetched properties and fetch request templates (entity and predicate: Xcode's
/// format has no sort descriptors for them), configurations and the model's version identifier.
/// Left out, as they do not change what a store holds: validation rules, fetch indexes and
/// Spotlight flags. User info values are written as text.
enum ModelFileWriter {
    static func contents(of model: NSManagedObjectModel) -> String {
        var lines = [
            #"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>"#,
            "<model "
                + attributes([
                    ("type", "com.apple.IDECoreDataModeler.DataModel"), ("documentVersion", "1.0"),
                    ("minimumToolsVersion", "Automatic"), ("sourceLanguage", "Swift"),
                    (
                        "userDefinedModelVersionIdentifier",
                        model.versionIdentifiers.compactMap { $0 as? String }.sorted().first ?? ""
                    ),
                ]) + ">",
        ]
        for entity in model.entities {
            lines += self.entity(entity)
        }
        for (name, request) in model.fetchRequestTemplatesByName.sorted(by: { $0.key < $1.key }) {
            lines.append("    <fetchRequest " + attributes(requestAttributes(name, request)) + "/>")
        }
        for name in model.configurations.sorted() where name != NSManagedObjectModel.defaultConfigurationName {
            lines.append("    <configuration " + attributes([("name", name)]) + ">")
            for entity in model.entities(forConfigurationName: name) ?? [] {
                lines.append("        <memberEntity " + attributes([("name", entity.name ?? "")]) + "/>")
            }
            lines.append("    </configuration>")
        }
        lines.append("</model>")
        return lines.joined(separator: "\n") + "\n"
    }

    private static func entity(_ entity: NSEntityDescription) -> [String] {
        var pairs = [
            ("name", entity.name ?? ""), ("representedClassName", entity.managedObjectClassName ?? "NSManagedObject"),
        ]
        if let parent = entity.superentity?.name { pairs.append(("parentEntity", parent)) }
        if entity.isAbstract { pairs.append(("isAbstract", "YES")) }
        if let modifier = entity.versionHashModifier { pairs.append(("versionHashModifier", modifier)) }
        if let identifier = entity.renamingIdentifier, identifier != entity.name {
            pairs.append(("elementID", identifier))
        }
        var lines = ["    <entity " + attributes(pairs) + ">"]
        let inherited = Set(entity.superentity?.propertiesByName.keys.map { $0 } ?? [])
        for property in entity.properties where !inherited.contains(property.name) {
            lines += self.property(property)
        }
        let constraints = entity.uniquenessConstraints.filter { !$0.isEmpty }
        if !constraints.isEmpty {
            lines.append("        <uniquenessConstraints>")
            for constraint in constraints {
                lines.append("            <uniquenessConstraint>")
                for element in constraint {
                    let name = (element as? NSPropertyDescription)?.name ?? "\(element)"
                    lines.append("                <constraint " + attributes([("value", name)]) + "/>")
                }
                lines.append("            </uniquenessConstraint>")
            }
            lines.append("        </uniquenessConstraints>")
        }
        lines += userInfo(entity.userInfo, indent: "        ")
        lines.append("    </entity>")
        return lines
    }

    private static func property(_ property: NSPropertyDescription) -> [String] {
        var pairs = [("name", property.name)]
        if property.isOptional { pairs.append(("optional", "YES")) }
        if property.isTransient { pairs.append(("transient", "YES")) }
        if let modifier = property.versionHashModifier { pairs.append(("versionHashModifier", modifier)) }
        if let identifier = property.renamingIdentifier, identifier != property.name {
            pairs.append(("elementID", identifier))
        }
        let element: String
        var children: [String] = []
        switch property {
        case let attribute as NSAttributeDescription:
            element = "attribute"
            pairs += attributePairs(attribute)
        case let relationship as NSRelationshipDescription:
            element = "relationship"
            pairs += relationshipPairs(relationship)
        case let fetched as NSFetchedPropertyDescription:
            guard let request = fetched.fetchRequest else { return [] }
            element = "fetchedProperty"
            children.append(
                "            <fetchRequest " + attributes(requestAttributes("fetchedPropertyFetchRequest", request)) + "/>")
        default:
            return []
        }
        children += userInfo(property.userInfo, indent: "            ")
        let start = "        <\(element) " + attributes(pairs)
        guard !children.isEmpty else { return [start + "/>"] }
        return [start + ">"] + children + ["        </\(element)>"]
    }

    private static func attributePairs(_ attribute: NSAttributeDescription) -> [(String, String)] {
        var pairs = [("attributeType", attribute.attributeType.modelFileName)]
        if let derived = attribute as? NSDerivedAttributeDescription, let expression = derived.derivationExpression {
            pairs.append(("derived", "YES"))
            pairs.append(("derivationExpression", VersionHash.storedFormat(of: expression)))
        }
        if let value = attribute.defaultValue { pairs += defaultValuePairs(value, type: attribute.attributeType) }
        if attribute.allowsExternalBinaryDataStorage { pairs.append(("allowsExternalBinaryDataStorage", "YES")) }
        if attribute.preservesValueInHistoryOnDeletion { pairs.append(("preserveAfterDeletion", "YES")) }
        if attribute.allowsCloudEncryption { pairs.append(("allowsCloudEncryption", "YES")) }
        if let name = attribute.valueTransformerName { pairs.append(("valueTransformerName", name)) }
        if attribute.attributeType == .transformableAttributeType, let name = attribute.attributeValueClassName {
            pairs.append(("customClassName", name))
        }
        return pairs
    }

    /// A default value as Xcode writes it: dates as seconds since 2001, Booleans as YES/NO, the
    /// rest as text that reads back as the same value.
    private static func defaultValuePairs(_ value: Any, type: NSAttributeType) -> [(String, String)] {
        switch (type, value) {
        case (.dateAttributeType, let date as Date):
            return [("defaultDateTimeInterval", "\(date.timeIntervalSinceReferenceDate)")]
        case (.booleanAttributeType, let number as NSNumber):
            return [("defaultValueString", number.boolValue ? "YES" : "NO")]
        case (.UUIDAttributeType, let uuid as UUID):
            return [("defaultValueString", uuid.uuidString)]
        case (.URIAttributeType, let url as URL):
            return [("defaultValueString", url.absoluteString)]
        case (.decimalAttributeType, let number as NSDecimalNumber):
            return [("defaultValueString", number.description)]
        case (_, let number as NSNumber):
            return [("defaultValueString", number.stringValue)]
        case (.stringAttributeType, let text as String):
            return [("defaultValueString", text)]
        default:
            return []
        }
    }

    private static func relationshipPairs(_ relationship: NSRelationshipDescription) -> [(String, String)] {
        var pairs: [(String, String)] = []
        if relationship.isToMany { pairs.append(("toMany", "YES")) }
        if relationship.isOrdered { pairs.append(("ordered", "YES")) }
        // -1 is "no limit" as a compiled model keeps it: written as is, since it enters the hash.
        if relationship.isToMany, relationship.maxCount != 0 { pairs.append(("maxCount", String(relationship.maxCount))) }
        if relationship.minCount > 0 { pairs.append(("minCount", String(relationship.minCount))) }
        pairs.append(("deletionRule", ruleName(relationship.deleteRule)))
        pairs.append(("destinationEntity", relationship.destinationEntity?.name ?? ""))
        if let inverse = relationship.inverseRelationship {
            pairs.append(("inverseName", inverse.name))
            pairs.append(("inverseEntity", inverse.entity.name ?? ""))
        }
        return pairs
    }

    private static func ruleName(_ rule: NSDeleteRule) -> String {
        switch rule {
        case .noActionDeleteRule: return "NoAction"
        case .cascadeDeleteRule: return "Cascade"
        case .denyDeleteRule: return "Deny"
        default: return "Nullify"
        }
    }

    private static func requestAttributes(_ name: String, _ request: NSFetchRequest<NSFetchRequestResult>) -> [(String, String)] {
        var pairs = [("name", name), ("entity", request.entityName ?? request.entity?.name ?? "")]
        if let predicate = request.predicate { pairs.append(("predicateString", "\(predicate)")) }
        return pairs
    }

    private static func userInfo(_ info: [AnyHashable: Any]?, indent: String) -> [String] {
        guard let info, !info.isEmpty else { return [] }
        let entries = info.map { ("\($0.key)", "\($0.value)") }.sorted { $0.0 < $1.0 }
        return [indent + "<userInfo>"]
            + entries.map { indent + "    <entry " + attributes([("key", $0.0), ("value", $0.1)]) + "/>" }
            + [indent + "</userInfo>"]
    }

    private static func attributes(_ pairs: [(String, String)]) -> String {
        pairs.map { "\($0.0)=\"\(escaped($0.1))\"" }.joined(separator: " ")
    }

    private static func escaped(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "\"": result += "&quot;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\n": result += "&#10;"
            case "\t": result += "&#9;"
            default: result.append(character)
            }
        }
        return result
    }
}
