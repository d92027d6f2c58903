import OpenPredicate

/// What happens to the objects at the other end of a relationship when its source object is
/// deleted, with Apple's raw values.
///
/// See [NSDeleteRule](https://developer.apple.com/documentation/coredata/nsdeleterule).
public enum NSDeleteRule: UInt, Sendable {
    /// Leave the destination objects alone (the inverse may then point to a deleted object).
    case noActionDeleteRule = 0
    /// Remove the deleted object from the inverse relationship of each destination object.
    case nullifyDeleteRule = 1
    /// Delete the destination objects too.
    case cascadeDeleteRule = 2
    /// Refuse the deletion while any destination object is left.
    case denyDeleteRule = 3
}

/// A relationship from one entity to another: to-one (`maxCount == 1`) or to-many, optionally
/// ordered, with an inverse and a delete rule.
///
/// ```swift
/// let employees = NSRelationshipDescription()
/// employees.name = "employees"
/// employees.destinationEntity = employee
/// employees.maxCount = 0  // to-many, unbounded
/// ```
///
/// See [NSRelationshipDescription](https://developer.apple.com/documentation/coredata/nsrelationshipdescription).
open class NSRelationshipDescription: NSPropertyDescription, @unchecked Sendable {
    // @unchecked Sendable: as `NSPropertyDescription`.

    /// The entity at the other end; held weakly, as Apple holds it. **Default:** `nil`.
    open var destinationEntity: NSEntityDescription? {
        get { destinationReference?.entity }
        set {
            ensureEditable()
            destinationReference = newValue?.reference
        }
    }
    private var destinationReference: EntityReference?

    /// The relationship that leads back from the destination; held weakly, as Apple holds it.
    /// **Default:** `nil` (no inverse).
    open weak var inverseRelationship: NSRelationshipDescription? {
        willSet { ensureEditable() }
    }

    /// The least number of destination objects when the relationship has a value.
    /// **Default:** `0`.
    open var minCount: Int = 0 {
        willSet { ensureEditable() }
    }

    /// The greatest number of destination objects: `1` makes a to-one relationship, `0` means
    /// no limit. **Default:** `0` (so a new relationship is to-many, as on Apple).
    open var maxCount: Int = 0 {
        willSet { ensureEditable() }
    }

    /// Whether the relationship holds many objects: true unless `maxCount` is 1.
    open var isToMany: Bool { maxCount != 1 }

    /// What deleting the source object does to the destination objects.
    /// **Default:** `.nullifyDeleteRule`.
    open var deleteRule: NSDeleteRule = .nullifyDeleteRule {
        willSet { ensureEditable() }
    }

    /// Whether a to-many relationship keeps its objects in order (an `NSOrderedSet`).
    /// **Default:** `false`.
    open var isOrdered: Bool = false {
        willSet { ensureEditable() }
    }

    override func copyValues(from other: NSPropertyDescription) {
        super.copyValues(from: other)
        guard let other = other as? NSRelationshipDescription else { return }
        destinationEntity = other.destinationEntity
        inverseRelationship = other.inverseRelationship
        minCount = other.minCount
        maxCount = other.maxCount
        deleteRule = other.deleteRule
        isOrdered = other.isOrdered
    }

    override var kindDescription: String { "relationship" }

    override var detailDescriptions: [String] {
        var details = ["destination \(destinationEntity?.name ?? "none")"]
        if let inverse = inverseRelationship { details.append("inverse \(inverse.name)") }
        details.append(isToMany ? (isOrdered ? "ordered to-many" : "to-many") : "to-one")
        return details
    }
}
