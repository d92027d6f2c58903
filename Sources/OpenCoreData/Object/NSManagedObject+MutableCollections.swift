import OpenPredicate
import OpenStoreCore

extension NSManagedObject {
    /// A mutable set that stands for a to-many relationship: reading it reads the relationship,
    /// and adding or removing objects changes the relationship through `setValue(_:forKey:)`,
    /// so the change is recorded and inverse relationships are kept in step.
    ///
    /// ```swift
    /// department.mutableSetValue(forKey: "employees").add(employee)
    /// employee.value(forKey: "department")  // department
    /// ```
    ///
    /// An unknown key, or one that is not a to-many relationship, stops the process with
    /// Apple's `NSUnknownKeyException` / `NSInvalidArgumentException` reason.
    /// See [mutableSetValue(forKey:)](https://developer.apple.com/documentation/objectivec/nsobject/1408115-mutablesetvalue).
    public func mutableSetValue(forKey key: String) -> NSMutableSet {
        ManagedRelationshipSet(owner: self, relationship: toManyRelationship(key))
    }

    /// A mutable ordered set that stands for a to-many relationship (ordered or not): changes
    /// go through `setValue(_:forKey:)`, as with `mutableSetValue(forKey:)`.
    /// See [mutableOrderedSetValue(forKey:)](https://developer.apple.com/documentation/objectivec/nsobject/1415479-mutableorderedsetvalue).
    public func mutableOrderedSetValue(forKey key: String) -> NSMutableOrderedSet {
        ManagedRelationshipOrderedSet(owner: self, relationship: toManyRelationship(key))
    }

    private func toManyRelationship(_ key: String) -> NSRelationshipDescription {
        guard let property = entity.propertiesByName[key] else {
            AppleException.raise(
                "NSUnknownKeyException",
                reason: "[<\(Swift.type(of: self))> valueForUndefinedKey:]: the entity \(entity.name ?? "") is not "
                    + "key value coding-compliant for the key \"\(key)\".")
        }
        guard let relationship = property as? NSRelationshipDescription, relationship.isToMany else {
            AppleException.invalidArgument(
                "The property \(key) of the entity \(entity.name ?? "") is not a to-many relationship, so it has no "
                    + "mutable set")
        }
        return relationship
    }

}

/// What both proxies stand for: one to-many relationship of one object. Reads go through the
/// access hooks; writes through `setValue(_:forKey:)`, so changes are recorded and inverses kept.
private struct RelationshipMembers {
    let owner: NSManagedObject
    let relationship: NSRelationshipDescription

    var objects: [NSManagedObject] {
        owner.willAccessValue(forKey: relationship.name)
        defer { owner.didAccessValue(forKey: relationship.name) }
        return owner.members(relationship)
    }

    func contains(_ object: Any) -> Bool {
        guard let object = object as? NSManagedObject else { return false }
        return objects.contains { $0 === object }
    }

    func replace(with values: [Any]) {
        owner.setValue(values, forKey: relationship.name)
    }
}

/// `mutableSetValue(forKey:)`'s proxy: an `NSMutableSet` whose primitive methods read and write
/// the relationship of its owner.
final class ManagedRelationshipSet: NSMutableSet {
    private let relationship: RelationshipMembers

    init(owner: NSManagedObject, relationship: NSRelationshipDescription) {
        self.relationship = RelationshipMembers(owner: owner, relationship: relationship)
        super.init(capacity: 0)
    }

    /// Not used: a proxy always has an owner.
    required convenience init(capacity numItems: Int) {
        AppleException.invalidArgument("A relationship's mutable set is made by mutableSetValue(forKey:)")
    }

    required init?(coder: NSCoder) { nil }

    private var members: [NSManagedObject] { relationship.objects }

    override var count: Int { members.count }

    override func member(_ object: Any) -> Any? {
        guard let object = object as? NSManagedObject else { return nil }
        return members.first { $0 === object }
    }

    override func objectEnumerator() -> NSEnumerator {
        NSArray(array: members).objectEnumerator()
    }

    override func add(_ object: Any) {
        if relationship.contains(object) { return }
        relationship.replace(with: members + [object])
    }

    override func remove(_ object: Any) {
        guard relationship.contains(object), let object = object as? NSManagedObject else { return }
        relationship.replace(with: members.filter { $0 !== object })
    }
}

/// `mutableOrderedSetValue(forKey:)`'s proxy: an `NSMutableOrderedSet` whose primitive methods
/// read and write the relationship of its owner (in the relationship's order).
final class ManagedRelationshipOrderedSet: NSMutableOrderedSet {
    private let relationship: RelationshipMembers

    init(owner: NSManagedObject, relationship: NSRelationshipDescription) {
        self.relationship = RelationshipMembers(owner: owner, relationship: relationship)
        super.init(capacity: 0)
    }

    /// Not used: a proxy always has an owner.
    required convenience init(arrayLiteral elements: Any...) {
        AppleException.invalidArgument("A relationship's mutable ordered set is made by mutableOrderedSetValue(forKey:)")
    }

    required init?(coder: NSCoder) { nil }

    private var members: [NSManagedObject] { relationship.objects }

    override var count: Int { members.count }

    override func object(at idx: Int) -> Any { members[idx] }

    override func index(of object: Any) -> Int {
        guard let object = object as? NSManagedObject else { return NSNotFound }
        return members.firstIndex { $0 === object } ?? NSNotFound
    }

    override func insert(_ object: Any, at idx: Int) {
        let current = members
        if let object = object as? NSManagedObject, current.contains(where: { $0 === object }) { return }
        var values: [Any] = current
        values.insert(object, at: Swift.min(Swift.max(idx, 0), current.count))
        relationship.replace(with: values)
    }

    override func add(_ object: Any) {
        insert(object, at: members.count)
    }

    override func remove(_ object: Any) {
        let found = index(of: object)
        if found != NSNotFound { removeObject(at: found) }
    }

    override func contains(_ object: Any) -> Bool {
        index(of: object) != NSNotFound
    }

    override func removeObject(at idx: Int) {
        var current = members
        guard current.indices.contains(idx) else { return }
        current.remove(at: idx)
        relationship.replace(with: current)
    }

    override func replaceObject(at idx: Int, with object: Any) {
        var values: [Any] = members
        guard values.indices.contains(idx) else { return }
        values[idx] = object
        relationship.replace(with: values)
    }
}
