import Foundation

/// How to order objects: by the value at a key path, ascending or descending, compared with a
/// selector (`compare:`, `localizedStandardCompare:`, …) or a comparator block. What a fetch
/// request's `sortDescriptors` hold.
///
/// ```swift
/// let byName = NSSortDescriptor(key: "name", ascending: true)
/// let byAge = NSSortDescriptor(keyPath: \Employee.age, ascending: false)
/// request.sortDescriptors = [byAge, byName]
/// ```
///
/// `key` is a key path (`"name"`, `"address.city"`) read with key-value coding: through
/// `KeyValueCodable` (managed objects), `[String: Any]` dictionaries, `NSDictionary`, and
/// `Mirror` for other Swift values. A nil key sorts the objects themselves. `compare:` orders
/// numbers by value across types (`2 < 2.5 < 3`), strings literally, and dates
/// chronologically; `nil` and `NSNull` sort before every value in ascending order.
///
/// **Differences from Apple:** OpenPredicate's own class, a subclass of swift-corelibs-foundation's
/// `NSSortDescriptor` (which has no key-based sorting), so it can be passed wherever corelibs
/// takes one (`NSArray.sortedArray(using:)`); `import CoreData` makes this class what the name
/// `NSSortDescriptor` means. Selectors are their names as `String`s (Linux has no Objective-C
/// `Selector`). Values with no common order (a number and a string) are ordered by type name
/// instead of raising "unrecognized selector".
/// See [NSSortDescriptor](https://developer.apple.com/documentation/foundation/nssortdescriptor).
open class NSSortDescriptor: Foundation.NSSortDescriptor, NSSecureCoding {
    /// Identity for a comparator block, so a descriptor, its copies and its reversal can be
    /// recognised as using the same block (closures cannot be compared).
    final class ComparatorBox {
        let comparator: Comparator
        init(_ comparator: @escaping Comparator) { self.comparator = comparator }
    }

    /// corelibs requires a Swift key path; this one is never read.
    private struct Placeholder { var value: Int = 0 }

    /// The key path (`"address.city"`), or nil to sort the objects themselves (or, with
    /// `keyPathReader`, by a Swift key path that has no string form).
    final let keyString: String?
    /// The comparison selector in Apple's spelling (`"compare:"`); nil for a comparator descriptor.
    final let selectorName: String?
    /// The comparator block, for descriptors made with a comparator.
    final let comparatorBox: ComparatorBox?
    /// Reads the value of a Swift key path that has no string form (a computed property of a
    /// plain Swift type), for sorting in memory; nil otherwise.
    final let keyPathReader: ((Any) -> Any?)?
    /// Whether this descriptor reads a Swift key path that has no string form (so a store
    /// cannot sort by it).
    package var hasUnnamedKeyPath: Bool { keyPathReader != nil }
    /// Makes this descriptor again with a direction (for `reversedSortDescriptor`), when it was
    /// made from a Swift key path.
    private let remakeWithKeyPath: ((Bool) -> NSSortDescriptor)?

    /// A descriptor by a string key; `selector` must be supported (checked by the callers).
    private init(key: String?, ascending: Bool, selectorName: String?, comparatorBox: ComparatorBox?) {
        self.keyString = key
        self.selectorName = selectorName
        self.comparatorBox = comparatorBox
        self.keyPathReader = nil
        self.remakeWithKeyPath = nil
        super.init(keyPath: \Placeholder.value, ascending: ascending)
    }

    /// A descriptor by a Swift key path, which corelibs' `keyPath` keeps; `name` is its string
    /// form, when it has one.
    init<Root, Value>(
        keyPath: KeyPath<Root, Value>, name: String?, ascending: Bool, selectorName: String?,
        comparatorBox: ComparatorBox?
    ) {
        self.keyString = name
        self.selectorName = selectorName
        self.comparatorBox = comparatorBox
        self.keyPathReader = name == nil ? { ($0 as? Root).map { $0[keyPath: keyPath] } } : nil
        self.remakeWithKeyPath = { ascending in
            NSSortDescriptor(
                keyPath: keyPath, name: name, ascending: ascending, selectorName: selectorName,
                comparatorBox: comparatorBox)
        }
        super.init(keyPath: keyPath, ascending: ascending) { _, _ in .orderedSame }
    }

    /// Creates a sort descriptor that orders objects by the value at `key`, compared with the
    /// method named `selector`.
    ///
    /// Supported selectors: `"compare:"`, `"caseInsensitiveCompare:"`, `"localizedCompare:"`,
    /// `"localizedCaseInsensitiveCompare:"` and `"localizedStandardCompare:"` (Finder order:
    /// case-insensitive, digit runs by value, so `"file2" < "file10"`). The localized comparisons
    /// use `Locale.current`; the string selectors fall back to `compare:` for values that are
    /// not strings.
    ///
    /// ```swift
    /// NSSortDescriptor(key: "title", ascending: true, selector: "localizedStandardCompare:")
    /// ```
    ///
    /// **Default:** a nil `selector` (or none) means `"compare:"`.
    ///
    /// **Differences from Apple:** the selector is its name as a `String` (what
    /// `NSStringFromSelector` would give) rather than
    /// `#selector(NSString.localizedStandardCompare(_:))`. Any other selector raises
    /// `NSInvalidArgumentException` when the descriptor is created (Apple accepts any selector
    /// and raises when sorting values that do not respond to it).
    public convenience init(key: String?, ascending: Bool, selector: String? = nil) {
        let selector = selector ?? SortComparison.defaultSelector
        guard SortComparison.isSupported(selector) else {
            let supported = SortComparison.supportedSelectors.sorted().joined(separator: ", ")
            AppleException.raise(
                "NSInvalidArgumentException",
                reason: "NSSortDescriptor selector '\(selector)' is not supported; use one of \(supported)")
        }
        self.init(key: key, ascending: ascending, selectorName: selector, comparatorBox: nil)
    }

    /// Creates a sort descriptor that orders objects by the value at `key`, compared with a
    /// comparator block.
    ///
    /// The block receives the two key values (not the objects) and returns their order as if
    /// ascending; the descriptor reverses it when `ascending` is false.
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
    public convenience init(key: String?, ascending: Bool, comparator cmptr: @escaping Comparator) {
        self.init(key: key, ascending: ascending, selectorName: nil, comparatorBox: ComparatorBox(cmptr))
    }

    /// Creates a sort descriptor that orders objects by the value at a Swift key path, with
    /// `compare:`.
    ///
    /// ```swift
    /// NSSortDescriptor(keyPath: \Employee.department?.name, ascending: true).key   // "department.name"
    /// ```
    ///
    /// The key path's string form is its `key`, so fetch requests sort by it in the store: key
    /// paths of `@Managed` properties (through to-one relationships too) and of stored
    /// properties are named.
    ///
    /// **Differences from Apple:** a key path with no string form (a computed property of a
    /// plain Swift type) still sorts values in memory, read through the key path, with a nil
    /// `key`; a fetch request refuses it with an error naming it (Apple's initializer stops the
    /// process for it).
    public override convenience init<Root, Value>(keyPath: KeyPath<Root, Value>, ascending: Bool) {
        self.init(
            keyPath: keyPath, name: KeyPathNames.name(of: keyPath), ascending: ascending,
            selectorName: SortComparison.defaultSelector, comparatorBox: nil)
    }

    /// Creates a sort descriptor that orders objects by the value at a Swift key path, compared
    /// with a comparator block (see `init(key:ascending:comparator:)` and
    /// `init(keyPath:ascending:)`).
    public override convenience init<Root, Value>(
        keyPath: KeyPath<Root, Value>, ascending: Bool, comparator cmptr: @escaping Comparator
    ) {
        self.init(
            keyPath: keyPath, name: KeyPathNames.name(of: keyPath), ascending: ascending, selectorName: nil,
            comparatorBox: ComparatorBox(cmptr))
    }

    /// Reads a sort descriptor archived by `encode(with:)`: `NSKey`, `NSAscending` and
    /// `NSSelector`, each validated; an unsupported selector fails.
    public required convenience init?(coder: NSCoder) {
        guard let decoded = Self.decode(from: coder) else { return nil }
        self.init(key: decoded.key, ascending: decoded.ascending, selector: decoded.selector)
    }

    // MARK: Comparing

    /// The value this descriptor sorts `object` by.
    @inline(__always)
    package func sortValue(of object: Any?) -> Any? {
        if let keyPathReader { return object.flatMap(keyPathReader) }
        return SortComparison.value(of: object, key: keyString)
    }

    /// Compares two values already read with `sortValue(of:)`, in ascending order (ignores
    /// `ascending`). Nil values sort first; the comparator block never sees nil.
    func compareAscending(_ a: Any?, _ b: Any?) -> ComparisonResult {
        if let box = comparatorBox {
            if let nilOrder = SortComparison.compareNils(a, b) { return nilOrder }
            guard let left = ValueSemantics.unwrapOptional(a),
                let right = ValueSemantics.unwrapOptional(b)
            else { return .orderedSame }
            return box.comparator(left, right)
        }
        return SortComparison.compare(a, b, selector: selectorName ?? SortComparison.defaultSelector)
    }

    /// Compares two values already read with `sortValue(of:)`, honouring `ascending`.
    @inline(__always)
    package func compareValues(_ a: Any?, _ b: Any?) -> ComparisonResult {
        compareValues(a, b, ascending: ascending)
    }

    /// `compareValues(_:_:)` in the direction `ascending` (the descriptor's, read by the caller).
    @inline(__always)
    func compareValues(_ a: Any?, _ b: Any?, ascending: Bool) -> ComparisonResult {
        let result = compareAscending(a, b)
        return ascending ? result : SortComparison.reversed(result)
    }

    /// The order of two objects by this descriptor's key, honouring `ascending`.
    open override func compare(_ object1: Any, to object2: Any) -> ComparisonResult {
        compareValues(sortValue(of: object1), sortValue(of: object2))
    }

    /// The comparison of two key values: the descriptor's block, or its selector's comparison.
    open override var comparator: Comparator {
        get {
            if let box = comparatorBox { return box.comparator }
            let selector = selectorName ?? SortComparison.defaultSelector
            return { a, b in SortComparison.compare(a, b, selector: selector) }
        }
        set {}
    }

    /// The same descriptor with the opposite direction.
    open override var reversedSortDescriptor: Any {
        remakeWithKeyPath?(!ascending)
            ?? NSSortDescriptor(
                key: keyString, ascending: !ascending, selectorName: selectorName, comparatorBox: comparatorBox)
    }

    // MARK: NSObject

    /// Equal when key, direction, selector and comparator block are the same.
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSSortDescriptor else { return false }
        if other === self { return true }
        return keyString == other.keyString
            && keyPath == other.keyPath
            && ascending == other.ascending
            && selectorName == other.selectorName
            && comparatorBox === other.comparatorBox
    }

    /// A hash consistent with `isEqual(_:)`.
    open override var hash: Int {
        var hasher = Hasher()
        hasher.combine(keyString)
        hasher.combine(ascending)
        hasher.combine(selectorName)
        return hasher.finalize()
    }

    /// Sort descriptors are immutable; the copy is the same object.
    open override func copy(with zone: NSZone? = nil) -> Any { self }

    /// Apple's format: `(name, ascending, compare:)`.
    open override var description: String {
        let selector = selectorName ?? "(null)"
        return "(\(keyString ?? "(null)"), \(ascending ? "ascending" : "descending"), \(selector))"
    }
}
