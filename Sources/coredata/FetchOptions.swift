import ArgumentParser
import CoreData

/// What `fetch` returns: managed objects, object IDs, dictionaries or a count.
enum ResultKind: String, CaseIterable, ExpressibleByArgument {
    case objects, ids, dictionaries, count
}

extension OutputFormat: ExpressibleByArgument {}

/// The options shared by `fetch`, `count` and `explain`: a model, a store and a fetch request.
struct FetchOptions: ParsableArguments {
    @Option(
        name: .long,
        help:
            "The model: an .xcdatamodeld or .xcdatamodel folder, or a `contents` XML file (default: the model the store caches).")
    var model: String?

    @Option(
        name: .long,
        help: "The store: a Core Data SQLite file (its -wal and -shm beside it), or a postgres://user@host/db?schema=s URL.")
    var store: String

    @Option(name: .long, help: "The entity to fetch (optional with --template).")
    var entity: String?

    @Option(
        name: .long, parsing: .unconditional,
        help: "An NSPredicate format string, e.g. \"salary > 50000 AND name BEGINSWITH[cd] 'j'\".")
    var predicate: String?

    @Option(
        name: .long, parsing: .unconditional, help: "Sort keys, comma-separated; a leading '-' sorts descending: name,-salary.")
    var sort: String?

    @Option(name: .long, parsing: .unconditional, help: "At most this many results (fetchLimit).")
    var limit: Int?

    @Option(name: .long, parsing: .unconditional, help: "Skip this many results first (fetchOffset).")
    var offset: Int?

    @Option(
        name: .long,
        help: """
            Properties to show or fetch, comma-separated: names, key paths, or aggregates \
            (sum:(salary), total=sum:(salary), count:(name)).
            """)
    var properties: String?

    @Option(name: .customLong("group-by"), help: "Properties to group dictionary results by, comma-separated.")
    var groupBy: String?

    @Option(
        name: .long, parsing: .unconditional,
        help: "A predicate on the groups (names of --properties aggregates), e.g. \"total > 100000\".")
    var having: String?

    @Flag(name: .long, help: "Return distinct dictionaries (returnsDistinctResults).")
    var distinct = false

    @Option(name: .long, help: "objects, ids, dictionaries or count. Default: objects, or dictionaries with grouping.")
    var result: ResultKind?

    @Option(name: .long, help: "Relationship key paths to prefetch, comma-separated.")
    var prefetch: String?

    @Option(name: .long, help: "Start from the model's fetch request template of this name.")
    var template: String?

    @Option(
        name: .customLong("var"), parsing: .unconditionalSingleValue,
        help: "A template variable, KEY=VALUE (repeatable); numbers, true/false stay typed.")
    var variables: [String] = []

    @Flag(name: .long, help: "Open the store read-write (default: read-only).")
    var write = false

    @Flag(
        name: .long,
        help:
            "Migrate a store written with another version of the model (found in the .xcdatamodeld): a copy, or the store itself with --write."
    )
    var migrate = false

    func validate() throws {
        if let limit, limit < 0 { throw ValidationError("--limit must be 0 or more, not \(limit)") }
        if let offset, offset < 0 { throw ValidationError("--offset must be 0 or more, not \(offset)") }
        if entity == nil && template == nil { throw ValidationError("give --entity or --template") }
        if !variables.isEmpty && template == nil { throw ValidationError("--var needs --template") }
        for variable in variables where !variable.contains("=") {
            throw ValidationError("--var '\(variable)' is not KEY=VALUE")
        }
    }

    /// The result kind asked for, or the one the options imply.
    var resultKind: ResultKind {
        if let result { return result }
        return groupBy != nil || having != nil || distinct || aggregates ? .dictionaries : .objects
    }

    /// Whether `--properties` names an aggregate (which only dictionaries can hold).
    private var aggregates: Bool {
        FetchOptions.list(properties).contains { $0.contains("(") }
    }

    /// Splits a comma-separated option, keeping commas inside parentheses (`sum:(a)`, `f(a, b)`).
    static func list(_ text: String?) -> [String] {
        guard let text else { return [] }
        var items: [String] = []
        var current = ""
        var depth = 0
        for character in text {
            switch character {
            case "(": depth += 1
            case ")": depth -= 1
            case "," where depth == 0:
                items.append(current)
                current = ""
                continue
            default: break
            }
            current.append(character)
        }
        items.append(current)
        return items.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}

/// A fetch request built from `FetchOptions` against a model, every part checked with the
/// throwing twins of the API so that bad input is an error naming it.
struct FetchRequestBuilder {
    let options: FetchOptions
    let model: NSManagedObjectModel

    func request() throws -> NSFetchRequest<NSFetchRequestResult> {
        let request = try baseRequest()
        guard let entity = model.entitiesByName[request.entityName ?? ""] else {
            throw ToolError(unknownEntityMessage(request.entityName ?? ""))
        }
        request.entity = entity
        if let format = options.predicate {
            let predicate = try parse(format, "--predicate")
            if let existing = request.predicate {
                // The template's predicate printed in Apple's format reads back as itself.
                request.predicate = try parse("(\(existing)) AND (\(format))", "--predicate")
            } else {
                request.predicate = predicate
            }
        }
        let sortKeys = FetchOptions.list(options.sort)
        if !sortKeys.isEmpty {
            request.sortDescriptors = sortKeys.map { key in
                key.hasPrefix("-")
                    ? NSSortDescriptor(key: String(key.dropFirst()), ascending: false)
                    : NSSortDescriptor(key: key.hasPrefix("+") ? String(key.dropFirst()) : key, ascending: true)
            }
        }
        if let limit = options.limit { request.fetchLimit = limit }
        if let offset = options.offset { request.fetchOffset = offset }
        switch options.resultKind {
        case .objects: request.resultType = .managedObjectResultType
        case .ids: request.resultType = .managedObjectIDResultType
        case .dictionaries: request.resultType = .dictionaryResultType
        case .count: request.resultType = .countResultType
        }
        if options.resultKind == .dictionaries {
            try configureDictionaries(request, entity: entity)
        } else if options.groupBy != nil || options.having != nil || options.distinct {
            throw ToolError("--group-by, --having and --distinct need --result dictionaries")
        }
        let prefetch = FetchOptions.list(options.prefetch)
        if !prefetch.isEmpty {
            for keyPath in prefetch { try checkRelationshipPath(keyPath, from: entity) }
            request.relationshipKeyPathsForPrefetching = prefetch
        }
        return request
    }

    /// The names of the properties `--properties` asks to show for objects (nil: all of them).
    var shownProperties: [String]? {
        let names = FetchOptions.list(options.properties)
        return names.isEmpty ? nil : names
    }

    private func baseRequest() throws -> NSFetchRequest<NSFetchRequestResult> {
        guard let name = options.template else {
            return NSFetchRequest<NSFetchRequestResult>(entityName: options.entity ?? "")
        }
        guard model.fetchRequestTemplate(forName: name) != nil else {
            let names = model.fetchRequestTemplatesByName.keys.sorted()
            throw ToolError(
                "the model has no fetch request template named '\(name)'"
                    + (names.isEmpty ? " (it has none)" : " (templates: \(names.joined(separator: ", ")))"))
        }
        let made: NSFetchRequest<NSFetchRequestResult>?
        do {
            made = try model.fetchRequestFromTemplate(withName: name, validatingSubstitutionVariables: try variables())
        } catch {
            throw ToolError.wrapping(error, "template '\(name)'")
        }
        guard let request = made else { throw ToolError("the model has no fetch request template named '\(name)'") }
        if let entity = options.entity, entity != request.entityName {
            throw ToolError("the template '\(name)' fetches \(request.entityName ?? "?"), not \(entity)")
        }
        return request
    }

    /// `--var` values: integers, decimals, `true`/`false` and ISO 8601 dates typed, the rest strings
    /// (quotes around a value keep it a string).
    func variables() throws -> [String: Any] {
        var result: [String: Any] = [:]
        for item in options.variables {
            guard let equals = item.firstIndex(of: "=") else { throw ToolError("--var '\(item)' is not KEY=VALUE") }
            let key = String(item[..<equals])
            let text = String(item[item.index(after: equals)...])
            guard !key.isEmpty else { throw ToolError("--var '\(item)' has no variable name") }
            result[key] = Self.typedValue(text)
        }
        return result
    }

    static func typedValue(_ text: String) -> Any {
        if text.count >= 2, let first = text.first, first == "'" || first == "\"", text.last == first {
            return String(text.dropFirst().dropLast())
        }
        if let integer = Int(text) { return integer }
        if let double = Double(text), text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) { return double }
        if text == "true" || text == "YES" { return true }
        if text == "false" || text == "NO" { return false }
        if let date = ISO8601DateFormatter().date(from: text) { return date }
        return text
    }

    private func parse(_ format: String, _ option: String) throws -> NSPredicate {
        do {
            return try NSPredicate(validatingFormat: format)
        } catch {
            throw ToolError("\(option): \(Console.oneLine((error as NSError).localizedDescription))")
        }
    }

    private func configureDictionaries(_ request: NSFetchRequest<NSFetchRequestResult>, entity: NSEntityDescription) throws {
        let items = FetchOptions.list(options.properties)
        var properties: [Any] = []
        for item in items {
            properties.append(try property(item, entity: entity))
        }
        do {
            if !properties.isEmpty { try request.setPropertiesToFetch(validating: properties) }
            let groups = FetchOptions.list(options.groupBy)
            if !groups.isEmpty { try request.setPropertiesToGroupBy(validating: groups) }
        } catch {
            throw ToolError.wrapping(error, "--properties/--group-by")
        }
        if let having = options.having { request.havingPredicate = try parse(having, "--having") }
        request.returnsDistinctResults = options.distinct
    }

    /// A `--properties` item: a name or key path as is, an aggregate (`sum:(salary)`,
    /// `total=sum:(salary)`) as an `NSExpressionDescription` named by its prefix or its function.
    private func property(_ item: String, entity: NSEntityDescription) throws -> Any {
        var name: String?
        var format = item
        if let equals = item.firstIndex(of: "="), !item[..<equals].contains("(") {
            name = item[..<equals].trimmingCharacters(in: .whitespaces)
            format = item[item.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        }
        guard format.contains("(") || name != nil else { return item }
        let expression: NSExpression
        do {
            expression = try NSExpression(validatingFormat: format)
        } catch {
            throw ToolError("--properties: \(Console.oneLine((error as NSError).localizedDescription))")
        }
        let description = NSExpressionDescription()
        let function = expression.expressionType == .function ? expression.function : ""
        description.name = name ?? (function.isEmpty ? format : String(function.prefix { $0 != ":" }))
        description.expression = expression
        description.expressionResultType = resultType(function: function, expression: expression, entity: entity)
        return description
    }

    /// The result type of an aggregate: `count:` integers, `average:` doubles, `sum:`/`min:`/`max:`
    /// the type of the attribute they read.
    private func resultType(function: String, expression: NSExpression, entity: NSEntityDescription) -> NSAttributeType {
        switch function {
        case "count:": return .integer64AttributeType
        case "average:": return .doubleAttributeType
        default:
            guard let argument = expression.arguments?.first, argument.expressionType == .keyPath,
                let attribute = attribute(at: argument.keyPath, from: entity)
            else { return .doubleAttributeType }
            return attribute.attributeType
        }
    }

    private func attribute(at keyPath: String, from entity: NSEntityDescription) -> NSAttributeDescription? {
        var current = entity
        let steps = keyPath.split(separator: ".").map(String.init)
        for (index, step) in steps.enumerated() {
            if index == steps.count - 1 { return current.attributesByName[step] }
            guard let next = current.relationshipsByName[step]?.destinationEntity else { return nil }
            current = next
        }
        return nil
    }

    private func checkRelationshipPath(_ keyPath: String, from entity: NSEntityDescription) throws {
        var current = entity
        for step in keyPath.split(separator: ".").map(String.init) {
            guard let relationship = current.relationshipsByName[step], let destination = relationship.destinationEntity else {
                throw ToolError("--prefetch: \(current.name ?? "?") has no relationship named '\(step)' (in '\(keyPath)')")
            }
            current = destination
        }
    }

    func unknownEntityMessage(_ name: String) -> String {
        "the model has no entity named '\(name)' (entities: \(model.entities.compactMap(\.name).sorted().joined(separator: ", ")))"
    }
}
