import Foundation

extension Sequence {
    /// Returns the elements sorted by an array of sort descriptors.
    ///
    /// The first descriptor decides the order; each later one only orders elements the earlier
    /// ones consider the same. The sort is stable: elements all descriptors consider the same
    /// keep their order from the sequence. An empty `descriptors` array returns the elements in
    /// their original order.
    ///
    /// ```swift
    /// let rows: [[String: Any]] = [["name": "Bo", "age": 30], ["name": "Al", "age": 30]]
    /// rows.sorted(using: [NSSortDescriptor(key: "age", ascending: false),
    ///                     NSSortDescriptor(key: "name", ascending: true)])
    /// ```
    ///
    /// Works with any `NSSortDescriptor`, including corelibs' `init(keyPath:ascending:)` ones
    /// (whose key path root must match the element type).
    ///
    /// **Differences from Apple:** Apple has no such method on Swift sequences (you bridge to
    /// `NSArray` and call `sortedArray(using:)`, which is not guaranteed stable). It does not
    /// clash with Foundation's `sorted(using:)` for `SortComparator`s, which `NSSortDescriptor`
    /// is not.
    public func sorted(using descriptors: [Foundation.NSSortDescriptor]) -> [Element] {
        let elements = Array(self)
        guard !descriptors.isEmpty, elements.count > 1 else { return elements }
        // Read each key-based descriptor's values once per element, not once per comparison.
        let keyed = descriptors.map { $0 as? NSSortDescriptor }
        let values: [[Any?]] = keyed.map { descriptor in
            guard let descriptor else { return [] }
            return elements.map { descriptor.sortValue(of: $0) }
        }
        let order = elements.indices.sorted { i, j in
            for index in descriptors.indices {
                let result: ComparisonResult
                if let descriptor = keyed[index] {
                    result = descriptor.compareValues(values[index][i], values[index][j])
                } else {
                    result = descriptors[index].compare(elements[i], to: elements[j])
                }
                if result != .orderedSame { return result == .orderedAscending }
            }
            return i < j
        }
        return order.map { elements[$0] }
    }
}

extension Array {
    /// Sorts the array in place by an array of sort descriptors.
    ///
    /// Same order as `sorted(using:)`: the descriptors apply in array order, and the sort is
    /// stable.
    ///
    /// **Differences from Apple:** Apple has no such method on Swift arrays (you use
    /// `NSMutableArray.sort(using:)`, which is not guaranteed stable).
    public mutating func sort(using descriptors: [Foundation.NSSortDescriptor]) {
        self = sorted(using: descriptors)
    }
}
