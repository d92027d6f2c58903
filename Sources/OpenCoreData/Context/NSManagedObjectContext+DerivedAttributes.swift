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
    /// - Throws: `NSManagedObjectValidationError` naming the entity, the attribute and the
    ///   expression when the expression cannot be evaluated on the object.
    func updateDerivedAttributes(of objects: [NSManagedObject]) throws {
        // Each entity's derived attributes, looked up once per save (most entities have none).
        var derivedByEntity: [ObjectIdentifier: [NSDerivedAttributeDescription]] = [:]
        for object in objects {
            let entityKey = ObjectIdentifier(object.entity)
            let derivedAttributes: [NSDerivedAttributeDescription]
            if let known = derivedByEntity[entityKey] {
                derivedAttributes = known
            } else {
                derivedAttributes = object.entity.properties.compactMap { $0 as? NSDerivedAttributeDescription }
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
                if let value, !ValueSemantics.isNSNull(value) {
                    object.values[derived.name] = value
                } else {
                    object.values[derived.name] = nil
                }
            }
        }
    }
}
