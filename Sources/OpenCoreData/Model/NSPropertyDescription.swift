import OpenPredicate

/// A property of an entity: the common part of attributes, relationships, fetched properties
/// and expression descriptions.
///
/// Create a subclass instance (`NSAttributeDescription`, `NSRelationshipDescription`, …), set
/// its name and options, and add it to an entity's `properties`. Properties are editable until
/// the model is used by a coordinator; after that any change stops the process with Apple's
/// reason "Can't modify an immutable model." (check `isEditable` first).
///
/// **Differences from Apple:** `entity` stops the process with a clear message when the
/// property belongs to no entity (Apple's is an unowned reference that is simply invalid then).
/// See [NSPropertyDescription](https://developer.apple.com/documentation/coredata/nspropertydescription).
open class NSPropertyDescription: NSObject, NSCopying, ModelPart, @unchecked Sendable {
    // @unchecked Sendable: as its model (see `NSManagedObjectModel`): immutable once in use.

    /// The entity that declares this property, held weakly as Apple holds it (see
    /// `EntityReference`).
    var declaringEntity: NSEntityDescription? {
        get { declaringReference?.entity }
        set { declaringReference = newValue?.reference }
    }
    private var declaringReference: EntityReference?

    var owningModel: NSManagedObjectModel? { declaringEntity?.owningModel }

    /// Creates a property with an empty name, optional, not transient.
    public required override init() {
        super.init()
    }

    /// The entity this property belongs to.
    ///
    /// An inherited property appears in each sub-entity's `properties`, but its `entity` stays the
    /// entity that declares it.
    public var entity: NSEntityDescription {
        guard let entity = declaringEntity else {
            AppleException.internalInconsistency("The property '\(name)' does not belong to an entity.")
        }
        return entity
    }

    /// The property's name; it is also the key used with key-value coding.
    /// **Default:** `""`.
    open var name: String = "" {
        willSet { ensureEditable() }
        didSet { declaringEntity?.propertiesDidChange() }
    }

    /// Whether the property may be nil (or, for a to-many relationship, empty) when saved.
    /// **Default:** `true`.
    open var isOptional: Bool = true {
        willSet { ensureEditable() }
    }

    /// Whether the property's value is kept only in memory, never saved to a store.
    /// **Default:** `false`.
    open var isTransient: Bool = false {
        willSet { ensureEditable() }
    }

    /// Whether stores should index the property (Apple deprecates this in favour of the
    /// entity's `indexes`). **Default:** `false`.
    open var isIndexed: Bool = false {
        willSet { ensureEditable() }
    }

    /// Whether Spotlight indexes the property; kept for source compatibility, it has no effect
    /// on Linux. **Default:** `false`.
    open var isIndexedBySpotlight: Bool = false {
        willSet { ensureEditable() }
    }

    /// Application data attached to the property (the model editor's "User Info").
    /// **Default:** `nil`.
    open var userInfo: [AnyHashable: Any]? {
        willSet { ensureEditable() }
    }

    /// The identifier used by migration to match this property to one of a previous model
    /// version (the model editor's "Renaming ID"). **Default:** `nil`.
    open var renamingIdentifier: String? {
        willSet { ensureEditable() }
    }

    /// A string that changes the property's version hash without changing its structure.
    /// **Default:** `nil`.
    open var versionHashModifier: String? {
        willSet { ensureEditable() }
    }

    /// The predicates a value must satisfy to be valid, in the order they are checked.
    /// **Default:** empty. Set together with their warnings through
    /// `setValidationPredicates(_:withValidationWarnings:)`.
    open private(set) var validationPredicates: [NSPredicate] = []

    /// The error messages (or error codes) reported when the validation predicate at the same
    /// index fails. **Default:** empty.
    open private(set) var validationWarnings: [Any] = []

    /// Sets the validation predicates and the warning reported for each one.
    ///
    /// - Parameters:
    ///   - validationPredicates: Predicates evaluated against a value, in order; `nil` clears them.
    ///   - validationWarnings: One message per predicate; `nil` clears them.
    open func setValidationPredicates(
        _ validationPredicates: [NSPredicate]?, withValidationWarnings validationWarnings: [String]?
    ) {
        ensureEditable()
        self.validationPredicates = validationPredicates ?? []
        self.validationWarnings = validationWarnings ?? []
    }

    /// Sets validation predicates with warnings of any kind: the model file loader stores Apple's
    /// error codes as `NSNumber`s (`NSValidationNumberTooSmallError`, …), as Xcode's compiler does.
    func setValidationPredicates(_ validationPredicates: [NSPredicate], warningValues: [Any]) {
        ensureEditable()
        self.validationPredicates = validationPredicates
        self.validationWarnings = warningValues
    }

    /// Whether this property (through its entity's model) may still change: true until the
    /// model is used by a persistent store coordinator.
    ///
    /// **Differences from Apple:** an OpenCoreData addition, so that code can check before a
    /// change that would otherwise stop the process.
    public var isEditable: Bool { owningModel?.isEditable ?? true }

    /// Returns a copy that belongs to no entity, with the same name, options, user info and
    /// validation rules.
    open func copy(with zone: NSZone? = nil) -> Any { copyProperty() }

    /// A copy of the same class that belongs to no entity.
    func copyProperty() -> NSPropertyDescription {
        let copy = Swift.type(of: self).init()
        copy.copyValues(from: self)
        return copy
    }

    /// Copies every value of `other` into this fresh copy; subclasses add their own values.
    func copyValues(from other: NSPropertyDescription) {
        name = other.name
        isOptional = other.isOptional
        isTransient = other.isTransient
        isIndexed = other.isIndexed
        isIndexedBySpotlight = other.isIndexedBySpotlight
        userInfo = other.userInfo
        renamingIdentifier = other.renamingIdentifier
        versionHashModifier = other.versionHashModifier
        validationPredicates = other.validationPredicates
        validationWarnings = other.validationWarnings
    }

    /// The kind of property, for descriptions: "attribute", "relationship", ….
    var kindDescription: String { "property" }

    /// A one-line summary: kind, name, and the options that differ from the defaults.
    open override var description: String {
        var parts = ["(\(kindDescription)) \(name)"]
        if let entity = declaringEntity?.name { parts.append("entity \(entity)") }
        if !isOptional { parts.append("required") }
        if isTransient { parts.append("transient") }
        parts.append(contentsOf: detailDescriptions)
        return "<\(Swift.type(of: self)): \(parts.joined(separator: ", "))>"
    }

    /// Extra facts for `description`, supplied by subclasses.
    var detailDescriptions: [String] { [] }
}
