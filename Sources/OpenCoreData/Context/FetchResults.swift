/// What a fetch returns, kept in a typed array for each kind of result, so that
/// `fetch<ResultType>` can hand the array over whole when it is already `[ResultType]` instead of
/// casting every result out of an `[Any]`.
enum FetchResults {
    case objects([NSManagedObject])
    case ids([NSManagedObjectID])
    case dictionaries([NSDictionary])
    /// Counts (one `NSNumber`) and anything else.
    case other([Any])

    /// How many results there are.
    var count: Int {
        switch self {
        case .objects(let objects): objects.count
        case .ids(let ids): ids.count
        case .dictionaries(let dictionaries): dictionaries.count
        case .other(let results): results.count
        }
    }

    /// The results as `Any` (for untyped requests and fetch request expressions).
    var untyped: [Any] {
        switch self {
        case .objects(let objects): return objects
        case .ids(let ids): return ids
        case .dictionaries(let dictionaries): return dictionaries
        case .other(let results): return results
        }
    }

    /// The results as `ResultType`: the whole array when its element type is `ResultType` (no
    /// per-result cast), else each result cast.
    ///
    /// - Throws: An `NSError` naming the first result that is not a `ResultType`.
    func typed<ResultType>(as _: ResultType.Type) throws -> [ResultType] {
        // Cast as `Any`: the runtime then sees two equal array types and copies the reference;
        // an array-to-array cast would cast each element.
        switch self {
        case .objects(let objects):
            // A class (`NSFetchRequest<Employee>`): the array is handed over whole once each class
            // among the objects is checked (not each object, as the runtime's cast of an array to
            // an array of a subclass does).
            if ResultType.self is AnyObject.Type, let typed = Self.downcast(objects, to: ResultType.self) { return typed }
            if let typed = objects as Any as? [ResultType] { return typed }
        case .ids(let ids): if let typed = ids as Any as? [ResultType] { return typed }
        case .dictionaries(let dictionaries): if let typed = dictionaries as Any as? [ResultType] { return typed }
        case .other: break
        }
        let results = untyped
        var typed: [ResultType] = []
        typed.reserveCapacity(results.count)
        for result in results {
            guard let value = result as? ResultType else {
                throw CoreDataError.make(
                    code: NSCoreDataError,
                    reason:
                        "The fetch returned \(Swift.type(of: result)), which is not the request's result type \(ResultType.self)")
            }
            typed.append(value)
        }
        return typed
    }

    /// `objects` as an array of the class `ResultType`, if each is one: the class of each run
    /// of objects of one class is checked once, then the array's reference is reused (arrays of
    /// class references share their layout).
    private static func downcast<ResultType>(_ objects: [NSManagedObject], to _: ResultType.Type) -> [ResultType]? {
        var checked: ObjectIdentifier?
        for object in objects {
            let objectClass = ObjectIdentifier(type(of: object))
            if objectClass == checked { continue }
            guard object is ResultType else { return nil }
            checked = objectClass
        }
        return unsafeBitCast(objects, to: [ResultType].self)
    }
}
