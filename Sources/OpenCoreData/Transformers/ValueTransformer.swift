/// An abstract class that transforms values from one representation to another; the
/// transformers registered by name are what transformable attributes use
/// (`NSAttributeDescription.valueTransformerName`).
///
/// Subclass it and override `transformedValue(_:)` (and `reverseTransformedValue(_:)` when the
/// transformation is reversible), then register an instance under a name:
///
/// ```swift
/// final class UppercaseTransformer: ValueTransformer {
///     override class func transformedValueClass() -> AnyClass { NSString.self }
///     override class func allowsReverseTransformation() -> Bool { false }
///     override func transformedValue(_ value: Any?) -> Any? { (value as? String)?.uppercased() }
/// }
/// ValueTransformer.setValueTransformer(UppercaseTransformer(), forName: .init("Uppercase"))
/// let transformer = ValueTransformer(forName: .init("Uppercase"))
/// ```
///
/// The registry starts with Apple's predefined transformers (`NSValueTransformerName`).
///
/// **Differences from Apple:** corelibs' Foundation has no `ValueTransformer`, so this class is
/// declared here; it has Apple's Swift API. `init(forName:)` finds registered transformers
/// only: Swift on Linux cannot make an instance of a class found by its name, so Apple's
/// fallback of instantiating a transformer class named like the name is not available (register
/// the transformer, as Apple recommends anyway).
/// [Apple's documentation](https://developer.apple.com/documentation/foundation/valuetransformer)
open class ValueTransformer: NSObject {
    /// A transformer that returns values unchanged.
    override public init() {
        super.init()
    }

    /// The class of the values `transformedValue(_:)` returns. **Default:** `NSObject`.
    open class func transformedValueClass() -> AnyClass { NSObject.self }

    /// Whether `reverseTransformedValue(_:)` is supported. **Default:** true.
    open class func allowsReverseTransformation() -> Bool { true }

    /// The value transformed. **Default:** the value unchanged.
    open func transformedValue(_ value: Any?) -> Any? { value }

    /// The value transformed back. **Default:** `transformedValue(_:)` of the value, when
    /// `allowsReverseTransformation()` is true.
    ///
    /// Stops the process with Apple's exception message when the class does not allow reverse
    /// transformations and the subclass does not override this method (Apple raises
    /// `NSInvalidArgumentException` there).
    open func reverseTransformedValue(_ value: Any?) -> Any? {
        guard Swift.type(of: self).allowsReverseTransformation() else {
            AppleException.invalidArgument(
                "\(Swift.type(of: self)) is not a reversible value transformer (reverseTransformedValue: was called)")
        }
        return transformedValue(value)
    }

    /// Registers `transformer` under `name`, replacing any registered before; nil removes the
    /// registration.
    open class func setValueTransformer(_ transformer: ValueTransformer?, forName name: NSValueTransformerName) {
        ValueTransformerRegistry.set(transformer, forName: name.rawValue)
    }

    /// The names of the registered transformers, the predefined ones included.
    open class func valueTransformerNames() -> [NSValueTransformerName] {
        ValueTransformerRegistry.names().map(NSValueTransformerName.init(rawValue:))
    }
}

extension ValueTransformer: _FoundationFactory {}

extension _FoundationFactory where Self: ValueTransformer {
    /// The transformer registered under `name`, or nil when there is none (or when it is not of
    /// the class this initializer is called on).
    ///
    /// **Differences from Apple:** see `ValueTransformer` (no instantiation by class name).
    public init?(forName name: NSValueTransformerName) {
        guard let transformer = ValueTransformerRegistry.transformer(named: name.rawValue) as? Self else { return nil }
        self = transformer
    }
}

/// The process-wide table of transformers by name, with Apple's predefined ones.
enum ValueTransformerRegistry {
    private static let lock = NSLock()
    // Read and written under `lock` only.
    nonisolated(unsafe) private static var transformers: [String: ValueTransformer] = predefined()

    static func set(_ transformer: ValueTransformer?, forName name: String) {
        lock.lock()
        defer { lock.unlock() }
        transformers[name] = transformer
    }

    static func transformer(named name: String) -> ValueTransformer? {
        lock.lock()
        defer { lock.unlock() }
        return transformers[name]
    }

    static func names() -> [String] {
        lock.lock()
        defer { lock.unlock() }
        return transformers.keys.sorted()
    }

    private static func predefined() -> [String: ValueTransformer] {
        [
            NSValueTransformerName.secureUnarchiveFromDataTransformerName.rawValue: NSSecureUnarchiveFromDataTransformer(),
            NSValueTransformerName.keyedUnarchiveFromDataTransformerName.rawValue: KeyedUnarchiveFromDataTransformer(),
            NSValueTransformerName.unarchiveFromDataTransformerName.rawValue: KeyedUnarchiveFromDataTransformer(),
            NSValueTransformerName.isNilTransformerName.rawValue: IsNilTransformer(negated: false),
            NSValueTransformerName.isNotNilTransformerName.rawValue: IsNilTransformer(negated: true),
            NSValueTransformerName.negateBooleanTransformerName.rawValue: NegateBooleanTransformer(),
        ]
    }
}
