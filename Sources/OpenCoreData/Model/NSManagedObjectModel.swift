import OpenPredicate

/// A managed object model: the entities of an application's data, their configurations, and
/// named fetch request templates.
///
/// Build one in code (set `entities`) or load one from an Xcode model file with
/// `init(contentsOf:)`. A model is editable until a persistent store coordinator uses it; after
/// that any change to it or to its entities and properties stops the process with Apple's reason
/// "Can't modify an immutable model." (check `isEditable` first). A copy is editable again.
///
/// A model is `Sendable`, as in Apple's SDK: once in use it never changes.
///
/// See [NSManagedObjectModel](https://developer.apple.com/documentation/coredata/nsmanagedobjectmodel).
open class NSManagedObjectModel: NSObject, NSCopying, @unchecked Sendable {
    // @unchecked Sendable: while editable, a model belongs to the code building it; `markInUse()`
    // builds every lazy lookup under `useLock`, and from then on the model, its entities and
    // properties are only read (a change stops the process).

    /// The name under which entities outside any named configuration are listed.
    static let defaultConfigurationName = "PF_DEFAULT_CONFIGURATION_NAME"

    private var entityList: [NSEntityDescription] = []
    private var cachedEntitiesByName: [String: NSEntityDescription]?
    private var configurationNames: [String] = []
    private var configurationEntities: [String: [NSEntityDescription]] = [:]
    private var templates: [String: NSFetchRequest<NSFetchRequestResult>] = [:]
    private var inUse = false
    /// The model file or folder `init(contentsOf:)` loaded this model from (nil for a model made
    /// in code, merged, or copied); the migration code looks for the model's other versions
    /// beside it.
    var sourceFileURL: URL?
    /// Serializes `markInUse()` (coordinators made on several threads at once).
    private let useLock = NSLock()

    /// Creates an empty model.
    public override init() {
        super.init()
    }

    /// Creates a model with the entities of all the given models (copies of them, as an entity
    /// belongs to one model), their configurations and fetch request templates.
    ///
    /// Two entities with the same name stop the process with Apple's reason
    /// "Can't merge models with two different entities named '…'";
    /// `NSManagedObjectModel.merging(_:)` throws instead.
    ///
    /// - Parameter models: The models to merge; `nil` gives nil.
    public convenience init?(byMerging models: [NSManagedObjectModel]?) {
        guard let models else { return nil }
        self.init()
        do {
            try merge(models)
        } catch {
            AppleException.invalidArgument(error.localizedDescription)
        }
    }

    /// The throwing twin of `init(byMerging:)`: merges the models, or throws an error naming the
    /// entity that two of them define.
    ///
    /// **Differences from Apple:** an OpenCoreData addition.
    public static func merging(_ models: [NSManagedObjectModel]) throws -> NSManagedObjectModel {
        let merged = NSManagedObjectModel()
        try merged.merge(models)
        return merged
    }

    private func merge(_ models: [NSManagedObjectModel]) throws {
        var seen: [String: NSManagedObjectModel] = [:]
        for model in models {
            for name in model.entitiesByName.keys {
                if let other = seen[name], other !== model {
                    throw CoreDataError.make(
                        code: NSCoreDataError,
                        reason: "Can't merge models with two different entities named '\(name)'")
                }
                seen[name] = model
            }
        }
        var entities: [NSEntityDescription] = []
        var configurations: [(String, [String])] = []
        var templates: [(String, NSFetchRequest<NSFetchRequestResult>)] = []
        var versionIdentifiers = Set<AnyHashable>()
        for model in models {
            let copy = model.copyModel()
            entities += copy.entityList
            for name in copy.configurationNames {
                configurations.append((name, copy.configurationEntities[name, default: []].compactMap(\.name)))
            }
            templates += copy.templates.map { ($0.key, $0.value) }
            versionIdentifiers.formUnion(model.versionIdentifiers)
        }
        self.entities = entities
        for (name, entityNames) in configurations {
            let existing = configurationEntities[name, default: []].compactMap(\.name)
            setEntities((existing + entityNames).compactMap { entitiesByName[$0] }, forConfigurationName: name)
        }
        for (name, template) in templates { setFetchRequestTemplate(template, forName: name) }
        self.versionIdentifiers = versionIdentifiers
    }

    // MARK: - Entities

    /// The model's entities, sub-entities included. Setting it makes this model their owner.
    open var entities: [NSEntityDescription] {
        get { entityList }
        set {
            ensureEditable()
            for entity in entityList where entity.owningModel === self { entity.owningModel = nil }
            entityList = newValue
            for entity in newValue { entity.owningModel = self }
            entitiesDidChange()
        }
    }

    /// The entities by name.
    open var entitiesByName: [String: NSEntityDescription] {
        if let cachedEntitiesByName { return cachedEntitiesByName }
        var byName: [String: NSEntityDescription] = [:]
        for entity in entityList {
            if let name = entity.name, byName[name] == nil { byName[name] = entity }
        }
        cachedEntitiesByName = byName
        return byName
    }

    func entitiesDidChange() {
        cachedEntitiesByName = nil
    }

    // MARK: - Configurations

    /// The names of the model's configurations (named subsets of its entities), in the order they
    /// were set. **Default:** empty.
    open var configurations: [String] { configurationNames }

    /// The entities of a configuration.
    ///
    /// - Parameter configuration: A configuration name; `nil` (or Apple's
    ///   `"PF_DEFAULT_CONFIGURATION_NAME"`) means the default configuration, which holds every
    ///   entity.
    /// - Returns: The entities, or `nil` for a configuration the model does not have.
    open func entities(forConfigurationName configuration: String?) -> [NSEntityDescription]? {
        guard let configuration, configuration != Self.defaultConfigurationName else { return entityList }
        return configurationEntities[configuration]
    }

    /// Makes `entities` the entities of the named configuration, adding the configuration if it
    /// is new. The entities must belong to this model.
    open func setEntities(_ entities: [NSEntityDescription], forConfigurationName configuration: String) {
        ensureEditable()
        if configurationEntities[configuration] == nil { configurationNames.append(configuration) }
        configurationEntities[configuration] = entities
    }

    // MARK: - Fetch request templates

    /// The model's fetch request templates by name. **Default:** empty.
    open var fetchRequestTemplatesByName: [String: NSFetchRequest<NSFetchRequestResult>] { templates }

    /// The template with the given name, as stored (use
    /// `fetchRequestFromTemplate(withName:substitutionVariables:)` for one with variables).
    open func fetchRequestTemplate(forName name: String) -> NSFetchRequest<NSFetchRequestResult>? {
        templates[name]
    }

    /// A new fetch request made from a template, with each `$VARIABLE` of its predicate replaced
    /// by the value of the same name in `variables`.
    ///
    /// Every variable must have a value; pass `NSNull()` for nil. A missing one stops the process
    /// (as on Apple); `fetchRequestFromTemplate(withName:validatingSubstitutionVariables:)` throws
    /// instead.
    ///
    /// - Returns: The request, or `nil` if the model has no template with that name.
    open func fetchRequestFromTemplate(withName name: String, substitutionVariables variables: [String: Any])
        -> NSFetchRequest<NSFetchRequestResult>?
    {
        do {
            return try fetchRequestFromTemplate(withName: name, validatingSubstitutionVariables: variables)
        } catch {
            AppleException.invalidArgument(error.localizedDescription)
        }
    }

    /// The throwing twin of `fetchRequestFromTemplate(withName:substitutionVariables:)`: a
    /// variable without a value throws an error naming it.
    ///
    /// **Differences from Apple:** an OpenCoreData addition.
    public func fetchRequestFromTemplate(withName name: String, validatingSubstitutionVariables variables: [String: Any]) throws
        -> NSFetchRequest<NSFetchRequestResult>?
    {
        guard let template = templates[name] else { return nil }
        let request = template.copyRequest()
        if let predicate = template.predicate {
            request.predicate = try predicate.withSubstitutionVariables(validating: variables)
        }
        return request
    }

    /// Stores `fetchRequestTemplate` under `name`, or removes the template of that name when it
    /// is `nil`.
    open func setFetchRequestTemplate(_ fetchRequestTemplate: NSFetchRequest<NSFetchRequestResult>?, forName name: String) {
        ensureEditable()
        templates[name] = fetchRequestTemplate
    }

    // MARK: - Versions and editing

    /// Identifiers of this model version (the model editor's "Version Identifier"); not used by
    /// Core Data itself. **Default:** empty.
    open var versionIdentifiers: Set<AnyHashable> = [] {
        willSet { ensureEditable() }
    }

    /// Whether the model may still change: true until a persistent store coordinator uses it.
    ///
    /// **Differences from Apple:** an OpenCoreData addition, so that code can check before a
    /// change that would otherwise stop the process.
    public var isEditable: Bool { !inUse }

    /// Makes the model (and its entities and properties) immutable; a coordinator calls it.
    ///
    /// Every lookup the model and its entities build lazily (entities and properties by name,
    /// layouts, default values) is built here, once, under a lock: from then on they are only
    /// read, so contexts and coordinators on any thread can share the model, as on Apple.
    package func markInUse() {
        useLock.lock()
        defer { useLock.unlock() }
        guard !inUse else { return }
        inUse = true
        _ = entitiesByName
        for entity in entityList { entity.buildLookups() }
        for template in templates.values { template.markInUse() }
        for entity in entityList {
            for case let fetched as NSFetchedPropertyDescription in entity.declaredProperties {
                fetched.fetchRequest?.markInUse()
            }
        }
    }

    func ensureEditable() {
        if inUse { ModelEditing.refuse() }
    }

    // MARK: - Copying

    /// Returns an editable deep copy: new entities, properties, configurations and templates that
    /// refer to each other as the originals do.
    open func copy(with zone: NSZone? = nil) -> Any { copyModel() }

    func copyModel() -> NSManagedObjectModel {
        let copy = NSManagedObjectModel()
        var copies: [ObjectIdentifier: NSEntityDescription] = [:]
        for entity in entityList { copies[ObjectIdentifier(entity)] = entity.copyEntity() }
        func counterpart(_ entity: NSEntityDescription?) -> NSEntityDescription? {
            entity.flatMap { copies[ObjectIdentifier($0)] } ?? entity
        }
        for entity in entityList {
            guard let entityCopy = copies[ObjectIdentifier(entity)] else { continue }
            entityCopy.subentities = entity.subentities.compactMap { counterpart($0) }
        }
        for entity in entityList {
            guard let entityCopy = copies[ObjectIdentifier(entity)] else { continue }
            for (original, property) in zip(entity.declaredProperties, entityCopy.declaredProperties) {
                if let relationship = property as? NSRelationshipDescription, let source = original as? NSRelationshipDescription
                {
                    let destination = counterpart(source.destinationEntity)
                    relationship.destinationEntity = destination
                    if let inverse = source.inverseRelationship {
                        relationship.inverseRelationship =
                            destination?.propertiesByName[inverse.name] as? NSRelationshipDescription ?? inverse
                    }
                }
                if let fetched = property as? NSFetchedPropertyDescription, let request = fetched.fetchRequest {
                    request.entity = counterpart(request.entity)
                }
            }
        }
        copy.entities = entityList.compactMap { counterpart($0) }
        for name in configurationNames {
            copy.setEntities(configurationEntities[name, default: []].compactMap { counterpart($0) }, forConfigurationName: name)
        }
        for (name, template) in templates {
            let request = template.copyRequest()
            request.entity = counterpart(template.entity)
            copy.setFetchRequestTemplate(request, forName: name)
        }
        copy.versionIdentifiers = versionIdentifiers
        return copy
    }

    /// The model's entities, configurations and templates.
    open override var description: String {
        var lines = ["<NSManagedObjectModel: \(entityList.count) entities>"]
        for entity in entityList { lines.append(entity.description) }
        for name in configurationNames {
            lines.append(
                "configuration \(name): \(configurationEntities[name, default: []].compactMap(\.name).joined(separator: ", "))")
        }
        for name in templates.keys.sorted() { lines.append("template \(name): \(templates[name].map(\.description) ?? "")") }
        return lines.joined(separator: "\n")
    }
}
