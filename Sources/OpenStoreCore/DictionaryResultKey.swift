import Foundation

/// The key string of one column of dictionary results: an immutable `NSString` whose hash is
/// worked out once per fetch instead of once per row.
///
/// Making an `NSDictionary` hashes every key, and a plain `NSString` hashes its characters
/// through CoreFoundation each time (about a thousand instructions for a short name, a fifth of
/// the cost of a dictionary result). Every row of a fetch shares one key per column, so the
/// hash is computed from a plain `NSString` of the same text when the key is made, and equality
/// between two keys compares their texts. To code reading the results it is a string like any
/// other: it bridges to `String`, looks up, compares and hashes as an `NSString` of its text.
package final class DictionaryResultKey: NSString {
    /// The key's text.
    package let text: String
    /// Its UTF-16 code units, for `NSString`'s primitive methods.
    private let units: [unichar]
    /// The hash of a plain `NSString` of `text`.
    private let storedHash: Int

    package init(_ text: String) {
        self.text = text
        let units = Array(text.utf16)
        self.units = units
        storedHash = NSString(string: text).hash
        // `NSString`'s designated initializer that its library exports.
        super.init(characters: units, length: units.count)
    }

    package required convenience init(string aString: String) { self.init(aString) }

    package required init?(coder aDecoder: NSCoder) { nil }

    package required convenience init(stringLiteral value: StaticString) { self.init(value.description) }

    package required convenience init(extendedGraphemeClusterLiteral value: StaticString) { self.init(value.description) }

    package required convenience init(unicodeScalarLiteral value: StaticString) { self.init(value.description) }

    package override var length: Int { units.count }

    package override func character(at index: Int) -> unichar { units[index] }

    package override var hash: Int { storedHash }

    package override func isEqual(_ object: Any?) -> Bool {
        if let other = object as? DictionaryResultKey { return other === self || other.text == text }
        guard let other = object as? NSString else { return false }
        return other.isEqual(to: text)
    }

    /// The key itself: it is immutable, and a copy of a subclass would be a plain `NSString`
    /// with no stored hash (`NSDictionary` copies each key it is given).
    package override func copy(with zone: NSZone? = nil) -> Any { self }

    package override var description: String { text }
}
