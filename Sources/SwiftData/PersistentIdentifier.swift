import OpenCoreData

/// Identifies a model across contexts: its object ID in a store once inserted.
///
/// **Differences from Apple:** not `Codable` yet; a model never inserted has an identifier of
/// its own, equal only to itself.
public struct PersistentIdentifier: Hashable, Comparable, Sendable, CustomStringConvertible {
    enum Kind: Hashable, Sendable {
        case object(NSManagedObjectID)
        case unsaved(UUID, entityName: String)
    }

    let kind: Kind

    init(_ objectID: NSManagedObjectID) { kind = .object(objectID) }
    init(unsaved id: UUID, entityName: String) { kind = .unsaved(id, entityName: entityName) }

    /// The object ID, for an inserted or fetched model.
    var objectID: NSManagedObjectID? {
        if case .object(let objectID) = kind { return objectID }
        return nil
    }

    /// The name of the model's entity (its class's name).
    public var entityName: String {
        switch kind {
        case .object(let objectID): objectID.entity.name ?? ""
        case .unsaved(_, let entityName): entityName
        }
    }

    /// The identifier of the store that holds the model; nil before it is saved.
    public var storeIdentifier: String? { objectID?.persistentStore?.identifier }

    /// Orders identifiers by their string form (entity, then store key).
    public static func < (lhs: PersistentIdentifier, rhs: PersistentIdentifier) -> Bool {
        lhs.description < rhs.description
    }

    /// The object ID's URI (`x-coredata://…`), or the unsaved model's UUID.
    public var description: String {
        switch kind {
        case .object(let objectID): objectID.uriRepresentation().absoluteString
        case .unsaved(let id, let entityName): "unsaved:\(entityName)/\(id.uuidString)"
        }
    }
}
