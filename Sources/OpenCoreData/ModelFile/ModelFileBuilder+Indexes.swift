import OpenPredicate

/// `<uniquenessConstraints>` and `<fetchIndex>` elements of an entity. Both name properties,
/// which are checked once inheritance is linked (a constraint or index may use an inherited
/// property).
extension ModelFileBuilder {
    /// The entity's uniqueness constraints as groups of property names, in file order.
    func uniquenessConstraints(from entity: ModelFileElement) throws -> [[Any]] {
        var groups: [[Any]] = []
        for list in entity.children(named: "uniquenessConstraints") {
            try list.checkChildren(["uniquenessConstraint"])
            for constraint in list.children {
                try constraint.checkChildren(["constraint"])
                let names = try constraint.children.map { try $0.requiredString("value") }
                if !names.isEmpty { groups.append(names) }
            }
        }
        return groups
    }

    /// Fails when a uniqueness constraint names a property the entity does not have.
    func checkUniquenessConstraints(of record: EntityRecord) throws {
        let lists = record.element.children(named: "uniquenessConstraints")
        guard !lists.isEmpty else { return }  // most entities have none: no need for every property
        let properties = record.entity.propertiesByName
        for list in lists {
            for constraint in list.children {
                for element in constraint.children {
                    let name = element.string("value") ?? ""
                    if properties[name] == nil {
                        throw ModelFileError(
                            "uniqueness constraint names '\(name)', which is not a property of entity '\(record.entity.name ?? "")'",
                            at: element.location)
                    }
                }
            }
        }
    }

    /// The entity's fetch indexes with their elements (properties by name, resolved when the
    /// entity's properties are known).
    ///
    /// `type` is `Binary` (the default) or `RTree`; `order` is `ascending` (the default) or
    /// `descending`. An element that indexes an expression instead of a property is skipped
    /// (indexes only speed fetches up), and an index left without elements is dropped.
    func fetchIndexes(from entity: ModelFileElement) throws -> [(NSFetchIndexDescription, ModelFileElement)] {
        var indexes: [(NSFetchIndexDescription, ModelFileElement)] = []
        for element in entity.children(named: "fetchIndex") {
            try element.checkChildren(["fetchIndexElement"])
            var parts: [NSFetchIndexElementDescription] = []
            for part in element.children {
                guard let property = part.nonEmptyString("property") else {
                    if part.nonEmptyString("expression") != nil { continue }
                    throw ModelFileError("<fetchIndexElement> of \(element.label) names no property", at: part.location)
                }
                let collation: NSFetchIndexElementType
                switch (part.string("type") ?? "Binary").lowercased() {
                case "binary": collation = .binary
                case "rtree", "r-tree": collation = .rTree
                default:
                    throw ModelFileError("unknown type '\(part.string("type") ?? "")' of <fetchIndexElement>", at: part.location)
                }
                let description = NSFetchIndexElementDescription(propertyName: property, collationType: collation)
                switch (part.string("order") ?? "ascending").lowercased() {
                case "ascending": description.isAscending = true
                case "descending": description.isAscending = false
                default:
                    throw ModelFileError(
                        "unknown order '\(part.string("order") ?? "")' of <fetchIndexElement>", at: part.location)
                }
                parts.append(description)
            }
            guard !parts.isEmpty else { continue }
            let index = NSFetchIndexDescription(name: try element.requiredString("name"), elements: parts)
            if let format = element.nonEmptyString("partialIndexPredicate") {
                index.partialIndexPredicate = try Self.predicate(format, in: element, key: "partialIndexPredicate")
            }
            indexes.append((index, element))
        }
        return indexes
    }

    /// Fails when a fetch index element names a property the entity does not have.
    func checkIndexes(of record: EntityRecord) throws {
        for (index, element) in record.indexes {
            for part in index.elements where part.property == nil {
                let location = element.children.first { $0.string("property") == part.propertyName }?.location ?? element.location
                throw ModelFileError(
                    "fetch index '\(index.name)' names '\(part.propertyName ?? "")', which is not a property of entity '\(record.entity.name ?? "")'",
                    at: location)
            }
        }
    }
}
