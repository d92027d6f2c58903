/// The name a value transformer is registered under (`ValueTransformer.setValueTransformer(_:forName:)`).
///
/// ```swift
/// extension NSValueTransformerName {
///     static let colorTransformer = NSValueTransformerName("ColorTransformer")
/// }
/// ValueTransformer.setValueTransformer(ColorTransformer(), forName: .colorTransformer)
/// ```
///
/// The raw values of the predefined names are Apple's (`"NSSecureUnarchiveFromData"`, …), which
/// is what a model file's `valueTransformerName` holds.
/// [Apple's documentation](https://developer.apple.com/documentation/foundation/nsvaluetransformername)
public struct NSValueTransformerName: Hashable, Equatable, RawRepresentable, Sendable {
    /// The name as a string.
    public var rawValue: String

    /// A name from its string.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// A name from its string.
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// Archives values to `Data` and back with secure keyed archiving, decoding only the
    /// classes of `NSSecureUnarchiveFromDataTransformer.allowedTopLevelClasses`
    /// (`"NSSecureUnarchiveFromData"`).
    public static let secureUnarchiveFromDataTransformerName = NSValueTransformerName("NSSecureUnarchiveFromData")

    /// Archives values to `Data` and back with keyed archiving (`"NSKeyedUnarchiveFromData"`):
    /// what a transformable attribute without a transformer name uses.
    ///
    /// **Differences from Apple:** deprecated there since iOS 12 / macOS 10.14 for not being
    /// secure; kept here without a deprecation so that old models keep building without
    /// warnings.
    public static let keyedUnarchiveFromDataTransformerName = NSValueTransformerName("NSKeyedUnarchiveFromData")

    /// The transformer of pre-keyed (`NSArchiver`) archives (`"NSUnarchiveFromData"`).
    ///
    /// **Differences from Apple:** corelibs' Foundation has no `NSArchiver`, so this transformer
    /// reads and writes keyed archives like `keyedUnarchiveFromDataTransformerName`; data that
    /// Apple's `NSArchiver` wrote does not decode (the transformer returns nil).
    public static let unarchiveFromDataTransformerName = NSValueTransformerName("NSUnarchiveFromData")

    /// Whether a value is nil, as an `NSNumber` Boolean; one way only (`"NSIsNil"`).
    public static let isNilTransformerName = NSValueTransformerName("NSIsNil")

    /// Whether a value is not nil, as an `NSNumber` Boolean; one way only (`"NSIsNotNil"`).
    public static let isNotNilTransformerName = NSValueTransformerName("NSIsNotNil")

    /// The negation of a Boolean, both ways (`"NSNegateBoolean"`).
    public static let negateBooleanTransformerName = NSValueTransformerName("NSNegateBoolean")
}
