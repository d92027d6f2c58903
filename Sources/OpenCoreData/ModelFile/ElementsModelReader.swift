import OpenPredicate

/// Reads the binary model of Xcode 3 (the `elements` file of an `.xcdatamodel` folder saved
/// before Xcode 4 wrote `contents` XML): a keyed archive of Xcode's own modeling classes.
///
/// The archive is turned into the element tree the `contents` XML would give, and
/// `ModelFileBuilder` builds and checks the model from it as from the XML.
///
/// The layout: the root `XDPMModel` holds a package (`_xd_rootPackage`) whose
/// `XDBucketForClassesstorage` maps entity names to `XDPMEntity` objects; each element has a
/// `_name` and "stereotypes" (`XDBucketForStereotypesstorage`) whose owned attributes are the
/// model editor's settings, one per key, the value in the attribute's `_default`:
/// `XD_PSK_*` for entities (`entityClassName`, `isAbstract`, `userInfo`, `elementID`,
/// `versionHashModifier`), `XD_PPSK_*` for every property (`isOptional`, `isTransient`,
/// `isIndexed`, `isSpotlightIndexed`, `userInfo`, `elementID`, `versionHashModifier`),
/// `XD_PAttK_*` for attributes (`attributeType`, `defaultValueAsString`, `minValueString`,
/// `maxValueString`, `regularExpressionString`, `valueTransformerName`,
/// `allowsExternalBinaryDataStorage`) and `XD_PRK_*` for relationships (`destination`,
/// `inverseRelationship`, `isToMany`, `minCount`, `maxCount`, `deleteRule`, `ordered`). An
/// entity's properties are its `XDBucketForOwnedAttributesstorage`; its parent is the `_general`
/// of its generalization (`XDBucketForGeneralizationsstorage`). Fetch requests stored with an
/// entity and fetched properties are refused (`NSFeatureUnsupportedError`): no file at hand
/// shows how Xcode 3 stored them.
struct ElementsModelReader {
    let archive: ArchiveGraph

    var location: ModelFileLocation { ModelFileLocation(file: archive.file, line: 0, column: 0) }

    /// Reads the archive of an `elements` file into `model`, which must be empty.
    static func read(_ archive: ArchiveGraph, into model: NSManagedObjectModel) throws {
        let reader = ElementsModelReader(archive: archive)
        try ModelFileBuilder.build(try reader.modelElement(), into: model)
    }

    func element(_ name: String, _ attributes: [String: String], _ children: [ModelFileElement] = []) -> ModelFileElement {
        ModelFileElement(name: name, attributes: attributes, children: children, location: location)
    }

    func unsupported(_ what: String) -> ModelFileError {
        ModelFileError(.unsupportedFormat, "\(what) cannot be read from an Xcode 3 'elements' model yet", file: archive.file)
    }

    // MARK: - Model

    func modelElement() throws -> ModelFileElement {
        let model = archive.root
        guard model.className == "XDPMModel" else {
            throw archive.error("not an Xcode data model: the archive's root is \(model.className), not XDPMModel")
        }
        guard let package = try archive.object(model, "_xd_rootPackage") else {
            throw archive.error("the model has no package (_xd_rootPackage)")
        }
        var entities: [(String, ArchiveGraph.Object)] = []
        for (name, value) in try archive.entries(package, "XDBucketForClassesstorage") {
            guard let entity = try archive.object(reference: value, what: "entity '\(name)'") else { continue }
            guard entity.className == "XDPMEntity" else {
                throw archive.error("entity '\(name)' is an \(entity.className), not an XDPMEntity")
            }
            entities.append((name, entity))
        }
        var children: [ModelFileElement] = []
        for (name, entity) in entities.sorted(by: { $0.0 < $1.0 }) {
            children.append(try entityElement(entity, name: name))
        }
        for (name, value) in try archive.entries(model, "_configurationsByName") {
            var members: [ModelFileElement] = []
            if let collection = try archive.object(reference: value, what: "configuration '\(name)'") {
                for member in try archive.elements(of: collection) {
                    members.append(
                        element("memberEntity", ["name": try entityName(member, what: "a member of configuration '\(name)'")]))
                }
            }
            children.append(element("configuration", ["name": name], members))
        }
        var attributes: [String: String] = [:]
        if let identifier = try archive.string(model, "_modelVersionIdentifier") {
            attributes["userDefinedModelVersionIdentifier"] = identifier
        }
        return element("model", attributes, children)
    }

    /// The name of an entity given as an `XDPMEntity` object or as a string.
    func entityName(_ value: PropertyListValue, what: String) throws -> String {
        if case .uid = value, let object = try? archive.object(reference: value, what: what), object.className == "XDPMEntity" {
            guard let name = try archive.string(object, "_name") else { throw archive.error("\(what) has no name") }
            return name
        }
        guard let name = try archive.string(value, what: what) else { throw archive.error("\(what) names no entity") }
        return name
    }

    // MARK: - Settings

    /// The editor's settings of an element: every owned attribute of every stereotype, by key,
    /// its `_default` as the value (references not followed).
    func settings(of owner: ArchiveGraph.Object) throws -> [String: PropertyListValue] {
        var result: [String: PropertyListValue] = [:]
        for (name, value) in try archive.entries(owner, "XDBucketForStereotypesstorage") {
            guard let stereotype = try archive.object(reference: value, what: "stereotype '\(name)' of \(owner.label)") else {
                continue
            }
            for (key, value) in try archive.entries(stereotype, "XDBucketForOwnedAttributesstorage") {
                guard let setting = try archive.object(reference: value, what: "setting '\(key)' of \(owner.label)") else {
                    continue
                }
                result[key] = setting.fields["_default"] ?? .uid(0)
            }
        }
        return result
    }

    /// A setting as the XML attribute value the `contents` file would hold (`YES`/`NO` for
    /// Booleans, decimal for integers), or nil when it is absent or null.
    func text(_ settings: [String: PropertyListValue], _ key: String, what: String) throws -> String? {
        switch try archive.resolved(settings[key], what: "\(key) of \(what)") {
        case nil, .null?: return nil
        case .bool(let value)?: return value ? "YES" : "NO"
        case .integer(let value)?: return String(value)
        case .real(let value)?: return String(value)
        case .string(let value)?: return value
        case .dictionary(let fields)? where fields["NS.string"] != nil:
            return try archive.string(settings[key], what: "\(key) of \(what)")
        case let other?: throw archive.error("\(key) of \(what) is \(other.kindName), not a value")
        }
    }

    func flag(_ settings: [String: PropertyListValue], _ key: String, what: String) throws -> Bool {
        guard let text = try text(settings, key, what: what) else { return false }
        switch text.lowercased() {
        case "yes", "true", "1": return true
        case "no", "false", "0": return false
        default: throw archive.error("\(key) of \(what) is '\(text)', not a Boolean")
        }
    }

    /// A `<userInfo>` element from a user-info setting, or nil when it is empty.
    func userInfoElement(_ settings: [String: PropertyListValue], _ key: String, what: String) throws -> ModelFileElement? {
        guard let value = settings[key], let dictionary = try archive.object(reference: value, what: "\(key) of \(what)")
        else { return nil }
        let entries = try archive.entries(of: dictionary)
        guard !entries.isEmpty else { return nil }
        var children: [ModelFileElement] = []
        for (key, value) in entries {
            let plain = try archive.plainValue(value, what: "user info '\(key)' of \(what)")
            children.append(
                element("entry", ["key": key, "value": plain.map { ($0 as? String) ?? String(describing: $0) } ?? ""]))
        }
        return element("userInfo", [:], children)
    }

    // MARK: - Entities

    func entityElement(_ entity: ArchiveGraph.Object, name key: String) throws -> ModelFileElement {
        let name = try archive.string(entity, "_name") ?? key
        guard name == key else { throw archive.error("the model lists entity '\(key)' under another name ('\(name)')") }
        let what = "entity '\(name)'"
        let settings = try settings(of: entity)
        var attributes = ["name": name]
        if let className = try text(settings, "XD_PSK_entityClassName", what: what), !className.isEmpty {
            attributes["representedClassName"] = className
        }
        if try flag(settings, "XD_PSK_isAbstract", what: what) || archive.flag(entity, "_isAbstract") {
            attributes["isAbstract"] = "YES"
        }
        if let identifier = try text(settings, "XD_PSK_elementID", what: what) { attributes["elementID"] = identifier }
        if let modifier = try text(settings, "XD_PSK_versionHashModifier", what: what) {
            attributes["versionHashModifier"] = modifier
        }
        for generalization in try archive.elements(entity, "XDBucketForGeneralizationsstorage") {
            guard let link = try archive.object(reference: generalization, what: "a generalization of \(what)") else { continue }
            guard let parent = try archive.object(link, "_general") else {
                throw unsupported("the parent entity of \(what) (\(link.className) without _general)")
            }
            attributes["parentEntity"] = try entityName(.uid(parent.index), what: "the parent of \(what)")
        }
        if let requests = settings["XD_PSK_fetchRequestsArray"],
            let list = try archive.object(reference: requests, what: "the fetch requests of \(what)"),
            !(try archive.elements(of: list)).isEmpty
        {
            throw unsupported("a fetch request stored with \(what)")
        }
        var attributeElements: [(String, ModelFileElement)] = []
        var relationshipElements: [(String, ModelFileElement)] = []
        for (propertyName, value) in try archive.entries(entity, "XDBucketForOwnedAttributesstorage") {
            let propertyWhat = "property '\(propertyName)' of \(what)"
            guard let property = try archive.object(reference: value, what: propertyWhat) else { continue }
            switch property.className {
            case "XDPMAttribute":
                attributeElements.append((propertyName, try attributeElement(property, name: propertyName, what: propertyWhat)))
            case "XDPMRelationship":
                relationshipElements.append(
                    (propertyName, try relationshipElement(property, name: propertyName, what: propertyWhat)))
            default:
                throw unsupported("\(propertyWhat) (an \(property.className))")
            }
        }
        var children = (attributeElements.sorted { $0.0 < $1.0 } + relationshipElements.sorted { $0.0 < $1.0 }).map(\.1)
        if let info = try userInfoElement(settings, "XD_PSK_userInfo", what: what) { children.append(info) }
        return element("entity", attributes, children)
    }

    func commonAttributes(_ settings: [String: PropertyListValue], name: String, what: String) throws -> [String: String] {
        var attributes = ["name": name]
        let flags = [
            ("XD_PPSK_isOptional", "optional"), ("XD_PPSK_isTransient", "transient"), ("XD_PPSK_isIndexed", "indexed"),
            ("XD_PPSK_isSpotlightIndexed", "spotlightIndexingEnabled"),
        ]
        for (key, attribute) in flags where try flag(settings, key, what: what) { attributes[attribute] = "YES" }
        if let identifier = try text(settings, "XD_PPSK_elementID", what: what) { attributes["elementID"] = identifier }
        if let modifier = try text(settings, "XD_PPSK_versionHashModifier", what: what) {
            attributes["versionHashModifier"] = modifier
        }
        return attributes
    }

    func attributeElement(_ property: ArchiveGraph.Object, name: String, what: String) throws -> ModelFileElement {
        let settings = try settings(of: property)
        var attributes = try commonAttributes(settings, name: name, what: what)
        let raw = Int(try text(settings, "XD_PAttK_attributeType", what: what) ?? "0") ?? -1
        guard let type = NSAttributeType.allTypes.first(where: { Int($0.rawValue) == raw }) else {
            throw archive.error("\(what) has unknown attribute type \(raw)")
        }
        attributes["attributeType"] = type.modelFileName
        let strings = [
            ("XD_PAttK_defaultValueAsString", "defaultValueString"), ("XD_PAttK_minValueString", "minValueString"),
            ("XD_PAttK_maxValueString", "maxValueString"), ("XD_PAttK_regularExpressionString", "regularExpressionString"),
            ("XD_PAttK_valueTransformerName", "valueTransformerName"),
        ]
        for (key, attribute) in strings {
            if let value = try text(settings, key, what: what), !value.isEmpty { attributes[attribute] = value }
        }
        if try flag(settings, "XD_PAttK_allowsExternalBinaryDataStorage", what: what) {
            attributes["allowsExternalBinaryDataStorage"] = "YES"
        }
        var children: [ModelFileElement] = []
        if let info = try userInfoElement(settings, "XD_PPSK_userInfo", what: what) { children.append(info) }
        return element("attribute", attributes, children)
    }

    func relationshipElement(_ property: ArchiveGraph.Object, name: String, what: String) throws -> ModelFileElement {
        let settings = try settings(of: property)
        var attributes = try commonAttributes(settings, name: name, what: what)
        guard let destinationValue = settings["XD_PRK_destination"],
            let destination = try archive.object(reference: destinationValue, what: "the destination of \(what)")
        else {
            throw archive.error("\(what) has no destination entity")
        }
        attributes["destinationEntity"] = try entityName(.uid(destination.index), what: "the destination of \(what)")
        if let inverseValue = settings["XD_PRK_inverseRelationship"],
            let inverse = try archive.object(reference: inverseValue, what: "the inverse of \(what)")
        {
            attributes["inverseName"] = try archive.string(inverse, "_name")
            if let owner = try archive.object(inverse, "_owner"), owner.className == "XDPMEntity" {
                attributes["inverseEntity"] = try archive.string(owner, "_name")
            }
        }
        let toMany = try flag(settings, "XD_PRK_isToMany", what: what)
        let minCount = Int(try text(settings, "XD_PRK_minCount", what: what) ?? "0") ?? -1
        let maxCount = Int(try text(settings, "XD_PRK_maxCount", what: what) ?? "0") ?? -1
        guard minCount >= 0, maxCount >= 0 else { throw archive.error("\(what) has an invalid count") }
        if minCount > 0 { attributes["minCount"] = String(minCount) }
        if toMany {
            attributes["toMany"] = "YES"
            if maxCount > 0 { attributes["maxCount"] = String(maxCount) }
        }
        if try flag(settings, "XD_PRK_ordered", what: what) { attributes["ordered"] = "YES" }
        let rules = [0: "No Action", 1: "Nullify", 2: "Cascade", 3: "Deny"]
        let rule = Int(try text(settings, "XD_PRK_deleteRule", what: what) ?? "1") ?? -1
        guard let ruleName = rules[rule] else { throw archive.error("\(what) has unknown delete rule \(rule)") }
        attributes["deletionRule"] = ruleName
        var children: [ModelFileElement] = []
        if let info = try userInfoElement(settings, "XD_PPSK_userInfo", what: what) { children.append(info) }
        return element("relationship", attributes, children)
    }
}
