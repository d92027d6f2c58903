import CoreData

/// Managed objects as rows: `objectID`, then the entity's attributes and relationships in model
/// order (or `properties`, which may be key paths), read through `value(forKeyPath:)`.
///
/// When the fetched entity has sub-entities, an `entity` column after `objectID` names each
/// object's own entity.
///
/// A key path through a relationship is read only after each object on the way is known to
/// exist (`existingObject(with:)`), so that a dangling key in the file is an error naming it
/// instead of a fault that stops the tool.
struct ObjectRows {
    let columns: [String]
    private let names: [String]
    private let types: [NSAttributeType?]
    private let showsEntity: Bool

    init(entity: NSEntityDescription, properties: [String]?) {
        names = properties ?? entity.properties.filter { !($0 is NSFetchedPropertyDescription) }.map(\.name)
        showsEntity = !entity.subentities.isEmpty
        columns = ["objectID"] + (showsEntity ? ["entity"] : []) + names
        types = names.map { ResultTable.attributeType(of: $0, in: entity) }
    }

    /// The row of one object.
    func row(_ object: NSManagedObject) throws -> [Cell] {
        var row: [Cell] = [.object(object.objectID)]
        if showsEntity { row.append(.string(object.entity.name ?? "")) }
        for (name, type) in zip(names, types) {
            try Self.checkDestinations(of: object, along: name)
            row.append(Cell(object.value(forKeyPath: name), type: type))
        }
        return row
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
}

extension ResultTable {
    /// Managed objects as rows (see `ObjectRows`).
    static func objects(_ objects: [NSManagedObject], entity: NSEntityDescription, properties: [String]?) throws -> ResultTable {
        let rows = ObjectRows(entity: entity, properties: properties)
        return ResultTable(columns: rows.columns, rows: try objects.map(rows.row))
    }

    /// Dictionaries as rows (see `DictionaryRows`).
    static func dictionaries(_ dictionaries: [NSDictionary], request: NSFetchRequest<NSFetchRequestResult>) -> ResultTable {
        let rows = DictionaryRows(dictionaries, request: request)
        return ResultTable(columns: rows.columns, rows: dictionaries.map(rows.row))
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

/// Dictionary results as rows, columns in the order of `propertiesToFetch` (or, without it, the
/// keys found in the results, in model order).
struct DictionaryRows {
    let columns: [String]
    private let types: [NSAttributeType?]

    init(_ dictionaries: [NSDictionary], request: NSFetchRequest<NSFetchRequestResult>) {
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
        types = columns.map { name -> NSAttributeType? in
            for property in request.propertiesToFetch ?? [] {
                if let expression = property as? NSExpressionDescription, expression.name == name {
                    return expression.expressionResultType
                }
            }
            return entity.flatMap { ResultTable.attributeType(of: name, in: $0) }
        }
        self.columns = columns
    }

    /// The row of one dictionary.
    func row(_ dictionary: NSDictionary) -> [Cell] {
        zip(columns, types).map { Cell(dictionary[$0], type: $1) }
    }
}
