import CoreData

// Builders of models in code, written with Apple's API only: what Xcode's model editor would
// make, one property or entity a call. Each sets only what its arguments change from Apple's
// defaults (optional, not transient, no default value, Nullify, no minimum or maximum).

/// An attribute of `type`.
///
/// ```swift
/// entity.properties = [attribute("name", .stringAttributeType, optional: false), attribute("born", .dateAttributeType)]
/// ```
/// - Parameters:
///   - optional: `isOptional` (Apple's default: true).
///   - transient: `isTransient`.
///   - defaultValue: `defaultValue`.
///   - transformer: `valueTransformerName` (a transformable attribute's).
///   - preservedOnDeletion: `preservesValueInHistoryOnDeletion`.
///   - renamedFrom: `renamingIdentifier` (the name in the model version before).
public func attribute(
    _ name: String, _ type: NSAttributeType, optional: Bool = true, transient: Bool = false,
    default defaultValue: Any? = nil, transformer: String? = nil, preservedOnDeletion: Bool = false,
    renamedFrom: String? = nil
) -> NSAttributeDescription {
    let attribute = NSAttributeDescription()
    attribute.name = name
    attribute.attributeType = type
    if !optional { attribute.isOptional = false }
    if transient { attribute.isTransient = true }
    if let defaultValue { attribute.defaultValue = defaultValue }
    if let transformer { attribute.valueTransformerName = transformer }
    if preservedOnDeletion { attribute.preservesValueInHistoryOnDeletion = true }
    if let renamedFrom { attribute.renamingIdentifier = renamedFrom }
    return attribute
}

/// An attribute of `type`, given as the Swift `NSAttributeDescription.AttributeType` (set through
/// `type`, as apps written for iOS 15 and later set it).
///
/// ```swift
/// entry.properties = [attribute("title", type: .string), attribute("note", type: .string, optional: true)]
/// ```
public func attribute(_ name: String, type: NSAttributeDescription.AttributeType, optional: Bool = true)
    -> NSAttributeDescription
{
    let attribute = NSAttributeDescription()
    attribute.name = name
    attribute.type = type
    if !optional { attribute.isOptional = false }
    return attribute
}

/// A relationship to `destination`: to-one with `maxCount` 1, to-many with 0 (no maximum) or more.
///
/// ```swift
/// let employees = relationship("employees", to: employee, maxCount: 0, deleteRule: .cascadeDeleteRule)
/// inverses(employees, relationship("department", to: department, maxCount: 1))
/// ```
public func relationship(
    _ name: String, to destination: NSEntityDescription, minCount: Int = 0, maxCount: Int, optional: Bool = true,
    ordered: Bool = false, deleteRule: NSDeleteRule = .nullifyDeleteRule
) -> NSRelationshipDescription {
    let relationship = NSRelationshipDescription()
    relationship.name = name
    relationship.destinationEntity = destination
    if minCount != 0 { relationship.minCount = minCount }
    relationship.maxCount = maxCount
    if !optional { relationship.isOptional = false }
    if ordered { relationship.isOrdered = true }
    if deleteRule != .nullifyDeleteRule { relationship.deleteRule = deleteRule }
    return relationship
}

/// Makes `first` and `second` each other's inverse.
public func inverses(_ first: NSRelationshipDescription, _ second: NSRelationshipDescription) {
    first.inverseRelationship = second
    second.inverseRelationship = first
}

/// An entity whose class is named as the entity (as Xcode writes it), with `properties`.
///
/// ```swift
/// let owner = entity("Owner", properties: [attribute("name", .stringAttributeType)])
/// ```
public func entity(_ name: String, properties: [NSPropertyDescription] = [], abstract: Bool = false)
    -> NSEntityDescription
{
    let entity = NSEntityDescription()
    entity.name = name
    entity.managedObjectClassName = name
    if abstract { entity.isAbstract = true }
    if !properties.isEmpty { entity.properties = properties }
    return entity
}
