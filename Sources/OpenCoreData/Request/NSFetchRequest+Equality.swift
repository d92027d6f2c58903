import OpenPredicate

extension NSFetchRequest {
    /// `isEqual(_:)`: every setting equal (the entity by name, as Apple compares it).
    func isEqualRequest(_ object: Any?) -> Bool {
        guard let other = object as? AnyFetchRequest else { return false }
        if other === self { return true }
        let mine = settings
        let theirs = other.settings
        return mine.entityName == theirs.entityName
            && mine.resultType == theirs.resultType
            && mine.includesSubentities == theirs.includesSubentities
            && mine.includesPendingChanges == theirs.includesPendingChanges
            && mine.includesPropertyValues == theirs.includesPropertyValues
            && mine.returnsObjectsAsFaults == theirs.returnsObjectsAsFaults
            && mine.returnsDistinctResults == theirs.returnsDistinctResults
            && mine.shouldRefreshRefetchedObjects == theirs.shouldRefreshRefetchedObjects
            && mine.fetchLimit == theirs.fetchLimit
            && mine.fetchOffset == theirs.fetchOffset
            && mine.fetchBatchSize == theirs.fetchBatchSize
            && FetchRequestEquality.objects(mine.predicate, theirs.predicate)
            && FetchRequestEquality.lists(mine.sortDescriptors, theirs.sortDescriptors)
            && FetchRequestEquality.lists(mine.propertiesToFetch, theirs.propertiesToFetch)
            && FetchRequestEquality.objects(mine.havingPredicate, theirs.havingPredicate)
            && FetchRequestEquality.lists(mine.propertiesToGroupBy, theirs.propertiesToGroupBy)
            && mine.relationshipKeyPathsForPrefetching == theirs.relationshipKeyPathsForPrefetching
            && FetchRequestEquality.sameStores(affectedStores, other.affectedStores)
    }

    /// `hash`: the settings `isEqualRequest` compares, each through a hash consistent with it.
    var requestHash: Int {
        var hasher = Hasher()
        let settings = settings
        hasher.combine(settings.entityName)
        hasher.combine(settings.resultType.rawValue)
        hasher.combine(settings.includesSubentities)
        hasher.combine(settings.includesPendingChanges)
        hasher.combine(settings.includesPropertyValues)
        hasher.combine(settings.returnsObjectsAsFaults)
        hasher.combine(settings.returnsDistinctResults)
        hasher.combine(settings.shouldRefreshRefetchedObjects)
        hasher.combine(settings.fetchLimit)
        hasher.combine(settings.fetchOffset)
        hasher.combine(settings.fetchBatchSize)
        hasher.combine(settings.predicate?.hash)
        FetchRequestEquality.combine(settings.sortDescriptors, into: &hasher)
        FetchRequestEquality.combine(settings.propertiesToFetch, into: &hasher)
        hasher.combine(settings.havingPredicate?.hash)
        FetchRequestEquality.combine(settings.propertiesToGroupBy, into: &hasher)
        hasher.combine(settings.relationshipKeyPathsForPrefetching)
        hasher.combine(affectedStores.map { $0.map(ObjectIdentifier.init) })
        return hasher.finalize()
    }
}

/// How the settings of two requests compare: objects with `isEqual(_:)`, strings by value, lists
/// element by element (as `NSArray` compares), stores by identity.
enum FetchRequestEquality {
    static func objects(_ lhs: NSObject?, _ rhs: NSObject?) -> Bool {
        switch (lhs, rhs) {
        case (nil, nil): return true
        case (let lhs?, let rhs?): return lhs === rhs || lhs.isEqual(rhs)
        default: return false
        }
    }

    static func lists(_ lhs: [Any]?, _ rhs: [Any]?) -> Bool {
        switch (lhs, rhs) {
        case (nil, nil): return true
        case (let lhs?, let rhs?): return lhs.count == rhs.count && zip(lhs, rhs).allSatisfy(elements)
        default: return false
        }
    }

    static func elements(_ lhs: Any, _ rhs: Any) -> Bool {
        if let lhs = lhs as? String, let rhs = rhs as? String { return lhs == rhs }
        if let lhs = lhs as? NSObject, let rhs = rhs as? NSObject { return objects(lhs, rhs) }
        return false
    }

    static func sameStores(_ lhs: [NSPersistentStore]?, _ rhs: [NSPersistentStore]?) -> Bool {
        switch (lhs, rhs) {
        case (nil, nil): return true
        case (let lhs?, let rhs?): return lhs.count == rhs.count && zip(lhs, rhs).allSatisfy { $0 === $1 }
        default: return false
        }
    }

    static func combine(_ list: [Any]?, into hasher: inout Hasher) {
        guard let list else {
            hasher.combine(-1)
            return
        }
        hasher.combine(list.count)
        for element in list {
            if let string = element as? String {
                hasher.combine(string)
            } else if let object = element as? NSObject {
                hasher.combine(object.hash)
            }
        }
    }
}
