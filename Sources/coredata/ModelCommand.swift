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

    func validate() throws {
        guard [model, path, store].compactMap({ $0 }).count == 1 else {
            throw ValidationError("give one of --model M (or M alone) and --store S")
        }
    }

    func run() throws {
        let model =
            try store.map { try StoreOpener.model(at: nil, orCachedIn: $0) }
            ?? StoreOpener.model(at: self.model ?? path ?? "")
        Console.print(ModelDescription(model: model).text)
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
