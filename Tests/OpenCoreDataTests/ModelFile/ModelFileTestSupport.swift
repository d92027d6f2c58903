import Foundation
import OpenCoreData
import TestSupport
import Testing

/// A whole `contents` file around `body`, as Xcode writes it (the `<model>` tag is on line 2,
/// so the first line of `body` is line 3).
func modelXML(_ body: String, identifier: String = "") -> String {
    """
    <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
    <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" userDefinedModelVersionIdentifier="\(identifier)">
    \(body)
    </model>
    """
}

/// Loads `xml` from a temporary `contents` file with the throwing initializer.
func loadModel(_ xml: String) throws -> NSManagedObjectModel {
    let folder = try TemporaryFolder()
    let file = try folder.write(xml, to: "Test.xcdatamodel/contents")
    return try NSManagedObjectModel(validatingContentsOf: file)
}

/// The error loading `xml` throws (nil if it loads), and checks that the failable initializer
/// agrees by returning nil.
func loadError(_ xml: String, file name: String = "Test.xcdatamodel/contents") throws -> NSError? {
    let folder = try TemporaryFolder()
    let file = try folder.write(xml, to: name)
    do {
        _ = try NSManagedObjectModel(validatingContentsOf: file)
        return nil
    } catch {
        #expect(NSManagedObjectModel(contentsOf: file) == nil)
        return error as NSError
    }
}

/// Facts about one model file, written as literals read off its XML.
///
/// String forms:
/// - parents: `"Child: Parent"`;
/// - relationships (declared, in file order): `"Entity.name -> Destination inverse name
///   to-many ordered cascade min 1 max 10 required"`, leaving out what does not apply
///   (Nullify, minCount 0, no maximum, optional);
/// - fetched properties: `"Entity.name: FetchedEntity where predicate"`;
/// - templates (sorted): `"name: Entity where predicate type 1 limit 100 batch 10 distinct"`;
/// - configurations: `"Name: Member, Member"`;
/// - uniqueness constraints: `"Entity: a, b"`; fetch indexes: `"Entity.index: property ascending"`;
/// - derived attributes: `"Entity.name = expression"`;
/// - user info: `"Entity: key=value, key=value"` or `"Entity.property: …"`, entries sorted.
struct ModelFileFacts: Sendable, CustomTestStringConvertible {
    var path: String
    var entities: [String]
    var attributeCount: Int
    var abstract: [String]
    var parents: [String]
    var relationships: [String]
    var fetchedProperties: [String]
    var templates: [String]
    var configurations: [String]
    var uniquenessConstraints: [String]
    var fetchIndexes: [String]
    var derivedAttributes: [String]
    var userInfo: [String]
    var versionIdentifier: String?

    init(
        _ path: String, entities: [String], attributeCount: Int, abstract: [String] = [], parents: [String] = [],
        relationships: [String] = [], fetchedProperties: [String] = [], templates: [String] = [],
        configurations: [String] = [], uniquenessConstraints: [String] = [], fetchIndexes: [String] = [],
        derivedAttributes: [String] = [], userInfo: [String] = [], versionIdentifier: String? = nil
    ) {
        self.path = path
        self.entities = entities
        self.attributeCount = attributeCount
        self.abstract = abstract
        self.parents = parents
        self.relationships = relationships
        self.fetchedProperties = fetchedProperties
        self.templates = templates
        self.configurations = configurations
        self.uniquenessConstraints = uniquenessConstraints
        self.fetchIndexes = fetchIndexes
        self.derivedAttributes = derivedAttributes
        self.userInfo = userInfo
        self.versionIdentifier = versionIdentifier
    }

    var testDescription: String { path }
}

/// Renders a loaded model in the string forms of `ModelFileFacts`.
struct ModelSummary {
    let model: NSManagedObjectModel

    func declared(_ entity: NSEntityDescription) -> [NSPropertyDescription] {
        entity.properties.filter { $0.entity === entity }
    }

    var entities: [String] { model.entities.compactMap(\.name) }
    var attributeCount: Int { model.entities.map { declared($0).filter { $0 is NSAttributeDescription }.count }.reduce(0, +) }
    var abstract: [String] { model.entities.filter(\.isAbstract).compactMap(\.name) }
    var parents: [String] {
        model.entities.compactMap { entity in entity.superentity.map { "\(entity.name ?? ""): \($0.name ?? "")" } }
    }

    var relationships: [String] {
        model.entities.flatMap { entity in
            declared(entity).compactMap { $0 as? NSRelationshipDescription }.map { relationship in
                var text = "\(entity.name ?? "").\(relationship.name) -> \(relationship.destinationEntity?.name ?? "nil")"
                if let inverse = relationship.inverseRelationship { text += " inverse \(inverse.name)" }
                if relationship.isToMany { text += " to-many" }
                if relationship.isOrdered { text += " ordered" }
                switch relationship.deleteRule {
                case .nullifyDeleteRule: break
                case .cascadeDeleteRule: text += " cascade"
                case .denyDeleteRule: text += " deny"
                case .noActionDeleteRule: text += " no action"
                }
                if relationship.minCount != 0 { text += " min \(relationship.minCount)" }
                if relationship.isToMany && relationship.maxCount != 0 { text += " max \(relationship.maxCount)" }
                if !relationship.isOptional { text += " required" }
                return text
            }
        }
    }

    static func whereClause(_ predicate: NSPredicate?) -> String {
        predicate.map { " where \($0.description)" } ?? ""
    }

    var fetchedProperties: [String] {
        model.entities.flatMap { entity in
            declared(entity).compactMap { $0 as? NSFetchedPropertyDescription }.map { property in
                "\(entity.name ?? "").\(property.name): \(property.fetchRequest?.entity?.name ?? "nil")"
                    + Self.whereClause(property.fetchRequest?.predicate)
            }
        }
    }

    var templates: [String] {
        model.fetchRequestTemplatesByName.map { name, request in
            var text = "\(name): \(request.entity?.name ?? "nil")" + Self.whereClause(request.predicate)
            if request.resultType.rawValue != 0 { text += " type \(request.resultType.rawValue)" }
            if request.fetchLimit != 0 { text += " limit \(request.fetchLimit)" }
            if request.fetchBatchSize != 0 { text += " batch \(request.fetchBatchSize)" }
            if request.returnsDistinctResults { text += " distinct" }
            return text
        }.sorted()
    }

    var configurations: [String] {
        model.configurations.map { name in
            "\(name): " + (model.entities(forConfigurationName: name) ?? []).compactMap(\.name).joined(separator: ", ")
        }
    }

    var uniquenessConstraints: [String] {
        model.entities.flatMap { entity in
            entity.uniquenessConstraints.map { "\(entity.name ?? ""): " + $0.map { "\($0)" }.joined(separator: ", ") }
        }
    }

    var fetchIndexes: [String] {
        model.entities.flatMap { entity in
            entity.indexes.map { index in
                "\(entity.name ?? "").\(index.name): "
                    + index.elements.map {
                        "\($0.propertyName ?? "nil") \($0.isAscending ? "ascending" : "descending")"
                            + ($0.collationType == .rTree ? " rtree" : "")
                    }.joined(separator: ", ")
            }
        }
    }

    var derivedAttributes: [String] {
        model.entities.flatMap { entity in
            declared(entity).compactMap { $0 as? NSDerivedAttributeDescription }.map {
                "\(entity.name ?? "").\($0.name) = \($0.derivationExpression?.description ?? "nil")"
            }
        }
    }

    static func entries(_ info: [AnyHashable: Any]?) -> String? {
        guard let info else { return nil }
        return info.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: ", ")
    }

    var userInfo: [String] {
        model.entities.flatMap { entity in
            let own = Self.entries(entity.userInfo).map { ["\(entity.name ?? ""): \($0)"] } ?? []
            return own
                + declared(entity).compactMap { property in
                    Self.entries(property.userInfo).map { "\(entity.name ?? "").\(property.name): \($0)" }
                }
        }
    }
}
