import Foundation

extension NSSortDescriptor {
    /// Creates a sort descriptor that sorts as `sortDescriptor`, Foundation's `SortDescriptor`,
    /// does: by the same key path (named as `init(keyPath:ascending:)` names it), in the same
    /// order, with the selector of its string comparison (`compare:` for
    /// `String.StandardComparator.lexical` and for values that are not strings).
    ///
    /// ```swift
    /// let request = NSFetchRequest<Employee>(entityName: "Employee")
    /// request.sortDescriptors = [NSSortDescriptor(SortDescriptor(\Employee.lastName, order: .reverse))]
    /// ```
    ///
    /// A string comparison with options that no selector has sorts with a comparator block
    /// running that comparison (in memory; a store refuses a comparator, as it does every block).
    ///
    /// **Differences from Apple:** a key path with no string form (a computed property, or a
    /// plain `var` of a class that is not `final`) gives a descriptor with a nil `key` that sorts
    /// in memory through the key path, as `init(keyPath:ascending:)` does here.
    public convenience init<Compared: NSObject>(_ sortDescriptor: SortDescriptor<Compared>) {
        self.init(converting: sortDescriptor, naming: KeyPathNames.name(of:))
    }

    /// `init(_:)` for a descriptor of any type, its key path named by `naming` (nil: no name, a
    /// descriptor that sorts through the key path): SwiftData's models, which are not `NSObject`s.
    package convenience init<Compared>(
        converting sortDescriptor: SortDescriptor<Compared>, naming: (AnyKeyPath) -> String?
    ) {
        let ascending = sortDescriptor.order == .forward
        guard let partial = sortDescriptor.keyPath, let keyPath = partial as? any SortDescriptorKeyPath else {
            // A descriptor of the objects themselves (no key path): they sort with `compare:`.
            self.init(key: nil, ascending: ascending)
            return
        }
        var selector: String? = SortComparison.defaultSelector
        var comparator: Comparator?
        var strings = sortDescriptor.stringComparator
        strings?.order = .forward
        if let strings, strings != .lexical {
            // The other string comparisons (Apple's `.localized` and `.localizedStandard`, not
            // in this Foundation, or one decoded) run as they are. A descriptor's comparator
            // sorts ascending; the descriptor reverses it.
            selector = nil
            comparator = { left, right in
                guard let left = left as? String, let right = right as? String else {
                    return SortComparison.compare(left, right, selector: SortComparison.defaultSelector)
                }
                return strings.compare(left, right)
            }
        }
        self.init(
            opening: keyPath, name: naming(partial), ascending: ascending, selectorName: selector, comparator: comparator)
    }

    /// A descriptor by `keyPath`, its value type known again.
    private convenience init<Path: SortDescriptorKeyPath>(
        opening keyPath: Path, name: String?, ascending: Bool, selectorName: String?, comparator: Comparator?
    ) {
        self.init(
            keyPath: keyPath.typed, name: name, ascending: ascending,
            selectorName: selectorName, comparatorBox: comparator.map(ComparatorBox.init))
    }
}

/// A `KeyPath` whose value type is known again, from a `PartialKeyPath` (what
/// `SortDescriptor.keyPath` gives).
protocol SortDescriptorKeyPath {
    associatedtype Root
    associatedtype Value
    /// The key path itself, typed.
    var typed: KeyPath<Root, Value> { get }
}

extension KeyPath: SortDescriptorKeyPath {
    var typed: KeyPath<Root, Value> { self }
}
