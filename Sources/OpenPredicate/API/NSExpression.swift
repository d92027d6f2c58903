import Foundation

/// An expression in a predicate: a constant, a key path, a variable, a function, a subquery….
///
/// ```swift
/// let salary = NSExpression(forKeyPath: "salary")
/// let total = NSExpression(forFunction: "sum:", arguments: [salary])
/// let parsed = NSExpression(format: "salary * 1.1")
/// ```
///
/// Expressions are immutable; each compiles once into a closure the first time it is evaluated.
///
/// **Differences from Apple:** on Linux, swift-corelibs-foundation declares an `NSExpression`
/// that cannot be used. In a file that imports Foundation as well as CoreData, Swift therefore
/// cannot resolve the *type* name `NSExpression` (`let e: NSExpression`), though every initializer
/// call resolves to this class. Import only CoreData (it re-exports Foundation, as Apple's does).
/// Accessors that do not apply to the expression's type return an empty value instead of raising.
/// The class is open, as Apple's is, for Core Data's `NSFetchRequestExpression`.
open class NSExpression: NSObject, NSCopying, @unchecked Sendable {
    // @unchecked Sendable: its tree is immutable; the compiled form is made once under
    // `compileLock`.

    let node: ExpressionNode

    /// Compiled on first use (most expressions are parts of predicates, which compile whole).
    private var compiledStorage: CompiledExpression?
    private let compileLock = NSLock()

    var compiled: CompiledExpression {
        compileLock.lock()
        defer { compileLock.unlock() }
        if let compiledStorage { return compiledStorage }
        let closure = ExpressionCompiler.compileTree(node)
        compiledStorage = closure
        return closure
    }

    init(node: ExpressionNode) {
        self.node = node
        super.init()
    }

    /// For subclasses in the package's other modules (Core Data's `NSFetchRequestExpression`):
    /// inside a predicate or another expression the subclass stands as the call
    /// `name(arguments…)`, which prints that way and evaluates to an "unsupported function" error.
    package init(subclassFunction name: String, arguments: [NSExpression]) {
        self.node = .function(name: name, arguments: arguments.map(\.node))
        super.init()
    }

    /// The kinds of expression, with Apple's raw values.
    public enum ExpressionType: UInt, Sendable {
        /// A constant value.
        case constantValue = 0
        /// `SELF`: the object being evaluated.
        case evaluatedObject = 1
        /// A `$VARIABLE`.
        case variable = 2
        /// A key path.
        case keyPath = 3
        /// A function call.
        case function = 4
        /// `a UNION b`.
        case unionSet = 5
        /// `a INTERSECT b`.
        case intersectSet = 6
        /// `a MINUS b`.
        case minusSet = 7
        /// `SUBQUERY(…)`.
        case subquery = 13
        /// `{a, b, …}`.
        case aggregate = 14
        /// `ANYKEY`.
        case anyKey = 15
        /// A block.
        case block = 19
        /// `TERNARY(…)`.
        case conditional = 20
        /// Core Data's fetch request expression (`NSFetchRequestExpression`).
        ///
        /// **Differences from Apple:** Apple's enum has no case for 50; Core Data declares the
        /// constant `NSFetchRequestExpressionType` (OpenCoreData declares it too, equal to this).
        case fetchRequest = 50
    }

    /// The kind of expression. Arithmetic, indexes and `CAST` are `.function` (as on Apple);
    /// a key path applied to another expression (`$x.name`) is `.keyPath` with that `operand`.
    open var expressionType: ExpressionType { nodeExpressionType }

    // MARK: - Creating expressions

    /// An expression that always returns `obj`.
    public convenience init(forConstantValue obj: Any?) {
        self.init(node: .constant(ConstantValue(obj)))
    }

    /// The expression that returns the object being evaluated (`SELF`); always the same instance.
    public class func expressionForEvaluatedObject() -> NSExpression {
        evaluatedObjectExpression
    }

    private static let evaluatedObjectExpression = NSExpression(node: .evaluatedObject)

    /// An expression that reads `$string` from the substitution variables.
    public convenience init(forVariable string: String) {
        self.init(node: .variable(string))
    }

    /// An expression that reads `keyPath` (dotted, with collection operators such as `@count`).
    public convenience init(forKeyPath keyPath: String) {
        self.init(node: .keyPath(KeyPathComponents(keyPath)))
    }

    /// An expression that reads a Swift key path, by its string form.
    ///
    /// ```swift
    /// NSExpression(forKeyPath: \Employee.manager?.name).keyPath   // "manager.name"
    /// ```
    ///
    /// Key paths of `@Managed` properties of managed objects (through to-one relationships too,
    /// optional or not) and of stored properties are named. Stops the process, as Apple's does,
    /// for a key path that has no string form (a computed property or a subscript);
    /// `init(validatingKeyPath:)` throws instead.
    ///
    /// **Differences from Apple:** Apple takes the name from the Objective-C property; here a
    /// managed object's key path is named by reading it once on a stand-in object of its class
    /// (each `@Managed` property reports its key), and another type's from the key path's
    /// description, so its property names must match the keys the type answers in
    /// `KeyValueCodable`.
    public convenience init<Root, Value>(forKeyPath keyPath: KeyPath<Root, Value>) {
        guard let path = KeyPathNames.name(of: keyPath) else {
            AppleException.invalidArgument("Could not extract a String from KeyPath \(keyPath)")
        }
        self.init(forKeyPath: path)
    }

    /// The throwing twin of `init(forKeyPath:)` for Swift key paths: a key path with no string
    /// form (a computed property or a subscript) throws an `NSError` in `NSCocoaErrorDomain`.
    public convenience init<Root, Value>(validatingKeyPath keyPath: KeyPath<Root, Value>) throws {
        guard let path = KeyPathNames.name(of: keyPath) else {
            throw EvaluationError(message: "Could not extract a String from KeyPath \(keyPath)").nsError
        }
        self.init(forKeyPath: path)
    }

    /// A call of one of Apple's predefined functions (`sum:`, `add:to:`, `now`, …) on
    /// `parameters` (`NSExpression`s).
    ///
    /// Apple raises at once for an unknown function; so does this initializer (use
    /// `init(validatingFunction:arguments:)` for names that come from users).
    public convenience init(forFunction name: String, arguments parameters: [Any]) {
        do {
            try self.init(validatingFunction: name, arguments: parameters)
        } catch {
            AppleException.invalidArgument(error.localizedDescription)
        }
    }

    /// The throwing twin of `init(forFunction:arguments:)`: an unknown function or a wrong number
    /// of arguments throws an `NSError` in `NSCocoaErrorDomain`.
    public convenience init(validatingFunction name: String, arguments parameters: [Any]) throws {
        let expressions = parameters.map { ($0 as? NSExpression)?.node ?? .constant(ConstantValue($0)) }
        guard let arity = BuiltinFunctions.arity(of: name) else {
            throw EvaluationError(message: "\(name) is not a supported method").nsError
        }
        guard arity.contains(expressions.count) else {
            let expected = arity.lowerBound == arity.upperBound ? "\(arity.lowerBound)" : "\(arity.lowerBound) or more"
            throw EvaluationError(message: "\(name) takes \(expected) arguments, got \(expressions.count)").nsError
        }
        self.init(node: .function(name: name, arguments: expressions))
    }

    /// `FUNCTION(target, 'name', parameters…)`: `name` called on the value of `target`.
    ///
    /// **Differences from Apple:** without the Objective-C runtime, the selectors that work are
    /// common `NSString` ones (`substringFromIndex:`, `stringByAppendingString:`, …) and
    /// zero-argument selectors the receiver answers through `KeyValueCodable`; others give nil.
    public convenience init(forFunction target: NSExpression, selectorName name: String, arguments parameters: [Any]?) {
        let expressions = (parameters ?? []).map { ($0 as? NSExpression)?.node ?? .constant(ConstantValue($0)) }
        self.init(node: .customFunction(receiver: target.node, selector: name, arguments: expressions))
    }

    /// `{a, b, …}`: the values of `subexpressions` (`NSExpression`s or constants) as an array.
    public convenience init(forAggregate subexpressions: [Any]) {
        self.init(node: .aggregate(subexpressions.map { ($0 as? NSExpression)?.node ?? .constant(ConstantValue($0)) }))
    }

    /// `left UNION right`.
    public convenience init(forUnionSet left: NSExpression, with right: NSExpression) {
        self.init(node: .set(.union, left.node, right.node))
    }

    /// `left INTERSECT right`.
    public convenience init(forIntersectSet left: NSExpression, with right: NSExpression) {
        self.init(node: .set(.intersect, left.node, right.node))
    }

    /// `left MINUS right`.
    public convenience init(forMinusSet left: NSExpression, with right: NSExpression) {
        self.init(node: .set(.minus, left.node, right.node))
    }

    /// `SUBQUERY(expression, $variable, predicate)`: the elements of the collection for which
    /// `predicate` (an `NSPredicate`) holds with `$variable` bound to the element.
    public convenience init(forSubquery expression: NSExpression, usingIteratorVariable variable: String, predicate: Any) {
        let predicateNode = (predicate as? Foundation.NSPredicate).map(PredicateTree.node) ?? .constant(false)
        self.init(node: .subquery(collection: expression.node, variable: variable, predicate: predicateNode))
    }

    /// `TERNARY(predicate, trueExpression, falseExpression)`.
    public convenience init(forConditional predicate: Any, trueExpression: NSExpression, falseExpression: NSExpression) {
        let predicateNode = (predicate as? Foundation.NSPredicate).map(PredicateTree.node) ?? .constant(false)
        self.init(node: .conditional(predicateNode, trueExpression.node, falseExpression.node))
    }

    /// `ANYKEY`: any key of a Spotlight item. Evaluates to nil here.
    public class func expressionForAnyKey() -> NSExpression {
        NSExpression(node: .anyKey)
    }

    /// An expression whose value is `block(object, argumentValues, context)`.
    public convenience init(block: @escaping (Any?, [Any], NSMutableDictionary?) -> Any, arguments: [NSExpression]?) {
        self.init(node: .block(ExpressionBlock(block), arguments: (arguments ?? []).map(\.node)))
    }

    // MARK: - Format strings

    /// Parses an expression format string (`"salary * 1.1"`, `"sum:(items.price)"`), with
    /// `%@`/`%K`/`%d`… taken from `args` in order.
    ///
    /// Stops the process with Apple's message if the string does not parse, as Apple's raises;
    /// use `init(validatingFormat:_:)` for strings that come from users.
    public convenience init(format expressionFormat: String, _ args: Any?...) {
        self.init(parsing: expressionFormat, arguments: args)
    }

    /// Parses an expression format string with its arguments in an array.
    public convenience init(format expressionFormat: String, argumentArray arguments: [Any]) {
        self.init(parsing: expressionFormat, arguments: arguments)
    }

    private convenience init(parsing expressionFormat: String, arguments: [Any?]) {
        switch PredicateTree.parseExpression(expressionFormat, arguments: arguments) {
        case .success(let node): self.init(node: node)
        case .failure(let error): AppleException.invalidArgument(error.message)
        }
    }

    /// The throwing twin of `init(format:_:)`: a malformed string throws an `NSError`
    /// (`NSCocoaErrorDomain`, `NSFormattingError`) whose description starts with
    /// `Unable to parse the format string "…"` and names the line and column.
    public convenience init(validatingFormat expressionFormat: String, _ args: Any?...) throws {
        try self.init(validatingParsing: expressionFormat, arguments: args)
    }

    /// The throwing twin of `init(format:argumentArray:)`.
    public convenience init(validatingFormat expressionFormat: String, argumentArray arguments: [Any]) throws {
        try self.init(validatingParsing: expressionFormat, arguments: arguments)
    }

    private convenience init(validatingParsing expressionFormat: String, arguments: [Any?]) throws {
        switch PredicateTree.parseExpression(expressionFormat, arguments: arguments) {
        case .success(let node): self.init(node: node)
        case .failure(let error): throw error.nsError
        }
    }

    // MARK: - Evaluating

    /// The value of the expression for `object`; `context` holds variable bindings.
    ///
    /// Returns nil where Apple raises (an unbound variable, a function on the wrong type).
    open func expressionValue(with object: Any?, context: NSMutableDictionary?) -> Any? {
        var evaluation = EvaluationContext(variables: PredicateTree.bindings(from: context))
        return compiled(EvaluationSubject(object), &evaluation)
    }

    /// The throwing twin of `expressionValue(with:context:)`: where Apple raises (a `$VARIABLE`
    /// without a value, a set operation on something that is not a collection), this throws an
    /// `NSError` in `NSCocoaErrorDomain` naming the problem instead of answering nil.
    open func expressionValue(validating object: Any?, context: NSMutableDictionary?) throws -> Any? {
        var evaluation = EvaluationContext(variables: PredicateTree.bindings(from: context))
        let value = compiled(EvaluationSubject(object), &evaluation)
        if let error = evaluation.error { throw error.nsError }
        return value
    }

    /// Does nothing: expressions here are always allowed to evaluate (Apple requires this call
    /// after secure decoding).
    public func allowEvaluation() {}

    // MARK: - NSObject

    /// The expression in format-string syntax.
    open override var description: String {
        PredicatePrinter.format(node)
    }

    /// Expressions are equal when they have the same type and parts.
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSExpression else { return false }
        return other === self || other.node.isEqualOnAnyStack(to: node)
    }

    /// A hash consistent with `isEqual(_:)`.
    open override var hash: Int {
        node.hashValueOnAnyStack
    }

    /// Expressions are immutable; the copy is the same object.
    public func copy(with zone: NSZone? = nil) -> Any {
        self
    }

    // MARK: - Archiving

    // These are in the class body, not in NSExpression+Coding.swift with the conformance, because
    // the class is open: `init?(coder:)` must be `required`, and subclasses may override the rest.

    /// True: expressions can be archived with `NSKeyedArchiver` and read back by a secure
    /// `NSKeyedUnarchiver`.
    open class var supportsSecureCoding: Bool { true }

    /// Archives the expression and its operands under Apple's keys (`NSExpressionType`,
    /// `NSConstantValue`, `NSOperand`, `NSArguments`, …), each operand as an object of its own.
    ///
    /// ```swift
    /// let data = try NSKeyedArchiver.archivedData(
    ///     withRootObject: NSExpression(format: "salary * 1.1"), requiringSecureCoding: true)
    /// ```
    ///
    /// Block expressions, and constants that are not strings, numbers, dates, data, UUIDs, URLs,
    /// `NSNull` or collections of those, cannot be archived: the archiver's `error` is set, so
    /// `archivedData(withRootObject:requiringSecureCoding:)` throws (`NSCoderInvalidValueError`).
    ///
    /// **Differences from Apple:** Apple raises an exception for a block expression. The archive
    /// names this class `OpenPredicate.NSExpression` for every kind of expression (Apple writes
    /// `NSKeyPathExpression`, `NSConstantValueExpression`, …), so archives are not interchangeable
    /// with Apple's; `ArchiveKey` lists the keys that are ours.
    open func encode(with coder: NSCoder) {
        PredicateArchiver.encode(node, to: coder)
    }

    /// Reads an expression archived by `encode(with:)`.
    ///
    /// Every key is validated, and constants are decoded against an allow-list of classes. A
    /// malformed archive makes this initializer fail and the unarchiver report an error
    /// (`NSCoderReadCorruptError`) — or, if its `decodingFailurePolicy` is `.raiseException`
    /// (corelibs' default for `NSKeyedUnarchiver(forReadingFrom:)`; Apple's default is
    /// `.setErrorAndReturn`), stop the process, as corelibs does for every decoding failure.
    ///
    /// ```swift
    /// let expression = try NSKeyedUnarchiver.unarchivedObject(ofClass: NSExpression.self, from: data)
    /// ```
    ///
    /// **Differences from Apple:** decoded expressions can be evaluated at once;
    /// `allowEvaluation()` does nothing.
    public required init?(coder: NSCoder) {
        guard let node = PredicateUnarchiver.expression(from: coder) else { return nil }
        self.node = node
        super.init()
    }
}
