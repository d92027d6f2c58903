import OpenPredicate

/// How an element of a fetch index orders its values, with Apple's raw values.
///
/// See [NSFetchIndexElementType](https://developer.apple.com/documentation/coredata/nsfetchindexelementtype).
public enum NSFetchIndexElementType: UInt, Sendable {
    /// An ordinary (B-tree) index ordered by the value's bytes.
    case binary = 0
    /// A spatial (R-tree) index over a range of values.
    case rTree = 1
}

/// An index a store keeps for an entity to speed up fetches: a name and one or more elements
/// (properties or expressions), optionally restricted by a predicate.
///
/// See [NSFetchIndexDescription](https://developer.apple.com/documentation/coredata/nsfetchindexdescription).
open class NSFetchIndexDescription: NSObject, NSCopying, ModelPart, @unchecked Sendable {
    // @unchecked Sendable: as its model (see `NSManagedObjectModel`): immutable once in use.

    /// The entity of the index, held weakly (see `EntityReference`).
    var owningEntity: NSEntityDescription? {
        get { owningReference?.entity }
        set { owningReference = newValue?.reference }
    }
    private var owningReference: EntityReference?
    var owningModel: NSManagedObjectModel? { owningEntity?.owningModel }

    /// Creates an index with a name and its elements.
    ///
    /// - Parameters:
    ///   - name: The index's name (Apple's SQL store names the SQL index `Z_<Entity>_<name>`).
    ///   - elements: The indexed properties or expressions, in order; `nil` for none yet.
    public init(name: String, elements: [NSFetchIndexElementDescription]?) {
        self.name = name
        self.elements = elements ?? []
        super.init()
        for element in self.elements { element.owningIndex = self }
    }

    /// The index's name.
    open var name: String {
        willSet { ensureEditable() }
    }

    /// The indexed properties or expressions, in order.
    open var elements: [NSFetchIndexElementDescription] {
        willSet { ensureEditable() }
        didSet { for element in elements { element.owningIndex = self } }
    }

    /// The entity the index belongs to, once it is in an entity's `indexes`.
    open var entity: NSEntityDescription? { owningEntity }

    /// A predicate that restricts the index to the rows that match it (a partial index).
    /// **Default:** `nil`.
    open var partialIndexPredicate: NSPredicate? {
        willSet { ensureEditable() }
    }

    /// Returns a copy that belongs to no entity; its elements are copies too.
    open func copy(with zone: NSZone? = nil) -> Any { copyIndex() }

    func copyIndex() -> NSFetchIndexDescription {
        let copy = NSFetchIndexDescription(name: name, elements: elements.map { $0.copyElement() })
        copy.partialIndexPredicate = partialIndexPredicate
        return copy
    }

    /// The index's name and elements.
    open override var description: String {
        "<NSFetchIndexDescription: \(name) (\(elements.map(\.description).joined(separator: ", ")))>"
    }
}

/// One element of a fetch index: a property (or an expression) and its order.
///
/// See [NSFetchIndexElementDescription](https://developer.apple.com/documentation/coredata/nsfetchindexelementdescription).
open class NSFetchIndexElementDescription: NSObject, NSCopying, ModelPart, @unchecked Sendable {
    // @unchecked Sendable: as its model (see `NSManagedObjectModel`): immutable once in use.

    weak var owningIndex: NSFetchIndexDescription?
    var owningModel: NSManagedObjectModel? { owningIndex?.owningModel }
    private var storedPropertyName: String?

    /// Creates an element that indexes a property.
    ///
    /// - Parameters:
    ///   - property: An attribute or to-one relationship of the index's entity.
    ///   - collationType: Binary (ordinary) or R-tree.
    public init(property: NSPropertyDescription, collationType: NSFetchIndexElementType) {
        self.explicitProperty = property
        self.collationType = collationType
        super.init()
    }

    /// Creates an element from the property's name only; the model file loader uses it before
    /// the entity's properties are known, and `property` finds the description by name.
    init(propertyName: String, collationType: NSFetchIndexElementType) {
        self.storedPropertyName = propertyName
        self.collationType = collationType
        super.init()
    }

    /// The indexed property; when the element was made from a name, the property of the
    /// index's entity with that name.
    open var property: NSPropertyDescription? {
        get {
            if let explicitProperty { return explicitProperty }
            guard let name = storedPropertyName else { return nil }
            return owningIndex?.owningEntity?.propertiesByName[name]
        }
        set {
            ensureEditable()
            explicitProperty = newValue
            storedPropertyName = nil
        }
    }
    private var explicitProperty: NSPropertyDescription?

    /// The name of the indexed property.
    open var propertyName: String? { explicitProperty?.name ?? storedPropertyName }

    /// Binary (ordinary) or R-tree. **Default:** as created.
    open var collationType: NSFetchIndexElementType {
        willSet { ensureEditable() }
    }

    /// Whether the index orders this element ascending. **Default:** `true`.
    open var isAscending: Bool = true {
        willSet { ensureEditable() }
    }

    /// The index this element belongs to.
    open var indexDescription: NSFetchIndexDescription? { owningIndex }

    /// Returns a copy that belongs to no index.
    open func copy(with zone: NSZone? = nil) -> Any { copyElement() }

    /// A copy that refers to the property by name, so that it finds the property of whichever
    /// entity (for example in a copied model) its index is added to.
    func copyElement() -> NSFetchIndexElementDescription {
        let copy = NSFetchIndexElementDescription(propertyName: propertyName ?? "", collationType: collationType)
        copy.isAscending = isAscending
        return copy
    }

    /// The property's name and order.
    open override var description: String {
        "\(propertyName ?? "?")\(isAscending ? "" : " DESC")\(collationType == .rTree ? " (R-tree)" : "")"
    }
}
