import OpenCoreData

/// Identifies a model across contexts: its object ID in a store once inserted.
///
/// Identifiers are equal when they name the same stored object (by its object ID's URI), so an
/// identifier decoded from JSON equals the one encoded. A temporary identifier (of a model
/// inserted and not yet saved) changes at the save that stores the model, as on Apple.
///
/// **Differences from Apple:** the encoded form is the object ID's URI and entity name; a
/// model never inserted has an identifier of its own, equal only to itself.
public struct PersistentIdentifier: Hashable, Comparable, Codable, Sendable, CustomStringConvertible {
    enum Kind: Sendable {
        case object(NSManagedObjectID)
        /// A decoded identifier: resolved by a context's coordinator.
        case uri(URL, entityName: String)
        case unsaved(UUID, entityName: String)
    }

    let kind: Kind

    init(_ objectID: NSManagedObjectID) { kind = .object(objectID) }
    init(unsaved id: UUID, entityName: String) { kind = .unsaved(id, entityName: entityName) }

    /// The object ID, for an inserted or fetched model's identifier.
    var objectID: NSManagedObjectID? {
        if case .object(let objectID) = kind { return objectID }
        return nil
    }

    /// The object ID of the object this identifies in `coordinator`'s stores (a decoded
    /// identifier is looked up there); nil for a model never inserted, or another store's.
    func objectID(in coordinator: NSPersistentStoreCoordinator?) -> NSManagedObjectID? {
        switch kind {
        case .object(let objectID): objectID
        case .uri(let url, _): coordinator?.managedObjectID(forURIRepresentation: url)
        case .unsaved: nil
        }
    }

    /// The name of the model's entity (its class's name).
    public var entityName: String {
        switch kind {
        case .object(let objectID): objectID.entity.name ?? ""
        case .uri(_, let entityName), .unsaved(_, let entityName): entityName
        }
    }

    /// The identifier of the store that holds the model; nil before it is saved (and for a
    /// decoded identifier).
    public var storeIdentifier: String? { objectID?.persistentStore?.identifier }

    /// The object ID's URI (`x-coredata://…`), or the unsaved model's UUID.
    public var description: String {
        switch kind {
        case .object(let objectID): objectID.uriRepresentation().absoluteString
        case .uri(let url, _): url.absoluteString
        case .unsaved(let id, let entityName): "unsaved:\(entityName)/\(id.uuidString)"
        }
    }

    /// Equal when they name the same object: the same object ID, or the same URI.
    public static func == (lhs: PersistentIdentifier, rhs: PersistentIdentifier) -> Bool {
        if case .object(let left) = lhs.kind, case .object(let right) = rhs.kind, left == right { return true }
        return lhs.description == rhs.description
    }

    /// Hashes the last part of the URI (the store key or the temporary number), which equal
    /// identifiers share, without making the URI of an object ID.
    public func hash(into hasher: inout Hasher) {
        switch kind {
        case .object(let objectID): hasher.combine(objectID.uriKeyComponent)
        case .uri(let url, _): hasher.combine(url.lastPathComponent)
        case .unsaved(let id, _): hasher.combine(id)
        }
    }

    /// Orders identifiers by their string form (entity, then store key).
    public static func < (lhs: PersistentIdentifier, rhs: PersistentIdentifier) -> Bool {
        lhs.description < rhs.description
    }

    private enum CodingKeys: String, CodingKey {
        case uri, entityName
    }

    /// Encodes the URI and entity name.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(description, forKey: .uri)
        try container.encode(entityName, forKey: .entityName)
    }

    /// Decodes an identifier encoded by `encode(to:)`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let text = try container.decode(String.self, forKey: .uri)
        guard let url = URL(string: text) else {
            throw DecodingError.dataCorruptedError(forKey: .uri, in: container, debugDescription: "Not a URI: \(text)")
        }
        kind = .uri(url, entityName: try container.decode(String.self, forKey: .entityName))
    }
}
