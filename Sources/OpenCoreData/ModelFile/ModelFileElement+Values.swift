import OpenPredicate

/// Typed reads of an element's XML attributes; a value that does not parse is an error that
/// names the element, the attribute and the line.
extension ModelFileElement {
    /// The attribute's value, or nil when it is absent.
    func string(_ key: String) -> String? {
        attributes[key]
    }

    /// The attribute's value; an absent or empty value is an error.
    func requiredString(_ key: String) throws -> String {
        guard let value = attributes[key], !value.isEmpty else {
            throw ModelFileError("<\(name)> has no \(key)", at: location)
        }
        return value
    }

    /// The attribute's value when it is present and not empty (Xcode writes
    /// `userDefinedModelVersionIdentifier=""` and the like for "not set").
    func nonEmptyString(_ key: String) -> String? {
        guard let value = attributes[key], !value.isEmpty else { return nil }
        return value
    }

    /// A Boolean attribute: Xcode writes `YES` and `NO`; `true`/`false` and `1`/`0` are accepted
    /// too. Absent gives nil, so that the caller picks the default (in model files an absent
    /// flag means `NO`: `optional="YES"` is written only for optional properties).
    func bool(_ key: String) throws -> Bool? {
        guard let value = attributes[key] else { return nil }
        switch value.lowercased() {
        case "yes", "true", "1": return true
        case "no", "false", "0": return false
        default: throw ModelFileError("\(key)=\"\(value)\" of <\(name)> is not YES or NO", at: location)
        }
    }

    /// A Boolean attribute, `false` when absent.
    func flag(_ key: String) throws -> Bool {
        try bool(key) ?? false
    }

    /// A non-negative integer attribute, or nil when it is absent.
    func count(_ key: String, allowingMinusOne: Bool = false) throws -> Int? {
        guard let value = attributes[key] else { return nil }
        guard let number = Int(value.trimmingCharacters(in: .whitespaces)), number >= (allowingMinusOne ? -1 : 0) else {
            throw ModelFileError("\(key)=\"\(value)\" of <\(name)> is not a whole number", at: location)
        }
        return number
    }

    /// What to call this element in a message: `attribute 'age'`, `entity 'Person'`, ….
    var label: String {
        if let name = attributes["name"] { return "\(self.name) '\(name)'" }
        return "<\(self.name)>"
    }

    /// The `<userInfo>` child as a dictionary of its entries (`[String: String]` under
    /// `[AnyHashable: Any]`), or nil when the element has none.
    func userInfo() throws -> [AnyHashable: Any]? {
        let groups = children(named: "userInfo")
        guard !groups.isEmpty else { return nil }
        var info: [AnyHashable: Any] = [:]
        for group in groups {
            for entry in group.children {
                guard entry.name == "entry" else { throw ModelFileError.unknownElement(entry, in: group) }
                info[try entry.requiredString("key")] = entry.string("value") ?? ""
            }
        }
        return info
    }

    /// Fails on a child whose name is not among `known`.
    func checkChildren(_ known: Set<String>) throws {
        for child in children where !known.contains(child.name) {
            throw ModelFileError.unknownElement(child, in: self)
        }
    }
}

extension ModelFileError {
    /// An element the loader does not know, where skipping it could lose part of the model.
    static func unknownElement(_ element: ModelFileElement, in parent: ModelFileElement) -> ModelFileError {
        ModelFileError("unknown element <\(element.name)> in \(parent.label)", at: element.location)
    }
}
