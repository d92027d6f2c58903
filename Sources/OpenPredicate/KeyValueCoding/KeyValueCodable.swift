import Foundation

/// A type whose properties predicates and sort descriptors can read by name.
///
/// Swift on Linux has no Objective-C key-value coding, so predicates read values through this one
/// requirement. Conform your own types to make `name == "x"` or `NSSortDescriptor(key: "age", …)`
/// work on them:
///
/// ```swift
/// final class Employee: KeyValueCodable {
///     var name: String
///     var salary: Int
///     func value(forKey key: String) -> Any? {
///         switch key {
///         case "name": name
///         case "salary": salary
///         default: nil
///         }
///     }
/// }
/// ```
///
/// Dictionaries with `String` keys, `NSDictionary`, arrays and sets (which map a key over their
/// elements), strings (`length`, `uppercaseString`, …), numbers and dates work without a
/// conformance. Any other value is read through `Mirror` by stored-property name, which works but
/// is much slower than a conformance.
///
/// **Differences from Apple:** Apple's `NSObject` reads any `@objc` property by name. Here a type
/// opts in with this conformance (or is read through `Mirror`); an unknown key gives `nil`
/// instead of raising `NSUnknownKeyException`.
public protocol KeyValueCodable {
    /// The value of the property named `key`, or nil when there is none.
    func value(forKey key: String) -> Any?
}

extension NSDictionary: KeyValueCodable {}

/// A collection as predicates see it: `IN`, `CONTAINS`, `ANY`/`ALL`, `@count` and friends.
protocol PredicateCollection {
    /// The elements (a dictionary's values).
    var predicateElements: [Any] { get }
    /// Sets and dictionaries compare without order.
    var isUnordered: Bool { get }
}

extension Array: PredicateCollection {
    var predicateElements: [Any] { map { $0 as Any } }
    var isUnordered: Bool { false }
}

extension ArraySlice: PredicateCollection {
    var predicateElements: [Any] { map { $0 as Any } }
    var isUnordered: Bool { false }
}

extension ContiguousArray: PredicateCollection {
    var predicateElements: [Any] { map { $0 as Any } }
    var isUnordered: Bool { false }
}

extension Set: PredicateCollection {
    var predicateElements: [Any] { map { $0 as Any } }
    var isUnordered: Bool { true }
}

extension Dictionary: PredicateCollection {
    var predicateElements: [Any] { values.map { $0 as Any } }
    var isUnordered: Bool { true }
}

extension NSArray: PredicateCollection {
    var predicateElements: [Any] { map { $0 } }
    var isUnordered: Bool { false }
}

extension NSSet: PredicateCollection {
    var predicateElements: [Any] { map { $0 } }
    var isUnordered: Bool { true }
}

extension NSOrderedSet: PredicateCollection {
    var predicateElements: [Any] { map { $0 } }
    var isUnordered: Bool { false }
}

extension NSDictionary: PredicateCollection {
    var predicateElements: [Any] { allValues }
    var isUnordered: Bool { true }
}

/// Dictionaries keyed by `String` (or by `AnyHashable`, as those read out of an `NSArray` are)
/// answer `value(forKey:)` with a lookup.
protocol KeyedDictionary {
    func predicateValue(forKey key: String) -> Any?
}

extension Dictionary: KeyedDictionary {
    func predicateValue(forKey key: String) -> Any? {
        guard let typedKey = (key as Any) as? Key, let value = self[typedKey] else { return nil }
        return value as Any
    }
}
