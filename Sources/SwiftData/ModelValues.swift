import OpenCoreData
import OpenPredicate

/// The types a managed object's attribute holds as they are (optional or not), each with its
/// attribute type: read through `_managedValue(forKey:)`, which converts integer widths and
/// reads nil as an empty value.
protocol StoredAttributeValue {
    static var attributeType: NSAttributeType { get }
}

extension String: StoredAttributeValue { static var attributeType: NSAttributeType { .stringAttributeType } }
extension Bool: StoredAttributeValue { static var attributeType: NSAttributeType { .booleanAttributeType } }
extension Int: StoredAttributeValue { static var attributeType: NSAttributeType { .integer64AttributeType } }
extension Int16: StoredAttributeValue { static var attributeType: NSAttributeType { .integer16AttributeType } }
extension Int32: StoredAttributeValue { static var attributeType: NSAttributeType { .integer32AttributeType } }
extension Int64: StoredAttributeValue { static var attributeType: NSAttributeType { .integer64AttributeType } }
extension Double: StoredAttributeValue { static var attributeType: NSAttributeType { .doubleAttributeType } }
extension Float: StoredAttributeValue { static var attributeType: NSAttributeType { .floatAttributeType } }
extension Date: StoredAttributeValue { static var attributeType: NSAttributeType { .dateAttributeType } }
extension Data: StoredAttributeValue { static var attributeType: NSAttributeType { .binaryDataAttributeType } }
extension UUID: StoredAttributeValue { static var attributeType: NSAttributeType { .UUIDAttributeType } }
extension URL: StoredAttributeValue { static var attributeType: NSAttributeType { .URIAttributeType } }
extension Decimal: StoredAttributeValue { static var attributeType: NSAttributeType { .decimalAttributeType } }
extension Optional: StoredAttributeValue where Wrapped: StoredAttributeValue {
    static var attributeType: NSAttributeType { Wrapped.attributeType }
}

/// `Optional`, for types known only at run time.
protocol OptionalValue {
    static var wrappedType: Any.Type { get }
    static var noValue: Self { get }
    var wrapped: Any? { get }
}

extension Optional: OptionalValue {
    static var wrappedType: Any.Type { Wrapped.self }
    static var noValue: Self { nil }
    var wrapped: Any? { self.map { $0 } }
}

/// An array of models (a to-many relationship's value), for values known only as `Any`.
protocol ModelArray {
    static var modelType: (any PersistentModel.Type)? { get }
    var models: [any PersistentModel] { get }
}

extension Array: ModelArray {
    static var modelType: (any PersistentModel.Type)? { Element.self as? any PersistentModel.Type }
    var models: [any PersistentModel] { compactMap { $0 as? any PersistentModel } }
}

/// Conversions between a model's property values and what its managed object holds.
enum ModelValues {
    /// `value` as the managed object holds it: a model as its managed object (inserted into
    /// `context` first when it is not yet), an array of models as a set of them, an enum as its
    /// raw value, another `Codable` value as its JSON, nil for nil.
    static func stored(_ value: Any, in context: ModelContext?) -> Any? {
        var value = value
        if let optional = value as? any OptionalValue {
            guard let wrapped = optional.wrapped else { return nil }
            value = wrapped
        }
        if value is any StoredAttributeValue { return value }
        if let model = value as? any PersistentModel { return managedObject(of: model, in: context) }
        if let array = value as? any ModelArray, type(of: array).modelType != nil {
            return Set(array.models.map { managedObject(of: $0, in: context) })
        }
        if let raw = value as? any RawRepresentable { return stored(raw.rawValue, in: context) }
        if let codable = value as? any Encodable, let data = try? JSONEncoder().encode(codable) { return data }
        return value
    }

    private static func managedObject(of model: any PersistentModel, in context: ModelContext?) -> NSManagedObject {
        if let object = model.persistentBackingData.object { return object }
        guard let context else {
            AppleException.internalInconsistency("A \(type(of: model)) was related to a model whose context no longer exists")
        }
        return context.insertModel(model)
    }

    /// A property's value of type `Value` (an enum or a `Codable` type, optional or not) from
    /// what the managed object holds; nil when it holds something else.
    static func value<Value>(fromStored stored: Any?, as type: Value.Type) -> Value? {
        let wrappedType = (Value.self as? any OptionalValue.Type)?.wrappedType ?? Value.self
        guard let stored else { return none(of: Value.self) }
        if let value = stored as? Value { return value }
        if let raw = wrappedType as? any RawRepresentable.Type {
            return fromRaw(raw, stored) as? Value
        }
        if let decodable = wrappedType as? any Decodable.Type, let data = stored as? Data {
            return (try? JSONDecoder().decode(decodable, from: data)) as? Value
        }
        return nil
    }

    /// An enum from its stored raw value, which is stored as any other value of its type is
    /// (an integer of another width, or a `Codable` raw value's JSON).
    private static func fromRaw<R: RawRepresentable>(_ type: R.Type, _ stored: Any) -> R? {
        let raw: R.RawValue? =
            R.RawValue.self is any StoredAttributeValue.Type
            ? ManagedValueCast.cast(stored) : value(fromStored: stored, as: R.RawValue.self)
        return raw.flatMap(R.init(rawValue:))
    }

    /// nil as `Value`, when `Value` is optional.
    static func none<Value>(of type: Value.Type) -> Value? {
        (Value.self as? any OptionalValue.Type)?.noValue as? Value
    }

    static func mismatch(_ stored: Any?, key: String, type: Any.Type, model: String?) -> Never {
        AppleException.internalInconsistency(
            "The property '\(key)' of \(model ?? "a model") holds \(stored.map { "\($0)" } ?? "nil"), which is not \(type)")
    }
}
