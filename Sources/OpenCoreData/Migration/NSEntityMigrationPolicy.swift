import OpenPredicate
import OpenStoreCore

/// The variable names a mapping's expressions read (`$manager`, `$source`, …), as Apple names
/// them.
///
/// See [NSMigrationManagerKey](https://developer.apple.com/documentation/coredata/nsmigrationmanagerkey).
public let NSMigrationManagerKey = "manager"
/// The variable of the source object (`$source`).
public let NSMigrationSourceObjectKey = "source"
/// The variable of the destination object (`$destination`), while relationships are made.
public let NSMigrationDestinationObjectKey = "destination"
/// The variable of the entity mapping being carried out (`$entityMapping`).
public let NSMigrationEntityMappingKey = "entityMapping"
/// The variable of the property mapping being evaluated (`$propertyMapping`).
public let NSMigrationPropertyMappingKey = "propertyMapping"
/// The variable of the entity migration policy (`$entityPolicy`).
public let NSMigrationEntityPolicyKey = "entityPolicy"

/// How the objects of one entity mapping are migrated. A migration calls, for each entity
/// mapping in order: `begin(_:with:)`, `createDestinationInstances(forSource:in:manager:)` for
/// each source object, `endInstanceCreation(forMapping:manager:)`; then, once every mapping has
/// made its objects, `createRelationships(forDestination:in:manager:)` for each destination
/// object and `endRelationshipCreation(forMapping:manager:)`; then
/// `performCustomValidation(forMapping:manager:)` and `end(_:manager:)`. Subclass it and name
/// the subclass in `NSEntityMapping.entityMigrationPolicyClassName` to change any step.
///
/// ```swift
/// final class PostPolicy: NSEntityMigrationPolicy {
///     override func createDestinationInstances(
///         forSource source: NSManagedObject, in mapping: NSEntityMapping, manager: NSMigrationManager
///     ) throws {
///         try super.createDestinationInstances(forSource: source, in: mapping, manager: manager)
///         let post = manager.destinationInstances(forEntityMappingName: mapping.name, sourceInstances: [source])[0]
///         let color = NSEntityDescription.insertNewObject(forEntityName: "Color", into: manager.destinationContext)
///         color.setValue(source.value(forKey: "hexColor"), forKey: "hex")
///         post.setValue(color, forKey: "color")
///     }
/// }
/// mapping.entityMigrationPolicyClassName = NSStringFromClass(PostPolicy.self)   // "App.PostPolicy"
/// ```
///
/// **Differences from Apple:** expressions can't call the policy's own methods
/// (`FUNCTION($entityPolicy, "myMethod:", …)`): Swift on Linux has no Objective-C messages.
/// Override the steps instead.
/// See [NSEntityMigrationPolicy](https://developer.apple.com/documentation/coredata/nsentitymigrationpolicy).
open class NSEntityMigrationPolicy: NSObject {
    /// Creates a policy; a migration makes one per entity mapping.
    public required override init() {
        super.init()
    }

    /// Called before the mapping's objects are made. **Default:** does nothing.
    open func begin(_ mapping: NSEntityMapping, with manager: NSMigrationManager) throws {}

    /// Makes the destination object of a source object: inserts an object of the mapping's
    /// destination entity into `manager.destinationContext`, sets each attribute mapping's value
    /// (its expression evaluated with `$source`, `$manager`, `$entityPolicy`; converted to the
    /// attribute's type), and associates the two (`manager.associate(sourceInstance:withDestinationInstance:for:)`).
    ///
    /// - Throws: `NSEntityMigrationPolicyError` when an expression fails or the mapping's
    ///   destination entity is not in the destination model.
    open func createDestinationInstances(
        forSource sInstance: NSManagedObject, in mapping: NSEntityMapping, manager: NSMigrationManager
    ) throws {
        guard let entity = manager.destinationEntity(for: mapping), let name = entity.name else {
            throw NSEntityMigrationPolicy.failure(
                "the entity mapping \(mapping.name ?? "") names no entity of the destination model", mapping: mapping)
        }
        let destination = NSEntityDescription.insertNewObject(forEntityName: name, into: manager.destinationContext)
        let variables = manager.expressionVariables(source: sInstance, destination: nil, mapping: mapping, policy: self)
        for propertyMapping in mapping.attributeMappings ?? [] {
            guard let key = propertyMapping.name, let expression = propertyMapping.valueExpression,
                let attribute = entity.attributesByName[key]
            else { continue }
            variables[NSMigrationPropertyMappingKey] = propertyMapping
            let value = try NSEntityMigrationPolicy.evaluate(expression, on: sInstance, variables: variables, mapping: mapping)
            destination.setValue(NSEntityMigrationPolicy.converted(value, to: attribute), forKey: key)
        }
        manager.associate(sourceInstance: sInstance, withDestinationInstance: destination, for: mapping)
    }

    /// Called after every object of the mapping is made. **Default:** does nothing.
    open func endInstanceCreation(forMapping mapping: NSEntityMapping, manager: NSMigrationManager) throws {}

    /// Sets a destination object's relationships: each relationship mapping's expression,
    /// evaluated with `$source` (the object's source object), `$destination`, `$manager` and
    /// `$entityPolicy`; a to-one takes the first object of the result, a to-many all of them.
    open func createRelationships(
        forDestination dInstance: NSManagedObject, in mapping: NSEntityMapping, manager: NSMigrationManager
    ) throws {
        guard let name = mapping.name,
            let source = manager.sourceInstances(forEntityMappingName: name, destinationInstances: [dInstance]).first
        else { return }
        let variables = manager.expressionVariables(source: source, destination: dInstance, mapping: mapping, policy: self)
        for propertyMapping in mapping.relationshipMappings ?? [] {
            guard let key = propertyMapping.name, let expression = propertyMapping.valueExpression,
                let relationship = dInstance.entity.relationshipsByName[key]
            else { continue }
            variables[NSMigrationPropertyMappingKey] = propertyMapping
            let value = try NSEntityMigrationPolicy.evaluate(expression, on: source, variables: variables, mapping: mapping)
            let members = NSMigrationManager.objects(in: value)
            if relationship.isToMany {
                dInstance.setValue(
                    relationship.isOrdered ? NSOrderedSet(array: members) as Any : NSSet(array: members) as Any, forKey: key)
            } else {
                dInstance.setValue(members.first, forKey: key)
            }
        }
    }

    /// Called after every destination object of the mapping has its relationships.
    /// **Default:** does nothing.
    open func endRelationshipCreation(forMapping mapping: NSEntityMapping, manager: NSMigrationManager) throws {}

    /// Called to check the migrated objects before they are saved. **Default:** does nothing
    /// (the save validates them).
    open func performCustomValidation(forMapping mapping: NSEntityMapping, manager: NSMigrationManager) throws {}

    /// Called when the mapping is done. **Default:** does nothing.
    open func end(_ mapping: NSEntityMapping, manager: NSMigrationManager) throws {}

    // MARK: - Helpers

    static func failure(_ reason: String, mapping: NSEntityMapping, underlying: Error? = nil) -> NSError {
        var info: [String: Any] = ["entityMapping": mapping.name ?? ""]
        if let underlying { info[NSUnderlyingErrorKey] = underlying }
        return CoreDataError.make(code: NSEntityMigrationPolicyError, reason: "Can't migrate: \(reason)", userInfo: info)
    }

    static func evaluate(
        _ expression: NSExpression, on object: NSManagedObject, variables: NSMutableDictionary, mapping: NSEntityMapping
    ) throws -> Any? {
        do {
            return try expression.expressionValue(validating: object, context: variables)
        } catch {
            throw failure(
                "the expression \(expression) of the mapping \(mapping.name ?? "") fails: \(error.localizedDescription)",
                mapping: mapping, underlying: error)
        }
    }

    /// A value converted to an attribute's type where the types differ (a number to a string, a
    /// double to an integer, …), as the store's migration converts it.
    static func converted(_ value: Any?, to attribute: NSAttributeDescription) -> Any? {
        guard let value, !(value is NSNull) else { return nil }
        let kind = SchemaLowering.attributeKind(attribute.attributeType)
        if let exact = try? StoreValue(value, kind: kind, property: attribute.name) { return exact.swiftValue(kind: kind) }
        return StoreValue(inferring: value)?.converted(to: kind).swiftValue(kind: kind) ?? value
    }
}
