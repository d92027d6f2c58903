import CoreData

/// Writes a model as an Xcode `contents` file, so that a model built in code (the demo's) can be
/// loaded again with `NSManagedObjectModel(validatingContentsOf:)` by `coredata fetch --model`.
///
/// Covers what the demo's model uses: entities (abstract, parent), attributes (type, optional,
/// transient), relationships (destination, inverse, to-many, optional, delete rule), fetched
/// properties and fetch request templates by their predicate (sort descriptors are not part of
/// Xcode's file format for these). Not written: default values, user info, indexes, constraints,
/// configurations. The demo's tests check that the file's version hashes equal the store's.
enum ModelFileWriter {
    static func contents(of model: NSManagedObjectModel) -> String {
        var lines = [
            #"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>"#,
            #"<model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">"#,
        ]
        for entity in model.entities {
            var attributes = [("name", entity.name ?? ""), ("representedClassName", "NSManagedObject")]
            if let parent = entity.superentity?.name { attributes.append(("parentEntity", parent)) }
            if entity.isAbstract { attributes.append(("isAbstract", "YES")) }
            lines.append("    " + element("entity", attributes) + ">")
            let inherited = Set(entity.superentity?.propertiesByName.keys.map { $0 } ?? [])
            for property in entity.properties where !inherited.contains(property.name) {
                if let line = self.property(property) { lines.append(line) }
            }
            lines.append("    </entity>")
        }
        for (name, request) in model.fetchRequestTemplatesByName.sorted(by: { $0.key < $1.key }) {
            lines.append("    " + element("fetchRequest", requestAttributes(name, request)) + "/>")
        }
        lines.append("</model>")
        return lines.joined(separator: "\n") + "\n"
    }

    private static func property(_ property: NSPropertyDescription) -> String? {
        var attributes = [("name", property.name)]
        if property.isOptional { attributes.append(("optional", "YES")) }
        if property.isTransient { attributes.append(("transient", "YES")) }
        switch property {
        case let attribute as NSAttributeDescription:
            attributes.append(("attributeType", ModelDescription.typeName(attribute.attributeType)))
            return "        " + element("attribute", attributes) + "/>"
        case let relationship as NSRelationshipDescription:
            if relationship.isToMany { attributes.append(("toMany", "YES")) }
            if relationship.maxCount > 0 { attributes.append(("maxCount", String(relationship.maxCount))) }
            if relationship.minCount > 0 { attributes.append(("minCount", String(relationship.minCount))) }
            attributes.append(
                ("deletionRule", ModelDescription.ruleName(relationship.deleteRule).replacingOccurrences(of: " ", with: "")))
            attributes.append(("destinationEntity", relationship.destinationEntity?.name ?? ""))
            if let inverse = relationship.inverseRelationship {
                attributes.append(("inverseName", inverse.name))
                attributes.append(("inverseEntity", inverse.entity.name ?? ""))
            }
            return "        " + element("relationship", attributes) + "/>"
        case let fetched as NSFetchedPropertyDescription:
            guard let request = fetched.fetchRequest else { return nil }
            return "        " + element("fetchedProperty", attributes) + ">\n            "
                + element("fetchRequest", requestAttributes("fetchedPropertyFetchRequest", request))
                + "/>\n        </fetchedProperty>"
        default:
            return nil
        }
    }

    private static func requestAttributes(_ name: String, _ request: NSFetchRequest<NSFetchRequestResult>) -> [(String, String)] {
        var attributes = [("name", name), ("entity", request.entityName ?? request.entity?.name ?? "")]
        if let predicate = request.predicate { attributes.append(("predicateString", "\(predicate)")) }
        return attributes
    }

    private static func element(_ name: String, _ attributes: [(String, String)]) -> String {
        "<\(name)" + attributes.map { " \($0.0)=\"\(escaped($0.1))\"" }.joined()
    }

    private static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;")
            .replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }
}
