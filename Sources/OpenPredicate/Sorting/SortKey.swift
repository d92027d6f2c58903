import Foundation

/// A value read for a sort descriptor (`NSSortDescriptor.sortKey(of:)`), kept with what
/// `compare:` needs of it already worked out: a string, a number or a date is compared without
/// casting the value again, as comparing two `Any?` values must on every comparison. For code
/// that compares one object's values many times (the results controller placing changed
/// objects): read each object's keys once, then compare keys.
package struct SortKey {
    private enum Fast {
        case string(String)
        case number(ValueSemantics.Number)
        case date(Date)
    }

    /// The value as `sortValue(of:)` read it.
    package let value: Any?
    /// The value as a string, number or date; nil for anything else (nil included), which
    /// compares through the general rules.
    private let fast: Fast?

    package init(_ value: Any?) {
        self.value = value
        // What managed objects hold, read from the container's type word without a cast.
        if let string = ValueSemantics.exactly(value, String.self) {
            fast = .string(string)
            return
        }
        if let number = ValueSemantics.exactNumber(value) {
            fast = .number(number)
            return
        }
        if let date = ValueSemantics.exactly(value, Date.self) {
            fast = .date(date)
            return
        }
        guard let unwrapped = ValueSemantics.unwrapOptional(value) else {
            fast = nil
            return
        }
        // The kinds `ValueSemantics.compare` tries first, in its order.
        if let string = unwrapped as? String {
            fast = .string(string)
        } else if let number = ValueSemantics.number(unwrapped) {
            fast = .number(number)
        } else if let date = unwrapped as? Date {
            fast = .date(date)
        } else {
            fast = nil
        }
    }

    /// `compare:` in ascending order when both keys are of one fast kind, as
    /// `ValueSemantics.compare` orders them; nil otherwise.
    @inline(__always)
    fileprivate static func compareFast(_ a: SortKey, _ b: SortKey) -> ComparisonResult? {
        switch (a.fast, b.fast) {
        case (.string(let left), .string(let right)): ValueSemantics.compareStrings(left, right)
        case (.number(let left), .number(let right)): ValueSemantics.compare(left, right)
        case (.date(let left), .date(let right)):
            left < right ? .orderedAscending : (left > right ? .orderedDescending : .orderedSame)
        default: nil
        }
    }

    /// `compareFast(self, SortKey(value))` without making the second key: nil where `value` is
    /// not exactly of this key's fast kind (the general rules then give the same answer).
    @inline(__always)
    fileprivate func compareFast(toValue value: Any?) -> ComparisonResult? {
        switch fast {
        case .string(let left):
            ValueSemantics.exactly(value, String.self).map { ValueSemantics.compareStrings(left, $0) }
        case .number(let left): ValueSemantics.exactNumber(value).map { ValueSemantics.compare(left, $0) }
        case .date(let left):
            ValueSemantics.exactly(value, Date.self).map {
                left < $0 ? .orderedAscending : (left > $0 ? .orderedDescending : .orderedSame)
            }
        case nil: nil
        }
    }
}

extension NSSortDescriptor {
    /// The descriptor's key when it is one key (no key path, no Swift key path reader), which
    /// an object's `value(forKey:)` reads as `sortKey(of:)` would; nil otherwise.
    package var plainKey: String? {
        guard keyPathReader == nil, let keyString, keyString.isSingleKey else { return nil }
        return keyString
    }

    /// The key this descriptor sorts `object` by (see `SortKey`).
    package func sortKey(of object: Any?) -> SortKey {
        SortKey(sortValue(of: object))
    }

    /// `compareValues(_:_:)` for two keys: the same result, without casts for strings, numbers
    /// and dates compared with `compare:`.
    @inline(__always)
    package func compareKeys(_ a: SortKey, _ b: SortKey) -> ComparisonResult {
        compareKeys(a, b, ascending: ascending)
    }

    /// `compareKeys(_:_:)` with the descriptor's `ascending`, read once by a caller that
    /// compares many keys (Foundation's getter costs more than the comparison).
    @inline(__always)
    package func compareKeys(_ a: SortKey, _ b: SortKey, ascending: Bool) -> ComparisonResult {
        if comparatorBox == nil, selectorName == nil || selectorName == SortComparison.defaultSelector,
            let result = SortKey.compareFast(a, b)
        {
            return ascending ? result : SortComparison.reversed(result)
        }
        return compareValues(a.value, b.value, ascending: ascending)
    }

    /// `compareKeys(a, sortKey-of-value, ascending:)` for a value read by the caller, without
    /// making its key: for a key compared once against many values (a binary search).
    @inline(__always)
    package func compareKey(_ a: SortKey, toValue value: Any?, ascending: Bool) -> ComparisonResult {
        if comparatorBox == nil, selectorName == nil || selectorName == SortComparison.defaultSelector,
            let result = a.compareFast(toValue: value)
        {
            return ascending ? result : SortComparison.reversed(result)
        }
        return compareValues(a.value, value, ascending: ascending)
    }
}
