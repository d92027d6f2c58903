import CoreData

extension ResultTable {
    /// Managed objects as rows: `objectID`, then the entity's attributes and relationships in
    /// model order (or `properties`, which may be key paths), read through `value(forKeyPath:)`.
    ///
    /// With sub-entities in the result, the columns are the fetched entity's properties plus an
    /// `entity` column naming each object's own entity.
    ///
    /// A key path through a relationship is read only after each object on the way is known to
    /// exist (`existingObject(with:)`), so that a dangling key in the file is an error naming
    /// it instead of a fault that stops the tool.
    static func objects(_ objects: [NSManagedObject], entity: NSEntityDescription, properties: [String]?) throws -> ResultTable {
        let names = properties ?? entity.properties.filter { !($0 is NSFetchedPropertyDescription) }.map(\.name)
        let mixed = Set(objects.map { $0.entity.name ?? "" }).count > 1 || !entity.subentities.isEmpty
        var columns = ["objectID"]
        if mixed { columns.append("entity") }
        columns += names
        let types = names.map { attributeType(of: $0, in: entity) }
        let rows = try objects.map { object -> [Cell] in
            var row: [Cell] = [.object(object.objectID)]
            if mixed { row.append(.string(object.entity.name ?? "")) }
            for (name, type) in zip(names, types) {
                try checkDestinations(of: object, along: name)
                row.append(Cell(object.value(forKeyPath: name), type: type))
            }
            return row
        }
        return ResultTable(columns: columns, rows: rows)
    }

    /// Throws when a relationship on `keyPath` from `object` leads to an object whose row does
    /// not exist (a dangling key in the store file), naming the object and the key path.
    private static func checkDestinations(of object: NSManagedObject, along keyPath: String) throws {
        let steps = keyPath.split(separator: ".", maxSplits: 1).map(String.init)
        guard steps.count == 2, let relationship = object.entity.relationshipsByName[steps[0]],
            let context = object.managedObjectContext
        else { return }
        let value = object.value(forKey: steps[0])
        let destinations: [NSManagedObject]
        switch value {
        case let one as NSManagedObject: destinations = [one]
        case let set as Set<NSManagedObject>: destinations = Array(set)
        case let set as NSSet: destinations = set.compactMap { $0 as? NSManagedObject }
        case let set as NSOrderedSet: destinations = set.compactMap { $0 as? NSManagedObject }
        case let array as [NSManagedObject]: destinations = array
        default: destinations = []
        }
        for destination in destinations {
            if destination.isFault {
                do {
                    _ = try context.existingObject(with: destination.objectID)
                } catch {
                    throw ToolError(
                        "can't read \(keyPath) of \(object.objectID.uriRepresentation().absoluteString): its "
                            + "\(relationship.name) names \(destination.objectID.uriRepresentation().absoluteString), which "
                            + "is not in the store (a dangling key: `coredata check` lists them)")
                }
            }
            try checkDestinations(of: destination, along: steps[1])
        }
    }

    /// Object IDs as one column.
    static func objectIDs(_ ids: [NSManagedObjectID]) -> ResultTable {
        ResultTable(columns: ["objectID"], rows: ids.map { [.object($0)] })
    }

    /// Dictionaries as rows, columns in the order of `propertiesToFetch` (or the keys as found).
    static func dictionaries(_ dictionaries: [NSDictionary], request: NSFetchRequest<NSFetchRequestResult>) -> ResultTable {
        var columns: [String] = (request.propertiesToFetch ?? []).compactMap { property in
            if let property = property as? NSPropertyDescription { return property.name }
            return property as? String
        }
        if columns.isEmpty {
            var seen = Set<String>()
            let attributes = request.entity?.properties.map(\.name) ?? []
            for dictionary in dictionaries {
                for case let key as String in dictionary.allKeys where seen.insert(key).inserted { columns.append(key) }
            }
            columns.sort { (attributes.firstIndex(of: $0) ?? .max, $0) < (attributes.firstIndex(of: $1) ?? .max, $1) }
        }
        let entity = request.entity
        let types = columns.map { name -> NSAttributeType? in
            for property in request.propertiesToFetch ?? [] {
                if let expression = property as? NSExpressionDescription, expression.name == name {
                    return expression.expressionResultType
                }
            }
            return entity.flatMap { attributeType(of: name, in: $0) }
        }
        let rows = dictionaries.map { dictionary in zip(columns, types).map { Cell(dictionary[$0], type: $1) } }
        return ResultTable(columns: columns, rows: rows)
    }

    /// The type of the attribute a key path ends in, nil when it ends in a relationship or is unknown.
    static func attributeType(of keyPath: String, in entity: NSEntityDescription) -> NSAttributeType? {
        var current = entity
        let steps = keyPath.split(separator: ".").map(String.init)
        for (index, step) in steps.enumerated() {
            if index == steps.count - 1 { return current.attributesByName[step]?.attributeType }
            guard let next = current.relationshipsByName[step]?.destinationEntity else { return nil }
            current = next
        }
        return nil
    }
}
