import ArgumentParser
import CoreData

/// `coredata model`: what a model file holds, entity by entity.
struct ModelCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "model",
        abstract: "Describe a model: entities, attributes, relationships, templates, fetched properties.")

    @Option(name: .long, help: "An .xcdatamodeld or .xcdatamodel folder, or a `contents` XML file.")
    var model: String?

    @Argument(help: "The model, as --model gives it (the older spelling).")
    var path: String?

    @Option(name: .long, help: "A Core Data SQLite store: describe the model it caches (Z_MODELCACHE) instead.")
    var store: String?

    @Flag(name: .long, help: "Print the model as one JSON object (entities, fetchRequestTemplates).")
    var json = false

    @Option(
        name: .long,
        help: "Write the model for Xcode instead: into DIR as <name>.xcdatamodel, or DIR itself when it ends in .xcdatamodel.")
    var export: String?

    func validate() throws {
        guard [model, path, store].compactMap({ $0 }).count == 1 else {
            throw ValidationError("give one of --model M (or M alone) and --store S")
        }
    }

    func run() throws {
        let model =
            try store.map { try StoreOpener.model(at: nil, orCachedIn: $0) }
            ?? StoreOpener.model(at: self.model ?? path ?? "")
        if let export {
            try write(model, to: export)
        } else if json {
            try Console.printJSON(ModelDescription(model: model).json)
        } else {
            Console.print(ModelDescription(model: model).text)
        }
    }
}

extension ModelCommand {
    /// Writes the model as an `.xcdatamodel` folder: `path` itself when it ends in
    /// `.xcdatamodel`, else `path/<name>.xcdatamodel`, named after the store or model file.
    private func write(_ model: NSManagedObjectModel, to path: String) throws {
        var folder = URL(fileURLWithPath: path)
        if folder.pathExtension != "xcdatamodel" {
            let source = URL(fileURLWithPath: store ?? self.model ?? self.path ?? "Model")
            var name = source.deletingPathExtension().lastPathComponent
            if source.lastPathComponent == "contents" {
                name = source.deletingLastPathComponent().deletingPathExtension().lastPathComponent
            }
            folder.appendPathComponent((name.isEmpty ? "Model" : name) + ".xcdatamodel")
        }
        do {
            try model.writeXcodeModel(to: folder)
        } catch {
            throw ToolError.wrapping(error, "can't export the model")
        }
        Console.print("wrote \(folder.path) (\(model.entities.count) entities)")
    }
}

/// A model as text: each entity with its inheritance, its own attributes (type, optional or
/// required, default), relationships (destination, to-one or to-many, inverse, delete rule),
/// fetched properties and uniqueness constraints; then the fetch request templates.
struct ModelDescription {
    let model: NSManagedObjectModel

    var text: String {
        let entities = model.entities.sorted { ($0.name ?? "") < ($1.name ?? "") }
        let templates = model.fetchRequestTemplatesByName.sorted { $0.key < $1.key }
        var lines = [
            "\(count(entities.count, "entity", "entities")), \(count(templates.count, "fetch request template", "fetch request templates"))"
        ]
        for entity in entities {
            lines.append("")
            lines += describe(entity)
        }
        if !templates.isEmpty {
            lines.append("")
            lines.append("Fetch request templates")
            for (name, request) in templates { lines.append("  \(name): \(Self.summary(request))") }
        }
        return lines.joined(separator: "\n")
    }

    /// The model as JSON: each entity (sorted by name) with its parent, sub-entities, version
    /// hash (base64, as Apple's metadata keeps it) and own properties in model order; the
    /// templates by name.
    var json: [String: Any] {
        let entities = model.entities.sorted { ($0.name ?? "") < ($1.name ?? "") }.map { entity -> [String: Any] in
            let inherited = Set(entity.superentity?.propertiesByName.keys.map { $0 } ?? [])
            let own = entity.properties.filter { !inherited.contains($0.name) }
            var object: [String: Any] = [
                "name": entity.name ?? "", "abstract": entity.isAbstract,
                "subentities": entity.subentities.compactMap(\.name).sorted(),
                "versionHash": entity.versionHash.base64EncodedString(),
                "attributes": own.compactMap { $0 as? NSAttributeDescription }.map(Self.json),
                "relationships": own.compactMap { $0 as? NSRelationshipDescription }.map(Self.json),
                "fetchedProperties": own.compactMap { $0 as? NSFetchedPropertyDescription }.map { property in
                    ["name": property.name, "request": property.fetchRequest.map(Self.summary) ?? ""]
                },
                "uniquenessConstraints": entity.uniquenessConstraints.map { constraint in
                    constraint.map { ($0 as? NSPropertyDescription)?.name ?? "\($0)" }
                },
            ]
            object["parent"] = entity.superentity?.name ?? NSNull()
            return object
        }
        let templates = model.fetchRequestTemplatesByName.sorted { $0.key < $1.key }.map { name, request -> [String: Any] in
            [
                "name": name, "entity": request.entityName ?? request.entity?.name ?? "",
                "predicate": request.predicate.map { "\($0)" } ?? NSNull(),
                "sort": (request.sortDescriptors ?? []).map { ($0.ascending ? "" : "-") + ($0.key ?? "?") },
            ]
        }
        return ["entities": entities, "fetchRequestTemplates": templates]
    }

    private static func json(_ attribute: NSAttributeDescription) -> [String: Any] {
        [
            "name": attribute.name, "type": typeName(attribute.attributeType), "optional": attribute.isOptional,
            "transient": attribute.isTransient, "derived": attribute is NSDerivedAttributeDescription,
            "default": attribute.defaultValue.map { Cell($0, type: attribute.attributeType).exactText } ?? NSNull(),
            "transformer": attribute.valueTransformerName ?? NSNull(),
            "externalStorage": attribute.allowsExternalBinaryDataStorage,
        ]
    }

    private static func json(_ relationship: NSRelationshipDescription) -> [String: Any] {
        [
            "name": relationship.name, "destination": relationship.destinationEntity?.name ?? NSNull(),
            "toMany": relationship.isToMany, "ordered": relationship.isOrdered, "optional": relationship.isOptional,
            "minCount": relationship.minCount, "maxCount": relationship.maxCount,
            "inverse": relationship.inverseRelationship?.name ?? NSNull(), "deleteRule": ruleName(relationship.deleteRule),
        ]
    }

    private func describe(_ entity: NSEntityDescription) -> [String] {
        var heading = entity.name ?? "?"
        if let parent = entity.superentity?.name { heading += " : \(parent)" }
        var notes: [String] = []
        if entity.isAbstract { notes.append("abstract") }
        let children = entity.subentities.compactMap(\.name).sorted()
        if !children.isEmpty { notes.append("sub-entities: \(children.joined(separator: ", "))") }
        if !notes.isEmpty { heading += "  (\(notes.joined(separator: "; ")))" }
        var lines = [heading]
        let inherited = Set(entity.superentity?.propertiesByName.keys.map { $0 } ?? [])
        let own = entity.properties.filter { !inherited.contains($0.name) }
        let attributes = own.compactMap { $0 as? NSAttributeDescription }
        let relationships = own.compactMap { $0 as? NSRelationshipDescription }
        let fetched = own.compactMap { $0 as? NSFetchedPropertyDescription }
        if !attributes.isEmpty {
            lines.append("  attributes")
            lines += Self.columns(attributes.map(attributeCells)).map { "    " + $0 }
        }
        if !relationships.isEmpty {
            lines.append("  relationships")
            lines += Self.columns(relationships.map(relationshipCells)).map { "    " + $0 }
        }
        if !fetched.isEmpty {
            lines.append("  fetched properties")
            for property in fetched {
                lines.append("    \(property.name): \(property.fetchRequest.map(Self.summary) ?? "(no request)")")
            }
        }
        let constraints = entity.uniquenessConstraints.map { constraint in
            "(" + constraint.map { ($0 as? NSPropertyDescription)?.name ?? "\($0)" }.joined(separator: ", ") + ")"
        }
        if !constraints.isEmpty { lines.append("  uniqueness constraints: \(constraints.joined(separator: ", "))") }
        return lines
    }

    private func attributeCells(_ attribute: NSAttributeDescription) -> [String] {
        var cells = [attribute.name, Self.typeName(attribute.attributeType), attribute.isOptional ? "optional" : "required"]
        var notes: [String] = []
        if attribute.isTransient { notes.append("transient") }
        if attribute is NSDerivedAttributeDescription { notes.append("derived") }
        if let value = attribute.defaultValue { notes.append("default \(Cell(value, type: attribute.attributeType).exactText)") }
        if let name = attribute.valueTransformerName { notes.append("transformer \(name)") }
        cells.append(notes.joined(separator: ", "))
        return cells
    }

    private func relationshipCells(_ relationship: NSRelationshipDescription) -> [String] {
        var kind = relationship.isToMany ? "to-many" : "to-one"
        if relationship.isOrdered { kind += " ordered" }
        return [
            relationship.name, "→ \(relationship.destinationEntity?.name ?? "?")", kind,
            relationship.isOptional ? "optional" : "required",
            relationship.inverseRelationship.map { "inverse \($0.name)" } ?? "no inverse",
            "delete rule \(Self.ruleName(relationship.deleteRule))",
        ]
    }

    /// `Employee where salary > $MINIMUM sorted by name`.
    static func summary(_ request: NSFetchRequest<NSFetchRequestResult>) -> String {
        var text = request.entityName ?? request.entity?.name ?? "?"
        if let predicate = request.predicate { text += " where \(predicate)" }
        if let sorts = request.sortDescriptors, !sorts.isEmpty {
            text += " sorted by " + sorts.map { ($0.ascending ? "" : "-") + ($0.key ?? "?") }.joined(separator: ", ")
        }
        return text
    }

    /// Xcode's name of an attribute type.
    static func typeName(_ type: NSAttributeType) -> String { type.modelFileName }

    static func ruleName(_ rule: NSDeleteRule) -> String {
        switch rule {
        case .noActionDeleteRule: return "No Action"
        case .nullifyDeleteRule: return "Nullify"
        case .cascadeDeleteRule: return "Cascade"
        case .denyDeleteRule: return "Deny"
        @unknown default: return "rule \(rule.rawValue)"
        }
    }

    /// Rows of cells padded into aligned columns (trailing spaces trimmed).
    static func columns(_ rows: [[String]]) -> [String] {
        var widths: [Int] = []
        for row in rows {
            for (index, cell) in row.enumerated() {
                if index == widths.count { widths.append(0) }
                widths[index] = max(widths[index], cell.count)
            }
        }
        return rows.map { row in
            var line = ""
            for (index, cell) in row.enumerated() {
                line += cell + String(repeating: " ", count: widths[index] - cell.count + 2)
            }
            while line.hasSuffix(" ") { line.removeLast() }
            return line
        }
    }

    private func count(_ number: Int, _ one: String, _ many: String) -> String {
        "\(number) \(number == 1 ? one : many)"
    }
}
