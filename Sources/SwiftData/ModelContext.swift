import OpenCoreData
import OpenPredicate

/// Where models are inserted, changed, fetched, deleted and saved: a managed object context
/// of the container's stores, with one model instance per stored object.
///
/// ```swift
/// let context = ModelContext(container)
/// context.insert(Trip(name: "Lisbon", startDate: .now))
/// try context.save()
/// let count = try context.fetchCount(FetchDescriptor<Trip>())
/// ```
///
/// Use a context from one task (or thread) at a time, as on Apple; `container.mainContext`
/// belongs to the main actor.
public final class ModelContext {
    /// The container whose stores the context works on.
    public let container: ModelContainer
    /// The Core Data context underneath.
    let managedObjectContext: NSManagedObjectContext
    /// The model of each managed object the context has handed out, by the object's identity:
    /// one instance per object while the app keeps it (a model keeps its object, and its
    /// context, alive; the context does not keep its models).
    private var models: [ObjectIdentifier: WeakModel] = [:]
    /// Whether a save is scheduled by `autosaveEnabled`.
    private var autosaveScheduled = false
    /// Whether `insert` was given a model of a class not in the schema since the last rollback.
    private var hasRefusedInsert = false

    /// Whether the context saves by itself, soon after its models change. **Default:** false
    /// (true for `container.mainContext`).
    ///
    /// **Differences from Apple:** Apple saves at the events of an app's run loop; here a save is
    /// scheduled on the main actor after an insert, a delete or a change through the context,
    /// for the main context only.
    public var autosaveEnabled = false

    /// A new context of `container`'s stores.
    public init(_ container: ModelContainer) {
        self.container = container
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = container.persistentContainer.persistentStoreCoordinator
        managedObjectContext = context
        configure()
    }

    init(_ container: ModelContainer, managedObjectContext: NSManagedObjectContext) {
        self.container = container
        self.managedObjectContext = managedObjectContext
        configure()
    }

    private func configure() {
        // Inserting a model whose unique attribute matches a stored one updates that one (upsert).
        managedObjectContext.mergePolicy = NSMergePolicy.mergeByPropertyObjectTrump
    }

    // MARK: - Models and their objects

    /// The model of a managed object: the one handed out before, else a new one of the
    /// object's entity's class.
    func model(for object: NSManagedObject) -> (any PersistentModel)? {
        if let known = models[ObjectIdentifier(object)]?.model { return known }
        guard let type = container.schema.type(ofEntity: object.entity.name) else { return nil }
        let model = type.init(backingData: _ModelBackingData(object: object, context: self))
        register(model, for: object)
        return model
    }

    func model<T: PersistentModel>(for object: NSManagedObject, as type: T.Type) -> T? {
        model(for: object) as? T
    }

    /// Inserts `model` (and the models it relates to that are not inserted), returning its
    /// managed object.
    @discardableResult
    func insertModel(_ model: any PersistentModel) -> NSManagedObject {
        let backing = model.persistentBackingData
        if let object = backing.object { return object }
        guard let entity = container.schema.entity(for: type(of: model)) else {
            // Unreachable: `insert` checks, and a related model's class is in the schema with
            // the class that relates to it.
            AppleException.internalInconsistency("\(type(of: model)) is not a model of the container's schema")
        }
        let object = NSManagedObject(entity: entity, insertInto: managedObjectContext)
        register(model, for: object)
        for (key, value) in backing.attach(to: object, in: self) {
            object.setValue(ModelValues.stored(value, in: self), forKey: key)
        }
        changed()
        return object
    }

    private func register(_ model: any PersistentModel, for object: NSManagedObject) {
        if models.count >= registryPruneCount {
            models = models.filter { $0.value.model != nil }
            registryPruneCount = max(1024, models.count * 2)
        }
        models[ObjectIdentifier(object)] = WeakModel(model: model)
    }

    /// The registry's size at which entries of released models are dropped.
    private var registryPruneCount = 1024

    // MARK: - Changes

    /// Inserts a new model (and the new models it relates to); it is stored at the next save.
    /// A model already in this context is left as it is.
    ///
    /// A model whose class is not in the container's schema (nor related to a class that is)
    /// is not inserted, and the next `save()` throws `SwiftDataError.unknownSchema` (until a
    /// `rollback()`), so the mistake is reported where errors are handled.
    public func insert<T: PersistentModel>(_ model: T) {
        guard container.schema.entity(for: type(of: model)) != nil else {
            hasRefusedInsert = true
            return
        }
        insertModel(model)
    }

    /// Deletes a model: it is removed from the store at the next save, and the delete rules of
    /// its relationships apply. A model never inserted is left alone.
    public func delete<T: PersistentModel>(_ model: T) {
        guard let object = model.persistentBackingData.object, object.managedObjectContext === managedObjectContext else {
            return
        }
        managedObjectContext.delete(object)
        changed()
    }

    /// Deletes every model of class `model` that `predicate` matches (all, for nil), with the
    /// delete rules of their relationships; they are removed at the next save.
    public func delete<T: PersistentModel>(model: T.Type, where predicate: Predicate<T>? = nil, includeSubclasses: Bool = true)
        throws
    {
        let request: NSFetchRequest<NSManagedObject> = try FetchDescriptor(predicate: predicate)
            .request(entity: entity(of: T.self), resultType: .managedObjectResultType)
        request.includesSubentities = includeSubclasses
        for object in try managedObjectContext.fetch(request) { managedObjectContext.delete(object) }
        changed()
    }

    /// Whether the context has inserted, changed or deleted models not yet saved.
    public var hasChanges: Bool { managedObjectContext.hasChanges }

    /// Stores the context's changes. A failed save (a uniqueness or validation error) throws
    /// and leaves the store and the changes as they were.
    public func save() throws {
        if hasRefusedInsert { throw SwiftDataError.unknownSchema }
        let deleted = managedObjectContext.deletedObjects
        try managedObjectContext.save()
        forget(deleted)
    }

    /// Discards the unsaved changes: inserted models leave the context, changed ones read
    /// their stored values again, deleted ones are back.
    public func rollback() {
        hasRefusedInsert = false
        let inserted = managedObjectContext.insertedObjects
        managedObjectContext.rollback()
        forget(inserted)
    }

    /// Runs `block`, then saves what it changed; on an error the changes are rolled back.
    public func transaction(block: () throws -> Void) throws {
        do {
            try block()
            try save()
        } catch {
            rollback()
            throw error
        }
    }

    /// The models inserted and not yet saved.
    public var insertedModelsArray: [any PersistentModel] { models(of: managedObjectContext.insertedObjects) }
    /// The models changed and not yet saved.
    public var changedModelsArray: [any PersistentModel] { models(of: managedObjectContext.updatedObjects) }
    /// The models deleted and not yet saved.
    public var deletedModelsArray: [any PersistentModel] { models(of: managedObjectContext.deletedObjects) }

    private func models(of objects: Set<NSManagedObject>) -> [any PersistentModel] {
        objects.compactMap { model(for: $0) }
    }

    /// Drops the models of objects gone from the context (saved deletions, rolled-back
    /// insertions): only those, not a pass over every registered model.
    private func forget(_ objects: Set<NSManagedObject>) {
        for object in objects where object.managedObjectContext !== managedObjectContext {
            models[ObjectIdentifier(object)] = nil
        }
    }

    /// Schedules an autosave (after an insert, a delete or a change of a model).
    func changed() {
        guard autosaveEnabled, !autosaveScheduled, managedObjectContext.concurrencyType == .mainQueueConcurrencyType else {
            return
        }
        autosaveScheduled = true
        let context = UncheckedContext(context: self)
        Task { @MainActor in
            context.context.autosaveScheduled = false
            if context.context.autosaveEnabled, context.context.hasChanges { try? context.context.save() }
        }
    }

    // MARK: - Fetching

    /// The models `descriptor` describes.
    public func fetch<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [T] {
        let request: NSFetchRequest<NSManagedObject> = try descriptor.request(
            entity: entity(of: T.self), resultType: .managedObjectResultType)
        return try managedObjectContext.fetch(request).compactMap { model(for: $0, as: T.self) }
    }

    /// How many models `descriptor` describes (its limit and offset count).
    public func fetchCount<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> Int {
        let request: NSFetchRequest<NSNumber> = try descriptor.request(entity: entity(of: T.self), resultType: .countResultType)
        return try managedObjectContext.count(for: request)
    }

    /// The identifiers of the models `descriptor` describes, without making the models.
    public func fetchIdentifiers<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [PersistentIdentifier] {
        let request: NSFetchRequest<NSManagedObjectID> = try descriptor.request(
            entity: entity(of: T.self), resultType: .managedObjectIDResultType)
        return try managedObjectContext.fetch(request).map(PersistentIdentifier.init)
    }

    /// Calls `block` with each model `descriptor` describes, fetching `batchSize` at a time
    /// (**default:** 5,000); models that have no changes leave the context after their batch,
    /// so memory stays that of a batch.
    public func enumerate<T: PersistentModel>(
        _ descriptor: FetchDescriptor<T>, batchSize: Int = 5000, allowEscapingMutations: Bool = false,
        block: (T) throws -> Void
    ) throws {
        let request: NSFetchRequest<NSManagedObject> = try descriptor.request(
            entity: entity(of: T.self), resultType: .managedObjectResultType)
        request.fetchBatchSize = max(batchSize, 1)
        let objects = try managedObjectContext.fetch(request)
        var index = 0
        while index < objects.count {
            let batch = objects[index..<min(index + request.fetchBatchSize, objects.count)]
            for object in batch {
                if let model = model(for: object, as: T.self) { try block(model) }
            }
            for object in batch where !object.hasChanges && !allowEscapingMutations {
                managedObjectContext.refresh(object, mergeChanges: false)
            }
            index += batch.count
        }
    }

    /// The model with `persistentModelID`: the context's instance, else one read from the store
    /// when first used.
    ///
    /// An identifier of a model never inserted, or of another container, stops the process
    /// with a message; `registeredModel(for:)` and a model actor's `self[id, as:]` return nil
    /// instead.
    public func model(for persistentModelID: PersistentIdentifier) -> any PersistentModel {
        guard let objectID = persistentModelID.objectID(in: managedObjectContext.persistentStoreCoordinator),
            let model = model(for: managedObjectContext.object(with: objectID))
        else {
            AppleException.internalInconsistency("No model of this container has the identifier \(persistentModelID)")
        }
        return model
    }

    /// The model with `id` if its object is in the context or the store; nil otherwise.
    func existingModel(for id: PersistentIdentifier) -> (any PersistentModel)? {
        guard let objectID = id.objectID(in: managedObjectContext.persistentStoreCoordinator),
            let object = try? managedObjectContext.existingObject(with: objectID)
        else {
            return nil
        }
        return model(for: object)
    }

    /// The context's instance of the model with `persistentModelID`, if the context has one.
    public func registeredModel<T: PersistentModel>(for persistentModelID: PersistentIdentifier) -> T? {
        guard let objectID = persistentModelID.objectID(in: managedObjectContext.persistentStoreCoordinator),
            let object = managedObjectContext.registeredObject(for: objectID)
        else { return nil }
        return model(for: object, as: T.self)
    }

    private func entity(of type: any PersistentModel.Type) throws -> NSEntityDescription {
        guard let entity = container.schema.entity(for: type) else { throw SwiftDataError.unknownSchema }
        return entity
    }
}

/// A registry entry: the model of an object, while the app keeps it.
private struct WeakModel {
    weak var model: (any PersistentModel)?
}

/// A main-actor context carried into the main actor's task (it is used there only).
private struct UncheckedContext: @unchecked Sendable {
    let context: ModelContext
}
