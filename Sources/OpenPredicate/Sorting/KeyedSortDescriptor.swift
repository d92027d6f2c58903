import Foundation

/// The sort descriptor behind `NSSortDescriptor(key:ascending:)` and friends: a string key path
/// read with key-value coding, a direction, and either a comparison selector or a comparator
/// block.
///
/// `NSSortDescriptor` itself is swift-corelibs-foundation's class (see `Exports.swift`), whose
/// key-based initializers are unavailable; this subclass supplies the key-based behaviour, and
/// the public initializers in `NSSortDescriptor+Apple.swift` return it.
final class KeyedSortDescriptor: Foundation.NSSortDescriptor {
    /// Identity for a comparator block, so a descriptor, its copies and its reversal can be
    /// recognised as using the same block (closures cannot be compared).
    final class ComparatorBox {
        let comparator: Comparator
        init(_ comparator: @escaping Comparator) { self.comparator = comparator }
    }

    /// corelibs requires a Swift key path; this one is never read.
    private struct Placeholder { var value: Int = 0 }

    /// The key path (`"address.city"`), or nil to sort the objects themselves.
    let keyString: String?
    /// The comparison selector in Apple's spelling (`"compare:"`); nil for a comparator descriptor.
    let selectorName: String?
    /// The comparator block, for descriptors made with `init(key:ascending:comparator:)`.
    let comparatorBox: ComparatorBox?

    /// The designated initializer; `selector` must be supported (checked by the callers).
    private init(key: String?, ascending: Bool, selectorName: String?, comparatorBox: ComparatorBox?) {
        self.keyString = key
        self.selectorName = selectorName
        self.comparatorBox = comparatorBox
        super.init(keyPath: \Placeholder.value, ascending: ascending)
    }

    /// A selector-based descriptor. An unsupported selector raises
    /// `NSInvalidArgumentException` (through `AppleException.raise`).
    convenience init(key: String?, ascending: Bool, selector: String = SortComparison.defaultSelector) {
        guard SortComparison.isSupported(selector) else {
            let supported = SortComparison.supportedSelectors.sorted().joined(separator: ", ")
            AppleException.raise(
                "NSInvalidArgumentException",
                reason: "NSSortDescriptor selector '\(selector)' is not supported; use one of \(supported)")
        }
        self.init(key: key, ascending: ascending, selectorName: selector, comparatorBox: nil)
    }

    /// A comparator-based descriptor: `comparator` receives the two key values.
    convenience init(key: String?, ascending: Bool, comparator: @escaping Comparator) {
        self.init(key: key, ascending: ascending, selectorName: nil, comparatorBox: ComparatorBox(comparator))
    }

    // MARK: Comparing

    /// The value this descriptor sorts `object` by.
    @inline(__always)
    func sortValue(of object: Any?) -> Any? {
        SortComparison.value(of: object, key: keyString)
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
    func compareValues(_ a: Any?, _ b: Any?) -> ComparisonResult {
        let result = compareAscending(a, b)
        return ascending ? result : SortComparison.reversed(result)
    }

    override func compare(_ object1: Any, to object2: Any) -> ComparisonResult {
        compareValues(sortValue(of: object1), sortValue(of: object2))
    }

    /// Apple's `comparator` for a selector-based descriptor compares two values with the selector.
    override var comparator: Comparator {
        get {
            if let box = comparatorBox { return box.comparator }
            let selector = selectorName ?? SortComparison.defaultSelector
            return { a, b in SortComparison.compare(a, b, selector: selector) }
        }
        set {}
    }

    override var reversedSortDescriptor: Any {
        KeyedSortDescriptor(
            key: keyString, ascending: !ascending,
            selectorName: selectorName, comparatorBox: comparatorBox)
    }

    // MARK: NSObject

    override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? KeyedSortDescriptor else { return false }
        if other === self { return true }
        return keyString == other.keyString
            && ascending == other.ascending
            && selectorName == other.selectorName
            && comparatorBox === other.comparatorBox
    }

    override var hash: Int {
        var hasher = Hasher()
        hasher.combine(keyString)
        hasher.combine(ascending)
        hasher.combine(selectorName)
        return hasher.finalize()
    }

    override func copy(with zone: NSZone? = nil) -> Any {
        KeyedSortDescriptor(
            key: keyString, ascending: ascending,
            selectorName: selectorName, comparatorBox: comparatorBox)
    }

    /// Apple's format: `(name, ascending, compare:)`.
    override var description: String {
        let selector = selectorName ?? "(null)"
        return "(\(keyString ?? "(null)"), \(ascending ? "ascending" : "descending"), \(selector))"
    }
}
