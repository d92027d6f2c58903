import OpenPredicate

extension NSMigrationManager: ExpressionFunctionReceiver {
    /// Migrates through objects, for mappings inference did not make (custom expressions,
    /// entity migration policies): the source store is opened read-only with `sourceModel`, a
    /// new store created at `url` with `destinationModel`, each entity mapping's policy makes
    /// the destination objects, then their relationships, and the destination context is saved
    /// once, in one transaction.
    func migrateObjects(
        from sourceURL: URL, type sourceType: String, mapping: NSMappingModel, to url: URL, type: String,
        options: [AnyHashable: Any]?
    ) throws {
        let sourceCoordinator = NSPersistentStoreCoordinator(managedObjectModel: sourceModel)
        do {
            try sourceCoordinator.addPersistentStore(
                ofType: sourceType, configurationName: nil, at: sourceURL, options: [NSReadOnlyPersistentStoreOption: true])
        } catch let error as NSError where error.code == NSPersistentStoreIncompatibleVersionHashError {
            throw sourceStoreError(sourceURL, error)
        }
        let destinationCoordinator = NSPersistentStoreCoordinator(managedObjectModel: destinationModel)
        var destinationOptions = options ?? [:]
        destinationOptions[NSMigratePersistentStoresAutomaticallyOption] = false
        try destinationCoordinator.addPersistentStore(
            ofType: type, configurationName: nil, at: url, options: destinationOptions)
        let source = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        source.persistentStoreCoordinator = sourceCoordinator
        let destination = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        destination.persistentStoreCoordinator = destinationCoordinator
        sourceContext = source
        destinationContext = destination
        defer {
            sourceContext = nil
            destinationContext = nil
            associations = [:]
            currentEntityMapping = nil
        }
        var failure: Error?
        source.performAndWaitUnchecked {
            destination.performAndWaitUnchecked {
                do {
                    try run(mapping)
                    try destination.save()
                } catch {
                    failure = error
                }
            }
        }
        if let failure { throw failure }
    }

    /// The three passes over the entity mappings: objects, relationships, validation.
    private func run(_ mapping: NSMappingModel) throws {
        let mappings = (mapping.entityMappings ?? []).filter {
            $0.mappingType != .removeEntityMappingType && $0.mappingType != .addEntityMappingType && $0.name != nil
        }
        let policies = try mappings.map(policy)
        var sources: [[NSManagedObject]] = []
        for entityMapping in mappings {
            guard let name = entityMapping.sourceEntityName else {
                sources.append([])
                continue
            }
            let request = NSFetchRequest<NSManagedObject>(entityName: name)
            request.includesSubentities = false
            sources.append(try sourceContext.fetch(request))
        }
        let total = Float(max(1, sources.map(\.count).reduce(0, +) * 2))
        var done: Float = 0
        func step() throws {
            done += 1
            migrationProgress = min(done / total, 0.99)
            if let cancellation { throw cancellation }
        }
        for (index, entityMapping) in mappings.enumerated() {
            currentEntityMapping = entityMapping
            try policies[index].begin(entityMapping, with: self)
            for object in sources[index] {
                try policies[index].createDestinationInstances(forSource: object, in: entityMapping, manager: self)
                try step()
            }
            try policies[index].endInstanceCreation(forMapping: entityMapping, manager: self)
        }
        for (index, entityMapping) in mappings.enumerated() {
            currentEntityMapping = entityMapping
            for object in destinationInstances(forEntityMappingName: entityMapping.name, sourceInstances: nil) {
                try policies[index].createRelationships(forDestination: object, in: entityMapping, manager: self)
                try step()
            }
            try policies[index].endRelationshipCreation(forMapping: entityMapping, manager: self)
        }
        for (index, entityMapping) in mappings.enumerated() {
            currentEntityMapping = entityMapping
            try policies[index].performCustomValidation(forMapping: entityMapping, manager: self)
            try policies[index].end(entityMapping, manager: self)
        }
    }

    /// The policy of an entity mapping: an instance of the class its
    /// `entityMigrationPolicyClassName` names (module-qualified), or `NSEntityMigrationPolicy`.
    private func policy(for mapping: NSEntityMapping) throws -> NSEntityMigrationPolicy {
        guard let className = mapping.entityMigrationPolicyClassName, !className.isEmpty,
            className != "NSEntityMigrationPolicy"
        else { return NSEntityMigrationPolicy() }
        guard let policyClass = NSClassFromString(className) as? NSEntityMigrationPolicy.Type else {
            throw NSEntityMigrationPolicy.failure(
                "the entity mapping \(mapping.name ?? "") names the policy class \(className), which is not a loaded "
                    + "subclass of NSEntityMigrationPolicy (name Swift classes with their module: \"App.\(className)\")",
                mapping: mapping)
        }
        return policyClass.init()
    }

    /// The variables a mapping's expressions see.
    func expressionVariables(
        source: NSManagedObject, destination: NSManagedObject?, mapping: NSEntityMapping, policy: NSEntityMigrationPolicy
    ) -> NSMutableDictionary {
        let variables = NSMutableDictionary()
        variables[NSMigrationManagerKey] = self
        variables[NSMigrationSourceObjectKey] = source
        variables[NSMigrationEntityMappingKey] = mapping
        variables[NSMigrationEntityPolicyKey] = policy
        if let destination { variables[NSMigrationDestinationObjectKey] = destination }
        return variables
    }

    /// The managed objects in an expression's result: one object, or a collection of them.
    static func objects(in value: Any?) -> [NSManagedObject] {
        switch value {
        case let object as NSManagedObject: [object]
        case let objects as [NSManagedObject]: objects
        case let set as NSSet: set.allObjects.compactMap { $0 as? NSManagedObject }
        case let set as NSOrderedSet: set.array.compactMap { $0 as? NSManagedObject }
        case let array as [Any]: array.compactMap { $0 as? NSManagedObject }
        case let set as Set<NSManagedObject>: Array(set)
        default: []
        }
    }

    package func performExpressionFunction(_ selector: String, arguments: [Any?]) -> Any?? {
        switch selector {
        case "destinationInstancesForEntityMappingNamed:sourceInstances:":
            guard arguments.count == 2, let name = arguments[0] as? String else { return .some(nil) }
            return .some(destinationInstances(forEntityMappingName: name, sourceInstances: Self.objects(in: arguments[1])))
        case "destinationInstancesForSourceRelationshipNamed:sourceInstances:":
            guard arguments.count == 2 else { return .some(nil) }
            let sources = Self.objects(in: arguments[1])
            return .some(sources.flatMap { source in associations.values.flatMap { $0.forward[source.objectID] ?? [] } })
        case "fetchRequestForSourceEntityNamed:predicateString:":
            guard arguments.count == 2, let name = arguments[0] as? String else { return .some(nil) }
            let request = NSFetchRequest<NSFetchRequestResult>(entityName: name)
            if let format = arguments[1] as? String { request.predicate = try? NSPredicate(validatingFormat: format) }
            return .some(request)
        default:
            return nil
        }
    }
}
