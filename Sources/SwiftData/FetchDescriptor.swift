import OpenCoreData

/// What to fetch of one model class: a Swift predicate, sort order, limit and offset, and how.
///
/// ```swift
/// var descriptor = FetchDescriptor<Trip>(
///     predicate: #Predicate { $0.destination == "Lisbon" }, sortBy: [SortDescriptor(\.startDate)])
/// descriptor.fetchLimit = 10
/// let trips = try context.fetch(descriptor)
/// ```
public struct FetchDescriptor<T: PersistentModel> {
    /// The models to fetch; nil for all. Converted as `NSPredicate(_:)` converts it: a fetch
    /// with a predicate that has no `NSPredicate` form throws.
    public var predicate: Predicate<T>?
    /// The order of the results; empty for the store's order. **Default:** empty.
    public var sortBy: [SortDescriptor<T>]
    /// The most models to fetch; nil for no limit. **Default:** nil.
    public var fetchLimit: Int?
    /// How many of the first matching models to skip. **Default:** nil (none).
    public var fetchOffset: Int?
    /// Whether the context's unsaved changes count. **Default:** true.
    public var includePendingChanges: Bool = true
    /// The properties to read when fetching (the others are read when first used); empty for
    /// all. **Default:** empty.
    public var propertiesToFetch: [PartialKeyPath<T>] = []
    /// Relationships whose models to fetch with the results. **Default:** empty.
    public var relationshipKeyPathsForPrefetching: [PartialKeyPath<T>] = []

    /// A descriptor of the models `predicate` matches (all, for nil), in the order `sortBy` gives.
    public init(predicate: Predicate<T>? = nil, sortBy: [SortDescriptor<T>] = []) {
        self.predicate = predicate
        self.sortBy = sortBy
    }

    /// The Core Data request of this descriptor.
    func request<Result>(entity: NSEntityDescription, resultType: NSFetchRequestResultType) throws -> NSFetchRequest<Result> {
        let request = NSFetchRequest<Result>()
        request.entity = entity
        request.resultType = resultType
        if let predicate {
            guard
                let converted = NSPredicate(
                    converting: predicate, naming: ModelKeyPaths.name(of:), values: ModelKeyPaths.argument)
            else {
                throw SwiftDataError.unsupportedPredicate
            }
            request.predicate = converted
        }
        request.sortDescriptors = try sortBy.map {
            let descriptor = NSSortDescriptor(converting: $0, naming: ModelKeyPaths.name(of:))
            guard descriptor.key != nil else { throw SwiftDataError.unsupportedSortDescriptor }
            return descriptor
        }
        if let fetchLimit { request.fetchLimit = fetchLimit }
        if let fetchOffset { request.fetchOffset = fetchOffset }
        request.includesPendingChanges = includePendingChanges
        let fetched = propertiesToFetch.compactMap { ModelKeyPaths.name(of: $0) }
        if !fetched.isEmpty, resultType == .managedObjectResultType {
            request.propertiesToFetch = fetched.compactMap { entity.propertiesByName[$0] }
        }
        let prefetched = relationshipKeyPathsForPrefetching.compactMap { ModelKeyPaths.name(of: $0) }
        if !prefetched.isEmpty { request.relationshipKeyPathsForPrefetching = prefetched }
        return request
    }
}

/// Errors SwiftData's API throws (beside the `NSError`s of the stores underneath).
public struct SwiftDataError: Error, Hashable, Sendable, CustomStringConvertible {
    let code: String

    /// A fetch's predicate has an expression with no `NSPredicate` form (arithmetic, `??`, a
    /// function of your own), or a key path to a property that is not persisted.
    public static let unsupportedPredicate = SwiftDataError(code: "unsupportedPredicate")
    /// A sort descriptor has a key path to a property that is not persisted.
    public static let unsupportedSortDescriptor = SwiftDataError(code: "unsupportedSortDescriptor")
    /// A model's class is not in the container's schema: a fetch of it, or a save after an
    /// `insert` of it.
    public static let unknownSchema = SwiftDataError(code: "unknownSchema")

    /// The error's name.
    public var description: String { "SwiftDataError.\(code)" }
}
