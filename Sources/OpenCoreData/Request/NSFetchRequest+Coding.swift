import OpenPredicate

// Keyed archiving of fetch requests, under the keys Apple's NSFetchRequest writes: NSEntity,
// NSPredicate, NSSortDescriptors, NSFetchLimit, NSFetchOffset, NSBatchSize, NSResultType,
// NSHasFetchRequestFlags + NSFetchRequestFlags (bit 0 distinct results, 1 sub-entities,
// 2 property values, 3 faults, 4 pending changes, 5 refresh refetched objects),
// NSRelationshipKeyPathsForPrefetching, NSValuesToFetch, NSValuesToGroupBy, NSHavingPredicate.
//
// swift-corelibs-foundation cannot archive an instance of a generic class (its
// `NSStringFromClass` stops the process for `NSFetchRequest<…>` and for any subclass of it), so a
// request is archived as an `ArchivedFetchRequest`, a plain class holding the same settings.
// Reading one back goes through `NSKeyedUnarchiver.unarchivedFetchRequest(from:)` or
// `NSCoder.decodeFetchRequest(forKey:)`.

/// The form a fetch request takes inside a keyed archive on Linux.
final class ArchivedFetchRequest: NSObject, NSSecureCoding {
    let settings: FetchRequestSettings

    static var supportsSecureCoding: Bool { true }

    init(settings: FetchRequestSettings) {
        self.settings = settings
        super.init()
    }

    func encode(with coder: NSCoder) {
        settings.encode(to: coder)
    }

    init?(coder: NSCoder) {
        guard let settings = FetchRequestSettings(coder: coder) else { return nil }
        self.settings = settings
        super.init()
    }

    /// A new request with the archived settings; its entity is known by name until a context
    /// resolves it.
    func makeRequest() -> NSFetchRequest<NSFetchRequestResult> {
        let request = NSFetchRequest<NSFetchRequestResult>()
        request.settings = settings
        return request
    }
}

enum FetchRequestArchiveKey {
    static let entity = "NSEntity"
    static let predicate = "NSPredicate"
    static let sortDescriptors = "NSSortDescriptors"
    static let fetchLimit = "NSFetchLimit"
    static let fetchOffset = "NSFetchOffset"
    static let batchSize = "NSBatchSize"
    static let resultType = "NSResultType"
    static let hasFlags = "NSHasFetchRequestFlags"
    static let flags = "NSFetchRequestFlags"
    static let prefetching = "NSRelationshipKeyPathsForPrefetching"
    static let valuesToFetch = "NSValuesToFetch"
    static let valuesToGroupBy = "NSValuesToGroupBy"
    static let havingPredicate = "NSHavingPredicate"
}

extension FetchRequestSettings {
    private typealias Key = FetchRequestArchiveKey

    /// Apple's flag bits under `NSFetchRequestFlags`.
    private var flags: Int {
        var flags = 0
        if returnsDistinctResults { flags |= 1 }
        if includesSubentities { flags |= 2 }
        if includesPropertyValues { flags |= 4 }
        if returnsObjectsAsFaults { flags |= 8 }
        if includesPendingChanges { flags |= 16 }
        if shouldRefreshRefetchedObjects { flags |= 32 }
        return flags
    }

    /// Writes every setting. The entity is written by name (Apple writes the entity object
    /// when the request has one; a name-only request is archived the same way on both).
    func encode(to coder: NSCoder) {
        if let entityName { coder.encode(entityName as NSString, forKey: Key.entity) }
        PredicateArchiving.encode(predicate, forKey: Key.predicate, to: coder)
        PredicateArchiving.encode(sortDescriptors, forKey: Key.sortDescriptors, to: coder)
        PredicateArchiving.encode(havingPredicate, forKey: Key.havingPredicate, to: coder)
        coder.encode(fetchLimit, forKey: Key.fetchLimit)
        coder.encode(fetchOffset, forKey: Key.fetchOffset)
        coder.encode(fetchBatchSize, forKey: Key.batchSize)
        coder.encode(Int(resultType.rawValue), forKey: Key.resultType)
        coder.encode(true, forKey: Key.hasFlags)
        coder.encode(flags, forKey: Key.flags)
        if let relationshipKeyPathsForPrefetching {
            coder.encode(relationshipKeyPathsForPrefetching.map { $0 as NSString } as NSArray, forKey: Key.prefetching)
        }
        Self.encode(propertiesToFetch, forKey: Key.valuesToFetch, to: coder)
        Self.encode(propertiesToGroupBy, forKey: Key.valuesToGroupBy, to: coder)
    }

    /// Property lists are written as Apple's XPC encoding writes them: a property by its name,
    /// an expression description as `[name, expressionResultType, expression]`.
    private static func encode(_ properties: [Any]?, forKey key: String, to coder: NSCoder) {
        guard let properties else { return }
        let items: [NSObject] = properties.compactMap { property in
            switch property {
            case let description as NSExpressionDescription:
                guard let expression = description.expression else { return description.name as NSString }
                return [
                    description.name as NSString, NSNumber(value: description.expressionResultType.rawValue), expression,
                ] as NSArray
            case let description as NSPropertyDescription: return description.name as NSString
            case let name as String: return name as NSString
            default: return nil
            }
        }
        coder.encode(items as NSArray, forKey: key)
    }

    /// Reads the settings written by `encode(to:)` (or by Apple's framework, for a request whose
    /// entity was a name); a malformed archive fails the coder and gives nil.
    init?(coder: NSCoder) {
        self.init()
        do {
            try decode(from: coder)
        } catch {
            coder.failWithError(error as NSError)
            return nil
        }
    }

    private mutating func decode(from coder: NSCoder) throws {
        if coder.containsValue(forKey: Key.entity) {
            guard let name = coder.decodeObject(of: NSString.self, forKey: Key.entity) else {
                throw Self.corrupt("\(Key.entity) is not an entity name")
            }
            initialEntityName = name as String
        }
        predicate = try PredicateArchiving.decodePredicate(forKey: Key.predicate, from: coder)
        sortDescriptors = try PredicateArchiving.decodeSortDescriptors(forKey: Key.sortDescriptors, from: coder)
        havingPredicate = try PredicateArchiving.decodePredicate(forKey: Key.havingPredicate, from: coder)
        fetchLimit = try Self.count(Key.fetchLimit, in: coder)
        fetchOffset = try Self.count(Key.fetchOffset, in: coder)
        fetchBatchSize = try Self.count(Key.batchSize, in: coder)
        let rawType = coder.decodeInteger(forKey: Key.resultType)
        guard [0, 1, 2, 4].contains(rawType) else { throw Self.corrupt("\(Key.resultType) \(rawType) is not a result type") }
        resultType = NSFetchRequestResultType(rawValue: UInt(rawType))
        if coder.decodeBool(forKey: Key.hasFlags) {
            let flags = coder.decodeInteger(forKey: Key.flags)
            returnsDistinctResults = flags & 1 != 0
            includesSubentities = flags & 2 != 0
            includesPropertyValues = flags & 4 != 0
            returnsObjectsAsFaults = flags & 8 != 0
            includesPendingChanges = flags & 16 != 0
            shouldRefreshRefetchedObjects = flags & 32 != 0
        }
        if coder.containsValue(forKey: Key.prefetching) {
            let paths = coder.decodeObject(of: [NSArray.self, NSString.self], forKey: Key.prefetching) as? [Any]
            guard let strings = paths?.compactMap({ $0 as? String }), strings.count == paths?.count else {
                throw Self.corrupt("\(Key.prefetching) is not a list of key paths")
            }
            relationshipKeyPathsForPrefetching = strings
        }
        propertiesToFetch = try Self.decodeProperties(forKey: Key.valuesToFetch, from: coder)
        propertiesToGroupBy = try Self.decodeProperties(forKey: Key.valuesToGroupBy, from: coder)
    }

    private static func count(_ key: String, in coder: NSCoder) throws -> Int {
        let value = coder.decodeInteger(forKey: key)
        guard value >= 0 else { throw corrupt("\(key) is negative (\(value))") }
        return value
    }

    /// Names come back as strings (checked against the entity when the request runs) and
    /// `[name, type, expression]` triples as expression descriptions.
    private static func decodeProperties(forKey key: String, from coder: NSCoder) throws -> [Any]? {
        guard coder.containsValue(forKey: key) else { return nil }
        let classes: [AnyClass] = [NSArray.self, NSString.self, NSNumber.self] + PredicateArchiving.allowedClasses
        guard let items = coder.decodeObject(of: classes, forKey: key) as? [Any] else {
            throw corrupt("\(key) is not a list of properties")
        }
        return try items.map { item -> Any in
            if let name = item as? String { return name }
            guard let triple = item as? [Any], triple.count == 3, let name = triple[0] as? String,
                let rawType = (triple[1] as? NSNumber)?.uintValue, let type = NSAttributeType(rawValue: rawType),
                let expression = triple[2] as? NSExpression
            else {
                throw corrupt("\(key) holds \(item), neither a property name nor an expression description")
            }
            let description = NSExpressionDescription()
            description.name = name
            description.expressionResultType = type
            description.expression = expression
            return description
        }
    }

    private static func corrupt(_ reason: String) -> NSError {
        CoreDataError.make(code: CocoaError.coderReadCorrupt.rawValue, reason: "Malformed archived fetch request: \(reason)")
    }
}

extension NSKeyedUnarchiver {
    /// Reads a fetch request archived as the root object with `NSKeyedArchiver`
    /// (`archivedData(withRootObject: request, requiringSecureCoding: true)`).
    ///
    /// The request's entity comes back by name (`entityName`); a context finds the entity when
    /// the request runs. Property descriptions in `propertiesToFetch` and `propertiesToGroupBy`
    /// come back as their names, expression descriptions as equal expression descriptions.
    ///
    /// **Differences from Apple:** an OpenCoreData addition. On Apple you would write
    /// `unarchivedObject(ofClass: NSFetchRequest<NSFetchRequestResult>.self, from: data)`;
    /// swift-corelibs-foundation cannot name a generic class in an archive, so requests are
    /// archived in a form only this method (and `NSCoder.decodeFetchRequest(forKey:)`) reads.
    ///
    /// - Throws: the unarchiver's error for data that is not an archived fetch request.
    public static func unarchivedFetchRequest(from data: Data) throws -> NSFetchRequest<NSFetchRequestResult> {
        let classes: [AnyClass] = [ArchivedFetchRequest.self]
        guard let archived = try unarchivedObject(ofClasses: classes, from: data) as? ArchivedFetchRequest else {
            throw CoreDataError.make(
                code: CocoaError.coderReadCorrupt.rawValue, reason: "The data holds no archived fetch request")
        }
        return archived.makeRequest()
    }
}

extension NSCoder {
    /// Reads a fetch request that an object's `encode(with:)` archived with
    /// `coder.encode(request, forKey: key)`, or nil when there is none under `key`.
    ///
    /// **Differences from Apple:** an OpenCoreData addition, for the reason given at
    /// `NSKeyedUnarchiver.unarchivedFetchRequest(from:)`; on Apple you would write
    /// `decodeObject(of: NSFetchRequest<NSFetchRequestResult>.self, forKey: key)`.
    ///
    /// - Throws: the coder's error when the archived request is malformed.
    public func decodeFetchRequest(forKey key: String) throws -> NSFetchRequest<NSFetchRequestResult>? {
        guard containsValue(forKey: key) else { return nil }
        guard let archived = decodeObject(of: ArchivedFetchRequest.self, forKey: key) else {
            throw error
                ?? CoreDataError.make(
                    code: CocoaError.coderReadCorrupt.rawValue, reason: "\(key) holds no archived fetch request")
        }
        return archived.makeRequest()
    }
}
