import Foundation

/// Reads values by key and key path, the way Apple's key-value coding does for predicates:
/// through `KeyValueCodable`, dictionaries, collections (mapping over elements), collection
/// operators (`@count`, `@sum`, `@avg`, `@min`, `@max`, `@distinctUnionOfObjects`, …), a few
/// `NSString`/`NSNumber`/`NSDate` keys, and `Mirror` as the last resort.
enum KeyValueReader {
    /// The value of `key` on `object`.
    @inline(__always)
    static func value(of object: Any?, forKey key: String) -> Any? {
        guard let object else { return nil }
        // `[String: Any]` (nested JSON rows) by its exact type: one lookup, no conformance
        // search. It answers as `slowValue` answers for it below.
        if type(of: object) == [String: Any].self,
            let dictionary = ExactValue.load(object, as: [String: Any].self)
        {
            return DictionaryObject(dictionary: dictionary).value(forKey: key)
        }
        // The type is asked first: see `ValueSemantics.unwrapOptional`. (A Swift dictionary is
        // not `KeyValueCodable`; it is read as a `KeyedDictionary` below.)
        if type(of: object) is KeyValueCodable.Type, let codable = object as? KeyValueCodable {
            if let value = codable.value(forKey: key) { return value }
            return key == "self" ? object : nil
        }
        return slowValue(of: object, forKey: key)
    }

    private static func slowValue(of object: Any, forKey key: String) -> Any? {
        if key == "self" { return object }
        if type(of: object) is KeyedDictionary.Type, let dictionary = object as? KeyedDictionary {
            return dictionary.predicateValue(forKey: key)
        }
        if ValueSemantics.isNSNull(object) { return nil }
        if type(of: object) is OptionalBox.Type, let optional = object as? OptionalBox {
            return value(of: optional.flattened, forKey: key)
        }
        if let string = ValueSemantics.string(object) {
            return stringValue(string, forKey: key)
        }
        if let collection = object as? PredicateCollection {
            if key.hasPrefix("@") {
                return collectionOperator(key, on: collection, rest: [])
            }
            return collection.predicateElements.map { element -> Any in
                value(of: element, forKey: key) ?? ValueSemantics.null
            }
        }
        if let number = ValueSemantics.number(object) {
            return numberValue(number, forKey: key)
        }
        if let date = object as? Date {
            switch key {
            case "timeIntervalSinceReferenceDate": return date.timeIntervalSinceReferenceDate
            case "timeIntervalSince1970": return date.timeIntervalSince1970
            case "description": return date.description
            default: return nil
            }
        }
        if key == "description" { return String(describing: object) }
        return mirrorValue(of: object, forKey: key)
    }

    private static func stringValue(_ string: String, forKey key: String) -> Any? {
        switch key {
        case "length": return string.utf16.count
        case "uppercaseString": return string.uppercased()
        case "lowercaseString": return string.lowercased()
        case "capitalizedString": return string.capitalized
        case "description": return string
        case "intValue", "integerValue", "longLongValue": return Int(string.trimmingCharacters(in: .whitespaces)) ?? 0
        case "doubleValue", "floatValue": return Double(string.trimmingCharacters(in: .whitespaces)) ?? 0
        case "boolValue":
            let first = string.trimmingCharacters(in: .whitespaces).first
            return first.map { "YyTt123456789".contains($0) } ?? false
        case "lastPathComponent": return (string as NSString).lastPathComponent
        case "pathExtension": return (string as NSString).pathExtension
        default: return nil
        }
    }

    private static func numberValue(_ number: ValueSemantics.Number, forKey key: String) -> Any? {
        switch key {
        case "intValue", "integerValue", "longLongValue", "longValue":
            switch number {
            case .int(let value): return Int(truncatingIfNeeded: value)
            case .double(let value): return value.isFinite ? Int(value) : 0
            case .decimal(let value): return NSDecimalNumber(decimal: value).intValue
            }
        case "doubleValue", "floatValue": return number.doubleValue
        case "boolValue": return number.doubleValue != 0
        case "stringValue", "description": return PredicateValueFormatting.plainDescription(of: number)
        case "decimalValue": return number.decimalValue
        default: return nil
        }
    }

    private static func mirrorValue(of object: Any, forKey key: String) -> Any? {
        var mirror: Mirror? = Mirror(reflecting: object)
        while let current = mirror {
            for child in current.children where child.label == key {
                return ValueSemantics.unwrapOptional(child.value)
            }
            mirror = current.superclassMirror
        }
        return nil
    }

    /// The value at `keyPath` (dotted), with collection operators.
    static func value(of object: Any?, forKeyPath keyPath: String) -> Any? {
        if keyPath.isSingleKey {
            return value(of: object, forKey: keyPath)
        }
        return value(of: object, components: KeyPathComponents(keyPath).components[...])
    }

    /// The value at a key path already split into components.
    static func value(of object: Any?, components: ArraySlice<String>) -> Any? {
        var current = object
        var index = components.startIndex
        while index < components.endIndex {
            let component = components[index]
            if component.hasPrefix("@") {
                guard let unwrapped = ValueSemantics.unwrapOptional(current) else { return nil }
                guard let collection = unwrapped as? PredicateCollection else {
                    return nil
                }
                return collectionOperator(component, on: collection, rest: components[(index + 1)...])
            }
            current = value(of: current, forKey: component)
            if current == nil { return nil }
            index += 1
        }
        return current
    }

    /// `@count`, `@sum.k`, `@avg.k`, `@min.k`, `@max.k`, `@unionOfObjects.k`,
    /// `@distinctUnionOfObjects.k`, `@unionOfArrays.k`, `@distinctUnionOfArrays.k`,
    /// `@distinctUnionOfSets.k`. An unknown operator gives nil.
    static func collectionOperator(_ name: String, on collection: PredicateCollection, rest: ArraySlice<String>) -> Any? {
        let elements = collection.predicateElements
        func mapped() -> [Any] {
            if rest.isEmpty { return elements }
            return elements.compactMap { value(of: $0, components: rest) }.filter { !ValueSemantics.isNil($0) }
        }
        switch name {
        case "@count":
            return elements.count
        case "@sum":
            return Aggregates.sum(mapped())
        case "@avg":
            return Aggregates.average(mapped())
        case "@min":
            return Aggregates.minimum(mapped())
        case "@max":
            return Aggregates.maximum(mapped())
        case "@unionOfObjects":
            return mapped()
        case "@distinctUnionOfObjects":
            return Aggregates.distinct(mapped())
        case "@unionOfArrays", "@distinctUnionOfArrays", "@distinctUnionOfSets":
            let flattened = elements.flatMap { element -> [Any] in
                guard let inner = element as? PredicateCollection else { return [] }
                let innerElements = inner.predicateElements
                if rest.isEmpty { return innerElements }
                return innerElements.compactMap { value(of: $0, components: rest) }
            }
            return name == "@unionOfArrays" ? flattened : Aggregates.distinct(flattened)
        default:
            return nil
        }
    }
}

extension String {
    /// Whether this key path is one key: no dot, and no collection operator (`@count`).
    /// Bytes, not characters: `String.contains` goes through Foundation's search on Linux.
    package var isSingleKey: Bool {
        !utf8.contains(UInt8(ascii: ".")) && utf8.first != UInt8(ascii: "@")
    }
}
