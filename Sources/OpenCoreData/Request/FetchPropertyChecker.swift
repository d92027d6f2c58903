import OpenPredicate

/// The two property lists of a fetch request.
enum FetchPropertyList {
    case fetch, groupBy

    /// The Objective-C setter Apple names in its reasons.
    var setterName: String {
        switch self {
        case .fetch: return "setPropertiesToFetch:"
        case .groupBy: return "setPropertiesToGroupBy:"
        }
    }
}

/// A refused fetch request: Apple's reason (or ours, where Apple has none), the culprit, and
/// the `NSError` the throwing APIs throw.
struct FetchRequestError: Error {
    let reason: String
    /// The property name, key path or entity name at fault.
    let culprit: String?

    init(_ reason: String, culprit: String? = nil) {
        self.reason = reason
        self.culprit = culprit
    }

    /// `NSCocoaErrorDomain`, `NSCoreDataError`, the reason as description, and the culprit
    /// under `FetchRequestError.culpritKey`.
    var nsError: NSError {
        var userInfo: [String: Any] = [:]
        if let culprit { userInfo[Self.culpritKey] = culprit }
        return CoreDataError.make(code: NSCoreDataError, reason: reason, userInfo: userInfo)
    }

    /// The `userInfo` key of the property name, key path or entity name a fetch request error
    /// is about.
    static let culpritKey = "NSFetchRequestCulprit"
}

/// Apple's rules for `propertiesToFetch` and `propertiesToGroupBy`, applied when they are set
/// (against the request's entity) and again when the request runs (against the model's entity).
///
/// Each value is turned into the property description Apple stores for it: a name into the
/// entity's property, a key path into an `NSExpressionDescription` of that key path (typed as
/// the attribute at its end, or as an object ID for a relationship), `"objectID"` into an
/// expression description of the object's ID; descriptions are kept. The same object twice is
/// kept once. Reasons are Apple's (Core Data's `-[NSFetchRequest _newValidatedProperties:…]`),
/// with one colon after the setter name where Apple's format doubles it.
struct FetchPropertyChecker {
    let entity: NSEntityDescription?
    let list: FetchPropertyList
    /// Transient properties are refused for anything but managed-object results, and always in
    /// `GROUP BY`, as on Apple.
    let refusesTransient: Bool
    /// At setting time a description the caller gave is kept; when the request runs it is
    /// replaced by the model entity's property of that name.
    let keepsGivenDescriptions: Bool

    init(
        entity: NSEntityDescription?, list: FetchPropertyList, resultType: NSFetchRequestResultType, keepsGivenDescriptions: Bool
    ) {
        self.entity = entity
        self.list = list
        self.refusesTransient = resultType != .managedObjectResultType || list == .groupBy
        self.keepsGivenDescriptions = keepsGivenDescriptions
    }

    private var setter: String { list.setterName }

    /// The checked list, or the first refusal.
    func check(_ values: [Any]) throws -> [NSPropertyDescription] {
        var checked: [NSPropertyDescription] = []
        for value in values {
            let property = try checkValue(value)
            if !checked.contains(where: { $0 === property }) { checked.append(property) }
        }
        return checked
    }

    private func checkValue(_ value: Any) throws -> NSPropertyDescription {
        if let name = value as? String { return try checkName(name) }
        if let expression = value as? NSExpressionDescription { return try checkExpression(expression) }
        if let property = value as? NSPropertyDescription { return try checkDescription(property) }
        throw FetchRequestError(
            "Invalid value \(PropertyListText.text(of: value)) passed to \(setter) (expected a property description or a name)",
            culprit: PropertyListText.text(of: value))
    }

    // MARK: Names and key paths

    private func checkName(_ name: String) throws -> NSPropertyDescription {
        let components = name.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        if components.count > 1 { return try checkKeyPath(name, components) }
        guard let property = entity?.propertiesByName[name] else {
            if name == "objectID" { return Self.objectIDColumn() }
            throw FetchRequestError("Invalid keypath \(name) passed to \(setter)", culprit: name)
        }
        if refusesTransient && property.isTransient {
            throw FetchRequestError("Invalid keypath \(name) passed to \(setter)", culprit: name)
        }
        if let relationship = property as? NSRelationshipDescription, relationship.isToMany {
            switch list {
            case .groupBy: throw FetchRequestError("Invalid keypath \(name) passed to \(setter)", culprit: name)
            case .fetch: throw FetchRequestError("Invalid to many relationship in \(setter) (\(name))", culprit: name)
            }
        }
        return property
    }

    private func checkKeyPath(_ path: String, _ components: [String]) throws -> NSPropertyDescription {
        var current = entity
        for (index, component) in components.enumerated() {
            let isLast = index == components.count - 1
            guard let property = current?.propertiesByName[component] else {
                throw FetchRequestError("Invalid keypath \(path) passed to \(setter)", culprit: path)
            }
            if refusesTransient && property.isTransient {
                throw FetchRequestError("Invalid keypath \(path) passed to \(setter)", culprit: path)
            }
            if let attribute = property as? NSAttributeDescription {
                guard isLast else {
                    throw FetchRequestError("Invalid keypath \(path) passed to \(setter) (non-terminal attribute)", culprit: path)
                }
                return Self.keyPathColumn(path, type: attribute.attributeType)
            }
            guard let relationship = property as? NSRelationshipDescription else {
                throw FetchRequestError("Invalid keypath \(path) passed to \(setter) (invalid property type)", culprit: path)
            }
            if relationship.isToMany {
                if list == .fetch, let operatorPath = CollectionOperatorPath(path, from: entity) {
                    // `employees.@count`: a value per object, or an aggregate per group.
                    return Self.keyPathColumn(path, type: operatorPath.resultType)
                }
                switch list {
                case .groupBy: throw FetchRequestError("Invalid keypath \(path) passed to \(setter)", culprit: path)
                case .fetch: throw FetchRequestError("Invalid to many relationship in \(setter) (\(path))", culprit: path)
                }
            }
            if isLast { return Self.keyPathColumn(path, type: .objectIDAttributeType) }
            current = relationship.destinationEntity
        }
        throw FetchRequestError("Invalid keypath \(path) passed to \(setter)", culprit: path)
    }

    // MARK: Descriptions

    private func checkExpression(_ description: NSExpressionDescription) throws -> NSPropertyDescription {
        if list == .groupBy, description.expression?.expressionType != .keyPath {
            // Apple names setPropertiesToFetch: here even for GROUP BY.
            let expression = description.expression?.description ?? "nil"
            throw FetchRequestError(
                "Invalid keypath expression (\(expression)) passed to setPropertiesToFetch:", culprit: description.name)
        }
        return description
    }

    private func checkDescription(_ property: NSPropertyDescription) throws -> NSPropertyDescription {
        let name = property.name
        if refusesTransient && property.isTransient {
            throw FetchRequestError("Invalid property \(name) passed to \(setter) (property is transient)", culprit: name)
        }
        guard let entity, let own = entity.propertiesByName[name] else {
            throw FetchRequestError(
                "Attribute/relationship description names passed to \(setter) must match name on fetch entity (\(name))",
                culprit: name)
        }
        if list == .groupBy, let declaring = property.declaringEntity, !Self.isRelated(declaring, to: entity) {
            // Apple names setPropertiesToFetch: here even for GROUP BY.
            throw FetchRequestError("Invalid property (\(name)) passed to setPropertiesToFetch: (entity mismatch)", culprit: name)
        }
        if let relationship = property as? NSRelationshipDescription, relationship.isToMany {
            throw FetchRequestError("Invalid to many relationship (\(name)) passed to \(setter)", culprit: name)
        }
        return keepsGivenDescriptions ? property : own
    }

    /// Whether a property declared by `declaring` can belong to `entity`: the same entity (by
    /// name, so that copies of a model count), one it inherits from, or one of its sub-entities.
    static func isRelated(_ declaring: NSEntityDescription, to entity: NSEntityDescription) -> Bool {
        guard let name = declaring.name else { return false }
        var ancestor: NSEntityDescription? = entity
        while let current = ancestor {
            if current.name == name { return true }
            ancestor = current.superentity
        }
        var pending = entity.subentities
        while let next = pending.popLast() {
            if next.name == name { return true }
            pending += next.subentities
        }
        return false
    }

    // MARK: Columns Apple makes

    /// An expression description named `path` that reads it.
    static func keyPathColumn(_ path: String, type: NSAttributeType) -> NSExpressionDescription {
        let column = NSExpressionDescription()
        column.name = path
        column.expression = NSExpression(forKeyPath: path)
        column.expressionResultType = type
        return column
    }

    /// `"objectID"`: the object itself, typed as an object ID.
    static func objectIDColumn() -> NSExpressionDescription {
        let column = NSExpressionDescription()
        column.name = "objectID"
        column.expression = NSExpression.expressionForEvaluatedObject()
        column.expressionResultType = .objectIDAttributeType
        return column
    }
}
