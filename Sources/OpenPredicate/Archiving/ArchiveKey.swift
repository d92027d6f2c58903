/// The keys predicates, expressions and sort descriptors are archived under.
///
/// Apple's keys where they are known (from Apple's Foundation as GNUstep, Cocotron, Cappuccino
/// and Apportable document and reimplement it); the few keys Apple does not have are marked
/// **Ours** with the reason. Raw values (operator, modifier, options, expression and compound
/// types) are Apple's.
///
/// The object layout follows Apple's too: a comparison holds its two expressions and a separate
/// operator object; an expression holds its operands as expression objects.
enum ArchiveKey {
    // MARK: - NSComparisonPredicate

    /// The left expression of a comparison; also of `UNION`/`INTERSECT`/`MINUS`
    /// (Apple's `NSSetExpression`).
    static let leftExpression = "NSLeftExpression"
    /// The right expression of a comparison or set expression.
    static let rightExpression = "NSRightExpression"
    /// The operator object of a comparison (Apple's `NSPredicateOperator`).
    static let predicateOperator = "NSPredicateOperator"

    // MARK: - NSPredicateOperator

    /// The operator's `NSComparisonPredicate.Operator` raw value.
    static let operatorType = "NSOperatorType"
    /// The `NSComparisonPredicate.Modifier` raw value.
    static let modifier = "NSModifier"
    /// The option bits of `<`, `<=`, `>`, `>=`, `==`, `!=` and `BETWEEN` (Apple's
    /// `NSComparisonPredicateOperator` and `NSEqualityPredicateOperator`).
    static let options = "NSOptions"
    /// The option bits of `MATCHES`, `LIKE`, `BEGINSWITH`, `ENDSWITH`, `IN` and `CONTAINS`
    /// (Apple's string and `IN` operators).
    static let flags = "NSFlags"
    /// The selector of a custom-selector comparison (`NSCustomPredicateOperator`) or of a
    /// function expression.
    static let selectorName = "NSSelectorName"

    // MARK: - NSCompoundPredicate

    /// `NSCompoundPredicate.LogicalType` raw value: 0 NOT, 1 AND, 2 OR.
    static let compoundPredicateType = "NSCompoundPredicateType"
    /// The subpredicates, an array.
    static let subpredicates = "NSSubpredicates"

    // MARK: - TRUEPREDICATE / FALSEPREDICATE

    /// **Ours.** The value of `TRUEPREDICATE`/`FALSEPREDICATE`. Apple archives them as two
    /// classes without keys (`NSTruePredicate`, `NSFalsePredicate`); here one class says which.
    static let predicateValue = "NSPredicateValue"

    // MARK: - NSExpression

    /// The `NSExpression.ExpressionType` raw value (plus Apple's private 11 for `FIRST`, `LAST`,
    /// `SIZE`). Every expression has one.
    static let expressionType = "NSExpressionType"
    /// A constant's value, when it is an object (string, date, data, UUID, URL, `NSNull`, a
    /// collection) or nil.
    static let constantValue = "NSConstantValue"
    /// **Ours.** A constant `Bool`, stored inline. Numbers are not stored as `NSNumber` objects
    /// under `constantValue`: swift-corelibs-foundation's archiver merges objects that are
    /// `isEqual`, so `1` and `1.0` (or `true`) in one archive would come back as the same number.
    static let constantBool = "NSConstantBool"
    /// **Ours.** A constant signed integer (any width up to 64 bits), stored inline.
    static let constantInteger = "NSConstantInteger"
    /// **Ours.** A constant unsigned integer above `Int64.max`, stored inline as its bit pattern.
    static let constantUnsignedInteger = "NSConstantUnsignedInteger"
    /// **Ours.** A constant `Double` (or `CGFloat`, or a floating-point `NSNumber`), inline.
    static let constantDouble = "NSConstantDouble"
    /// **Ours.** A constant `Float`, inline (it prints differently from the same `Double`).
    static let constantFloat = "NSConstantFloat"
    /// **Ours.** A constant `Decimal` as its string: corelibs' archiver crashes hashing an
    /// `NSDecimalNumber`.
    static let constantDecimal = "NSConstantDecimal"
    /// A variable's name, without `$`; also the iteration variable of a subquery.
    static let variable = "NSVariable"
    /// **Ours in this place.** A key path expression's dotted key path. Apple stores it one level
    /// down, in an `NSKeyPathSpecifierExpression` (under this same key) that is the argument of a
    /// `valueForKeyPath:` function expression.
    static let keyPath = "NSKeyPath"
    /// The receiver of `FUNCTION(receiver, 'selector', …)`, or the base of `$x.key`.
    static let operand = "NSOperand"
    /// The arguments of a function expression, an array of expressions.
    static let arguments = "NSArguments"
    /// The elements of an aggregate expression (`{a, b}`), an array of expressions.
    static let collection = "NSCollection"
    /// The collection a subquery iterates over.
    static let subqueryCollection = "NSExpression"
    /// The predicate of a subquery.
    static let subpredicate = "NSSubpredicate"
    /// The predicate of a conditional (`TERNARY`).
    static let predicate = "NSPredicate"
    /// The expression a conditional returns when its predicate holds.
    static let trueExpression = "NSTrueExpression"
    /// The expression a conditional returns when its predicate fails.
    static let falseExpression = "NSFalseExpression"
    /// `FIRST`, `LAST` or `SIZE` in an index (Apple's `NSSymbolicExpression`).
    static let token = "NSToken"

    // MARK: - NSSortDescriptor

    /// The key path a sort descriptor sorts by; absent for a nil key.
    static let key = "NSKey"
    /// Whether a sort descriptor sorts ascending.
    static let ascending = "NSAscending"
    /// The name of a sort descriptor's comparison selector (`compare:`).
    static let selector = "NSSelector"
}
