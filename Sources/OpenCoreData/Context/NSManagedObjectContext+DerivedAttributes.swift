import OpenPredicate

extension NSManagedObjectContext {
    /// Computes the derived attributes (`NSDerivedAttributeDescription`) of objects about to be
    /// saved to the stores, from their current values: `pages.@count`, `book.title`,
    /// `lowercase:(name)`, `now()`. The value is stored as the object's own, without counting as
    /// a change, and written with the row.
    ///
    /// In a store Apple's Core Data created, the file's triggers compute the same values as the
    /// rows change, and saves leave those columns to them (`SQLiteStoreFile.triggerKeptColumns`).
    ///
    /// Saved objects whose derived attributes read a relationship of an object being saved
    /// (`book.title` of the pages of a renamed book, `pages.@sum.number` of the book of a
    /// renumbered page) are computed again too, through the relationship's inverse, and saved
    /// when their value changes, as Apple's triggers update them in the file. Only the first step
    /// of a key path counts (a change two relationships away is not followed), and a relationship
    /// without an inverse is not followed back.
    ///
    /// - Throws: `NSManagedObjectValidationError` naming the entity, the attribute and the
    ///   expression when the expression cannot be evaluated on the object, or reads a key path
    ///   the entity does not have (`DerivationCheck`).
    ///
    /// A model with no derived attribute costs a save nothing here: its objects are not looked at.
    func updateDerivedAttributes(inserted: [NSManagedObject], updated: [NSManagedObject]) throws {
        guard let model = persistentStoreCoordinator?.managedObjectModel,
            model.entities.contains(where: { entity in entity.properties.contains { $0 is NSDerivedAttributeDescription } })
        else { return }
        let objects = inserted + updated
        try computeDerivedAttributes(of: objects, markingChanges: false)
        let dependents = derivedDependents(of: objects)
        if !dependents.isEmpty { try computeDerivedAttributes(of: dependents, markingChanges: true) }
    }

    /// The saved objects, not among `objects`, whose derived attributes read a relationship
    /// whose inverse reaches them from one of `objects`.
    private func derivedDependents(of objects: [NSManagedObject]) -> [NSManagedObject] {
        guard let model = persistentStoreCoordinator?.managedObjectModel else { return [] }
        // For each entity that derived attributes reach through a relationship: the inverse
        // relationships that lead back to the objects holding them.
        var inverses: [ObjectIdentifier: Set<String>] = [:]
        for entity in model.entities {
            for case let derived as NSDerivedAttributeDescription in entity.properties {
                for first in Self.firstKeys(of: derived.derivationExpression) {
                    guard let relationship = entity.relationshipsByName[first], let inverse = relationship.inverseRelationship,
                        let destination = relationship.destinationEntity
                    else { continue }
                    for reached in Self.entityAndSubentities(destination) {
                        inverses[ObjectIdentifier(reached), default: []].insert(inverse.name)
                    }
                }
            }
        }
        guard !inverses.isEmpty else { return [] }
        var seen = Set(objects.map(ObjectIdentifier.init))
        var dependents: [NSManagedObject] = []
        for object in objects {
            for name in inverses[ObjectIdentifier(object.entity)] ?? [] {
                let value = object.value(forKey: name)
                let reached: [NSManagedObject] =
                    (value as? NSManagedObject).map { [$0] } ?? (value as? Set<NSManagedObject>).map(Array.init)
                    ?? ((value as? NSOrderedSet)?.array as? [NSManagedObject]) ?? []
                for dependent in reached
                where !dependent.isDeleted && !dependent.isInserted && dependent.managedObjectContext === self {
                    if seen.insert(ObjectIdentifier(dependent)).inserted { dependents.append(dependent) }
                }
            }
        }
        return dependents
    }

    /// The first key of each key path an expression reads (`book` of `book.title`).
    private static func firstKeys(of expression: NSExpression?) -> [String] {
        guard let expression else { return [] }
        switch expression.expressionType {
        case .keyPath:
            return expression.keyPath.split(separator: ".").first.map { [String($0)] } ?? []
        case .function:
            return (expression.arguments ?? []).flatMap { firstKeys(of: $0) }
        default:
            return []
        }
    }

    private static func entityAndSubentities(_ entity: NSEntityDescription) -> [NSEntityDescription] {
        [entity] + entity.subentities.flatMap(entityAndSubentities)
    }

    /// Fails, before any value is computed, when a derivation reads a key path the entity does
    /// not have (a model built in code; a model file with one is refused when it loads): reading
    /// it from the object would raise `NSUnknownKeyException` and stop the process.
    private static func checkDerivations(_ derivedAttributes: [NSDerivedAttributeDescription], of object: NSManagedObject)
        throws
    {
        for derived in derivedAttributes {
            guard let problem = DerivationCheck.problem(of: derived, in: object.entity) else { continue }
            throw CoreDataError.make(
                code: NSManagedObjectValidationError,
                reason: "Can't compute the derived attribute \(object.entity.name ?? "").\(derived.name) from "
                    + "\(derived.derivationExpression.map { "\($0)" } ?? ""): \(problem)",
                userInfo: ["NSValidationErrorKey": derived.name, "NSValidationErrorObject": object])
        }
    }

    /// Computes the derived attributes of `objects`; with `markingChanges`, an object whose
    /// derived value changes counts as changed, so that the save writes it.
    private func computeDerivedAttributes(of objects: [NSManagedObject], markingChanges: Bool) throws {
        // Each entity's derived attributes, looked up once per save (most entities have none).
        var derivedByEntity: [ObjectIdentifier: [NSDerivedAttributeDescription]] = [:]
        for object in objects {
            let entityKey = ObjectIdentifier(object.entity)
            let derivedAttributes: [NSDerivedAttributeDescription]
            if let known = derivedByEntity[entityKey] {
                derivedAttributes = known
            } else {
                derivedAttributes = object.entity.properties.compactMap { $0 as? NSDerivedAttributeDescription }
                try Self.checkDerivations(derivedAttributes, of: object)
                derivedByEntity[entityKey] = derivedAttributes
            }
            for derived in derivedAttributes {
                guard let expression = derived.derivationExpression else { continue }
                let value: Any?
                do {
                    value = try expression.expressionValue(validating: object, context: nil)
                } catch {
                    throw CoreDataError.make(
                        code: NSManagedObjectValidationError,
                        reason: "Can't compute the derived attribute \(object.entity.name ?? "").\(derived.name) from "
                            + "\(expression): \(error.localizedDescription)",
                        userInfo: ["NSValidationErrorKey": derived.name, "NSValidationErrorObject": object])
                }
                let computed = value.flatMap { ValueSemantics.isNSNull($0) ? nil : $0 }
                if markingChanges {
                    let current = object.values[derived.name]
                    guard !ValueSemantics.isEqual(current, computed) else { continue }
                    object.values[derived.name] = computed
                    object.noteChangedKey(derived.name)
                    objectDidChange(object)
                } else {
                    object.values[derived.name] = computed
                }
            }
        }
    }
}
