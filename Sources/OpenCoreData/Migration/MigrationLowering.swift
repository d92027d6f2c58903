import OpenPredicate
import OpenStoreCore

/// Lowers a mapping model into the `StoreMigration` a SQL store carries out in place.
enum MigrationLowering {
    /// The store migration of an inferred mapping; nil when the mapping has custom parts (a
    /// policy class, expressions of its own), which only objects can carry out.
    /// - Throws: `NSMigrationError` when a default value does not fit its attribute.
    static func storeMigration(
        _ mapping: NSMappingModel, source: NSManagedObjectModel, destination: NSManagedObjectModel
    ) throws -> StoreMigration? {
        guard mapping.isInferred else { return nil }
        let sourceSchema = SchemaLowering.schema(for: source)
        let destinationSchema = SchemaLowering.schema(for: destination)
        var byDestination: [String: NSEntityMapping] = [:]
        for entityMapping in mapping.entityMappings ?? [] {
            if let name = entityMapping.destinationEntityName, entityMapping.mappingType != .removeEntityMappingType {
                byDestination[name] = entityMapping
            }
        }
        let entities = try destinationSchema.entities.map { entity -> StoreMigration.Entity in
            let description = destination.entitiesByName[entity.name]
            guard let entityMapping = byDestination[entity.name], entityMapping.mappingType != .addEntityMappingType,
                let sourceName = entityMapping.sourceEntityName, let sourceEntity = sourceSchema.entity(named: sourceName)
            else {
                return StoreMigration.Entity(sourceID: nil, values: Array(repeating: .none, count: entity.properties.count))
            }
            let values = try entity.properties.map { property -> StoreMigration.Value in
                guard !property.isTransient, let propertyMapping = entityMapping.propertyMapping(named: property.name) else {
                    return .none
                }
                let attribute = description?.propertiesByName[property.name] as? NSAttributeDescription
                let sourceSlot = propertyMapping.inferredSourceName.flatMap { sourceEntity.slotsByName[$0] }
                switch property.kind {
                case .attribute(let kind):
                    let fallback = try defaultValue(of: attribute, kind: kind, entity: entity.name)
                    guard let sourceSlot, case .attribute(let sourceKind) = sourceEntity.properties[sourceSlot].kind else {
                        return fallback.map(StoreMigration.Value.constant) ?? .none
                    }
                    return .attribute(slot: sourceSlot, kind: sourceKind, fallback: property.isOptional ? nil : fallback)
                case .toOne, .toMany:
                    return sourceSlot.map(StoreMigration.Value.relationship) ?? .none
                }
            }
            return StoreMigration.Entity(sourceID: sourceEntity.id, values: values)
        }
        return StoreMigration(source: sourceSchema, destination: destinationSchema, entities: entities)
    }

    /// An attribute's default value as a stored value; nil when it has none.
    private static func defaultValue(of attribute: NSAttributeDescription?, kind: AttributeKind, entity: String) throws
        -> StoreValue?
    {
        guard let attribute, let value = attribute.defaultValue else { return nil }
        do {
            let stored = try StoreValue(value, kind: kind, property: attribute.name)
            return stored == .null ? nil : stored
        } catch {
            throw CoreDataError.make(
                code: NSMigrationError,
                reason: "Can't migrate to the default value of \(entity).\(attribute.name): \(error.localizedDescription)",
                userInfo: ["entity": entity, "property": attribute.name])
        }
    }
}
