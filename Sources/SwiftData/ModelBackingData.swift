import Observation
import OpenCoreData
import OpenPredicate

/// Where a model's persisted values live: before the model is inserted, the values its
/// initializer gave; then the managed object of its context that holds them. What the
/// accessors `@Model` writes call. Not for use in your own code.
public final class _ModelBackingData {
    /// The values of a model not inserted yet, by property name.
    var values: [String: Any] = [:]
    /// The managed object holding the model's values, once inserted or fetched.
    private(set) var object: NSManagedObject?
    /// The context of `object`: a model keeps its context (and so its object's) alive, so that
    /// it can be read after the code that fetched it has let the context go.
    private(set) var context: ModelContext?
    /// The observers of the model's properties (`withObservationTracking`). Not for use in
    /// your own code.
    public let _observationRegistrar = ObservationRegistrar()
    /// The identifier of a model never inserted, made when first asked for.
    private var unsavedID: UUID?

    /// Backing data for a new model (what its initializer fills).
    public init() {}

    init(object: NSManagedObject, context: ModelContext) {
        self.object = object
        self.context = context
    }

    /// Moves the model into `context` as `object`, returning the values it held until now.
    func attach(to object: NSManagedObject, in context: ModelContext) -> [String: Any] {
        self.object = object
        self.context = context
        defer { values = [:] }
        return values
    }

    /// The model's identifier: its object's ID, or (never inserted) one of its own.
    func identifier(entityName name: String) -> PersistentIdentifier {
        if let object { return PersistentIdentifier(object.objectID) }
        let id = unsavedID ?? UUID()
        unsavedID = id
        return PersistentIdentifier(unsaved: id, entityName: name)
    }

    // MARK: - Accessors

    /// A persisted attribute's value (a number, string, date, …, an enum with a raw value, a
    /// `Codable` value), optional or not.
    @_disfavoredOverload
    public func _value<Value>(forKey key: String) -> Value {
        guard let object else { return detachedValue(forKey: key) }
        if Value.self is any StoredAttributeValue.Type {
            return object._managedValue(forKey: key)
        }
        let stored = object.value(forKey: key)
        guard let value = ModelValues.value(fromStored: stored, as: Value.self) else {
            ModelValues.mismatch(stored, key: key, type: Value.self, model: object.entity.name)
        }
        return value
    }

    /// A to-one relationship's destination.
    public func _value<Destination: PersistentModel>(forKey key: String) -> Destination? {
        guard let object else { return detachedValue(forKey: key) }
        guard let destination = object.value(forKey: key) as? NSManagedObject else { return nil }
        return context?.model(for: destination, as: Destination.self)
    }

    /// A required to-one relationship's destination.
    public func _value<Destination: PersistentModel>(forKey key: String) -> Destination {
        let destination: Destination? = _value(forKey: key)
        guard let destination else {
            AppleException.internalInconsistency(
                "The relationship '\(key)' has no destination, and its type \(Destination.self) is not optional")
        }
        return destination
    }

    /// A to-many relationship's destinations, in no particular order.
    public func _value<Destination: PersistentModel>(forKey key: String) -> [Destination] {
        guard let object else { return detachedValue(forKey: key) }
        guard let context else { return [] }
        let destinations = object.value(forKey: key)
        let objects = (destinations as? Set<NSManagedObject>).map(Array.init) ?? (destinations as? [NSManagedObject]) ?? []
        return objects.compactMap { context.model(for: $0, as: Destination.self) }
    }

    /// Sets a persisted property (an attribute or a relationship).
    public func _setValue<Value>(_ newValue: Value, forKey key: String) {
        guard let object else {
            values[key] = newValue
            return
        }
        object.setValue(ModelValues.stored(newValue, in: context), forKey: key)
        context?.changed()
    }

    private func detachedValue<Value>(forKey key: String) -> Value {
        if let value = values[key] as? Value { return value }
        if let none = ModelValues.none(of: Value.self) { return none }
        AppleException.internalInconsistency("The property '\(key)' was read before it was given a value")
    }
}
