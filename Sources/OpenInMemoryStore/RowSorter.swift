import OpenPredicate
import OpenStoreCore

/// Orders rows by sort descriptors, in array order, stably (rows all descriptors consider the
/// same keep their insertion order).
///
/// The rules are OpenPredicate's `sorted(using:)`: `compare:` orders numbers by value across
/// types, strings literally, dates chronologically, UUIDs by their string, URLs by their
/// absolute string, data bytewise; nil sorts first when ascending and last when descending;
/// the string selectors (`localizedStandardCompare:`, …) are Apple's.
///
/// Two paths, with the same answers (tested against each other):
/// - **native**, when every descriptor uses `compare:` on a key path of to-one steps ending in an
///   attribute: each row's sort values are read once as `StoreValue`s and compared without
///   going through `Any`;
/// - otherwise OpenPredicate's `sorted(using:)` over the row views.
struct RowSorter {
    let graph: RowGraph
    /// The fetched entity, against which key paths are resolved.
    let entityID: Int
    let usesNativeSort: Bool

    func sorted(_ views: [RowView], by descriptors: [NSSortDescriptor]) -> [RowView] {
        guard !descriptors.isEmpty, views.count > 1 else { return views }
        if usesNativeSort {
            let keys = descriptors.compactMap { NativeSortKey($0, entityID: entityID, layouts: graph.layouts) }
            if keys.count == descriptors.count {
                return nativelySorted(views, by: keys)
            }
        }
        return views.sorted(using: descriptors)
    }

    private func nativelySorted(_ views: [RowView], by keys: [NativeSortKey]) -> [RowView] {
        let columns = keys.map { SortColumn(key: $0, views: views, graph: graph) }
        if columns.count == 1 {
            let column = columns[0]
            let order = views.indices.sorted { i, j in
                switch column.compare(i, j) {
                case .orderedAscending: return true
                case .orderedDescending: return false
                case .orderedSame: return i < j
                }
            }
            return order.map { views[$0] }
        }
        let order = views.indices.sorted { i, j in
            for column in columns {
                switch column.compare(i, j) {
                case .orderedAscending: return true
                case .orderedDescending: return false
                case .orderedSame: continue
                }
            }
            return i < j
        }
        return order.map { views[$0] }
    }
}

/// One sort key's values for the rows being sorted, read once.
///
/// `Decimal` comparison allocates, so decimal values also keep a `Double` approximation: two
/// values whose approximations differ by more than a billionth of their size are ordered by
/// them (far more than the conversion's error of a few units in the last place), closer ones by
/// the exact comparison.
private struct SortColumn {
    let values: [StoreValue]
    let approximations: [Double]?
    let ascending: Bool

    init(key: NativeSortKey, views: [RowView], graph: RowGraph) {
        values = views.map { key.value(of: $0, in: graph) }
        ascending = key.ascending
        if key.isDecimal {
            approximations = values.map { value in
                guard case .decimal(let decimal) = value else { return 0 }
                return decimal.nearestDouble
            }
        } else {
            approximations = nil
        }
    }

    /// The order of rows `i` and `j`, descending already applied.
    @inline(__always)
    func compare(_ i: Int, _ j: Int) -> ComparisonResult {
        let result = ascendingOrder(i, j)
        if ascending { return result }
        switch result {
        case .orderedAscending: return .orderedDescending
        case .orderedDescending: return .orderedAscending
        case .orderedSame: return .orderedSame
        }
    }

    @inline(__always)
    private func ascendingOrder(_ i: Int, _ j: Int) -> ComparisonResult {
        if let approximations, case .decimal = values[i], case .decimal = values[j] {
            let x = approximations[i]
            let y = approximations[j]
            if abs(x - y) > 1e-9 * max(abs(x), abs(y)) { return x < y ? .orderedAscending : .orderedDescending }
        }
        return StoreValueOrder.compare(values[i], values[j])
    }
}

/// A sort descriptor the native path can run: `compare:` on `toOne.….attribute`.
struct NativeSortKey {
    let ascending: Bool
    let path: SlotPath

    init?(_ descriptor: NSSortDescriptor, entityID: Int, layouts: [EntityLayout]) {
        guard descriptor.selector == "compare:", let key = descriptor.key,
            let path = SlotPath(key, entityID: entityID, layouts: layouts, allowsToOneEnd: false),
            path.end != .attribute(.objectID), path.end != .attribute(.undefined)
        else { return nil }
        ascending = descriptor.ascending
        self.path = path
    }

    /// Whether the values are decimals.
    var isDecimal: Bool { path.end == .attribute(.decimal) }

    func value(of view: RowView, in graph: RowGraph) -> StoreValue {
        path.value(of: view, in: graph)
    }
}

/// `compare:` on stored values, as `ValueSemantics.compare` and `SortComparison` order the Swift
/// values the row views give for them.
enum StoreValueOrder {
    static func compare(_ a: StoreValue, _ b: StoreValue) -> ComparisonResult {
        switch (a, b) {
        case (.null, .null): return .orderedSame
        case (.null, _): return .orderedAscending
        case (_, .null): return .orderedDescending
        case (.integer(let x), .integer(let y)): return order(x, y)
        case (.string(let x), .string(let y)): return order(x, y)
        case (.double(let x), .double(let y)): return order(x, y)
        case (.decimal(let x), .decimal(let y)): return x < y ? .orderedAscending : (y < x ? .orderedDescending : .orderedSame)
        case (.date(let x), .date(let y)): return order(x, y)
        case (.bool(let x), .bool(let y)): return order(x ? 1 : 0, y ? 1 : 0)
        case (.uuid(let x), .uuid(let y)): return order(x.uuidString, y.uuidString)
        case (.url(let x), .url(let y)): return order(x.absoluteString, y.absoluteString)
        case (.data(let x), .data(let y)):
            if x.lexicographicallyPrecedes(y) { return .orderedAscending }
            return y.lexicographicallyPrecedes(x) ? .orderedDescending : .orderedSame
        default:
            if let x = number(a), let y = number(b) { return ValueSemantics.compare(x, y) }
            // Values of kinds with no common order (never both in one attribute): by kind.
            return order(rank(a), rank(b))
        }
    }

    @inline(__always)
    private static func order<T: Comparable>(_ x: T, _ y: T) -> ComparisonResult {
        x < y ? .orderedAscending : (x > y ? .orderedDescending : .orderedSame)
    }

    private static func rank(_ value: StoreValue) -> Int {
        switch value {
        case .null: 0
        case .bool, .integer, .double, .decimal: 1
        case .string: 2
        case .date: 3
        case .data: 4
        case .uuid: 5
        case .url: 6
        case .object: 7
        case .objects: 8
        }
    }

    /// The number in a stored value (`.bool` counts as 0 or 1), compared as predicates compare
    /// numbers.
    private static func number(_ value: StoreValue) -> ValueSemantics.Number? {
        switch value {
        case .integer(let value): .int(value)
        case .bool(let value): .int(value ? 1 : 0)
        case .double(let value): .double(value)
        case .decimal(let value): .decimal(value)
        default: nil
        }
    }
}
