import Foundation

/// `CAST(value, 'Type')` (`castObject:toType:`).
///
/// - `NSDate`/`Date`: a number is seconds since 2001-01-01 (how `predicateFormat` prints dates);
///   a date stays a date.
/// - `NSString`/`String`: the value's plain description.
/// - `NSNumber`/`NSDecimalNumber`: a string is parsed (nil if it is not a number); a date gives
///   its seconds since 2001-01-01.
/// - `NSUUID`/`UUID`, `NSURL`/`URL`: from strings; `NSData`/`Data`: from base64.
/// - Any other type name leaves the value as it is.
enum Casting {
    static func cast(_ value: Any?, to type: String) -> Any? {
        guard let value = ValueSemantics.unwrapOptional(value) else { return nil }
        switch type {
        case "NSDate", "Date":
            if let date = value as? Date { return date }
            if let number = ValueSemantics.number(value) {
                return Date(timeIntervalSinceReferenceDate: number.doubleValue)
            }
            if let string = ValueSemantics.string(value), let seconds = Double(string) {
                return Date(timeIntervalSinceReferenceDate: seconds)
            }
            return nil
        case "NSString", "String":
            return PredicateValueFormatting.plainDescription(of: value)
        case "NSNumber":
            if let number = ValueSemantics.number(value) { return Aggregates.box(number) }
            if let date = value as? Date { return date.timeIntervalSinceReferenceDate }
            if let string = ValueSemantics.string(value)?.trimmingCharacters(in: .whitespaces) {
                if let integer = Int(string) { return integer }
                return Double(string)
            }
            return nil
        case "NSDecimalNumber", "Decimal":
            if let number = ValueSemantics.number(value) { return number.decimalValue }
            if let string = ValueSemantics.string(value) { return Decimal(string: string) }
            return nil
        case "NSUUID", "UUID":
            if let uuid = value as? UUID { return uuid }
            return ValueSemantics.string(value).flatMap(UUID.init(uuidString:))
        case "NSURL", "URL":
            if let url = value as? URL { return url }
            return ValueSemantics.string(value).flatMap { URL(string: $0) }
        case "NSData", "Data":
            if let data = value as? Data { return data }
            return ValueSemantics.string(value).flatMap { Data(base64Encoded: $0) }
        default:
            return value
        }
    }
}

/// An object that answers `FUNCTION(object, "selector:", …)` in expressions itself, where
/// Objective-C would send it the message (a migration manager answers
/// `destinationInstancesForSourceRelationshipNamed:sourceInstances:`).
package protocol ExpressionFunctionReceiver: AnyObject {
    /// The result of `selector` with `arguments`; `.none` when the object has no such method.
    func performExpressionFunction(_ selector: String, arguments: [Any?]) -> Any??
}

/// `FUNCTION(receiver, 'selector', args…)`: with no Objective-C runtime, the selectors that work
/// are those an `ExpressionFunctionReceiver` answers, `valueForKey:`, the common `NSString` ones
/// and, for zero-argument selectors, any key the receiver answers through key-value coding.
/// Anything else gives nil.
enum SelectorInvocation {
    static func invoke(_ selector: String, on target: Any?, arguments: [Any?]) -> Any? {
        guard let target = ValueSemantics.unwrapOptional(target) else { return nil }
        if let receiver = target as? ExpressionFunctionReceiver,
            let result = receiver.performExpressionFunction(selector, arguments: arguments)
        {
            return result
        }
        if selector == "valueForKey:", arguments.count == 1, let key = ValueSemantics.string(arguments[0] ?? nil) {
            return KeyValueReader.value(of: target, forKey: key)
        }
        if let string = ValueSemantics.string(target), let result = invokeOnString(selector, string, arguments) {
            return result
        }
        if !selector.contains(":") {
            return KeyValueReader.value(of: target, forKey: selector)
        }
        return nil
    }

    private static func invokeOnString(_ selector: String, _ string: String, _ arguments: [Any?]) -> Any? {
        let strings = arguments.map { ValueSemantics.string($0) }
        let integers = arguments.map { FunctionCompiler.integer($0) }
        let nsString = string as NSString
        switch selector {
        case "substringFromIndex:":
            guard let index = integers.first ?? nil, index >= 0, index <= nsString.length else { return nil }
            return nsString.substring(from: index)
        case "substringToIndex:":
            guard let index = integers.first ?? nil, index >= 0, index <= nsString.length else { return nil }
            return nsString.substring(to: index)
        case "stringByAppendingString:":
            guard let other = strings.first ?? nil else { return nil }
            return string + other
        case "stringByReplacingOccurrencesOfString:withString:":
            guard strings.count == 2, let target = strings[0], let replacement = strings[1] else { return nil }
            return StringSearch.replacingOccurrences(in: string, of: target, with: replacement)
        case "hasPrefix:":
            guard let other = strings.first ?? nil else { return nil }
            return string.hasPrefix(other)
        case "hasSuffix:":
            guard let other = strings.first ?? nil else { return nil }
            return string.hasSuffix(other)
        case "uppercaseString": return string.uppercased()
        case "lowercaseString": return string.lowercased()
        case "length": return nsString.length
        case "lastPathComponent": return nsString.lastPathComponent
        case "pathExtension": return nsString.pathExtension
        case "stringByDeletingPathExtension": return nsString.deletingPathExtension
        case "stringByDeletingLastPathComponent": return nsString.deletingLastPathComponent
        default: return nil
        }
    }
}
