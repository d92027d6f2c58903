import OpenPredicate

// Version hashes, computed bit for bit as Apple's Core Data computes them. A SQLite store keeps
// the hash of every entity of the model that wrote it (`NSStoreModelVersionHashes` in its
// metadata); a store and a model are compatible exactly when those hashes are equal.
//
// Every hash is a SHA-256 digest. Strings enter as their UTF-8 bytes (without a terminator),
// integers little-endian. In order:
//
// Property (every kind): name, then 2 bytes of flags (bit 0 optional, bit 1 transient, bit 2
// read-only, which models never set), then the `versionHashModifier` if any.
//
// Attribute: the property hash (32 bytes), the attribute type's raw value (4 bytes), then one
// byte 0x01 if it allows external binary storage and one byte 0x01 if it preserves its value in
// history on deletion.
//
// Derived attribute: only the derivation expression's format, as Apple stores it (`x.@count`
// becomes `count:(x)`, `x.@sum` and `x.@total` become `sum:(x)`). Apple hashes the attribute
// part into a separate buffer and never feeds it in, so the name, type and flags do not count.
//
// Relationship: the property hash (32 bytes), the destination entity's name, the inverse
// relationship's name (left out when the relationship is its own inverse), `maxCount` and
// `minCount` (4 bytes each, the low 32 bits), then 2 bytes 0x01 0x00 if ordered.
//
// Entity: name, 1 byte isAbstract, the superentity's version hash (32 bytes) if any, the hash
// of each non-transient attribute and relationship (inherited ones included, fetched properties
// left out) in name order, the `versionHashModifier` if any, then each uniqueness constraint of
// the entity itself (not inherited), its property names joined with ".", in ascending order.
//
// Checked against the hashes in real stores written by Apple's Core Data from 2010 (framework
// version 241) to 2024 (1344): inheritance, uniqueness constraints, preserved attributes,
// transient attributes, derived attributes, relationships with counts and an unbounded
// `maxCount`. The ordered-relationship bytes, the modifiers and external storage are taken
// from the same Apple code but no store with them was at hand.

/// The computation behind `versionHash` and `entityVersionHashesByName`.
enum VersionHash {
    /// Hashes already computed, by object: a sub-entity's hash feeds in its superentity's and
    /// the hashes of every inherited property, so sharing them keeps a hierarchy's hashes from
    /// being recomputed once per descendant (which made a 1,000-entity chain cubic).
    struct Memo {
        var entities: [ObjectIdentifier: [UInt8]] = [:]
        var properties: [ObjectIdentifier: [UInt8]] = [:]
    }

    /// The version hash of a property, as `NSPropertyDescription.versionHash` returns it.
    static func property(_ property: NSPropertyDescription) -> [UInt8] {
        switch property {
        case let derived as NSDerivedAttributeDescription: return derivedAttribute(derived)
        case let attribute as NSAttributeDescription: return self.attribute(attribute)
        case let relationship as NSRelationshipDescription: return self.relationship(relationship)
        default: return common(property)
        }
    }

    /// The version hash of an entity, as `NSEntityDescription.versionHash` returns it.
    static func entity(_ entity: NSEntityDescription) -> [UInt8] {
        var memo = Memo()
        return self.entity(entity, memo: &memo)
    }

    /// The version hash of an entity, reusing and filling `memo`. The superentities are hashed
    /// from the root down, without recursion, so a deep hierarchy cannot exhaust the stack.
    static func entity(_ entity: NSEntityDescription, memo: inout Memo) -> [UInt8] {
        if let known = memo.entities[ObjectIdentifier(entity)] { return known }
        var chain: [NSEntityDescription] = []
        var seen: Set<ObjectIdentifier> = []
        var current: NSEntityDescription? = entity
        // `seen` ends a walk round a loop of superentities (a model built in code can make one).
        while let next = current, memo.entities[ObjectIdentifier(next)] == nil, seen.insert(ObjectIdentifier(next)).inserted {
            chain.append(next)
            current = next.superentity
        }
        var hash: [UInt8] = []
        for next in chain.reversed() {
            hash = ownEntityHash(next, memo: &memo)
            memo.entities[ObjectIdentifier(next)] = hash
        }
        return hash
    }

    /// One entity's hash, its superentity's being in `memo` already.
    private static func ownEntityHash(_ entity: NSEntityDescription, memo: inout Memo) -> [UInt8] {
        var hasher = SHA256()
        if let name = entity.name { hasher.update(cString(name)) }
        hasher.update([entity.isAbstract ? 1 : 0])
        if let superentity = entity.superentity, let superHash = memo.entities[ObjectIdentifier(superentity)] {
            hasher.update(superHash)
        }
        let hashed = entity.properties.filter { property in
            (property is NSAttributeDescription || property is NSRelationshipDescription) && !property.isTransient
        }
        for property in hashed.sorted(by: { precedes($0.name, $1.name) }) {
            let key = ObjectIdentifier(property)
            if let known = memo.properties[key] {
                hasher.update(known)
            } else {
                let computed = self.property(property)
                memo.properties[key] = computed
                hasher.update(computed)
            }
        }
        if let modifier = entity.versionHashModifier { hasher.update(cString(modifier)) }
        let constraints = entity.uniquenessConstraints.map { group in group.map(constraintElementName).joined(separator: ".") }
        for constraint in constraints.sorted(by: precedes) where !constraint.isEmpty {
            hasher.update(cString(constraint))
        }
        return hasher.finalize()
    }

    /// The part every kind of property shares: name, flags and modifier.
    private static func common(_ property: NSPropertyDescription) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(cString(property.name))
        let flags: UInt16 = (property.isOptional ? 1 : 0) | (property.isTransient ? 2 : 0)
        hasher.update(littleEndian(flags))
        if let modifier = property.versionHashModifier { hasher.update(cString(modifier)) }
        return hasher.finalize()
    }

    private static func attribute(_ attribute: NSAttributeDescription) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(common(attribute))
        hasher.update(littleEndian(UInt32(truncatingIfNeeded: attribute.attributeType.rawValue)))
        if attribute.allowsExternalBinaryDataStorage { hasher.update([1]) }
        if attribute.preservesValueInHistoryOnDeletion { hasher.update([1]) }
        return hasher.finalize()
    }

    private static func derivedAttribute(_ attribute: NSDerivedAttributeDescription) -> [UInt8] {
        var hasher = SHA256()
        if let expression = attribute.derivationExpression { hasher.update(cString(storedFormat(of: expression))) }
        return hasher.finalize()
    }

    private static func relationship(_ relationship: NSRelationshipDescription) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(common(relationship))
        if let destination = relationship.destinationEntity?.name { hasher.update(cString(destination)) }
        if let inverse = relationship.inverseRelationship, inverse !== relationship {
            hasher.update(cString(inverse.name))
        }
        hasher.update(littleEndian(UInt32(truncatingIfNeeded: relationship.maxCount)))
        hasher.update(littleEndian(UInt32(truncatingIfNeeded: relationship.minCount)))
        if relationship.isOrdered { hasher.update(littleEndian(UInt16(1))) }
        return hasher.finalize()
    }

    /// The format of a derivation expression as Apple's `NSDerivedAttributeDescription` stores
    /// it: its setter turns a key path ending in `.@count`, `.@sum` or `.@total` into the
    /// function `count:` or `sum:` of the rest of the path.
    static func storedFormat(of expression: NSExpression) -> String {
        if expression.expressionType == .keyPath {
            let path = expression.keyPath
            for (suffix, function) in [(".@sum", "sum:"), (".@total", "sum:"), (".@count", "count:")]
            where path.hasSuffix(suffix) {
                let base = NSExpression(forKeyPath: String(path.dropLast(suffix.count)))
                return NSExpression(forFunction: function, arguments: [base]).description
            }
        }
        return expression.description
    }

    /// How a uniqueness constraint element enters the hash: a name as is, a property by its name.
    private static func constraintElementName(_ element: Any) -> String {
        switch element {
        case let name as String: return name
        case let property as NSPropertyDescription: return property.name
        default: return "\(element)"
        }
    }

    /// Apple's `-[NSString compare:]` order (no options), which sorts properties and constraints.
    private static func precedes(_ lhs: String, _ rhs: String) -> Bool {
        lhs.compare(rhs) == .orderedAscending
    }

    /// The bytes `strlen` sees of the string's UTF-8 C string: up to the first NUL.
    private static func cString(_ string: String) -> [UInt8] {
        Array(string.utf8.prefix { $0 != 0 })
    }

    private static func littleEndian<Integer: FixedWidthInteger>(_ value: Integer) -> [UInt8] {
        (0..<(Integer.bitWidth / 8)).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
    }
}

extension NSPropertyDescription {
    /// The 32-byte SHA-256 digest that identifies this property's schema, as Apple's Core Data
    /// computes it.
    ///
    /// ```swift
    /// let name = NSAttributeDescription()
    /// name.name = "name"
    /// name.attributeType = .stringAttributeType
    /// name.versionHash.count  // 32
    /// ```
    ///
    /// The hash covers the name, whether the property is optional or transient, and its
    /// `versionHashModifier`; for an attribute, also its type and whether it allows external
    /// binary storage or preserves its value in history; for a relationship, also the names of
    /// its destination entity and inverse, its minimum and maximum counts and whether it is
    /// ordered. Default values, validation rules, user info, indexes, delete rules and renaming
    /// identifiers do not count: a change to them needs no migration.
    ///
    /// **Differences from Apple:** none intended; the value is bit-for-bit Apple's, including
    /// Apple's quirk that a derived attribute's hash covers only its derivation expression. It is
    /// computed on each call (Apple caches it once the model is in use).
    /// See [versionHash](https://developer.apple.com/documentation/coredata/nspropertydescription/versionhash).
    public var versionHash: Data { Data(VersionHash.property(self)) }
}

extension NSEntityDescription {
    /// The 32-byte SHA-256 digest that identifies this entity's schema, as Apple's Core Data
    /// computes it; SQLite stores keep it per entity in their metadata
    /// (`NSStoreModelVersionHashes`), and a store fits a model when the hashes are equal.
    ///
    /// ```swift
    /// let type = NSEntityDescription()
    /// type.name = "RecipeType"
    /// // … add attributes and relationships …
    /// type.versionHash.count  // 32
    /// ```
    ///
    /// The hash covers the name, `isAbstract`, the superentity's hash, the hashes of every
    /// non-transient attribute and relationship (inherited ones included), the
    /// `versionHashModifier`, and the entity's own uniqueness constraints. The class name,
    /// fetched properties, indexes, user info and renaming identifier do not count.
    ///
    /// **Differences from Apple:** none intended; the value is bit-for-bit Apple's. It is
    /// computed on each call (Apple caches it once the model is in use).
    /// See [versionHash](https://developer.apple.com/documentation/coredata/nsentitydescription/versionhash).
    public var versionHash: Data { Data(VersionHash.entity(self)) }
}

extension NSManagedObjectModel {
    /// The version hash of each entity, by entity name: what a SQLite store written with this
    /// model keeps in its metadata under `NSStoreModelVersionHashes`.
    ///
    /// ```swift
    /// let hashes = model.entityVersionHashesByName
    /// hashes["Recipe"]?.count  // 32
    /// ```
    ///
    /// Two models with equal dictionaries open the same stores; comparing this with a store's
    /// metadata is how Core Data tells whether the store needs migrating.
    ///
    /// **Differences from Apple:** none intended. Entities without a name are left out.
    /// See [entityVersionHashesByName](https://developer.apple.com/documentation/coredata/nsmanagedobjectmodel/entityversionhashesbyname).
    public var entityVersionHashesByName: [String: Data] {
        var hashes: [String: Data] = [:]
        var memo = VersionHash.Memo()
        for entity in entities {
            guard let name = entity.name else { continue }
            hashes[name] = Data(VersionHash.entity(entity, memo: &memo))
        }
        return hashes
    }
}
