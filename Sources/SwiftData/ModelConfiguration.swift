import OpenCoreData

/// Where and how a container keeps its models: a store file, memory, or (this package's
/// addition) a PostgreSQL database.
///
/// ```swift
/// let configuration = ModelConfiguration(isStoredInMemoryOnly: true)
/// let container = try ModelContainer(for: Trip.self, configurations: configuration)
/// ```
///
/// **Differences from Apple:** the default file is `default.store` in the folder
/// `NSPersistentContainer.defaultDirectoryURL()` names; a `url` whose scheme is `postgres` or
/// `postgresql` is a PostgreSQL database (with the package's `PostgreSQL` trait); group
/// containers and CloudKit are not options here.
public struct ModelConfiguration: Hashable, @unchecked Sendable {
    /// The configuration's name. **Default:** `"default"`.
    public let name: String
    /// The store's location (a file, or a PostgreSQL URL).
    public let url: URL
    /// Whether the models are kept in memory only. **Default:** false.
    public let isStoredInMemoryOnly: Bool
    /// Whether contexts may save to the store. **Default:** true.
    public let allowsSave: Bool
    /// The models of this configuration's store; nil for all of the container's.
    ///
    /// **Differences from Apple:** every store of a container holds all of its schema's
    /// entities; this is kept, and has no effect.
    public let schema: Schema?

    /// A configuration of a store file in the default folder (or, `isStoredInMemoryOnly`,
    /// in memory).
    public init(_ name: String? = nil, schema: Schema? = nil, isStoredInMemoryOnly: Bool = false, allowsSave: Bool = true) {
        let name = name ?? "default"
        self.init(
            name: name, schema: schema,
            url: NSPersistentContainer.defaultDirectoryURL().appendingPathComponent(name + ".store"),
            isStoredInMemoryOnly: isStoredInMemoryOnly, allowsSave: allowsSave)
    }

    /// A configuration of the store at `url`: a file, or a PostgreSQL database
    /// (`postgres://user@host/database`).
    public init(_ name: String? = nil, schema: Schema? = nil, url: URL, allowsSave: Bool = true) {
        self.init(name: name ?? "default", schema: schema, url: url, isStoredInMemoryOnly: false, allowsSave: allowsSave)
    }

    private init(name: String, schema: Schema?, url: URL, isStoredInMemoryOnly: Bool, allowsSave: Bool) {
        self.name = name
        self.schema = schema
        self.url = url
        self.isStoredInMemoryOnly = isStoredInMemoryOnly
        self.allowsSave = allowsSave
    }

    /// Configurations are equal when their names, places and options are.
    public static func == (lhs: ModelConfiguration, rhs: ModelConfiguration) -> Bool {
        lhs.name == rhs.name && lhs.url == rhs.url && lhs.isStoredInMemoryOnly == rhs.isStoredInMemoryOnly
            && lhs.allowsSave == rhs.allowsSave && lhs.schema === rhs.schema
    }

    /// Hashes the name and place.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(url)
    }

    /// The store description of this configuration.
    var storeDescription: NSPersistentStoreDescription {
        let description = NSPersistentStoreDescription(url: url)
        if isStoredInMemoryOnly {
            description.type = NSInMemoryStoreType
        } else if ["postgres", "postgresql"].contains(url.scheme?.lowercased() ?? "") {
            description.type = NSPostgreSQLStoreType
        } else {
            description.type = NSSQLiteStoreType
        }
        description.isReadOnly = !allowsSave
        description.shouldMigrateStoreAutomatically = true
        description.shouldInferMappingModelAutomatically = true
        return description
    }
}
