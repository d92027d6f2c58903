import Foundation

/// A logical condition on an object: what a fetch request's `predicate` and
/// `filtered(using:)` test.
///
/// `NSPredicate(format:)` parses Apple's format-string grammar and returns an
/// `NSComparisonPredicate` or an `NSCompoundPredicate`, as Apple's does:
///
/// ```swift
/// let p = NSPredicate(format: "lastName LIKE[c] %@ AND salary > %d", "Worsley", 50_000)
/// p.evaluate(with: ["lastName": "worsley", "salary": 60_000])   // true
/// p.predicateFormat   // lastName LIKE[c] "Worsley" AND salary > 50000
/// ```
///
/// `NSPredicate(value:)` is `TRUEPREDICATE` or `FALSEPREDICATE`; `NSPredicate(block:)` runs a
/// closure (in memory only: Apple's SQL store refuses block predicates, and so does ours).
///
/// **Differences from Apple:** this is OpenPredicate's own class, a subclass of
/// swift-corelibs-foundation's `NSPredicate` (which cannot parse format strings), so it can be
/// passed wherever corelibs takes one (`NSArray.filtered(using:)`). `import CoreData` makes this
/// class what the name `NSPredicate` means, also in files that import `Foundation`; a file that
/// imports only `Foundation` sees corelibs' class. A convenience initializer in your own
/// `extension NSPredicate` that calls `self.init(format:)` gets an `NSPredicate` holding the
/// parsed condition (Apple's returns its subclass); it behaves the same in every other way.
/// See [NSPredicate](https://developer.apple.com/documentation/foundation/nspredicate).
open class NSPredicate: Foundation.NSPredicate, NSSecureCoding {
    /// The condition as a tree.
    final let node: PredicateNode
    /// `node` compiled into one closure, once.
    final let compiled: CompiledPredicate

    /// The designated initializer: a predicate for a tree.
    init(node: PredicateNode) {
        self.node = node
        self.compiled = PredicateCompiler.compileTree(node)
        super.init(value: false)
    }

    /// `TRUEPREDICATE` (`value` true) or `FALSEPREDICATE`.
    public override convenience init(value: Bool) {
        self.init(node: .constant(value))
    }

    /// A predicate that calls `block` with the object and the substitution variables.
    ///
    /// Block predicates evaluate in memory (arrays, the in-memory store, pending changes);
    /// `NSSQLiteStoreType` refuses them, as Apple's does.
    public override convenience init(block: @escaping (Any?, [String: Any]?) -> Bool) {
        self.init(node: .opaque(OpaquePredicate(Foundation.NSPredicate(block: block))))
    }

    /// Parses a predicate format string, taking `%@`, `%K`, `%d`, `%f`… from `args` in order.
    ///
    /// `NSPredicate(format:)` itself returns the matching subclass (see
    /// `init(format:_:)` on `NSPredicate`); this initializer is the one a convenience initializer
    /// in an `extension NSPredicate` reaches with `self.init(format:)`. Stops the process with
    /// Apple's message when the string does not parse; `init(validatingFormat:_:)` throws
    /// instead.
    @_disfavoredOverload
    public convenience init(format predicateFormat: String, _ args: Any?...) {
        self.init(node: PredicateTree.nodeOrTrap(predicateFormat, arguments: args))
    }

    /// The throwing twin of `init(format:_:)` for convenience initializers in an
    /// `extension NSPredicate`.
    @_disfavoredOverload
    public convenience init(validatingFormat predicateFormat: String, _ args: Any?...) throws {
        self.init(node: try PredicateTree.nodeOrThrow(predicateFormat, arguments: args))
    }

    /// Reads a predicate archived by `encode(with:)`: a comparison, a compound or a constant,
    /// validating every key: an unknown operator, modifier or option, a missing key, or an
    /// object of the wrong class makes the initializer fail and the coder report an error (see
    /// `NSExpression.init(coder:)`).
    public required init?(coder: NSCoder) {
        guard let node = PredicateUnarchiver.predicate(from: coder) else { return nil }
        self.node = node
        self.compiled = PredicateCompiler.compileTree(node)
        super.init(value: false)
    }

    /// True: predicates archive with `NSKeyedArchiver` and are read back by a secure
    /// `NSKeyedUnarchiver`.
    public class var supportsSecureCoding: Bool { true }

    /// Archives the predicate as Apple does. A comparison: `NSLeftExpression` and
    /// `NSRightExpression` (expression objects) and `NSPredicateOperator`, an operator object
    /// holding `NSOperatorType`, `NSModifier`, the options (`NSOptions` or `NSFlags`) and, for a
    /// custom selector, `NSSelectorName`; a compound: `NSCompoundPredicateType` and
    /// `NSSubpredicates`; a constant: `NSPredicateValue`. `$VARIABLES` are archived as variables
    /// and can be substituted after decoding.
    ///
    /// ```swift
    /// let data = try NSKeyedArchiver.archivedData(
    ///     withRootObject: NSPredicate(format: "name BEGINSWITH[c] $prefix"), requiringSecureCoding: true)
    /// ```
    ///
    /// What cannot be archived (a block predicate, see also `NSExpression.encode(with:)`) sets
    /// the archiver's `error`, so `archivedData(withRootObject:requiringSecureCoding:)` throws.
    ///
    /// **Differences from Apple:** the archive names the classes `OpenPredicate.NSComparisonPredicate`,
    /// `OpenPredicate.NSExpression`, `OpenPredicate.PredicateOperator`, … (Apple's has no
    /// module), so archives are not interchangeable with Apple's. Apple archives
    /// `TRUEPREDICATE` as a class of its own without keys.
    open func encode(with coder: NSCoder) {
        PredicateArchiver.encode(node, to: coder)
    }

    // MARK: - Foundation.NSPredicate

    /// The predicate in format-string syntax, as Apple prints it (`name == "x"`,
    /// `TRUEPREDICATE`, `BLOCKPREDICATE(0x…)` for a block).
    open override var predicateFormat: String { PredicatePrinter.format(node) }

    /// Same as `predicateFormat`.
    open override var description: String { predicateFormat }

    /// Whether `object` matches, with `$VARIABLES` taken from `bindings`.
    ///
    /// `MATCHES` with a pattern that is not a regular expression stops the process with
    /// Apple's exception (`NSInvalidArgumentException`, `Can't do regex matching, reason: Can't
    /// open pattern …`), as Apple's raises; `evaluate(validating:substitutionVariables:)`
    /// throws it instead.
    ///
    /// **Differences from Apple:** where Apple raises for other reasons (values that cannot be
    /// compared, an unbound variable), the answer is false; `evaluate(validating:)` throws.
    open override func evaluate(with object: Any?, substitutionVariables bindings: [String: Any]?) -> Bool {
        var context = EvaluationContext(variables: bindings ?? [:])
        let result = compiled(EvaluationSubject(object), &context)
        if let error = context.error, error.raises { AppleException.invalidArgument(error.message) }
        return result
    }

    /// Whether `object` matches; see `evaluate(with:substitutionVariables:)` for what stops the
    /// process.
    open override func evaluate(with object: Any?) -> Bool {
        var context = EvaluationContext()
        let result = compiled(EvaluationSubject(object), &context)
        if let error = context.error, error.raises { AppleException.invalidArgument(error.message) }
        return result
    }

    /// Equal when both predicates have the same structure: operators, modifiers, options and
    /// expressions (a block predicate only to itself).
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? Foundation.NSPredicate else { return false }
        return other === self || PredicateTree.node(other).isEqualOnAnyStack(to: node)
    }

    /// A hash consistent with `isEqual(_:)`.
    open override var hash: Int { node.hashValueOnAnyStack }

    /// Predicates are immutable; the copy is the same object.
    open override func copy(with zone: NSZone? = nil) -> Any { self }
}
