import OpenPredicate

/// How the objects of one model version become objects of another: one entity mapping per
/// destination entity (and one per removed source entity).
///
/// ```swift
/// let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: v1, destinationModel: v2)
/// for entityMapping in mapping.entityMappings {
///     print(entityMapping.name!, entityMapping.mappingType)   // "PostToPost" transformEntityMappingType …
/// }
/// ```
///
/// See [NSMappingModel](https://developer.apple.com/documentation/coredata/nsmappingmodel).
open class NSMappingModel: NSObject {
    /// The entity mappings, in the order the migration runs them. **Default:** empty.
    // swift-format-ignore: NeverUseImplicitlyUnwrappedOptionals
    open var entityMappings: [NSEntityMapping]! = []

    /// The entity mappings by name.
    open var entityMappingsByName: [String: NSEntityMapping] {
        var byName: [String: NSEntityMapping] = [:]
        for mapping in entityMappings ?? [] {
            if let name = mapping.name, byName[name] == nil { byName[name] = mapping }
        }
        return byName
    }

    /// True for a mapping `inferredMappingModel(forSourceModel:destinationModel:)` made and
    /// nobody changed since: a SQL store then migrates in place, with SQL alone.
    var isInferred: Bool {
        (entityMappings ?? []).allSatisfy { mapping in
            mapping.inferred && mapping.entityMigrationPolicyClassName == nil
                && (mapping.attributeMappings ?? []).allSatisfy(\.isInferred)
                && (mapping.relationshipMappings ?? []).allSatisfy(\.isInferred)
        }
    }

    /// Creates an empty mapping model.
    public override init() {
        super.init()
    }

    /// The mapping model from `sourceModel` to `destinationModel` found in `bundles`; nil when
    /// there is none.
    ///
    /// **Differences from Apple:** Apple's loads the compiled mapping models (`.cdm`) Xcode
    /// makes from `.xcmappingmodel` files; Linux has no mapping model compiler and their format
    /// is not read here, so this finds none and returns nil. Build custom mappings in code, or
    /// let migration infer them.
    /// See [init(from:forSourceModel:destinationModel:)](https://developer.apple.com/documentation/coredata/nsmappingmodel/init(from:forsourcemodel:destinationmodel:)).
    ///
    /// - Parameters:
    ///   - bundles: The bundles to search; nil for the main bundle.
    ///   - sourceModel: The model of the store to migrate.
    ///   - destinationModel: The model to migrate to.
    public init?(
        from bundles: [Bundle]?, forSourceModel sourceModel: NSManagedObjectModel?,
        destinationModel: NSManagedObjectModel?
    ) {
        return nil
    }

    open override var description: String {
        "<NSMappingModel: \((entityMappings ?? []).compactMap(\.name).joined(separator: ", "))>"
    }
}

/// What an entity mapping does (`NSEntityMapping.mappingType`).
///
/// See [NSEntityMappingType](https://developer.apple.com/documentation/coredata/nsentitymappingtype).
public enum NSEntityMappingType: UInt, Sendable {
    /// Not yet set.
    case undefinedEntityMappingType = 0
    /// A custom mapping (its policy or expressions do the work).
    case customEntityMappingType = 1
    /// A new entity: no source objects.
    case addEntityMappingType = 2
    /// A removed entity: its objects are not migrated.
    case removeEntityMappingType = 3
    /// An unchanged entity: its objects are copied.
    case copyEntityMappingType = 4
    /// A changed entity: its objects are copied with their property mappings.
    case transformEntityMappingType = 5
}

/// How the objects of one source entity become objects of one destination entity.
///
/// See [NSEntityMapping](https://developer.apple.com/documentation/coredata/nsentitymapping).
open class NSEntityMapping: NSObject {
    /// The mapping's name (inferred ones are `<Source>To<Destination>`, `Add<Destination>` or
    /// `Remove<Source>`, as Apple names them). **Default:** nil.
    // swift-format-ignore: NeverUseImplicitlyUnwrappedOptionals
    open var name: String!
    /// What the mapping does. **Default:** `.undefinedEntityMappingType`.
    open var mappingType: NSEntityMappingType = .undefinedEntityMappingType {
        didSet { inferred = false }
    }
    /// The source entity's name; nil for an added entity. **Default:** nil.
    open var sourceEntityName: String?
    /// The source entity's version hash. **Default:** nil.
    open var sourceEntityVersionHash: Data?
    /// The destination entity's name; nil for a removed entity. **Default:** nil.
    open var destinationEntityName: String?
    /// The destination entity's version hash. **Default:** nil.
    open var destinationEntityVersionHash: Data?
    /// How each destination attribute gets its value. **Default:** nil.
    open var attributeMappings: [NSPropertyMapping]?
    /// How each destination relationship gets its members. **Default:** nil.
    open var relationshipMappings: [NSPropertyMapping]?
    /// The expression that fetches the source objects (inferred ones fetch every object of the
    /// source entity, sub-entities excluded). **Default:** nil.
    open var sourceExpression: NSExpression?
    /// The name of the `NSEntityMigrationPolicy` subclass that migrates the objects; nil for
    /// `NSEntityMigrationPolicy` itself. **Default:** nil.
    ///
    /// **Differences from Apple:** Swift classes are found by their module-qualified name
    /// (`"App.PostPolicy"`) or by their plain name when registered with
    /// `NSEntityMigrationPolicy.register(_:)`.
    open var entityMigrationPolicyClassName: String? {
        didSet { inferred = false }
    }
    /// Anything the app wants to keep with the mapping. **Default:** nil.
    open var userInfo: [AnyHashable: Any]?

    /// True while the mapping is as inference made it.
    var inferred = false

    /// Creates an empty entity mapping.
    public override init() {
        super.init()
    }

    /// The attribute or relationship mapping of a destination property, by name.
    func propertyMapping(named name: String) -> NSPropertyMapping? {
        (attributeMappings ?? []).first { $0.name == name } ?? (relationshipMappings ?? []).first { $0.name == name }
    }

    open override var description: String {
        "<NSEntityMapping: \(name ?? "") (\(sourceEntityName ?? "nil") → \(destinationEntityName ?? "nil"), \(mappingType))>"
    }
}

/// How one destination property gets its value: an expression evaluated with `$source` (the
/// source object), `$manager` (the migration manager) and `$entityPolicy` (the policy).
///
/// See [NSPropertyMapping](https://developer.apple.com/documentation/coredata/nspropertymapping).
open class NSPropertyMapping: NSObject {
    /// The destination property's name. **Default:** nil.
    open var name: String?
    /// The value's expression; nil leaves the property empty. Inferred attribute mappings are
    /// `FUNCTION($source, "valueForKey:", "<source name>")`; inferred relationship mappings
    /// `FUNCTION($manager, "destinationInstancesForSourceRelationshipNamed:sourceInstances:",
    /// "<source name>", $source.<source name>)`, as Apple writes them. **Default:** nil.
    open var valueExpression: NSExpression? {
        didSet { inferredSourceName = nil }
    }
    /// Anything the app wants to keep with the mapping. **Default:** nil.
    open var userInfo: [AnyHashable: Any]?

    /// The source property an inferred mapping reads (nil once `valueExpression` is changed).
    var inferredSourceName: String?

    var isInferred: Bool { inferredSourceName != nil || (valueExpression == nil && inferredEmpty) }
    /// True for an inferred mapping of a property with no source (a new property).
    var inferredEmpty = false

    /// Creates an empty property mapping.
    public override init() {
        super.init()
    }

    open override var description: String {
        "<NSPropertyMapping: \(name ?? "") = \(valueExpression.map { "\($0)" } ?? "nil")>"
    }
}
