import OpenPredicate

/// A column of a dictionary fetch that is computed from an expression (an aggregate such as
/// `sum:`, a function, a key path) rather than read from a property of the entity. Use it in a
/// fetch request's `propertiesToFetch`; do not add it to an entity's `properties`.
///
/// ```swift
/// let total = NSExpressionDescription()
/// total.name = "total"
/// total.expression = NSExpression(forFunction: "sum:", arguments: [NSExpression(forKeyPath: "salary")])
/// total.expressionResultType = .decimalAttributeType
/// ```
///
/// See [NSExpressionDescription](https://developer.apple.com/documentation/coredata/nsexpressiondescription).
open class NSExpressionDescription: NSPropertyDescription, @unchecked Sendable {
    // @unchecked Sendable: as `NSPropertyDescription`.

    /// The expression that computes the column. **Default:** `nil`.
    open var expression: NSExpression? {
        willSet { ensureEditable() }
    }

    /// The type of the expression's result. **Default:** `.undefinedAttributeType`.
    open var expressionResultType: NSAttributeType = .undefinedAttributeType {
        willSet { ensureEditable() }
    }

    override func copyValues(from other: NSPropertyDescription) {
        super.copyValues(from: other)
        guard let other = other as? NSExpressionDescription else { return }
        expression = other.expression
        expressionResultType = other.expressionResultType
    }

    override var kindDescription: String { "expression" }

    override var detailDescriptions: [String] {
        var details = ["type \(expressionResultType.modelFileName)"]
        if let expression { details.append("expression \(expression)") }
        return details
    }
}
