import Foundation

extension NSPredicate: _FoundationFactory {}

extension _FoundationFactory where Self == NSPredicate {
    /// Parses a predicate format string, taking `%@`, `%K`, `%d`, `%f`… from `args` in order.
    ///
    /// ```swift
    /// let p = NSPredicate(format: "lastName LIKE[c] %@ AND salary > %d", "Worsley", 50_000)
    /// p.predicateFormat  // lastName LIKE[c] "Worsley" AND salary > 50000
    /// ```
    ///
    /// The grammar is that of Apple's Predicate Programming Guide. Where the guide is silent,
    /// `NOT` binds tighter than `AND`, which binds tighter than `OR`; arithmetic is `**` over
    /// `* /` over `+ -`, each left-associative.
    ///
    /// Stops the process with Apple's message (`Unable to parse the format string "…"`) when the
    /// string does not parse, as Apple's raises. For strings that come from users, use
    /// `init(validatingFormat:_:)`, which throws instead.
    ///
    /// **Differences from Apple:** arguments are `Any?`, so Swift arrays, sets, dictionaries and
    /// `nil` pass directly (on Apple they bridge to `CVarArg` objects).
    public init(format predicateFormat: String, _ args: Any?...) {
        self = PredicateTree.predicate(PredicateTree.nodeOrTrap(predicateFormat, arguments: args))
    }

    /// Parses a predicate format string with its arguments in an array.
    public init(format predicateFormat: String, argumentArray arguments: [Any]?) {
        self = PredicateTree.predicate(PredicateTree.nodeOrTrap(predicateFormat, arguments: arguments ?? []))
    }

    /// The throwing twin of `init(format:_:)`: a malformed string throws an `NSError` in
    /// `NSCocoaErrorDomain` (code `NSFormattingError`) whose description starts with
    /// `Unable to parse the format string "…"` and names the line and column.
    public init(validatingFormat predicateFormat: String, _ args: Any?...) throws {
        self = PredicateTree.predicate(try PredicateTree.nodeOrThrow(predicateFormat, arguments: args))
    }

    /// The throwing twin of `init(format:argumentArray:)`.
    public init(validatingFormat predicateFormat: String, argumentArray arguments: [Any]?) throws {
        self = PredicateTree.predicate(try PredicateTree.nodeOrThrow(predicateFormat, arguments: arguments ?? []))
    }
}

extension NSPredicate {
    /// A copy with each `$VARIABLE` replaced by its value in `variables` (`NSNull` for nil; an
    /// `NSExpression` value is substituted as an expression).
    ///
    /// Stops the process with Apple's message when a variable has no value, as Apple's raises;
    /// `withSubstitutionVariables(validating:)` throws instead.
    public func withSubstitutionVariables(_ variables: [String: Any]) -> Self {
        do {
            return try withSubstitutionVariables(validating: variables)
        } catch {
            AppleException.invalidArgument(error.localizedDescription)
        }
    }

    /// The throwing twin of `withSubstitutionVariables(_:)`: a variable without a value throws
    /// an `NSError` in `NSCocoaErrorDomain` naming it.
    public func withSubstitutionVariables(validating variables: [String: Any]) throws -> Self {
        var substitution = Substitution(bindings: variables)
        let node = substitution.apply(PredicateTree.node(self))
        if let missing = substitution.missing {
            throw EvaluationError.unboundVariable(missing).nsError
        }
        let result = PredicateTree.predicate(node)
        guard let typed = result as? Self else {
            // A foreign subclass (or a compound built by corelibs) cannot be rebuilt as its own
            // type; `Self` is then a class our result does not inherit from.
            throw EvaluationError(message: "Can't substitute variables in a \(type(of: self))").nsError
        }
        return typed
    }

    /// Does nothing: predicates here are always allowed to evaluate (Apple requires this call
    /// after secure decoding).
    public func allowEvaluation() {}

    /// The throwing twin of `evaluate(with:substitutionVariables:)`: where Apple raises — a
    /// `$VARIABLE` without a value, a set operation on something that is not a collection, a
    /// function applied to the wrong number of values — this throws an `NSError` in
    /// `NSCocoaErrorDomain` naming the problem, where `evaluate(with:)` answers false.
    ///
    /// **Default:** no substitution variables.
    public func evaluate(validating object: Any?, substitutionVariables bindings: [String: Any]? = nil) throws -> Bool {
        let test = PredicateTree.compile(self)
        var context = EvaluationContext(variables: bindings ?? [:])
        let result = test(EvaluationSubject(object), &context)
        if let error = context.error { throw error.nsError }
        return result
    }
}

extension Sequence {
    /// The elements for which `predicate` holds, compiling it once for the whole sequence.
    ///
    /// The Swift counterpart of `NSArray.filtered(using:)`.
    @inlinable
    public func filtered(using predicate: Foundation.NSPredicate) -> [Element] {
        var matcher = _PredicateMatcher(predicate)
        var result: [Element] = []
        for element in self where matcher.matches(element) {
            result.append(element)
        }
        return result
    }
}

extension Sequence where Element: KeyValueCodable {
    /// The elements for which `predicate` holds, compiling it once for the whole sequence.
    ///
    /// Elements of a `KeyValueCodable` type are read without any dynamic cast: the fastest way
    /// to filter many objects.
    @inlinable
    public func filtered(using predicate: Foundation.NSPredicate) -> [Element] {
        var matcher = _PredicateMatcher(predicate)
        var result: [Element] = []
        for element in self where matcher.matches(codable: element) {
            result.append(element)
        }
        return result
    }
}
