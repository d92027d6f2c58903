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
        for object in objects {
            for case let derived as NSDerivedAttributeDescription in object.entity.properties {
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
                if let value, !(value is NSNull) {
                    object.values[derived.name] = value
                } else {
                    object.values[derived.name] = nil
                }
            }
        }
    }
}
