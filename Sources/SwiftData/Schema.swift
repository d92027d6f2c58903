import OpenCoreData

/// The models a container stores, and the Core Data model made of them: an entity per
/// `@Model` class (named as the class), with an attribute or relationship per persisted
/// property. The classes related to the ones given are included.
public final class Schema: @unchecked Sendable {
    /// The model classes, those given first, then the ones they relate to.
    let types: [any PersistentModel.Type]
    /// The schema's version (from a `VersionedSchema`, else 1.0.0).
    public let version: Version
    /// The Core Data model: made once, never changed after.
    let managedObjectModel: NSManagedObjectModel
    /// The model class of each entity name.
    private let typesByEntity: [String: any PersistentModel.Type]

    /// A schema of `types` and the classes they relate to.
    public init(_ types: [any PersistentModel.Type], version: Version = Version(1, 0, 0)) {
        let all = Schema.closure(of: types)
        self.types = all
        self.version = version
        typesByEntity = Dictionary(all.map { (Schema.entityName(of: $0), $0) }, uniquingKeysWith: { first, _ in first })
        managedObjectModel = SchemaBuilder(types: all).model()
    }

    /// A schema of `types` and the classes they relate to.
    public convenience init(_ types: any PersistentModel.Type..., version: Version = Version(1, 0, 0)) {
        self.init(types, version: version)
    }

    /// The names of the schema's entities, sorted.
    public var entityNames: [String] { typesByEntity.keys.sorted() }

    /// The model class of an entity.
    func type(ofEntity name: String?) -> (any PersistentModel.Type)? { name.flatMap { typesByEntity[$0] } }

    /// The entity of a model class.
    func entity(for type: any PersistentModel.Type) -> NSEntityDescription? {
        managedObjectModel.entitiesByName[Schema.entityName(of: type)]
    }

    /// The entity name of a model class: the class's name.
    static func entityName(of type: Any.Type) -> String {
        String(describing: type)
    }

    /// `types` and every class they relate to, each once, in the order met.
    private static func closure(of types: [any PersistentModel.Type]) -> [any PersistentModel.Type] {
        var result: [any PersistentModel.Type] = []
        var seen: Set<ObjectIdentifier> = []
        var pending = types
        while !pending.isEmpty {
            let type = pending.removeFirst()
            guard seen.insert(ObjectIdentifier(type)).inserted else { continue }
            result.append(type)
            pending += type.schemaMetadata.compactMap { ModelPropertyType($0.valueType).destination }
        }
        return result
    }

    /// A schema's version: major, minor, patch.
    public struct Version: Hashable, Comparable, Sendable, CustomStringConvertible {
        /// The major version.
        public let major: Int
        /// The minor version.
        public let minor: Int
        /// The patch version.
        public let patch: Int

        /// A version `major.minor.patch`.
        public init(_ major: Int, _ minor: Int, _ patch: Int) {
            self.major = major
            self.minor = minor
            self.patch = patch
        }

        /// Compares major, then minor, then patch.
        public static func < (lhs: Version, rhs: Version) -> Bool {
            (lhs.major, lhs.minor, lhs.patch) < (rhs.major, rhs.minor, rhs.patch)
        }

        /// `"1.0.0"`.
        public var description: String { "\(major).\(minor).\(patch)" }
    }

    /// A persisted property of a model class, as `@Model` describes it in `schemaMetadata`.
    public struct PropertyMetadata {
        /// The property's name: its attribute's or relationship's name.
        public let name: String
        /// The key path of the property.
        public let keypath: AnyKeyPath
        /// The property's default value, if it has one.
        public let defaultValue: Any?
        /// The property's `Schema.Attribute` or `Schema.Relationship` options, if it has any.
        public let metadata: Any?

        /// Describes a persisted property (what `@Model` writes).
        public init(name: String, keypath: AnyKeyPath, defaultValue: Any?, metadata: Any?) {
            self.name = name
            self.keypath = keypath
            self.defaultValue = defaultValue
            self.metadata = metadata
        }

        /// The property's type.
        var valueType: Any.Type { Swift.type(of: keypath).valueType }
    }

    /// The options of a persisted attribute (`@Attribute(.unique)`).
    public struct Attribute: Sendable {
        /// An option of an attribute.
        public struct Option: Hashable, Sendable {
            let name: String
            /// Each model has a different value: inserting a model with the value of a stored
            /// one updates that one (an upsert), as on Apple.
            public static let unique = Option(name: "unique")
            /// Large values may be kept outside the store's table.
            public static let externalStorage = Option(name: "externalStorage")
            /// Kept only in memory: not stored.
            public static let ephemeral = Option(name: "ephemeral")
            /// Accepted; no effect here (Spotlight indexing).
            public static let spotlight = Option(name: "spotlight")
            /// Accepted; no effect here (CloudKit encryption).
            public static let allowsCloudEncryption = Option(name: "allowsCloudEncryption")
            /// Accepted; no effect here (history tombstones).
            public static let preserveValueOnDeletion = Option(name: "preserveValueOnDeletion")
        }

        /// The attribute's options.
        public let options: [Option]
        /// The attribute's name in the previous version of the schema (a rename).
        public let originalName: String?

        /// Options of an attribute (what `@Attribute(…)` gives).
        public init(_ options: Option..., originalName: String? = nil, hashModifier: String? = nil) {
            self.options = options
            self.originalName = originalName
        }
    }

    /// The options of a relationship (`@Relationship(deleteRule: .cascade)`).
    public struct Relationship: @unchecked Sendable {
        /// What deleting a model does to the models it relates to.
        public enum DeleteRule: Hashable, Sendable {
            /// Deletes them too.
            case cascade
            /// Refuses the deletion while any is left.
            case deny
            /// Leaves them alone.
            case noAction
            /// Removes the deleted model from their inverse relationship. **Default.**
            case nullify
        }

        /// An option of a relationship.
        public struct Option: Hashable, Sendable {
            let name: String
            /// Accepted; no effect here.
            public static let unique = Option(name: "unique")
        }

        /// The delete rule. **Default:** `.nullify`.
        public let deleteRule: DeleteRule
        /// The inverse relationship's key path, if given.
        public let inverse: AnyKeyPath?
        /// The fewest related models (0: no minimum).
        public let minimumModelCount: Int
        /// The most related models (0: no maximum).
        public let maximumModelCount: Int
        /// The relationship's name in the previous version of the schema (a rename).
        public let originalName: String?

        /// Options of a relationship (what `@Relationship(…)` gives).
        public init(
            _ options: Option..., deleteRule: DeleteRule = .nullify, minimumModelCount: Int? = 0,
            maximumModelCount: Int? = 0, originalName: String? = nil, inverse: AnyKeyPath? = nil, hashModifier: String? = nil
        ) {
            self.deleteRule = deleteRule
            self.inverse = inverse
            self.minimumModelCount = minimumModelCount ?? 0
            self.maximumModelCount = maximumModelCount ?? 0
            self.originalName = originalName
        }
    }
}

/// What a persisted property's Swift type is in the schema.
struct ModelPropertyType {
    /// The type without its optional.
    let wrapped: Any.Type
    let isOptional: Bool

    init(_ type: Any.Type) {
        let wrappedType = (type as? any OptionalValue.Type)?.wrappedType
        wrapped = wrappedType ?? type
        isOptional = wrappedType != nil
    }

    /// The destination of a relationship (`Item`, `Item?`, `[Item]`).
    var destination: (any PersistentModel.Type)? {
        (wrapped as? any PersistentModel.Type) ?? (wrapped as? any ModelArray.Type)?.modelType
    }

    var isToMany: Bool { (wrapped as? any ModelArray.Type)?.modelType != nil }

    /// The attribute type of an attribute's Swift type: the type itself, an enum's raw value's
    /// type, binary data (its JSON) for other `Codable` types, other integer widths included.
    var attributeType: NSAttributeType {
        Self.attributeType(of: wrapped)
    }

    private static func attributeType(of type: Any.Type) -> NSAttributeType {
        if let stored = type as? any StoredAttributeValue.Type { return stored.attributeType }
        if let raw = type as? any RawRepresentable.Type { return attributeType(of: rawValueType(raw)) }
        return .binaryDataAttributeType
    }

    private static func rawValueType<R: RawRepresentable>(_ type: R.Type) -> Any.Type { R.RawValue.self }
}

/// Makes the Core Data model of a schema's classes.
private struct SchemaBuilder {
    let types: [any PersistentModel.Type]

    func model() -> NSManagedObjectModel {
        var entities: [String: NSEntityDescription] = [:]
        for type in types {
            let entity = NSEntityDescription()
            entity.name = Schema.entityName(of: type)
            entities[entity.name ?? ""] = entity
        }
        // Relationships by (entity, name), to set inverses once all exist.
        var relationships: [(type: any PersistentModel.Type, metadata: Schema.PropertyMetadata, NSRelationshipDescription)] = []
        for type in types {
            guard let entity = entities[Schema.entityName(of: type)] else { continue }
            var properties: [NSPropertyDescription] = []
            var unique: [[Any]] = []
            for property in type.schemaMetadata {
                let kind = ModelPropertyType(property.valueType)
                if let destination = kind.destination {
                    let relationship = NSRelationshipDescription()
                    relationship.name = property.name
                    relationship.destinationEntity = entities[Schema.entityName(of: destination)]
                    relationship.isOptional = kind.isOptional || kind.isToMany
                    let options = property.metadata as? Schema.Relationship
                    relationship.minCount = options?.minimumModelCount ?? 0
                    relationship.maxCount = kind.isToMany ? (options?.maximumModelCount ?? 0) : 1
                    relationship.deleteRule = Self.deleteRule(options?.deleteRule ?? .nullify)
                    relationship.renamingIdentifier = options?.originalName
                    properties.append(relationship)
                    relationships.append((type, property, relationship))
                } else {
                    let attribute = NSAttributeDescription()
                    attribute.name = property.name
                    attribute.attributeType = kind.attributeType
                    attribute.isOptional = kind.isOptional
                    let options = property.metadata as? Schema.Attribute
                    attribute.renamingIdentifier = options?.originalName
                    if options?.options.contains(.externalStorage) == true { attribute.allowsExternalBinaryDataStorage = true }
                    if options?.options.contains(.ephemeral) == true { attribute.isTransient = true }
                    if options?.options.contains(.unique) == true { unique.append([property.name]) }
                    if let defaultValue = property.defaultValue, let stored = ModelValues.stored(defaultValue, in: nil),
                        !(stored is NSManagedObject)
                    {
                        attribute.defaultValue = stored
                    }
                    properties.append(attribute)
                }
            }
            entity.properties = properties
            let names = { (keyPaths: [AnyKeyPath]) in keyPaths.compactMap { ModelKeyPaths.name(of: $0, in: type) } }
            entity.uniquenessConstraints =
                unique + type._uniquenessConstraints.map(names).filter { !$0.isEmpty }.map { $0 as [Any] }
            entity.indexes = type._indexKeyPaths.map(names).filter { !$0.isEmpty }.map { keys in
                NSFetchIndexDescription(
                    name: "\(entity.name ?? "")_" + keys.joined(separator: "_"),
                    elements: keys.compactMap { entity.propertiesByName[$0] }.map {
                        NSFetchIndexElementDescription(property: $0, collationType: .binary)
                    })
            }
        }
        setInverses(relationships)
        let model = NSManagedObjectModel()
        model.entities = types.compactMap { entities[Schema.entityName(of: $0)] }
        return model
    }

    /// Each relationship's inverse: the one `@Relationship(inverse:)` names (on either side),
    /// else the one relationship of the destination back to the source, when there is exactly
    /// one without an inverse of its own.
    private func setInverses(
        _ relationships: [(type: any PersistentModel.Type, metadata: Schema.PropertyMetadata, NSRelationshipDescription)]
    ) {
        for (type, metadata, relationship) in relationships {
            guard let inverseKeyPath = (metadata.metadata as? Schema.Relationship)?.inverse,
                let destination = ModelPropertyType(metadata.valueType).destination,
                let inverseName = ModelKeyPaths.name(of: inverseKeyPath, in: destination),
                let inverse = relationship.destinationEntity?.relationshipsByName[inverseName]
            else { continue }
            _ = type
            relationship.inverseRelationship = inverse
            inverse.inverseRelationship = relationship
        }
        for (_, _, relationship) in relationships where relationship.inverseRelationship == nil {
            guard let source = relationship.entity.name, let destination = relationship.destinationEntity else { continue }
            let candidates = destination.relationshipsByName.values.filter {
                $0.destinationEntity?.name == source && $0.inverseRelationship == nil && $0 !== relationship
            }
            guard candidates.count == 1, let inverse = candidates.first else { continue }
            relationship.inverseRelationship = inverse
            inverse.inverseRelationship = relationship
        }
    }

    private static func deleteRule(_ rule: Schema.Relationship.DeleteRule) -> NSDeleteRule {
        switch rule {
        case .cascade: .cascadeDeleteRule
        case .deny: .denyDeleteRule
        case .noAction: .noActionDeleteRule
        case .nullify: .nullifyDeleteRule
        }
    }
}

/// The names of models' key paths, from their `schemaMetadata`.
enum ModelKeyPaths {
    private static let lock = NSLock()
    // Read and written under `lock` only.
    nonisolated(unsafe) private static var names: [ObjectIdentifier: [AnyKeyPath: String]] = [:]

    /// The name of a key path of one property of a model class; nil for others.
    static func name(of keyPath: AnyKeyPath) -> String? {
        guard let model = Swift.type(of: keyPath).rootType as? any PersistentModel.Type else { return nil }
        return name(of: keyPath, in: model)
    }

    /// The name of a key path of one persisted property of `type`; "" (the object itself) for
    /// `persistentModelID`.
    static func name(of keyPath: AnyKeyPath, in type: any PersistentModel.Type) -> String? {
        lock.lock()
        defer { lock.unlock() }
        if let known = names[ObjectIdentifier(type)] { return known[keyPath] }
        var known = Dictionary(type.schemaMetadata.map { ($0.keypath, $0.name) }, uniquingKeysWith: { first, _ in first })
        known[identifierKeyPath(of: type)] = ""
        names[ObjectIdentifier(type)] = known
        return known[keyPath]
    }

    private static func identifierKeyPath<T: PersistentModel>(of type: T.Type) -> AnyKeyPath { \T.persistentModelID }

    /// A value a predicate captured, as its converted predicate's argument: an identifier as its
    /// object ID, a model as its managed object, an enum as its raw value (as stored), arrays of
    /// these element by element.
    static func argument(_ value: Any) -> Any {
        switch value {
        case let id as PersistentIdentifier: return id.objectID ?? value
        case let model as any PersistentModel: return model.persistentBackingData.object ?? value
        case is any StoredAttributeValue: return value
        case let raw as any RawRepresentable: return raw.rawValue
        case let array as [Any]: return array.map(argument)
        default: return value
        }
    }
}
