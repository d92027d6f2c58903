import OpenPredicate

/// Rebuilds the predicates a compiled model holds (validation predicates, fetched properties'
/// and fetch request templates' predicates) from their archived objects, under Apple's keys
/// (`ArchiveKey` in OpenPredicate lists them).
///
/// Read: comparisons (`NSLeftExpression`, `NSRightExpression`, an `NSPredicateOperator` with
/// `NSOperatorType`, `NSModifier` and `NSOptions` or `NSFlags`), compound predicates
/// (`NSCompoundPredicateType`, `NSSubpredicates`), `TRUEPREDICATE`/`FALSEPREDICATE`, and the
/// expressions a model's predicates use: constants (`NSConstantValue`), `SELF`, variables
/// (`NSVariable`), key paths (`NSKeyPath`, directly or in Apple's `NSKeyPathSpecifierExpression`
/// argument) and aggregates (`NSCollection`). Anything else (functions, subqueries, custom
/// selectors) is refused with `NSFeatureUnsupportedError` naming it, rather than dropped.
struct ArchivedPredicateReader {
    let archive: ArchiveGraph
    /// The deepest nesting of predicates and expressions followed.
    static let maximumDepth = 64
    /// The most predicates and expressions one model's archive may unfold into (an archive can
    /// share one sub-predicate many times at every level).
    static let maximumNodes = 100_000
    private var nodes = 0

    init(archive: ArchiveGraph) {
        self.archive = archive
    }

    private mutating func countNode(_ what: String) throws {
        nodes += 1
        guard nodes <= Self.maximumNodes else {
            throw archive.error("\(what): the model's predicates hold more than \(Self.maximumNodes) parts")
        }
    }

    func unsupported(_ what: String) -> ModelFileError {
        ModelFileError(.unsupportedFormat, "\(what) cannot be read from a compiled model yet", file: archive.file)
    }

    mutating func predicate(_ value: PropertyListValue, what: String, depth: Int = 0) throws -> NSPredicate {
        try countNode(what)
        guard depth <= Self.maximumDepth else {
            throw archive.error("\(what) is nested more than \(Self.maximumDepth) levels deep (or refers to itself)")
        }
        guard let object = try archive.object(reference: value, what: what) else { throw archive.error("\(what) is null") }
        switch object.className {
        case "NSTruePredicate": return NSPredicate(value: true)
        case "NSFalsePredicate": return NSPredicate(value: false)
        case "NSCompoundPredicate":
            let raw = try archive.integer(object, "NSCompoundPredicateType") ?? -1
            guard let type = NSCompoundPredicate.LogicalType(rawValue: UInt(max(0, raw))), raw >= 0 else {
                throw archive.error("\(what) has unknown NSCompoundPredicateType \(raw)")
            }
            let parts = try archive.elements(object, "NSSubpredicates").map {
                try predicate($0, what: what, depth: depth + 1)
            }
            if type == .not && parts.count != 1 { throw archive.error("\(what) is a NOT of \(parts.count) predicates") }
            return NSCompoundPredicate(type: type, subpredicates: parts)
        case "NSComparisonPredicate":
            guard let operatorObject = try archive.object(object, "NSPredicateOperator") else {
                throw archive.error("\(what) has no NSPredicateOperator")
            }
            if operatorObject.className == "NSCustomPredicateOperator" { throw unsupported("\(what) (a custom selector)") }
            let rawType = try archive.integer(operatorObject, "NSOperatorType") ?? -1
            guard rawType >= 0, let type = NSComparisonPredicate.Operator(rawValue: UInt(rawType)) else {
                throw archive.error("\(what) has unknown NSOperatorType \(rawType)")
            }
            let rawModifier = try archive.integer(operatorObject, "NSModifier") ?? 0
            guard rawModifier >= 0, let modifier = NSComparisonPredicate.Modifier(rawValue: UInt(rawModifier)) else {
                throw archive.error("\(what) has unknown NSModifier \(rawModifier)")
            }
            let rawOptions = try archive.integer(operatorObject, "NSOptions") ?? archive.integer(operatorObject, "NSFlags") ?? 0
            let options = NSComparisonPredicate.Options(rawValue: UInt(max(0, rawOptions) & 0x7))
            guard let left = object.fields["NSLeftExpression"], let right = object.fields["NSRightExpression"] else {
                throw archive.error("\(what) lacks an expression")
            }
            return NSComparisonPredicate(
                leftExpression: try expression(left, what: what, depth: depth + 1),
                rightExpression: try expression(right, what: what, depth: depth + 1), modifier: modifier, type: type,
                options: options)
        default:
            throw unsupported("\(what) (an \(object.className))")
        }
    }

    mutating func expression(_ value: PropertyListValue, what: String, depth: Int) throws -> NSExpression {
        try countNode(what)
        guard depth <= Self.maximumDepth else {
            throw archive.error("\(what) is nested more than \(Self.maximumDepth) levels deep (or refers to itself)")
        }
        guard let object = try archive.object(reference: value, what: what) else {
            throw archive.error("\(what) has a null expression")
        }
        let type = try archive.integer(object, "NSExpressionType") ?? -1
        switch type {
        case 0:
            let constant = try archive.plainValue(object.fields["NSConstantValue"], what: "a constant of \(what)")
            return NSExpression(forConstantValue: constant)
        case 1:
            return NSExpression.expressionForEvaluatedObject()
        case 2:
            guard let name = try archive.string(object, "NSVariable") else {
                throw archive.error("\(what) has a variable without a name")
            }
            return NSExpression(forVariable: name)
        case 3:
            if let keyPath = try archive.string(object, "NSKeyPath") { return NSExpression(forKeyPath: keyPath) }
            if let operand = try archive.object(object, "NSOperand"),
                try archive.integer(operand, "NSExpressionType") != 1
            {
                throw unsupported("\(what) (a key path on something other than SELF)")
            }
            let arguments = try archive.elements(object, "NSArguments")
            guard let first = arguments.first, let specifier = try archive.object(reference: first, what: what),
                let keyPath = try archive.string(specifier, "NSKeyPath")
            else {
                throw archive.error("\(what) has a key path expression without a key path")
            }
            return NSExpression(forKeyPath: keyPath)
        case 4:
            // A function of Foundation's (`count:`, `sum:`, …): its operand is the constant class
            // `_NSPredicateUtilities`, as in the derived attributes Apple's Core Data archives.
            guard let selector = try archive.string(object, "NSSelectorName") else {
                throw archive.error("\(what) has a function expression without a selector")
            }
            // A key path on a variable (`$FETCHED_PROPERTY.userInfo.search`) is archived as
            // `valueForKeyPath:` on the variable.
            if selector == "valueForKeyPath:", let operandValue = object.fields["NSOperand"] {
                let operand = try expression(operandValue, what: what, depth: depth + 1)
                let arguments = try archive.elements(object, "NSArguments")
                // The key path: a key path specifier (expression type 10), or a constant string.
                let specifier = try arguments.first.flatMap { try archive.object(reference: $0, what: what) }
                let keyPath =
                    try specifier.flatMap {
                        try archive.integer($0, "NSExpressionType") == 10 ? archive.string($0, "NSKeyPath") : nil
                    }
                    ?? arguments.first.flatMap { try? expression($0, what: what, depth: depth + 1).constantValue as? String }
                guard arguments.count == 1, let keyPath,
                    let joined = try? NSExpression(validatingFormat: "\(operand.description).\(keyPath)", argumentArray: [])
                else {
                    throw unsupported("\(what) (valueForKeyPath: without one constant key path)")
                }
                return joined
            }
            if let operand = try archive.object(object, "NSOperand"),
                try archive.string(operand, "NSConstantValueClassName") != "_NSPredicateUtilities"
            {
                throw unsupported("\(what) (a function of an object other than Foundation's: \(selector))")
            }
            let arguments = try archive.elements(object, "NSArguments").map {
                try expression($0, what: what, depth: depth + 1)
            }
            return NSExpression(forFunction: selector, arguments: arguments)
        case 14:
            let elements = try archive.elements(object, "NSCollection").map {
                try expression($0, what: what, depth: depth + 1)
            }
            return NSExpression(forAggregate: elements)
        default:
            throw unsupported("\(what) (an \(object.className), expression type \(type))")
        }
    }
}
