/// A `KeyValueCodable` class that can hand a compiled `key op constant` test an integer or a
/// string without boxing it in an `Any`: OpenCoreData's `NSManagedObject` conforms, for the
/// attributes of a fetched row.
///
/// Boxing a value as `Any?` and destroying the box through its type's value witnesses cost
/// `evaluate(with:)` on a managed object about a fifth of its instructions (`FetchBenchmarks`).
/// A type that conforms is remembered with its conformance (`KeyValueConformances`), and
/// `PredicateCompiler` has such an object test its key with `scalarTest(forKey:_:)`.
package protocol ScalarKeyValueCodable: AnyObject, KeyValueCodable {
    /// Whether objects of this class test their keys with `scalarTest(forKey:_:)`; false when the
    /// class changes how `value(forKey:)` reads (asked once per class).
    static var testsScalarValues: Bool { get }

    /// Applies `tests` to the value of the property named `key`, with the effects
    /// `value(forKey:)` has (once): `tests.integer` to a value that `value(forKey:)` would
    /// return as an integer of any width, `tests.string` to a `String`, `tests.other` to
    /// anything else as `value(forKey:)` returns it.
    func scalarTest(forKey key: String, _ tests: ScalarTests) -> Bool
}

/// One comparison's test of a value, by the form the value is read in: the same answers as
/// `other` gives the value as `value(forKey:)` returns it.
package struct ScalarTests {
    /// The test of an integer (compared as `Int64`, whatever its width).
    package let integer: (Int64) -> Bool
    /// The test of a `String`.
    package let string: (String) -> Bool
    /// The test of any value.
    package let other: (Any?) -> Bool

    /// The tests of a comparison, by the form of the value.
    package init(
        integer: @escaping (Int64) -> Bool, string: @escaping (String) -> Bool, other: @escaping (Any?) -> Bool
    ) {
        (self.integer, self.string, self.other) = (integer, string, other)
    }
}
