extension NSManagedObject {
    /// Whether a save sends every property of this class's objects through
    /// `validateValue(_:forKey:)`: whether the class overrides it (see `MethodOverride`).
    package static var testingValidatesEveryProperty: Bool { MethodOverride.validateValue.isOverridden(by: self) }

    /// The save methods this class overrides (itself or a class between it and
    /// `NSManagedObject`), by name, as `MethodOverride` reads them from its vtable.
    package static var testingOverriddenSaveMethods: [String] {
        MethodOverride.named.filter { $0.method.isOverridden(by: self) }.map(\.name)
    }

    /// The save methods some class registered so far overrides, by name: a save calls the
    /// others on no object (see `MethodOverride`).
    package static var testingSaveMethodsOverriddenByAnyClass: [String] {
        MethodOverride.named.filter { $0.method.isOverriddenByAnyClass }.map(\.name)
    }
}

extension NSManagedObjectContext {
    /// Whether an object inserted since the last save (rollback, reset) has rules a save checks
    /// (see `insertsHaveRules`).
    package var testingInsertsHaveRules: Bool { insertsHaveRules }
}

extension NSManagedObjectContext {
    /// The name of the entity a save takes every inserted object to be of, none assigned a
    /// store or given a permanent ID (see `insertedEntity`); nil when it cannot.
    package var testingSoleInsertedEntity: String? { insertedEntity.sole?.name }

    /// Makes the next save take every inserted object to be of `entity`, whatever they are: a
    /// save must still give each object its own ID and row when one does not fit.
    package func testingClaimSoleInsertedEntity(_ entity: NSEntityDescription) { insertedEntity = .one(entity) }
}
