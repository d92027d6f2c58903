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
