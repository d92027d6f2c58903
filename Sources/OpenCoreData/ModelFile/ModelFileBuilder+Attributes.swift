import OpenPredicate

/// `<attribute>` elements: the type, the default value converted to the type's value, the
/// validation rules, and derived attributes.
extension ModelFileBuilder {
    /// An attribute (or, with `derived="YES"`, a derived attribute) from its element.
    func attribute(from element: ModelFileElement) throws -> NSAttributeDescription {
        try element.checkChildren(["userInfo"])
        let typeName = element.string("attributeType") ?? "Undefined"
        guard let type = NSAttributeType(modelFileName: typeName) else {
            throw ModelFileError("unknown attributeType '\(typeName)' of \(element.label)", at: element.location)
        }
        let attribute: NSAttributeDescription
        if try element.flag("derived") {
            let derived = NSDerivedAttributeDescription()
            let format = try element.requiredString("derivationExpression")
            do {
                derived.derivationExpression = try NSExpression(validatingFormat: format, argumentArray: [])
            } catch {
                let underlying = error as NSError
                throw ModelFileError(
                    "derivationExpression of \(element.label) does not parse: \(underlying.localizedDescription)",
                    at: element.location, underlying: underlying)
            }
            attribute = derived
        } else {
            attribute = NSAttributeDescription()
        }
        try Self.readCommonValues(of: attribute, from: element)
        attribute.attributeType = type
        if type == .compositeAttributeType {
            let composite = try element.requiredString("composite")
            guard compositeNames.contains(composite) else {
                throw ModelFileError(
                    "composite '\(composite)' of \(element.label) is not defined in the model", at: element.location)
            }
        }
        if type == .transformableAttributeType, let className = element.nonEmptyString("customClassName") {
            attribute.attributeValueClassName = className
        }
        attribute.valueTransformerName = element.nonEmptyString("valueTransformerName")
        attribute.allowsExternalBinaryDataStorage = try element.flag("allowsExternalBinaryDataStorage")
        attribute.preservesValueInHistoryOnDeletion = try element.flag("preserveAfterDeletion")
        attribute.allowsCloudEncryption = try element.flag("allowsCloudEncryption")
        attribute.defaultValue = try Self.defaultValue(of: element, type: type)
        let rules = try Self.validationRules(of: element, type: type)
        if !rules.isEmpty {
            attribute.setValidationPredicates(rules.map(\.predicate), warningValues: rules.map { NSNumber(value: $0.warning) })
        }
        return attribute
    }

    /// Fails when a derived attribute of `record`'s entity reads a key path that leads nowhere
    /// (see `DerivationCheck`): the save that computes it would otherwise fail on every object.
    func checkDerivations(of record: EntityRecord) throws {
        for (derived, element) in record.derivedAttributes {
            if let problem = DerivationCheck.problem(of: derived, in: record.entity) {
                throw ModelFileError(
                    "derivationExpression of attribute '\(derived.name)' of entity '\(record.entity.name ?? "")' cannot be "
                        + "computed: \(problem)", at: element.location)
            }
        }
    }

    // MARK: - Default values

    /// The default value: `defaultValueString` converted to the attribute type's value
    /// (`NSNumber` of the type's width for integers, floats and Booleans, `NSDecimalNumber`,
    /// `String`, `Date`, `UUID`, `URL`); for dates `defaultDateTimeInterval` (seconds since
    /// 2001) when present. Binary, transformable and other types have none.
    static func defaultValue(of element: ModelFileElement, type: NSAttributeType) throws -> Any? {
        if type == .dateAttributeType, let interval = element.string("defaultDateTimeInterval") {
            return Date(timeIntervalSinceReferenceDate: try number(interval, key: "defaultDateTimeInterval", of: element))
        }
        guard let string = element.string("defaultValueString") else { return nil }
        let text = string.trimmingCharacters(in: .whitespaces)
        func invalid() -> ModelFileError {
            ModelFileError(
                "defaultValueString=\"\(string)\" of \(element.label) is not a valid \(type.modelFileName) value",
                at: element.location)
        }
        switch type {
        case .integer16AttributeType:
            guard let value = Int16(text) else { throw invalid() }
            return NSNumber(value: value)
        case .integer32AttributeType:
            guard let value = Int32(text) else { throw invalid() }
            return NSNumber(value: value)
        case .integer64AttributeType:
            guard let value = Int64(text) else { throw invalid() }
            return NSNumber(value: value)
        case .doubleAttributeType:
            guard let value = Double(text) else { throw invalid() }
            return NSNumber(value: value)
        case .floatAttributeType:
            guard let value = Float(text) else { throw invalid() }
            return NSNumber(value: value)
        case .decimalAttributeType:
            guard Double(text) != nil, let value = Decimal(string: text) else { throw invalid() }
            return NSDecimalNumber(decimal: value)
        case .booleanAttributeType:
            switch text.lowercased() {
            case "yes", "true", "1": return NSNumber(value: true)
            case "no", "false", "0": return NSNumber(value: false)
            default: throw invalid()
            }
        case .stringAttributeType:
            return string
        case .dateAttributeType:
            guard let date = date(text) else { throw invalid() }
            return date
        case .UUIDAttributeType:
            guard let value = UUID(uuidString: text) else { throw invalid() }
            return value
        case .URIAttributeType:
            guard let value = URL(string: text) else { throw invalid() }
            return value
        case .undefinedAttributeType, .binaryDataAttributeType, .transformableAttributeType, .objectIDAttributeType,
            .compositeAttributeType:
            return nil
        }
    }

    /// A date written as seconds since 2001 or as `yyyy-MM-dd HH:mm:ss ±zzzz` (Xcode's display).
    static func date(_ text: String) -> Date? {
        if let seconds = Double(text) { return Date(timeIntervalSinceReferenceDate: seconds) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        for format in ["yyyy-MM-dd HH:mm:ss Z", "yyyy-MM-dd HH:mm:ss", "yyyy-MM-dd HH:mm", "yyyy-MM-dd"] {
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }

    static func number(_ text: String, key: String, of element: ModelFileElement) throws -> Double {
        guard let value = Double(text.trimmingCharacters(in: .whitespaces)) else {
            throw ModelFileError("\(key)=\"\(text)\" of \(element.label) is not a number", at: element.location)
        }
        return value
    }

    // MARK: - Validation rules

    /// The validation predicates Xcode's compiler makes from the minimum, maximum and regular
    /// expression, in that order, each with Apple's error code as its warning:
    /// numbers `SELF >= min` (`NSValidationNumberTooSmallError`) and `SELF <= max`
    /// (`…TooLargeError`); strings `length >= min` (`NSValidationStringTooShortError`),
    /// `length <= max` (`…TooLongError`) and `SELF MATCHES "regex"`
    /// (`NSValidationStringPatternMatchingError`); dates `SELF >= CAST(min, "NSDate")`
    /// (`NSValidationDateTooSoonError`) and `SELF <= …` (`…TooLateError`), from
    /// `minDateTimeInterval`/`maxDateTimeInterval`. Other types have no rules.
    static func validationRules(of element: ModelFileElement, type: NSAttributeType) throws
        -> [(predicate: NSPredicate, warning: Int)]
    {
        var rules: [(predicate: NSPredicate, warning: Int)] = []
        func add(_ format: String, _ argument: Any, _ warning: Int, key: String) throws {
            do {
                rules.append((try NSPredicate(validatingFormat: format, argumentArray: [argument]), warning))
            } catch {
                throw ModelFileError("\(key) of \(element.label) makes no valid predicate", at: element.location)
            }
        }
        let bounds = [
            (
                "minValueString", ">=", NSValidationNumberTooSmallError, NSValidationStringTooShortError,
                NSValidationDateTooSoonError
            ),
            (
                "maxValueString", "<=", NSValidationNumberTooLargeError, NSValidationStringTooLongError,
                NSValidationDateTooLateError
            ),
        ]
        for (key, comparison, numberWarning, stringWarning, dateWarning) in bounds {
            switch type {
            case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType:
                guard let text = element.string(key) else { continue }
                guard let value = Int64(text.trimmingCharacters(in: .whitespaces)) else {
                    throw ModelFileError("\(key)=\"\(text)\" of \(element.label) is not a whole number", at: element.location)
                }
                try add("SELF \(comparison) %@", NSNumber(value: value), numberWarning, key: key)
            case .doubleAttributeType, .floatAttributeType, .decimalAttributeType:
                guard let text = element.string(key) else { continue }
                try add(
                    "SELF \(comparison) %@", NSNumber(value: try number(text, key: key, of: element)), numberWarning, key: key)
            case .stringAttributeType:
                guard let text = element.string(key) else { continue }
                guard let length = Int(text.trimmingCharacters(in: .whitespaces)), length >= 0 else {
                    throw ModelFileError("\(key)=\"\(text)\" of \(element.label) is not a length", at: element.location)
                }
                try add("length \(comparison) %@", NSNumber(value: length), stringWarning, key: key)
            case .dateAttributeType:
                let intervalKey = key == "minValueString" ? "minDateTimeInterval" : "maxDateTimeInterval"
                let date: Date
                if let interval = element.string(intervalKey) {
                    date = Date(timeIntervalSinceReferenceDate: try number(interval, key: intervalKey, of: element))
                } else if let text = element.string(key) {
                    guard let parsed = Self.date(text.trimmingCharacters(in: .whitespaces)) else {
                        throw ModelFileError("\(key)=\"\(text)\" of \(element.label) is not a date", at: element.location)
                    }
                    date = parsed
                } else {
                    continue
                }
                try add("SELF \(comparison) %@", date, dateWarning, key: key)
            default:
                continue
            }
        }
        if type == .stringAttributeType, let pattern = element.nonEmptyString("regularExpressionString") {
            try add("SELF MATCHES %@", pattern, NSValidationStringPatternMatchingError, key: "regularExpressionString")
        }
        return rules
    }
}
