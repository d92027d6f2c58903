extension NSManagedObject {
    /// Whether a save sends every property of this class's objects through
    /// `validateValue(_:forKey:)`: whether the class overrides it (see `ValidationOverride`).
    package static var testingValidatesEveryProperty: Bool { ValidationOverride.isOverridden(by: self) }
}
