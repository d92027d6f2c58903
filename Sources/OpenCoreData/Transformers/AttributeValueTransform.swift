import OpenStoreCore

/// How a transformable attribute's value crosses to and from the `Data` its store keeps: its
/// value transformer archives it when the context saves, and unarchives the stored data when a
/// fault's values are decoded. Both stores receive and return the `Data` only (the in-memory
/// store keeps what the SQLite store writes), and attributes of other types never come here.
///
/// The transformer is the one registered under the attribute's `valueTransformerName`, looked
/// up at each use (so that one registered after the model was loaded is found); a nil or empty
/// name means `NSKeyedUnarchiveFromData`, as Apple's documentation says ("a default transformer
/// that uses NSCoding"; Apple has announced but not made the switch to
/// `NSSecureUnarchiveFromData`). Keyed archives of Foundation's classes decode under either.
///
/// Direction: a transformer of the archiving kind (`NSSecureUnarchiveFromDataTransformer` and its
/// subclasses, `NSKeyedUnarchiveFromData`, `NSUnarchiveFromData`) unarchives in
/// `transformedValue(_:)`, so it is used in reverse: `reverseTransformedValue(_:)` to store,
/// `transformedValue(_:)` to read. Any other transformer must, as Apple's documentation says,
/// return `Data` from `transformedValue(_:)` (used to store) and take it back in
/// `reverseTransformedValue(_:)` (used to read).
///
/// Choices where Apple's behaviour is not documented: a name under which nothing is registered
/// leaves the value as it is (the stored `Data` reads back as `Data`, and `Data` is saved as it
/// is), so a store whose transformer is unknown still opens and reads; a transformer that is not
/// reversible reads back the stored `Data`; a keyed archive that the archiving transformer cannot
/// decode (a class the process lacks or does not allow) reads as its `Data`, and a keyed archive
/// given as the value is stored as it is, so that saving the object for another change does not
/// lose it (Apple reads nil there); a value the archiving transformers cannot archive, or a custom transformer that returns
/// something other than `Data` (or nil) when storing, fails the save with
/// `NSManagedObjectValidationError` naming the attribute.
enum AttributeValueTransform {
    /// The attribute's transformer and whether it archives in reverse; nil when none is
    /// registered under its name.
    static func transformer(of attribute: NSAttributeDescription) -> (transformer: ValueTransformer, reversed: Bool)? {
        var name = attribute.valueTransformerName ?? ""
        if name.isEmpty { name = NSValueTransformerName.keyedUnarchiveFromDataTransformerName.rawValue }
        guard let transformer = ValueTransformerRegistry.transformer(named: name) else { return nil }
        let reversed = transformer is NSSecureUnarchiveFromDataTransformer || transformer is KeyedUnarchiveFromDataTransformer
        return (transformer, reversed)
    }

    /// The value a save hands to the store for `value`: the transformer's `Data`, nil for nil.
    /// - Throws: `NSManagedObjectValidationError` when the transformer returns something else.
    static func storedValue(_ value: Any?, of attribute: NSAttributeDescription) throws -> Any? {
        guard let unwrapped = ValueSemantics.unwrapOptional(value), !ValueSemantics.isNSNull(unwrapped) else { return nil }
        guard let (transformer, reversed) = transformer(of: attribute) else { return unwrapped }
        // Stored data the transformer could not decode (kept as it was read): written back as it is.
        if reversed, let data = unwrapped as? Data, KeyedArchive.isKeyedArchive(data) { return data }
        let transformed = reversed ? transformer.reverseTransformedValue(unwrapped) : transformer.transformedValue(unwrapped)
        guard let transformed = ValueSemantics.unwrapOptional(transformed) else {
            guard reversed else { return nil }
            throw CoreDataError.make(
                code: NSManagedObjectValidationError,
                reason: "The value \(unwrapped) of the attribute \(attribute.name) cannot be archived by its value transformer "
                    + "\(Swift.type(of: transformer)): it is not of a class the transformer allows, or does not adopt NSCoding",
                userInfo: ["NSValidationErrorKey": attribute.name])
        }
        if let data = transformed as? Data { return data }
        throw CoreDataError.make(
            code: NSManagedObjectValidationError,
            reason: "The value transformer \(Swift.type(of: transformer)) of the attribute \(attribute.name) did not return "
                + "Data for \(unwrapped) (it returned \(Swift.type(of: transformed)))",
            userInfo: ["NSValidationErrorKey": attribute.name])
    }

    /// The value an object holds for stored `Data` (any other stored value is returned as it is).
    static func value(from stored: StoreValue, of attribute: NSAttributeDescription) -> Any? {
        guard case .data(let data) = stored else { return stored.naturalValue }
        guard let (transformer, reversed) = transformer(of: attribute) else { return data }
        if reversed { return transformer.transformedValue(data) ?? data }
        guard Swift.type(of: transformer).allowsReverseTransformation() else { return data }
        return transformer.reverseTransformedValue(data)
    }
}

extension PropertyLayout {
    /// A stored attribute value (not NULL) as an object holds it: transformed for a
    /// transformable attribute, the kind's Swift value otherwise.
    @inline(__always)
    func attributeValue(_ stored: StoreValue, kind: AttributeKind, slot: Int) -> Any? {
        if kind == .transformable { return transformedValue(stored, slot: slot) }
        return stored.swiftValue(kind: kind)
    }

    private func transformedValue(_ stored: StoreValue, slot: Int) -> Any? {
        guard let attribute = properties[slot] as? NSAttributeDescription else { return stored.naturalValue }
        return AttributeValueTransform.value(from: stored, of: attribute)
    }
}
