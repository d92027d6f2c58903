import OpenPredicate

/// An attribute of an entity: a named value of one of the `NSAttributeType`s.
///
/// ```swift
/// let salary = NSAttributeDescription()
/// salary.name = "salary"
/// salary.attributeType = .decimalAttributeType
/// salary.defaultValue = Decimal(0)
/// ```
///
/// See [NSAttributeDescription](https://developer.apple.com/documentation/coredata/nsattributedescription).
open class NSAttributeDescription: NSPropertyDescription, @unchecked Sendable {
    // @unchecked Sendable: as `NSPropertyDescription`.

    private var explicitValueClassName: String?

    /// The type of the attribute's value. **Default:** `.undefinedAttributeType`.
    open var attributeType: NSAttributeType = .undefinedAttributeType {
        willSet { ensureEditable() }
    }

    /// The name of the class of the attribute's values: Apple's names for the built-in types
    /// (`"NSNumber"`, `"NSString"`, `"NSDate"`, `"NSData"`, `"NSDecimalNumber"`, `"NSUUID"`,
    /// `"NSURL"`), and for a transformable attribute the custom class set here (`nil` if none).
    /// **Default:** derived from `attributeType`.
    open var attributeValueClassName: String? {
        get { explicitValueClassName ?? attributeType.defaultValueClassName }
        set {
            ensureEditable()
            explicitValueClassName = newValue
        }
    }

    /// The value a new object gets for this attribute. **Default:** `nil`.
    open var defaultValue: Any? {
        willSet { ensureEditable() }
    }

    /// Whether a store may keep large binary values in files beside the database ("Allows
    /// External Storage"). **Default:** `false`.
    open var allowsExternalBinaryDataStorage: Bool = false {
        willSet { ensureEditable() }
    }

    /// The name of the value transformer of a transformable attribute. **Default:** `nil`
    /// (Apple's default keyed-archive transformer).
    open var valueTransformerName: String? {
        willSet { ensureEditable() }
    }

    /// Whether persistent history keeps this attribute's value in a deletion's tombstone.
    /// **Default:** `false`.
    open var preservesValueInHistoryOnDeletion: Bool = false {
        willSet { ensureEditable() }
    }

    /// Whether CloudKit encrypts this attribute; kept for source compatibility, it has no effect
    /// on Linux. **Default:** `false`.
    open var allowsCloudEncryption: Bool = false {
        willSet { ensureEditable() }
    }

    override func copyValues(from other: NSPropertyDescription) {
        super.copyValues(from: other)
        guard let other = other as? NSAttributeDescription else { return }
        attributeType = other.attributeType
        explicitValueClassName = other.explicitValueClassName
        defaultValue = other.defaultValue
        allowsExternalBinaryDataStorage = other.allowsExternalBinaryDataStorage
        valueTransformerName = other.valueTransformerName
        preservesValueInHistoryOnDeletion = other.preservesValueInHistoryOnDeletion
        allowsCloudEncryption = other.allowsCloudEncryption
    }

    override var kindDescription: String { "attribute" }

    override var detailDescriptions: [String] {
        var details = ["type \(attributeType.modelFileName)"]
        if let defaultValue { details.append("default \(defaultValue)") }
        return details
    }
}
