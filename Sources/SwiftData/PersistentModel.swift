import Observation
import OpenCoreData

/// A class that SwiftData persists: what `@Model` makes of a class. Its requirements are
/// written by the macro; write `@Model` rather than conforming by hand. Models are
/// `Observable`: reading a persisted property inside `withObservationTracking` observes it.
public protocol PersistentModel: AnyObject, Observable, Identifiable, Hashable {
    /// Where the model's persisted values live: the values given before the model is inserted,
    /// then the managed object that holds them in its context.
    var persistentBackingData: _ModelBackingData { get set }
    /// A line per persisted property: its name, key path, default value and options.
    static var schemaMetadata: [Schema.PropertyMetadata] { get }
    /// Creates a model over backing data (a fetched object's): used by `ModelContext`.
    init(backingData: _ModelBackingData)
    /// The key paths of each `#Unique` constraint. **Default:** none.
    static var _uniquenessConstraints: [[AnyKeyPath]] { get }
    /// The key paths of each `#Index`. **Default:** none.
    static var _indexKeyPaths: [[AnyKeyPath]] { get }
}

extension PersistentModel {
    /// No `#Unique` constraints.
    public static var _uniquenessConstraints: [[AnyKeyPath]] { [] }
    /// No `#Index`.
    public static var _indexKeyPaths: [[AnyKeyPath]] { [] }

    /// The model's identifier: its object ID once inserted (temporary until the first save
    /// that stores it, as on Apple), else one of its own.
    public var persistentModelID: PersistentIdentifier {
        persistentBackingData.identifier(entityName: Schema.entityName(of: Self.self))
    }

    /// The identifier, as `Identifiable`'s `id`, unless the class declares an `id` of its own.
    public var id: PersistentIdentifier { persistentModelID }

    /// The context the model is inserted in or fetched into; nil before it is inserted.
    public var modelContext: ModelContext? { persistentBackingData.context }

    /// Whether the model has changes not yet saved (true for an inserted model until it is saved).
    public var hasChanges: Bool {
        guard let object = persistentBackingData.object else { return false }
        return object.isInserted || object.isUpdated || object.isDeleted
    }

    /// Whether the model is deleted in its context and not yet saved.
    public var isDeleted: Bool { persistentBackingData.object?.isDeleted ?? false }

    /// Models are equal when they are the same instance (a context has one instance per stored
    /// object).
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs === rhs }

    /// Hashes the instance's identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// The placeholder storage of a persisted property (its value lives in the backing data): of
/// no size. Not for use in your own code.
public struct _ModelNoValue: Sendable {
    /// A placeholder.
    public init() {}
}
