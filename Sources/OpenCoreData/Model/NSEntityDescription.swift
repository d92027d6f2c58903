import OpenPredicate

/// An entity of a managed object model: a name, the class of its objects, its properties, and
/// its place in an inheritance hierarchy.
///
/// ```swift
/// let person = NSEntityDescription()
/// person.name = "Person"
/// person.properties = [name, age]
/// let employee = NSEntityDescription()
/// employee.name = "Employee"
/// person.subentities = [employee]  // Employee inherits name and age
/// ```
///
/// A sub-entity's `properties` (and `propertiesByName`, `attributesByName`,
/// `relationshipsByName`) include the properties it inherits, the super-entity's first; setting
/// `properties` sets only the entity's own. Entities are editable until their model is used by a
/// coordinator; after that a change stops the process with "Can't modify an immutable model."
/// (check `isEditable` first).
///
/// **Differences from Apple:** `managedObjectModel` stops the process with a clear message when
/// the entity belongs to no model (Apple's is an unowned reference that is simply invalid then).
/// See [NSEntityDescription](https://developer.apple.com/documentation/coredata/nsentitydescription).
open class NSEntityDescription: NSObject, NSCopying, ModelPart, @unchecked Sendable {
    // @unchecked Sendable: as its model (see `NSManagedObjectModel`): immutable once in use, with
    // every lazy lookup built by `markInUse()`; the temporary-ID origin is behind
    // `temporaryIDOriginLock`.

    weak var owningModel: NSManagedObjectModel?
    /// The super-entity, held weakly (see `EntityReference`).
    private var parent: NSEntityDescription? {
        get { parentReference?.entity }
        set { parentReference = newValue?.reference }
    }
    private var parentReference: EntityReference?
    /// The reference to this entity that the model's back references share.
    private(set) lazy var reference = EntityReference(self)
    private var ownProperties: [NSPropertyDescription] = []
    private var ownSubentities: [NSEntityDescription] = []
    private var ownIndexes: [NSFetchIndexDescription] = []
    private var explicitClassName: String?
    /// All properties (inherited first) by name; rebuilt on first use after any change.
    private var cachedPropertiesByName: [String: NSPropertyDescription]?
    /// `propertyLayout`, kept once the model is in use (immutable).
    private var cachedLayout: PropertyLayout?
    /// `defaultValues`, kept once the model is in use (immutable).
    private var cachedDefaultValues: PropertyValues?
    /// The origin of the entity's temporary IDs while any exists (see `temporaryIDOrigin`).
    private weak var liveTemporaryIDOrigin: IDOrigin?
    /// Whether this is `KeyPathRecorder.standInEntity`, read by every object's initializer (a
    /// field read, where comparing with the static retained and released the entity).
    final var isKeyPathStandIn = false
    private static let temporaryIDOriginLock = NSLock()

    /// Creates an entity with no name, no properties and no super-entity.
    public override init() {
        super.init()
        _ = reference  // made now, not first on some thread
    }

    deinit {
        reference.entityIsGone()
    }

    /// The model this entity belongs to.
    public var managedObjectModel: NSManagedObjectModel {
        guard let model = owningModel else {
            AppleException.internalInconsistency("The entity '\(name ?? "")' does not belong to a managed object model.")
        }
        return model
    }

    /// The entity's name, unique in its model. **Default:** `nil`.
    open var name: String? {
        willSet { ensureEditable() }
        didSet { owningModel?.entitiesDidChange() }
    }

    /// The name of the class of this entity's objects. **Default:** `"NSManagedObject"`.
    // swift-format-ignore: NeverUseImplicitlyUnwrappedOptionals
    // Apple's type, so that `if let` and plain uses both compile as they do on Apple.
    open var managedObjectClassName: String! {
        get { explicitClassName ?? "NSManagedObject" }
        set {
            ensureEditable()
            explicitClassName = newValue
        }
    }

    /// Whether the entity is abstract: it has no instances of its own, only instances of its
    /// sub-entities. **Default:** `false`.
    open var isAbstract: Bool = false {
        willSet { ensureEditable() }
    }

    /// The entity this one inherits from, set by assigning the parent's `subentities`.
    open var superentity: NSEntityDescription? { parent }

    /// The entities that inherit from this one (directly).
    open var subentities: [NSEntityDescription] {
        get { ownSubentities }
        set {
            ensureEditable()
            for old in ownSubentities where old.parent === self {
                old.parent = nil
                old.propertiesDidChange()
            }
            ownSubentities = newValue
            for entity in newValue {
                entity.parent = self
                entity.propertiesDidChange()
            }
        }
    }

    /// The direct sub-entities by name.
    open var subentitiesByName: [String: NSEntityDescription] {
        Dictionary(
            ownSubentities.compactMap { entity in entity.name.map { ($0, entity) } }, uniquingKeysWith: { first, _ in first })
    }

    /// Whether this entity is `entity` or inherits from it.
    public func isKindOf(entity: NSEntityDescription) -> Bool {
        var current: NSEntityDescription? = self
        while let candidate = current {
            if candidate === entity { return true }
            current = candidate.parent
        }
        return false
    }

    /// The entity's properties: inherited ones first (from the root down), then its own.
    /// Setting it replaces the entity's own properties.
    open var properties: [NSPropertyDescription] {
        get {
            guard parent != nil else { return ownProperties }
            // From this entity up: each level keeps the properties no level below redeclares.
            // One pass, linear in the inherited properties (recursing made deep chains cubic).
            var levels: [[NSPropertyDescription]] = []
            var redeclared: Set<String> = []
            var seen: Set<ObjectIdentifier> = []
            var current: NSEntityDescription? = self
            while let entity = current, seen.insert(ObjectIdentifier(entity)).inserted {
                levels.append(entity.ownProperties.filter { !redeclared.contains($0.name) })
                redeclared.formUnion(entity.ownProperties.map(\.name))
                current = entity.parent
            }
            return Array(levels.reversed().joined())
        }
        set {
            ensureEditable()
            for old in ownProperties where old.declaringEntity === self { old.declaringEntity = nil }
            ownProperties = newValue
            for property in newValue { property.declaringEntity = self }
            propertiesDidChange()
        }
    }

    /// The properties the entity declares itself (not inherited).
    var declaredProperties: [NSPropertyDescription] { ownProperties }

    /// Every property, inherited ones included, by name.
    open var propertiesByName: [String: NSPropertyDescription] {
        if let cachedPropertiesByName { return cachedPropertiesByName }
        var byName: [String: NSPropertyDescription] = [:]
        for property in properties { byName[property.name] = property }
        cachedPropertiesByName = byName
        return byName
    }

    /// The attributes (inherited ones included) by name.
    open var attributesByName: [String: NSAttributeDescription] {
        propertiesByName.compactMapValues { $0 as? NSAttributeDescription }
    }

    /// The relationships (inherited ones included) by name.
    open var relationshipsByName: [String: NSRelationshipDescription] {
        propertiesByName.compactMapValues { $0 as? NSRelationshipDescription }
    }

    /// The relationships of this entity whose destination is `entity`.
    open func relationships(forDestination entity: NSEntityDescription) -> [NSRelationshipDescription] {
        properties.compactMap { $0 as? NSRelationshipDescription }.filter { $0.destinationEntity === entity }
    }

    /// Groups of properties (or property names) whose values together must be unique among
    /// the entity's objects, e.g. `[["email"], ["firstName", "lastName"]]`. **Default:** empty.
    open var uniquenessConstraints: [[Any]] = [] {
        willSet { ensureEditable() }
    }

    /// The entity's fetch indexes. **Default:** empty.
    open var indexes: [NSFetchIndexDescription] {
        get { ownIndexes }
        set {
            ensureEditable()
            ownIndexes = newValue
            for index in newValue { index.owningEntity = self }
        }
    }

    /// Application data attached to the entity. **Default:** `nil`.
    open var userInfo: [AnyHashable: Any]? {
        willSet { ensureEditable() }
    }

    /// A string that changes the entity's version hash without changing its structure.
    /// **Default:** `nil`.
    open var versionHashModifier: String? {
        willSet { ensureEditable() }
    }

    /// The identifier migration uses to match this entity to one of a previous model version
    /// (the model editor's "Renaming ID"). **Default:** `nil`.
    open var renamingIdentifier: String? {
        willSet { ensureEditable() }
    }

    /// Whether this entity (through its model) may still change: true until the model is used by
    /// a persistent store coordinator.
    ///
    /// **Differences from Apple:** an OpenCoreData addition, so that code can check before a
    /// change that would otherwise stop the process.
    public var isEditable: Bool { owningModel?.isEditable ?? true }

    /// The attributes' default values by name (attributes without one left out): what a new
    /// object starts with. Computed once when the model is in use, on each call while it can
    /// still change.
    var defaultValues: PropertyValues {
        if let cachedDefaultValues { return cachedDefaultValues }
        let layout = propertyLayout
        var values = PropertyValues(layout: layout)
        for (slot, property) in layout.properties.enumerated() {
            if let value = (property as? NSAttributeDescription)?.defaultValue { values[slot: slot] = value }
        }
        if !isEditable { cachedDefaultValues = values }
        return values
    }

    /// Whether the entity's objects share one layout and default values for good (its model is
    /// in use): an object made then needs no values of its own until its first write.
    var hasFixedLayout: Bool {
        if cachedDefaultValues != nil { return true }
        guard !isEditable else { return false }
        _ = defaultValues  // keeps them, and the layout
        return true
    }

    /// Where the entity's objects keep each property's value (see `PropertyLayout`). Made once
    /// when the model is in use, on each call while it can still change.
    var propertyLayout: PropertyLayout {
        if let cachedLayout { return cachedLayout }
        let layout = PropertyLayout(entity: self)
        if !isEditable { cachedLayout = layout }
        return layout
    }

    /// What the entity's temporary IDs share: one origin while any of them exists.
    var temporaryIDOrigin: IDOrigin {
        Self.temporaryIDOriginLock.lock()
        defer { Self.temporaryIDOriginLock.unlock() }
        if let origin = liveTemporaryIDOrigin { return origin }
        let origin = IDOrigin(temporaryFor: self)
        liveTemporaryIDOrigin = origin
        return origin
    }

    /// Builds the lookups kept once the model is in use (`propertiesByName`, `propertyLayout`,
    /// `defaultValues`), so that they are only read afterwards, from any thread.
    func buildLookups() {
        _ = propertiesByName
        _ = hasFixedLayout
    }

    /// Forgets cached property lookups here and in every sub-entity.
    func propertiesDidChange() {
        cachedPropertiesByName = nil
        cachedLayout = nil
        cachedDefaultValues = nil
        for entity in ownSubentities { entity.propertiesDidChange() }
    }

    /// Returns a copy that belongs to no model, with copies of the entity's own properties and
    /// indexes. Relationships still point to the original destination entities, and the copy
    /// has no super- or sub-entities (copy the model to copy a hierarchy).
    open func copy(with zone: NSZone? = nil) -> Any { copyEntity() }

    func copyEntity() -> NSEntityDescription {
        let copy = NSEntityDescription()
        copy.name = name
        copy.explicitClassName = explicitClassName
        copy.isAbstract = isAbstract
        copy.properties = ownProperties.map { $0.copyProperty() }
        copy.uniquenessConstraints = uniquenessConstraints.map { group in group.map { ($0 as? NSPropertyDescription)?.name ?? $0 }
        }
        copy.indexes = ownIndexes.map { $0.copyIndex() }
        copy.userInfo = userInfo
        copy.versionHashModifier = versionHashModifier
        copy.renamingIdentifier = renamingIdentifier
        return copy
    }

    /// The entity's name, class, super-entity and properties.
    open override var description: String {
        var lines = ["<NSEntityDescription: \(name ?? "(no name)")> class \(managedObjectClassName ?? "")"]
        if isAbstract { lines[0] += ", abstract" }
        if let parent { lines[0] += ", superentity \(parent.name ?? "?")" }
        for property in properties { lines.append("    \(property)") }
        return lines.joined(separator: "\n")
    }
}
