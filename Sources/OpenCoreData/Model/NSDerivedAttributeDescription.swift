import OpenPredicate

/// An attribute whose value a store computes from an expression over the same object (a key
/// path, `@count` of a to-many relationship, `canonical:(name)`, `now()`, …) when it saves.
///
/// See [NSDerivedAttributeDescription](https://developer.apple.com/documentation/coredata/nsderivedattributedescription).
open class NSDerivedAttributeDescription: NSAttributeDescription, @unchecked Sendable {
    // @unchecked Sendable: as `NSPropertyDescription`.

    /// The expression the value is derived from. **Default:** `nil`.
    open var derivationExpression: NSExpression? {
        willSet { ensureEditable() }
    }

    override func copyValues(from other: NSPropertyDescription) {
        super.copyValues(from: other)
        if let other = other as? NSDerivedAttributeDescription { derivationExpression = other.derivationExpression }
    }

    override var kindDescription: String { "derived attribute" }

    override var detailDescriptions: [String] {
        super.detailDescriptions + (derivationExpression.map { ["derived from \($0)"] } ?? [])
    }
}
