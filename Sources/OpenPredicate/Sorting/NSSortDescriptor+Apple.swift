import Foundation

extension Foundation.NSSortDescriptor: _FoundationFactory {}

extension _FoundationFactory where Self == Foundation.NSSortDescriptor {
    /// Creates a sort descriptor that orders objects by the value at `key`, with `compare:`.
    ///
    /// `key` is a key path (`"name"`, `"address.city"`) read with key-value coding: through
    /// `KeyValueCodable`, `[String: Any]` dictionaries, `NSDictionary`, and `Mirror` for other Swift
    /// values. A nil key sorts the objects themselves. `compare:` orders numbers by value across
    /// types (`2 < 2.5 < 3`), strings literally, and dates chronologically; `nil` and `NSNull`
    /// sort before every value in ascending order.
    ///
    /// ```swift
    /// let byName = NSSortDescriptor(key: "name", ascending: true)
    /// let sorted = people.sorted(using: [byName])
    /// ```
    ///
    /// **Differences from Apple:** values with no common order (a number and a string, or two
    /// values of a type without `compare:`) are ordered by type name instead of raising
    /// "unrecognized selector".
    public init(key: String?, ascending: Bool) {
        self = KeyedSortDescriptor(key: key, ascending: ascending)
    }

    /// Creates a sort descriptor that orders objects by the value at `key`, compared with the
    /// method named `selector`.
    ///
    /// Supported selectors: `"compare:"`, `"caseInsensitiveCompare:"`, `"localizedCompare:"`,
    /// `"localizedCaseInsensitiveCompare:"` and `"localizedStandardCompare:"` (Finder order:
    /// case-insensitive, digit runs by value, so `"file2" < "file10"`). The localized comparisons
    /// use `Locale.current`. See `init(key:ascending:)` for how keys are read and nil is ordered.
    ///
    /// ```swift
    /// NSSortDescriptor(key: "title", ascending: true, selector: "localizedStandardCompare:")
    /// ```
    ///
    /// **Default:** a nil `selector` means `"compare:"`.
    ///
    /// **Differences from Apple:** Linux has no Objective-C `Selector`, so the selector is its
    /// name as a `String` (what `NSStringFromSelector` would give) rather than
    /// `#selector(NSString.localizedStandardCompare(_:))`. Any other selector raises
    /// `NSInvalidArgumentException` here, when the descriptor is created (Apple accepts any
    /// selector and raises when sorting values that do not respond to it). The string selectors
    /// fall back to `compare:` for values that are not strings.
    public init(key: String?, ascending: Bool, selector: String?) {
        self = KeyedSortDescriptor(
            key: key, ascending: ascending,
            selector: selector ?? SortComparison.defaultSelector)
    }

    /// Creates a sort descriptor that orders objects by the value at `key`, compared with a
    /// comparator block.
    ///
    /// The block receives the two key values (not the objects) and returns their order as if
    /// ascending; the descriptor reverses it when `ascending` is false. See
    /// `init(key:ascending:)` for how keys are read.
    ///
    /// ```swift
    /// let order = ["Velma", "Daphne", "Scooby"]
    /// let rank = { (value: Any) in order.firstIndex(of: value as? String ?? "") ?? order.count }
    /// NSSortDescriptor(key: "name", ascending: true) { a, b in
    ///     rank(a) < rank(b) ? .orderedAscending : (rank(a) > rank(b) ? .orderedDescending : .orderedSame)
    /// }
    /// ```
    ///
    /// **Differences from Apple:** Swift's `Comparator` cannot receive nil, so nil (and `NSNull`)
    /// values are ordered before the block is called: they sort before every value in ascending
    /// order and the block never sees them.
    public init(key: String?, ascending: Bool, comparator cmptr: @escaping Comparator) {
        self = KeyedSortDescriptor(key: key, ascending: ascending, comparator: cmptr)
    }
}

extension Foundation.NSSortDescriptor {
    /// The key path this descriptor sorts by (`"address.city"`), or nil when it sorts the objects
    /// themselves.
    ///
    /// **Differences from Apple:** nil also for descriptors made with corelibs'
    /// `init(keyPath:ascending:)`, which has a Swift key path and no string key (use `keyPath`).
    public var key: String? {
        (self as? KeyedSortDescriptor)?.keyString
    }

    /// The name of the method used to compare values, such as `"compare:"`.
    ///
    /// **Differences from Apple:** a `String` (the selector's name) instead of an Objective-C
    /// `Selector`, which Linux does not have. Nil for comparator-based descriptors and for those
    /// made with corelibs' `init(keyPath:ascending:)`.
    public var selector: String? {
        (self as? KeyedSortDescriptor)?.selectorName
    }

    /// Allows a sort descriptor decoded from an archive to be evaluated.
    ///
    /// Apple refuses to evaluate securely decoded descriptors until this is called. Descriptors
    /// here are always ready to evaluate, so this does nothing.
    ///
    /// **Differences from Apple:** a no-op. Descriptors made with `init(key:ascending:)` and
    /// `init(key:ascending:selector:)` archive with `NSKeyedArchiver`; corelibs' own
    /// `init(keyPath:ascending:)` descriptors and comparator descriptors do not.
    public func allowEvaluation() {}
}
