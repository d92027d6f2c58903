import OpenCoreData

/// The stores of a schema's models, and the contexts that work on them.
///
/// ```swift
/// let container = try ModelContainer(for: Trip.self, Item.self)
/// let context = ModelContext(container)
/// ```
///
/// **Differences from Apple:** with several configurations, each is a store of every entity
/// of the schema, and new models are saved to the first.
public final class ModelContainer: @unchecked Sendable {
    /// The container's models.
    public let schema: Schema
    /// Where the models are kept, a store per configuration.
    public let configurations: [ModelConfiguration]
    /// The Core Data stack underneath: its model is the schema's.
    let persistentContainer: NSPersistentContainer
    /// Made on the main actor when first asked for.
    @MainActor private var madeMainContext: ModelContext?

    /// A container of `types` (and the classes they relate to) in `configurations` (**default:**
    /// one store file, `ModelConfiguration()`); see `init(for:migrationPlan:configurations:)`.
    public convenience init(
        for forTypes: any PersistentModel.Type..., migrationPlan: (any SchemaMigrationPlan.Type)? = nil,
        configurations: ModelConfiguration...
    ) throws {
        try self.init(for: Schema(forTypes), migrationPlan: migrationPlan, configurations: configurations)
    }

    /// A container of a schema's models in `configurations` (**default:** `ModelConfiguration()`);
    /// see `init(for:migrationPlan:configurations:)`.
    public convenience init(
        for givenSchema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)? = nil, configurations: ModelConfiguration...
    ) throws {
        try self.init(for: givenSchema, migrationPlan: migrationPlan, configurations: configurations)
    }

    /// A container of a schema's models in `configurations` (**default:** `ModelConfiguration()`).
    ///
    /// A store written with an earlier version of the models is migrated first: by
    /// `migrationPlan`'s stages when there is a plan, else lightweight (inferred) when the store
    /// keeps the model it was written with.
    /// - Throws: the `NSError` of a store that cannot be opened or migrated.
    public init(
        for givenSchema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)? = nil, configurations: [ModelConfiguration]
    ) throws {
        schema = givenSchema
        self.configurations = configurations.isEmpty ? [ModelConfiguration()] : configurations
        if let migrationPlan {
            for configuration in self.configurations {
                try SchemaMigration(plan: migrationPlan, target: givenSchema.version, configuration: configuration).run()
            }
        }
        persistentContainer = NSPersistentContainer(name: "SwiftData", managedObjectModel: givenSchema.managedObjectModel)
        persistentContainer.persistentStoreDescriptions = self.configurations.map(\.storeDescription)
        var loadError: Error?
        persistentContainer.loadPersistentStores { _, error in
            if let error, loadError == nil { loadError = error }
        }
        if let loadError { throw loadError }
    }

    /// The context of the main actor, made when first asked for; it saves by itself after
    /// changes (`autosaveEnabled`).
    @MainActor public var mainContext: ModelContext {
        if let madeMainContext { return madeMainContext }
        let context = ModelContext(self, managedObjectContext: persistentContainer.viewContext)
        context.autosaveEnabled = true
        madeMainContext = context
        return context
    }

    /// Deletes every model of every store (and keeps the stores).
    public func deleteAllData() {
        let context = persistentContainer.newBackgroundContext()
        context.performAndWait {
            for entity in schema.managedObjectModel.entities {
                guard let name = entity.name else { continue }
                let request = NSFetchRequest<NSManagedObject>(entityName: name)
                request.includesSubentities = false
                for object in (try? context.fetch(request)) ?? [] { context.delete(object) }
            }
            try? context.save()
        }
    }
}
