import Foundation

extension NSComparisonPredicate: NSSecureCoding {
    /// True: comparison predicates can be archived with `NSKeyedArchiver` and read back by a
    /// secure `NSKeyedUnarchiver`.
    public static var supportsSecureCoding: Bool { true }

    /// Archives the comparison as Apple does: `NSLeftExpression` and `NSRightExpression`
    /// (expression objects) and `NSPredicateOperator`, an operator object holding
    /// `NSOperatorType`, `NSModifier`, the options (`NSOptions` or `NSFlags`) and, for a custom
    /// selector, `NSSelectorName`. `$VARIABLES` are archived as variables and can be substituted
    /// after decoding.
    ///
    /// ```swift
    /// let data = try NSKeyedArchiver.archivedData(
    ///     withRootObject: NSPredicate(format: "name BEGINSWITH[c] $prefix"), requiringSecureCoding: true)
    /// ```
    ///
    /// An expression that cannot be archived (see `NSExpression.encode(with:)`) sets the
    /// archiver's `error`, so `archivedData(withRootObject:requiringSecureCoding:)` throws.
    ///
    /// **Differences from Apple:** the archive names the classes `OpenPredicate.NSComparisonPredicate`,
    /// `OpenPredicate.NSExpression` and `OpenPredicate.PredicateOperator`, so archives are not
    /// interchangeable with Apple's.
    public func encode(with coder: NSCoder) {
        PredicateArchiver.encode(.comparison(comparison), to: coder)
    }

    /// Reads a comparison archived by `encode(with:)`, validating every key: an unknown
    /// operator, modifier or option, a missing key, or an object of the wrong class makes the
    /// initializer fail and the coder report an error (see `NSExpression.init(coder:)`).
    ///
    /// ```swift
    /// let predicate = try NSKeyedUnarchiver.unarchivedObject(ofClasses: [NSPredicate.self], from: data)
    /// ```
    public convenience init?(coder: NSCoder) {
        guard let comparison = PredicateUnarchiver.comparison(from: coder) else { return nil }
        self.init(comparison: comparison)
    }
}
