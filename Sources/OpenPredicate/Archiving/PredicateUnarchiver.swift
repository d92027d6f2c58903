import Foundation

/// Reads predicate and expression trees back from a keyed archive: the unarchiving back end,
/// one switch over the archived expression types.
///
/// Each `init?(coder:)` of an archivable class calls one function here. Everything read is
/// validated — keys present, objects of the expected class, raw values Apple defines, function
/// names and argument counts the evaluator knows, constants from the allow-list, nesting within
/// `ArchiveLimits.maxDepth` — and anything else fails: the coder is told through
/// `failWithError(_:)` and the initializer returns nil, so `NSKeyedUnarchiver` reports an error
/// (`NSCoderReadCorruptError`) instead of the process stopping.
///
/// **Differences from Apple:** with corelibs' default `decodingFailurePolicy`, `.raiseException`,
/// any failure stops the process (corelibs' own `fatalError`); Apple's unarchivers default to
/// `.setErrorAndReturn`, as `NSKeyedUnarchiver.unarchivedObject(ofClasses:from:)` does here.
enum PredicateUnarchiver {
    // MARK: - Predicates

    /// The tree in any predicate object: a comparison, a compound or a constant, told apart by
    /// their keys.
    static func predicate(from coder: NSCoder) -> PredicateNode? {
        if coder.containsValue(forKey: ArchiveKey.predicateOperator) {
            return comparison(from: coder).map(PredicateNode.comparison)
        }
        if coder.containsValue(forKey: ArchiveKey.compoundPredicateType) {
            return compound(from: coder)
        }
        return constantPredicate(from: coder).map(PredicateNode.constant)
    }

    /// The comparison in an `NSComparisonPredicate` object.
    static func comparison(from coder: NSCoder) -> ComparisonNode? {
        read(coder) { reader throws(ArchivingError) in
            let predicateOperator = try reader.predicateOperator(ArchiveKey.predicateOperator)
            return ComparisonNode(
                left: try reader.expression(ArchiveKey.leftExpression),
                right: try reader.expression(ArchiveKey.rightExpression),
                operatorType: predicateOperator.operatorType,
                modifier: predicateOperator.modifier,
                options: predicateOperator.options,
                customSelector: predicateOperator.customSelector)
        }
    }

    /// The AND, OR or NOT in an `NSCompoundPredicate` object.
    static func compound(from coder: NSCoder) -> PredicateNode? {
        read(coder) { reader throws(ArchivingError) in
            let rawType = try reader.integer(ArchiveKey.compoundPredicateType)
            guard let type = UInt(exactly: rawType).flatMap(NSCompoundPredicate.LogicalType.init(rawValue:)) else {
                throw .malformed("Unknown compound predicate type \(rawType)", key: ArchiveKey.compoundPredicateType)
            }
            let children = try reader.predicates(ArchiveKey.subpredicates)
            switch type {
            case .and: return .and(children)
            case .or: return .or(children)
            case .not:
                guard children.count == 1, let child = children.first else {
                    throw .malformed(
                        "A NOT predicate has \(children.count) subpredicates, not 1", key: ArchiveKey.subpredicates)
                }
                return .not(child)
            @unknown default:
                throw .malformed("Unknown compound predicate type \(rawType)", key: ArchiveKey.compoundPredicateType)
            }
        }
    }

    /// The value of a `TRUEPREDICATE`/`FALSEPREDICATE` object.
    static func constantPredicate(from coder: NSCoder) -> Bool? {
        read(coder) { reader throws(ArchivingError) in try reader.bool(ArchiveKey.predicateValue) }
    }

    /// The parts of a comparison's operator object.
    static func predicateOperator(from coder: NSCoder) -> PredicateOperator? {
        read(coder) { reader throws(ArchivingError) in
            let rawType = try reader.integer(ArchiveKey.operatorType)
            guard let operatorType = UInt(exactly: rawType).flatMap(ComparisonOperator.init(rawValue:)) else {
                throw .malformed("Unknown predicate operator type \(rawType)", key: ArchiveKey.operatorType)
            }
            let rawModifier = try reader.integer(ArchiveKey.modifier)
            guard let modifier = UInt(exactly: rawModifier).flatMap(ComparisonModifier.init(rawValue:)) else {
                throw .malformed("Unknown comparison modifier \(rawModifier)", key: ArchiveKey.modifier)
            }
            let optionsKey = reader.contains(ArchiveKey.options) ? ArchiveKey.options : ArchiveKey.flags
            let rawOptions = reader.contains(optionsKey) ? try reader.integer(optionsKey) : 0
            let known: ComparisonOptions = [.caseInsensitive, .diacriticInsensitive, .normalized, .localeSensitive]
            guard let bits = UInt(exactly: rawOptions), known.isSuperset(of: ComparisonOptions(rawValue: bits)) else {
                throw .malformed("Unknown comparison options \(rawOptions)", key: optionsKey)
            }
            var customSelector: String?
            if operatorType == .customSelector {
                customSelector = try reader.string(ArchiveKey.selectorName)
            }
            return PredicateOperator(
                operatorType: operatorType, modifier: modifier, options: ComparisonOptions(rawValue: bits),
                customSelector: customSelector)
        }
    }

    // MARK: - Expressions

    /// The tree of an `NSExpression` object.
    static func expression(from coder: NSCoder) -> ExpressionNode? {
        read(coder) { reader throws(ArchivingError) in try expression(reader) }
    }

    private static func expression(_ reader: ArchiveReader) throws(ArchivingError) -> ExpressionNode {
        let rawType = try reader.integer(ArchiveKey.expressionType)
        typealias Kind = NSExpression.ExpressionType
        guard let code = UInt(exactly: rawType) else {
            throw .malformed("Unknown expression type \(rawType)", key: ArchiveKey.expressionType)
        }
        switch code {
        case Kind.constantValue.rawValue:
            return .constant(ConstantValue(try ArchivedConstant.decode(from: reader)))
        case Kind.evaluatedObject.rawValue:
            return .evaluatedObject
        case Kind.variable.rawValue:
            return .variable(try reader.string(ArchiveKey.variable))
        case Kind.keyPath.rawValue:
            if reader.contains(ArchiveKey.keyPath) {
                return .keyPath(KeyPathComponents(try reader.string(ArchiveKey.keyPath)))
            }
            let function = try builtinFunction(reader)
            guard case .function("valueForKeyPath:", _) = function else {
                throw .malformed("A key path expression has neither NSKeyPath nor valueForKeyPath:", key: ArchiveKey.keyPath)
            }
            return function
        case Kind.function.rawValue:
            guard reader.contains(ArchiveKey.operand) else { return try builtinFunction(reader) }
            return .customFunction(
                receiver: try reader.expression(ArchiveKey.operand),
                selector: try reader.string(ArchiveKey.selectorName),
                arguments: try reader.expressions(ArchiveKey.arguments))
        case Kind.unionSet.rawValue:
            return .set(
                .union, try reader.expression(ArchiveKey.leftExpression), try reader.expression(ArchiveKey.rightExpression))
        case Kind.intersectSet.rawValue:
            return .set(
                .intersect, try reader.expression(ArchiveKey.leftExpression), try reader.expression(ArchiveKey.rightExpression))
        case Kind.minusSet.rawValue:
            return .set(
                .minus, try reader.expression(ArchiveKey.leftExpression), try reader.expression(ArchiveKey.rightExpression))
        case PredicateArchiver.symbolicExpressionType:
            let token = try reader.string(ArchiveKey.token)
            guard let symbol = ExpressionNode.IndexSymbol(rawValue: token) else {
                throw .malformed("Unknown index symbol \(token)", key: ArchiveKey.token)
            }
            return .symbol(symbol)
        case Kind.subquery.rawValue:
            return .subquery(
                collection: try reader.expression(ArchiveKey.subqueryCollection),
                variable: try reader.string(ArchiveKey.variable),
                predicate: try reader.predicate(ArchiveKey.subpredicate))
        case Kind.aggregate.rawValue:
            return .aggregate(try reader.expressions(ArchiveKey.collection))
        case Kind.anyKey.rawValue:
            return .anyKey
        case Kind.conditional.rawValue:
            return .conditional(
                try reader.predicate(ArchiveKey.predicate),
                try reader.expression(ArchiveKey.trueExpression),
                try reader.expression(ArchiveKey.falseExpression))
        case Kind.block.rawValue:
            throw .malformed("A block expression cannot be unarchived", key: ArchiveKey.expressionType)
        default:
            throw .malformed("Unknown expression type \(rawType)", key: ArchiveKey.expressionType)
        }
    }

    /// One of Apple's predefined functions, checked against the table the evaluator uses.
    private static func builtinFunction(_ reader: ArchiveReader) throws(ArchivingError) -> ExpressionNode {
        let name = try reader.string(ArchiveKey.selectorName)
        let arguments = try reader.expressions(ArchiveKey.arguments)
        guard let arity = BuiltinFunctions.arity(of: name) else {
            throw .malformed("\(name) is not a supported function", key: ArchiveKey.selectorName)
        }
        guard arity.contains(arguments.count) else {
            throw .malformed("\(name) takes \(arity) arguments, not \(arguments.count)", key: ArchiveKey.arguments)
        }
        return .function(name: name, arguments: arguments)
    }

    // MARK: - Reporting

    /// `body` one level deeper, or nil after telling the coder why it failed.
    static func read<T>(_ coder: NSCoder, _ body: (ArchiveReader) throws(ArchivingError) -> T) -> T? {
        do throws(ArchivingError) {
            guard coder.allowsKeyedCoding else {
                throw .malformed("NSPredicates and NSExpressions cannot be decoded by non-keyed archivers")
            }
            return try ArchiveDepth.nested(.decoding) { () throws(ArchivingError) in try body(ArchiveReader(coder: coder)) }
        } catch {
            if !error.isAlreadyReported { coder.failWithError(error.nsError) }
            return nil
        }
    }
}
